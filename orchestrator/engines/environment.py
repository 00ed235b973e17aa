"""The environment an agent process gets: an allow-list, never the orchestrator's own.

An agent (and every command it runs) can read its environment, so anything there is the agent's: the store's
address and password, the admin key or the path of a key file there would let it change the decisions that
gate it (an outside security review saw an agent approve its own `git push` by writing to Redis with the
inherited ACTEON_REDIS_URL; docs/security.md). So the agent gets what a CLI and ordinary build tools need, by
name or prefix, plus what the user lists in ``[safety] pass_env``; then its identity for the hook (added by
the engine). Whatever the list says, the gateway's secrets never pass: names that hold them, and any variable
whose *value* contains the admin key or a store URL.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Iterable, Mapping

from acteon_core import contract as c

_NAMES = frozenset({
    "PATH", "HOME", "USER", "LOGNAME", "SHELL", "TERM", "COLORTERM", "LANG", "LANGUAGE", "TZ", "TMPDIR",
    "EDITOR", "VISUAL", "PAGER", "NO_COLOR", "FORCE_COLOR", "CI",
    # TLS and proxies: the CLIs must reach their model API the way the user's machine does
    "SSL_CERT_FILE", "SSL_CERT_DIR", "REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE", "NODE_EXTRA_CA_CERTS",
    "HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "no_proxy", "all_proxy",
    # toolchains an agent builds and tests with
    "JAVA_HOME", "GOPATH", "GOROOT", "GOCACHE", "GOMODCACHE", "CARGO_HOME", "RUSTUP_HOME", "VIRTUAL_ENV",
    "PYENV_ROOT", "NVM_DIR", "DENO_DIR", "BUN_INSTALL", "GEM_HOME", "GEM_PATH", "MAVEN_HOME", "GRADLE_USER_HOME",
    "PNPM_HOME", "DOTNET_ROOT",
})
_PREFIXES = (
    "LC_", "XDG_",
    # the agent CLIs and their model APIs (the tests' fake model servers are configured this way too)
    "ANTHROPIC_", "CLAUDE_", "DISABLE_", "GEMINI_", "GOOGLE_", "VERTEX_", "CLOUD_ML_", "CODEX_", "OPENAI_",
    "NODE_", "NPM_CONFIG_", "PYTHON", "PIP_", "UV_",
    "ACTEON_CLAUDE_BIN", "ACTEON_GEMINI_BIN", "ACTEON_CODEX_BIN", "ACTEON_OPENCODE_BIN",
)
# Never passed, whatever the allow-list or the user's pass_env says.
_NEVER = frozenset({
    c.ENV_ADMIN_KEY, c.ENV_OPERATOR_KEY, c.ENV_WORKER_KEY, c.ENV_REDIS_URL, c.ENV_AGENT_KEY_FILE, c.ENV_STATE_DIR,
    c.ENV_RULES_DIR, "REDIS_URL", "REDIS_PASSWORD", "REDISCLI_AUTH",
})
# A worker machine's access to Temporal (its API key, its mTLS files) is the worker's, never its agents'.
_NEVER_PREFIXES = ("TEMPORAL_",)
# The identity the engine adds afterwards; an inherited one (another run's key) must not leak through.
_IDENTITY = frozenset({c.ENV_URL, c.ENV_AGENT_KEY, c.ENV_RUN_ID, c.ENV_AGENT_ID, c.ENV_AGENT_ROLE})


def agent_environment(base_env: Mapping[str, str], pass_env: Iterable[str] = ()) -> dict[str, str]:
    """The part of ``base_env`` an agent may see. ``pass_env``: extra names or shell-style patterns
    (``AWS_PROFILE``, ``MYAPP_*``) from ``[safety] pass_env``."""
    patterns = tuple(pass_env)
    secrets = _secret_values(base_env)
    out: dict[str, str] = {}
    for name, value in base_env.items():
        if name in _NEVER or name in _IDENTITY or name.startswith(_NEVER_PREFIXES):
            continue
        if not (name in _NAMES or name.startswith(_PREFIXES) or any(fnmatch.fnmatchcase(name, p) for p in patterns)):
            continue
        if any(s in value for s in secrets):
            continue
        out[name] = value
    return out


def _secret_values(env: Mapping[str, str]) -> tuple[str, ...]:
    """Values that must not reach an agent under any name: the admin, operator and worker keys, the store's
    URL."""
    found = [env.get(c.ENV_ADMIN_KEY, ""), env.get(c.ENV_OPERATOR_KEY, ""), env.get(c.ENV_WORKER_KEY, ""),
             env.get(c.ENV_REDIS_URL, "")]
    return tuple(v for v in found if len(v) >= 8)
