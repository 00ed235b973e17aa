"""The whole environment printed, serialized or walked from interpreter code is `credential_access`, like
`printenv`: the agent's model API key and its run's agent key are in there. Reading one
variable, or handing the environment to a child process, is ordinary."""

from __future__ import annotations

import pytest

from gateway.shell import analyze

CWD, HOME = "/home/user/project", "/home/user"

DUMPS = [
    "python3 -c 'import os; print(dict(os.environ))'",
    "python3 -c 'import os, yaml; print(yaml.safe_dump(dict(os.environ)))'",
    "python3 -c 'import os, sys; sys.stdout.write(str(os.environ))'",
    "python3 -c 'import os\nfor name in os.environ: print(name, os.environ[name])'",
    "python3 -c 'import os as o; print([f\"{k}={v}\" for k, v in o.environ.items()])'",
    "python3 -c 'import os, logging; logging.warning(os.environ.copy())'",
    "python3 - <<'EOF'\nimport os, pprint\npprint.pprint(os.environ)\nEOF",
    "node -e 'console.dir(process.env)'",
    "node -e 'console.log(Object.entries(process.env))'",
    "node -e 'require(\"fs\").writeFileSync(\"env.json\", JSON.stringify(process.env))'",
    "ruby -e 'pp ENV'",
    "ruby -e 'ENV.each_pair { |k, v| puts k + v }'",
    "perl -e 'print join(\"\\n\", map { \"$_=$ENV{$_}\" } keys %ENV)'",
    "perl -e 'for my $k (keys %ENV) { print \"$k\\n\" }'",
    "php -r 'var_export($_SERVER);'",
    "php -r 'echo json_encode(getenv());'",
]

ORDINARY = [
    "python3 -c 'import os; print(os.environ[\"PATH\"])'",
    "python3 -c 'import os; print(os.getenv(\"VIRTUAL_ENV\"))'",
    "python3 -c 'import os, subprocess; subprocess.run([\"pytest\"], env={**os.environ, \"CI\": \"1\"})'",
    "python3 -c 'import os, subprocess; subprocess.run([\"make\"], env=os.environ.copy())'",
    "python3 -c 'import os; print(\"DEBUG\" in os.environ)'",
    "node -e 'console.log(process.env.NODE_ENV)'",
    "ruby -e 'puts ENV.fetch(\"HOME\")'",
    "perl -e 'print $ENV{PATH}'",
    "php -r 'echo getenv(\"APP_ENV\");'",
]


@pytest.mark.parametrize("command", DUMPS)
def test_whole_environment_dumps_are_credential_access(command: str) -> None:
    assert "credential_access" in analyze(command, CWD, HOME).categories


@pytest.mark.parametrize("command", ORDINARY)
def test_single_variables_and_child_environments_are_fine(command: str) -> None:
    assert "credential_access" not in analyze(command, CWD, HOME).categories
