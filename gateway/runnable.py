"""What a written file will do when it runs: a Write or Edit judged by its content.

A file that is later run by name — a shell script, a Makefile, package.json scripts, a justfile or
Taskfile, an interpreter's source, a CI definition — is code, and writing it is the first half of running
it (docs/rules.md#what-runs-is-judged). ``run_equivalent`` turns such a write into the shell command that
stands for running it (the content attached as the command hook would attach it), so the same isolated,
bounded analysis judges it; the dispatcher carries the categories in ``CARRIED`` over to the write.

Categories outside ``CARRIED`` (an install, a push, a command built at run time) are everyday lines in a
script and would make writing one a chore; they are judged when the file actually runs, through the
command hook's attachments.
"""

from __future__ import annotations

import html
import posixpath
import re
import shlex
from collections.abc import Mapping
from typing import Any

from gateway import patches
from gateway.credentials import is_secret_variable
from gateway.paths import resolve
from gateway.shell import buildhooks, declared, recipes
from gateway.shell import categories as cat
from gateway.shell.analysis import Attached
from gateway.shell.generic import BASH_LIKE_SHELLS, shebang

# What a written file's run would do that makes the write itself refused (or sent to a human).
CARRIED = frozenset({
    cat.DESTRUCTIVE_DELETE, cat.DISK_WRITE, cat.POWER, cat.FORK_BOMB, cat.SYSTEM_PERMISSION_CHANGE,
    cat.SYSTEM_WRITE, cat.HISTORY_TAMPER, cat.CREDENTIAL_ACCESS, cat.GATE_TAMPER, cat.GATEWAY_STATE,
    cat.DESTRUCTIVE_GIT, cat.PERSISTENCE, cat.PROCESS_KILL, cat.REMOTE_CODE, cat.REVERSE_SHELL,
    cat.EXFILTRATION, cat.INFRA_DESTROY, cat.DATABASE_DESTROY,
})

_INTERPRETERS = {".py": "python3", ".js": "node", ".mjs": "node", ".cjs": "node", ".rb": "ruby", ".pl": "perl",
                 ".php": "php", ".R": "Rscript", ".r": "Rscript", ".jl": "julia", ".ps1": "pwsh -File",
                 ".csx": "dotnet-script", ".dart": "dart run",
                 # sources a build runs (Unity's editor scripts, a tool's Main): read for what their text names
                 ".cs": "dotnet-script", ".java": "java", ".kt": "kotlin", ".rs": "rust-script", ".c": "tcc -run",
                 ".cpp": "cling", ".cc": "cling"}
# MSBuild project files run their `<Exec Command="…">` tasks on every build or test.
_MSBUILD = (".csproj", ".fsproj", ".vbproj", ".proj", ".props", ".targets")
_MSBUILD_PROPERTY = re.compile(r"\$\((\w+)\)")
_MSBUILD_EXEC = re.compile(r'<Exec\b[^>]*?\bCommand\s*=\s*"([^"]{1,4000})"')
# Commands a tool runs on the host while it builds a machine: Vagrant triggers (`run = {inline: "…"}`), Packer's
# shell-local provisioner and post-processor (`inline = ["…"]`).
_HOST_INLINE = re.compile(r"""\binline\s*(?::|=)\s*(?:\[\s*)?((?:"(?:[^"\\\n]|\\.){1,2000}"\s*,?\s*){1,32})""")
_SHELL_SUFFIXES = (".sh", ".bash", ".zsh", ".ksh", ".bats", ".command")
_MAKEFILES = frozenset({"Makefile", "makefile", "GNUmakefile"})
_JUSTFILES = frozenset({"justfile", "Justfile", ".justfile"})
_TASKFILES = frozenset({"Taskfile.yml", "Taskfile.yaml", "taskfile.yml"})
# CI definitions: the files a CI service runs, by path (GitHub, GitLab, CircleCI, Buildkite, Bitbucket,
# Azure Pipelines, Travis, Drone, Woodpecker, Jenkins).
_CI_FILES = frozenset({".gitlab-ci.yml", ".gitlab-ci.yaml", "bitbucket-pipelines.yml", "bitbucket-pipelines.yaml",
                       "azure-pipelines.yml", "azure-pipelines.yaml", ".travis.yml", ".drone.yml", ".drone.yaml",
                       ".woodpecker.yml", ".woodpecker.yaml", "Jenkinsfile", "cloudbuild.yaml", "cloudbuild.yml",
                       "buildspec.yml", "appveyor.yml", ".cirrus.yml", "codemagic.yaml", ".gitea-ci.yml"})
_CI_DIRS = (".github/workflows/", ".circleci/", ".buildkite/", ".woodpecker/", ".gitlab/ci/", ".github/actions/",
            ".forgejo/workflows/", ".gitea/workflows/", ".semaphore/", ".harness/", ".tekton/", ".azure-pipelines/",
            ".azuredevops/", ".pipelines/")
# An Azure Pipelines template anywhere (`pipelines/templates/deploy.yml`): its steps name tasks as `Name@N`, or are
# `script:`/`bash:`/`pwsh:` steps.
_ADO_STEPS = re.compile(r"(?m)^\s*-\s*(?:task:\s*[A-Za-z][\w.-]*@\d+|(?:script|bash|pwsh|powershell):\s)")
_MAX_TEXT = 1 << 16
_SALT_COMMAND = re.compile(r"(?m)^\s*-\s*name:\s*(.+)$")  # in a state file that runs commands (cmd.*)
_XCODE_SCRIPT = re.compile(r'shellScript\s*=\s*"((?:[^"\\]|\\.)*)"')


def written_text(input: Mapping[str, Any]) -> str | None:
    """The text a write puts in the file: the whole content, or what an edit inserts."""
    for key in ("content", "new_string", "newString", "file_text", "new_str"):
        value = input.get(key)
        if isinstance(value, str):
            return value
    edits = input.get("edits")
    if isinstance(edits, list):
        parts = [e.get("new_string") for e in edits[:64] if isinstance(e, dict)]
        return "\n".join(p for p in parts if isinstance(p, str)) or None
    return None


# Editor and agent settings that let an agent act without asking, or make an editor run a task on its own.
_AUTO_APPROVE = re.compile(r"""["']?[\w.-]*(?:auto[-_.]?approve|autoapprove|yolo|always[-_]?allow"""
                           r"""|allowed[-_]?commands"""
                           r"""|auto[-_]?run|dangerously|skip[-_]?permissions|bypass[-_]?permissions|trust[-_]?all"""
                           r"""|chat\.tools\.|terminal\.integrated\.(?:automationprofile|env\.)|approval[-_]?policy"""
                           r"""|sandbox[-_]?mode|auto[-_]?execute|yes[-_]?always|unsafe)[\w.-]*["']?\s*[:=]""", re.I)
_RUNS_ON_OPEN = re.compile(r""""runOn"\s*:\s*"folderOpen"|"runOptions"\s*:\s*\{[^}]*folderOpen""", re.I)
_VARIABLE = re.compile(r"\$\{?([A-Z][A-Z0-9_]*)\b")
_PWN_REQUEST = re.compile(r"\bpull_request_target\b")
_PR_HEAD = re.compile(r"github\.event\.pull_request\.head\.(?:sha|ref)|refs/pull/|github\.head_ref")
_SETTINGS_FILES = ("settings.json", "settings.local.json", "config.toml", "config.json", "config.yaml", "config.yml",
                   ".aider.conf.yml")


def content_categories(path: str, text: str) -> set[str]:
    """What a write does through its content alone: an editor or agent told to stop asking (`gate_tamper`),
    an editor task that runs whenever the folder opens (`persistence`)."""
    name = posixpath.basename(path)
    found: set[str] = set()
    text = text[:_MAX_TEXT]
    if name.endswith(_SETTINGS_FILES) and _AUTO_APPROVE.search(text):
        found.add(cat.GATE_TAMPER)
    if name == "tasks.json" and _RUNS_ON_OPEN.search(text):
        found.add(cat.PERSISTENCE)
    if is_ci_definition(path, text) and _PWN_REQUEST.search(text) and _PR_HEAD.search(text):
        found.add(cat.REMOTE_CODE)  # `pull_request_target` checking out the pull request: its code runs with secrets
    if any(path.endswith("/" + m) for m in declared.MISE) and declared.has_mise_hooks(text):
        found.add(cat.PERSISTENCE)  # mise runs its hooks by itself, whenever a shell enters the folder
    return found


def write_equivalent(input: Mapping[str, Any], cwd: str | None, home: str) -> tuple[str, Attached] | None:
    """``run_equivalent`` of a Write/Edit call's input (Claude's or Gemini's), or None."""
    raw = input.get("file_path") or input.get("absolute_path") or input.get("filePath") or input.get("path")
    text = written_text(input)
    if not isinstance(raw, str) or not raw or text is None:
        return None
    return run_equivalent(resolve(raw, cwd, home), text)


def patch_equivalents(input: Mapping[str, Any], cwd: str | None, home: str) -> list[tuple[str, Attached]]:
    """``run_equivalent`` of every file a patch adds to or changes (an apply_patch call: ``gateway.patches``),
    judged on the lines it adds; at most ``MAX_JUDGED`` files (the rest are judged by their paths)."""
    text = patches.patch_text(input)
    changes = patches.parse(text) if text is not None else None
    found: list[tuple[str, Attached]] = []
    for change in changes or ():
        if change.added and len(found) < MAX_JUDGED:
            equivalent = run_equivalent(resolve(change.move_to or change.path, cwd, home), change.added)
            if equivalent is not None:
                found.append(equivalent)
    return found


MAX_JUDGED = 16


def shell_written(texts: tuple[tuple[str, str], ...]) -> tuple[set[str], list[tuple[str, Attached]]]:
    """A shell command's writes of text it spells out (`cat > Makefile <<'EOF'`), judged as an editor's writes of
    that text are: the categories the text alone shows, and the command standing for running each file."""
    found: set[str] = set()
    equivalents: list[tuple[str, Attached]] = []
    for path, text in texts[:MAX_JUDGED]:
        found |= content_categories(path, text)
        equivalent = run_equivalent(path, text)
        if equivalent is not None:
            equivalents.append(equivalent)
    return found, equivalents


def is_ci_definition(path: str, text: str = "") -> bool:
    name = posixpath.basename(path)
    # GitLab's included files (`x.gitlab-ci.yml`), Jenkinsfiles by any suffix (`Jenkinsfile.debug`, `x.Jenkinsfile`)
    return name in _CI_FILES or name.endswith((".gitlab-ci.yml", ".gitlab-ci.yaml", ".Jenkinsfile")) or (
        name.startswith("Jenkinsfile")) or (
        any(f"/{d}" in path for d in _CI_DIRS) and name.endswith((".yml", ".yaml"))) or (
        "/.teamcity/" in f"/{path}" and name.endswith(".kts")) or (
        name.endswith((".yml", ".yaml")) and ("tekton.dev/" in text[:4096]  # a Tekton Task or Pipeline
                                              or _ADO_STEPS.search(text[:_MAX_TEXT]) is not None))


def run_equivalent(path: str, text: str) -> tuple[str, Attached] | None:
    """The shell command that stands for running the file at ``path`` holding ``text``, and the files to
    attach to it; None when the file is not something that runs."""
    text = text[:_MAX_TEXT]
    name = posixpath.basename(path)
    if is_ci_definition(path, text):
        command = ci_commands(text)
        return (command, ()) if command else None
    if name in _MAKEFILES or name.endswith(".mk"):
        return "\n".join(recipes.makefile(text, None)), ()
    if name == "package.json":
        return "\n".join(recipes.package_scripts(text, None)), ()
    if name in _JUSTFILES:
        return "\n".join(recipes.justfile(text, None)), ()
    if name in _TASKFILES:
        return "\n".join(recipes.taskfile(text, None)), ()
    if name.startswith("Procfile"):
        return "\n".join(recipes.procfile(text)), ()
    if name in declared.PRE_COMMIT:  # its local hooks run on `pre-commit run` and on every commit
        return "\n".join(declared.pre_commit_hooks(text)), ()
    if any(path.endswith("/" + m) for m in declared.MISE):  # its tasks and hooks
        return "\n".join(declared.mise_lines(text, None)), ()
    if declared.is_workflow_file(name):  # a workflow engine runs its rules' and processes' commands
        return "\n".join(declared.workflow_commands(name, text)), ()
    if name in declared.TILTFILES:  # `tilt up` runs its local commands
        return "\n".join(declared.tiltfile_commands(text)), ()
    if name == "composer.json":  # its scripts, run by composer's events and by name
        return "\n".join(buildhooks.composer_scripts(text, None) or buildhooks.loose_strings(text)), ()
    if name in ("deno.json", "deno.jsonc"):
        return "\n".join(buildhooks.deno_tasks(text, None) or buildhooks.loose_strings(text)), ()
    if name == "project.pbxproj":  # Xcode's Run Script build phases
        return "\n".join(_XCODE_SCRIPT.findall(text)).replace('\\"', '"').replace("\\n", "\n"), ()
    if name == "build.rs":  # cargo runs it before every build of its package
        directory = posixpath.dirname(path)
        return f"cd {shlex.quote(directory)} && cargo build", ((path, text),)
    if name.endswith((".gradle", ".gradle.kts")):  # a build script (or one it applies): its tasks run on a build
        return f"gradle -b {shlex.quote(path)} build", ((path, text),)
    if name.endswith(".go") and not name.endswith("_test.go") and re.search(r"(?m)^package main\b", text):
        return f"go run {shlex.quote(path)}", ((path, text),)  # a program: `go run` of its package
    if name == "CMakeLists.txt" or name.endswith(".cmake"):  # run by cmake when configuring (or `cmake -P`)
        return f"cmake -P {shlex.quote(path)}", ((path, text),)
    if name == "build.sbt":  # sbt runs its code on every command
        return f"cd {shlex.quote(posixpath.dirname(path))} && sbt compile", ((path, text),)
    if name.endswith(".sls"):  # a Salt state: its cmd.run commands run on the minions it is applied to
        return ("\n".join(_SALT_COMMAND.findall(text)) if re.search(r"\bcmd\.(?:run|script|wait)\b", text) else ""), ()
    if name.endswith(_MSBUILD):  # `dotnet build`/`test` runs the Exec tasks; `$(Name)` is a property's value
        lines = "\n".join(html.unescape(m) for m in _MSBUILD_EXEC.findall(text))
        return _MSBUILD_PROPERTY.sub(lambda m: _variable(m.group(1)), lines), ()
    if name == "tox.ini":  # `tox` runs the commands of its environments
        return "\n".join(declared.tox_commands(text, None)), ()
    if name == "Vagrantfile" or name.endswith((".pkr.hcl", ".pkr.json")):  # host-side inline commands
        if name == "Vagrantfile" and "trigger" not in text:
            return None  # provisioners run inside the machine; triggers run here
        return "\n".join(c for m in _HOST_INLINE.finditer(text)
                         for c in re.findall(r'"((?:[^"\\\n]|\\.)*)"', m.group(1))), ()
    if name.endswith(".kts"):  # a Kotlin script (`kotlin x.main.kts`, or by its `#!` line)
        return f"kotlin {shlex.quote(path)}", ((path, text),)
    interpreter = shebang(text)
    suffix = posixpath.splitext(name)[1]
    if interpreter is None:
        interpreter = _INTERPRETERS.get(suffix) or ("sh" if name.endswith(_SHELL_SUFFIXES) else None)
    if interpreter is None:
        return None
    if interpreter in BASH_LIKE_SHELLS:
        interpreter = "sh"  # run by path, so `$0` (and `cd "$(dirname "$0")"`) is the script's
    return f"{interpreter} {shlex.quote(path)}", ((path, text),)


# -- CI definitions -------------------------------------------------------------------------------------

_RUN_KEYS = frozenset({"run", "script", "before_script", "after_script", "command", "commands", "cmd", "entrypoint",
                       "bash", "sh", "pwsh", "powershell", "inlineScript", "inline_script"})
# Azure Pipelines macros `$(System.AccessToken)`, `$(Build.ArtifactStagingDirectory)`: values put in the text.
_MACRO = re.compile(r"\$\(([A-Za-z_]\w*(?:[.-]\w+)+)\)")
_PLAIN_MACRO = re.compile(r"\$\(([A-Z][A-Z0-9_]*)\)")  # `$(Build.BuildId)`, a Key Vault secret `$(kv-sql-password)`
_SECRET_WORD = re.compile(r"secret|token|password|passwd|key|credential|pat\b", re.I)
_EXPRESSION = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")
# TeamCity parameters (`%env.DEPLOY_TOKEN%`, `%system.teamcity.build.id%`, `%NUGET_KEY%`): a dotted name or
# capitals, so `printf '%d%%'` stays as it is.
_TEAMCITY_REF = re.compile(r"%((?:[A-Za-z_]\w*\.)+[A-Za-z_][\w.]*|[A-Z][A-Z0-9_]{2,})%")
_SECRET_REF = re.compile(r"\bsecrets\.([A-Za-z_][A-Za-z0-9_]*)|\bsecrets\[['\"]([^'\"]+)['\"]\]")
_WHOLE_SECRETS = re.compile(r"\$\{\{[^}]*\bsecrets\b(?![.\[])")  # `${{ toJSON(secrets) }}`: every secret


def _expression(match: re.Match[str]) -> str:
    """A CI expression as the shell value it becomes: a secret stays recognisably a secret, the whole
    secrets or environment context is a dump of the environment."""
    expr = match.group(1)
    if re.search(r"\b(?:toJSON|toJson)\s*\(\s*(?:secrets|env)\s*\)", expr) or expr in ("secrets", "env"):
        return "$(printenv)"
    secret = _SECRET_REF.search(expr)
    if secret:
        name = re.sub(r"\W", "_", secret.group(1) or secret.group(2))
        return "${" + name + "_SECRET}"
    if "github.token" in expr:
        return "${GITHUB_TOKEN}"
    variable = re.sub(r"\W+", "_", expr).strip("_")[:64] or "EXPR"
    return "${" + variable + "}"


def _strings(node: Any, key: str | None, out: list[str], secret_env: set[str], depth: int = 0) -> None:
    if depth > 32 or len(out) > 512:
        return
    if isinstance(node, dict):
        env = node.get("env") or node.get("environment") or node.get("variables")
        if isinstance(env, dict):
            for name, value in env.items():
                if (isinstance(value, str) and (_SECRET_REF.search(value) or _WHOLE_SECRETS.search(value))) or (
                        isinstance(value, dict) and "from_secret" in value):  # Woodpecker, Drone
                    secret_env.add(str(name))
        entrypoint, args = node.get("entrypoint"), node.get("args")
        if isinstance(entrypoint, str) and isinstance(args, list) and all(isinstance(a, str) for a in args[:64]):
            # Cloud Build and container steps: `entrypoint: bash` with `args: ['-c', 'SCRIPT']` is one command
            out.append(shlex.join([entrypoint, *args[:64]]))
            node = {k: v for k, v in node.items() if k != "entrypoint"}
        for k, v in node.items():
            _strings(v, str(k), out, secret_env, depth + 1)
    elif isinstance(node, list):
        for item in node:
            if key in _RUN_KEYS and isinstance(item, dict) and len(item) == 1:
                # `- curl -H "X-Token: $T" …`: YAML reads a command holding ": " as a mapping; it is one line
                (k, v), = item.items()
                if isinstance(v, str | int | float) or v is None:
                    out.append(f"{k}: {v}" if v is not None else f"{k}:")
                    continue
            _strings(item, key, out, secret_env, depth + 1)
    elif isinstance(node, str) and key in _RUN_KEYS:
        out.append(node)


def _variable(name: str) -> str:
    """A value the build service fills in (`$(Build.BuildId)`, MSBuild's `$(NuGetApiKey)`) as the shell variable
    it amounts to, recognisably a secret when its name says so."""
    return "${" + re.sub(r"\W", "_", name).upper() + ("_SECRET" if _SECRET_WORD.search(name) else "") + "}"


def ci_commands(text: str) -> str:
    """The shell lines of a CI definition, expressions resolved as shell values. A Jenkinsfile is Groovy:
    its `sh '…'` steps are taken as the shell lines."""
    lines: list[str] = []
    secret_env: set[str] = set()
    try:
        import yaml

        data = yaml.safe_load(text)
    except Exception:  # not YAML (a Jenkinsfile), or a fragment an edit inserts
        data = None
    if isinstance(data, list):  # an edit inserting items: of a job's script list (strings), or steps (maps)
        for item in data[:512]:
            if isinstance(item, str):
                lines.append(item)
            elif isinstance(item, dict) and len(item) == 1 and isinstance(next(iter(item.values())), str):
                (k, v), = item.items()  # `- script: CMD` is a step; `- curl -H "X-Token: $T" …` a command
                lines.append(v if k in _RUN_KEYS else f"{k}: {v}")  # holding ": " that YAML read as a mapping
            else:
                _strings(item, None, lines, secret_env)
    elif isinstance(data, dict):
        _strings(data, None, lines, secret_env)
    else:
        lines = [m.group(2) for m in re.finditer(r"\bsh\s*\(?\s*('''|\"\"\"|'|\")(.*?)\1", text, re.S)]
        # TeamCity's Kotlin DSL: a script step's `scriptContent = "…"` (or a triple-quoted block)
        lines += [m.group(2) for m in re.finditer(r'\bscriptContent\s*=\s*("""|")(.*?)\1', text, re.S)]
        lines += re.findall(r"^\s*(?:-\s*)?(?:run|script|command|bash|sh|pwsh|powershell|inlineScript):"
                            r"\s*[|>]?-?\s*(.+)$", text, re.M)
        secret_env |= set(re.findall(r"^\s*([A-Za-z_]\w*):\s*\$\{\{\s*secrets\.", text, re.M))
        # Jenkins: the variables `withCredentials` binds hold the secrets for the block's steps
        secret_env |= set(re.findall(r"\b(?:variable|usernameVariable|passwordVariable|keyFileVariable|tokenVariable)"
                                     r"\s*:\s*['\"](\w+)['\"]", text))
        if not re.search(r"\b(?:pipeline|node|stage)\s*[({]", text):  # a YAML fragment, not a Jenkinsfile
            lines += re.findall(r"^\s*-\s+(?![\w-]+:\s)(.+)$", text, re.M)  # `    - curl …` items of a script
    # The CI service puts an expression's value into the text before any shell reads it, quotes or not.
    script = "\n".join(_EXPRESSION.sub(_expression, line.replace("'", '"') if "${{" in line else line)
                       for line in lines)
    script = _MACRO.sub(lambda m: _variable(m.group(1)), script)
    # `$(ARM_CLIENT_SECRET)`: a variable of Azure Pipelines (no program is named in capitals)
    script = _PLAIN_MACRO.sub(lambda m: _variable(m.group(1)), script)
    script = _TEAMCITY_REF.sub(lambda m: _variable(m.group(1)), script)  # `%env.STEAM_PASSWORD%`
    # A CI variable named for a secret is one (`$CI_JOB_TOKEN`, `$RENOVATE_TOKEN`, `${DEPLOY_PASSWORD}`): GitLab,
    # CircleCI and Buildkite inject them by name, with no syntax that says "secret"
    secret_env |= {name for name in _VARIABLE.findall(script) if is_secret_variable(name)}
    for name in sorted(n for n in secret_env if not n.endswith("_SECRET"))[:64]:  # `_SECRET`: already one by name
        script = re.sub(r"\$\{?" + re.escape(name) + r"\b\}?", "${" + name + "_SECRET}", script)
    return script[:_MAX_TEXT]
