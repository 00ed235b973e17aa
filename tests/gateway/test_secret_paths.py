"""Which paths hold secrets (gateway.credentials)."""

from __future__ import annotations

import pytest

from gateway.credentials import is_secret_path
from gateway.shell import analyze
from tests.gateway.shell.shell_helpers import CWD, HOME

# ---------------------------------------------------------------------------------------------
# Secrets

SECRETS = [
    # files named for the secret they hold, daemons' key folders, infrastructure CLIs' token files
    ("/etc/restic/password", True),
    ("/etc/borgmatic/passphrase", True),
    ("/run/secrets/db_password", True),
    ("/var/run/secrets/kubernetes.io/serviceaccount/token", True),
    ("/var/lib/tailscale/tailscaled.state", True),
    ("/work/proj/deploy/vault.token", True),
    ("/work/proj/config/google_token.json", True),
    ("/home/agent/.config/hcloud/cli.toml", True),
    ("/home/agent/.config/glab-cli/config.yml", True),
    ("/etc/passwd", False),
    ("/work/proj/src/auth/token.ts", False),
    ("/work/proj/app/Http/Middleware/VerifyCsrfToken.php", False),
    ("/work/proj/tests/test_password_reset.py", False),
    ("/work/proj/docs/secrets.md", False),
    ("/work/proj/web/design-tokens.json", False),
    ("/work/proj/android/keystore.properties", True),
    ("/work/proj/android/fastlane/play-store-service-account.json", True),
    ("/home/agent/.confluent/config.json", True),
    ("/work/proj/gradle.properties", False),
    ("/work/proj/.env", True),
    ("/work/proj/app/.env.local", True),
    ("/work/proj/.env.production", True),
    ("/work/proj/.env.example", False),
    ("/work/proj/.env.sample", False),
    ("/work/proj/.env.template", False),
    ("/work/proj/.env.dist", False),
    ("/work/proj/.envrc.md", False),
    ("/home/agent/.ssh/id_rsa", True),
    ("/home/agent/.ssh/id_ed25519", True),
    ("/home/agent/.ssh/id_rsa.pub", False),
    ("/home/agent/.ssh/known_hosts", False),
    ("/home/agent/.ssh/config", False),
    ("/home/agent/.ssh/authorized_keys", True),
    ("/home/agent/.ssh/deploy_key", True),
    ("/work/proj/keys/id_ecdsa", True),
    ("/home/agent/.aws/credentials", True),
    ("/home/agent/.aws/config", True),
    ("/home/agent/.netrc", True),
    ("/home/agent/.docker/config.json", True),
    ("/home/agent/.config/gcloud/application_default_credentials.json", True),
    ("/home/agent/.azure/accessTokens.json", True),
    ("/home/agent/.kube/config", True),
    ("/etc/shadow", True),
    ("/etc/gshadow", True),
    ("/etc/sudoers", True),
    ("/etc/sudoers.d/agent", True),
    ("/etc/passwd", False),
    ("/etc/hosts", False),
    ("/home/agent/.bashrc", True),
    ("/home/agent/.bash_profile", True),
    ("/home/agent/.profile", True),
    ("/home/agent/.zshrc", True),
    ("/home/agent/.zprofile", True),
    ("/home/agent/.bash_login", True),
    ("/home/agent/.bash_logout", True),
    ("/home/agent/.config/fish/config.fish", True),
    ("/root/.bashrc", True),
    ("/work/proj/.bashrc", False),
    ("/home/agent/.git-credentials", True),
    ("/home/agent/.pgpass", True),
    ("/home/agent/.npmrc", True),
    ("/home/agent/.pypirc", True),
    ("/work/proj/.npmrc", False),
    ("/home/agent/.bash_history", False),
    ("/work/proj/src/app.py", False),
    ("/etc/ssh/ssh_host_ed25519_key", True),
    ("/etc/ssh/ssh_host_ed25519_key.pub", False),
    ("/", False),
]


@pytest.mark.parametrize(("path", "secret"), SECRETS)
def test_is_secret_path(path: str, secret: bool) -> None:
    assert is_secret_path(path, HOME) is secret


def test_secret_extra_covers_files_and_directories() -> None:
    extra = ("/var/lib/acteon/admin.key", "/srv/state")
    assert is_secret_path("/var/lib/acteon/admin.key", HOME, extra)
    assert is_secret_path("/srv/state/keys/agent.key", HOME, extra)
    assert not is_secret_path("/srv/statefile", HOME, extra)
    # Misconfigured entries never turn every path into a secret.
    assert not is_secret_path("/work/proj/a.py", HOME, ("/", "", "relative/key"))


def test_secret_extra_given_as_one_string() -> None:
    assert "credential_access" not in analyze("cat src/a.py", CWD, HOME, "/srv/key").categories  # type: ignore[arg-type]
    assert "credential_access" in analyze("cat /srv/key", CWD, HOME, "/srv/key").categories  # type: ignore[arg-type]


def test_a_glob_with_alternatives_seeks_secrets_when_one_does() -> None:
    from gateway.credentials import seeks_secrets

    assert seeks_secrets("**/*.{jks,keystore,p12}")
    assert not seeks_secrets("**/*.{ts,tsx}")
