"""Credentials: which paths hold secrets (docs/rules.md, block-credential-access), and which variable names
and values look like one.

A path is secret when reading it can leak a credential, or writing it can plant persistence (shell
start-up files, ``authorized_keys``). The check is purely lexical on an already-resolved absolute path:
the gateway never looks at the agent's filesystem. (Named ``credentials``, not ``secrets``, so as not to
shadow the standard library's ``secrets`` module.)
"""

from __future__ import annotations

import posixpath
import re

from gateway.paths import is_within

# `.env.example` and friends are committed templates without real values.
_ENV_TEMPLATE_SUFFIXES = frozenset({"example", "sample", "template", "dist", "defaults"})

# SSH private keys keep their conventional names wherever they are copied to.
_SSH_PRIVATE_KEY = re.compile(r"id_(?:rsa|dsa|ecdsa|ed25519)(?:_sk)?(?:[-_.].*)?")
# Files under a `.ssh` directory that are public by design; everything else there is a key, an
# `authorized_keys` (write = persistence) or agent material.
_SSH_PUBLIC_FILES = frozenset({"known_hosts", "known_hosts.old", "config"})

# Credential files recognised by their own name, in any directory.
_SECRET_NAMES = frozenset({".netrc", "_netrc", ".git-credentials", ".pgpass", ".vault-token"})

# Directories whose whole content is credentials (the directory itself too: copying or archiving it
# copies the keys).
_SECRET_DIRS = frozenset({".ssh", ".aws", ".azure", ".gnupg"})

# Key material recognised by its kind, wherever it is: private keys and keystores, framework master keys,
# cloud service-account keys, password databases (a certificate chain or a public key is not secret).
_KEY_SUFFIXES = (".pem", ".key", ".p12", ".pfx", ".jks", ".keystore", ".ppk", ".kdbx", ".p8", ".der", ".pkcs12",
                 ".age", ".gpg-key", ".asc-secret", ".keytab", ".sso", ".kdb", ".sth",  # Kerberos; Oracle/IBM wallets
                 ".keyring")  # Ceph's client keys
_PRIVATE_SUFFIXES = (".key", ".ppk", ".p8", ".keytab", ".age", ".kdbx", ".gpg-key", ".asc-secret", ".sso", ".keyring")
_PUBLIC_KEY_HINTS = re.compile(
    r"(?:^|[._-])(?:pub|public|cert|crt|chain|fullchain|ca|ca-bundle|cacert|cacerts|root|trust|truststore)(?:[._-]|$)",
    re.I)
_PRIVATE_HINTS = re.compile(r"(?:^|[._-])(?:key|private|priv|secret)(?:[._-]|$)", re.I)  # `RootKey.pem`, `ca-key.pem`
_KEY_NAMES = re.compile(r"master\.key|credentials\.json|client_secrets?(?:_[\w.-]*)?\.json"
                        r"|[\w.-]*service[-_]?account[\w.-]*\.json"
                        r"|[\w.-]*(?:keystore|signing|release-key|upload-key)[\w.-]*\.properties|key\.properties"
                        r"|[\w.-]*-sa(?:-key)?\.json|[\w.-]*keyfile[\w.-]*\.json|\.?htpasswd|\.?pgpass"
                        r"|secrets\.ya?ml|secrets\.json|\.secrets|\.vault[-_]pass(?:word)?(?:\.txt)?|vault[-_]pass(?:word)?\.txt"
                        r"|Cookies|Login Data|logins\.json|key[34]\.db|cookies\.sqlite|signons\.sqlite|Web Data")


def seeks_secrets(pattern: str) -> bool:
    """A name pattern (a glob's file part, `find -name`) that picks key material or secret files: `*.pem`,
    `.env*`, `id_rsa*`, `*.p12`."""
    name = pattern.rstrip("/").rsplit("/", 1)[-1]
    brace = re.search(r"\{([^{}]{1,256})\}", name)
    if brace is not None:  # `*.{jks,keystore,p12}`: any alternative that picks secrets
        return any(seeks_secrets(name[:brace.start()] + alt + name[brace.end():])
                   for alt in brace.group(1).split(",")[:32])
    if name.startswith((".env", "id_")):
        return True
    probe = name.replace("*", "x").replace("?", "x")
    if is_key_material(probe) or is_secret_path("/x/" + probe, "/nonexistent"):
        return True
    # A star may also stand for nothing: `*-sa-key*.json` picks `prod-sa-key.json`.
    bare = name.replace("*", "").replace("?", "x")
    return bool(bare) and "." in bare and is_key_material(bare)


# Tools' credential folders and files named like ordinary project folders (`.wrangler/`, `.supabase/`, `.fly/`
# are also per-project build or state folders): secret only in a home.
_HOME_SECRET_SEGMENTS = (".snowsql", ".m2/settings.xml", ".m2/settings-security.xml", ".gradle/gradle.properties",
                         ".dbt/profiles.yml", ".databrickscfg", ".nuget/NuGet/NuGet.Config", ".microsoft/usersecrets",
                         ".password-store", ".s3cfg", ".boto", ".my.cnf", ".fly", ".supabase", ".wrangler",
                         ".terraformrc", ".oci", ".pulumi/credentials.json", ".twilio-cli", ".kube", ".minikube",
                         # research computing: iRODS, OpenStack, Foreman, Gitea, AWX/Tower, Globus, Apptainer remotes
                         ".irods/.irodsA", ".config/openstack/clouds.yaml", ".config/openstack/secure.yaml",
                         ".hammer", ".config/tea", ".tower_cli.cfg", ".globus", ".apptainer/remote.yaml",
                         ".singularity/remote.yaml", ".config/hub")


def is_key_material(name: str) -> bool:
    """A file name that says it holds a private key, a keystore or a credential (`server.key`, `app.p12`,
    `config/master.key`, `gcp-sa.json`, a browser's `Cookies` store); a certificate or public key is not."""
    if name.endswith(_PRIVATE_SUFFIXES):
        return True  # `ca.key`, `client.root.key`: a CA's or root's private key is no less one
    if name.endswith(_KEY_SUFFIXES):
        stem = name.rsplit(".", 1)[0]
        # `AmazonRootCA1.pem`, `DigiCertGlobalRootG2.pem`: the words of a camel-cased name, a number after one
        words = re.sub(r"(?<=[a-z])(?=[A-Z])|(?<=[A-Za-z])(?=\d)", "-", stem)
        return bool(_PRIVATE_HINTS.search(words)) or not _PUBLIC_KEY_HINTS.search(words)
    return bool(_KEY_NAMES.fullmatch(name))


# Credential locations made of several components, wherever the enclosing home is (matched as
# "/a/b/" inside "/path/"; a directory entry covers everything below it).
_SECRET_SEGMENTS = tuple(
    f"/{segment}/"
    for segment in (
        # Browser profiles (cookies, saved passwords, tokens of every signed-in site).
        ".mozilla/firefox",
        ".config/google-chrome",
        ".config/chromium",
        ".config/BraveSoftware",
        ".config/microsoft-edge",
        ".config/vivaldi",
        ".config/opera",
        "snap/firefox",
        "snap/chromium",
        "Library/Application Support/Google/Chrome",
        "Library/Application Support/Firefox",
        "Library/Cookies",
        "Library/Keychains",
        # Key stores and secret tools, and tools' files that hold passwords and tokens.
        ".config/snowflake",
        ".config/NuGet/NuGet.Config",
        ".config/sops",
        ".config/age",
        ".local/share/keyrings",
        ".config/op",
        ".config/rclone/rclone.conf",
        ".config/doctl",
        ".config/hub",
        ".config/configstore",
        ".config/netlify",
        ".config/com.vercel.cli",
        ".local/share/com.vercel.cli",
        ".config/stripe",
        ".config/heroku",
        ".local/share/heroku",
        ".config/git/credentials",
        ".config/pypoetry/auth.toml",
        ".config/helm/registry",
        ".config/gh",
        ".config/gcloud",
        ".kube/config",
        ".docker/config.json",
        ".config/gh/hosts.yml",
        ".cargo/credentials",
        ".cargo/credentials.toml",
        ".gem/credentials",
        ".terraform.d/credentials.tfrc.json",
        # Machine-learning hubs' and experiment trackers' tokens.
        ".cache/huggingface/token",
        ".cache/huggingface/stored_tokens",
        ".huggingface/token",
        ".kaggle/kaggle.json",
        ".mlflow/credentials",
        ".config/kaggle/kaggle.json",
        # The agent CLIs' own login tokens.
        ".claude/.credentials.json",
        ".gemini/oauth_creds.json",
        ".config/fish/config.fish",
        ".config/fish/conf.d",
        # Hosting and infrastructure CLIs that keep an API token in their configuration.
        ".config/hcloud/cli.toml",
        ".config/glab-cli/config.yml",
        ".config/linode-cli",
        ".config/scw/config.yaml",
        ".config/exoscale",
        ".config/vultr-cli.yaml",
        ".config/upctl.yaml",
        ".config/tailscale",
        ".config/ngrok/ngrok.yml",
        ".config/cloudflared",
        ".cloudflared",
        ".config/borg/keys",
        ".config/restic",
        ".confluent",
        ".snowflake",
        ".tsh",
        ".config/boundary",
        ".config/jira",
        ".jira.d",
        ".config/temporalio",
        ".datadog-ci",
        ".influxdbv2/configs",
        ".sentryclirc",
        ".mender",
        ".balena/token",
        ".config/mosquitto",
        ".nomad-token",
        ".consul-token",
        ".fastlane/session",
        ".appstoreconnect/private_keys",
        ".private_keys",
    )
)
# A file named for the secret it holds, wherever it is (`/etc/restic/password`, `/run/secrets/db_password`,
# `~/.config/x/auth.token`, `deploy/vault.passphrase`) — unless it is source code (`src/auth/token.ts`).
_NAMED_FOR_A_SECRET = re.compile(
    r"(?i)(?:^|.*[._-])(?:password|passphrase|passwd|token|secret|api[_-]?key|apikey|credentials?|creds?)"
    r"(?:\.(?:txt|conf|cfg|json|ya?ml|toml|ini|env|key|b64|exs|properties))?")  # Phoenix: config/prod.secret.exs
_SYSTEM_SECRET_TREES = ("/run/secrets", "/var/run/secrets", "/var/lib/tailscale", "/etc/wireguard", "/etc/ssl/private",
                        "/var/lib/docker/swarm", "/etc/restic", "/etc/borgmatic", "/var/lib/nomad/server",
                        "/etc/nomad.d/tls", "/etc/consul.d/tls", "/etc/vault.d/tls", "/var/lib/acme",
                        # a cluster's own kubeconfigs and keys: admin.conf is the cluster's root credential
                        "/etc/kubernetes", "/var/lib/kubelet/pki", "/var/lib/kubelet/kubeconfig", "/etc/rancher/k3s",
                        "/etc/rancher/rke2", "/var/lib/rancher/k3s/server", "/var/lib/rancher/rke2/server")
_SYSTEM_TREE_ROOTS = ("/run/", "/var/", "/etc/")  # every tree above is under one: a cheap test first (hot path)

# Shell start-up files: writing them is persistence (gateway.persistence), and people keep API keys in them.
STARTUP_FILES = frozenset(
    {
        ".bashrc",
        ".bash_profile",
        ".bash_login",
        ".bash_logout",
        ".profile",
        ".zshrc",
        ".zprofile",
        ".zshenv",
        ".zlogin",
        ".zlogout",
    }
)
# Package-registry tokens; a project-level `.npmrc` is usually plain registry config, so home only.
_HOME_ONLY_NAMES = STARTUP_FILES | {".npmrc", ".pypirc"}

_SYSTEM_SECRETS = frozenset(
    {
        "/etc/shadow",
        "/etc/shadow-",
        "/etc/gshadow",
        "/etc/gshadow-",
        "/etc/sudoers",
        "/etc/master.passwd",
        "/etc/security/opasswd",
        "/etc/slurm/slurmdbd.conf",  # the accounting database's password
    }
)
_SYSTEM_SECRET_DIRS = ("/etc/sudoers.d",)
_SSH_HOST_KEY = re.compile(r"ssh_host_\w+_key")


_PROC_ENVIRON = re.compile(r"^/proc/(?:self|thread-self|\d+)(?:/task/\d+)?/environ$")


def _is_env_file(name: str) -> bool:
    if name == ".env":
        return True
    if not name.startswith(".env."):
        return False
    suffix_parts = name[len(".env.") :].lower().split(".")
    return not any(part in _ENV_TEMPLATE_SUFFIXES for part in suffix_parts)


def _homes(home: str) -> tuple[str, ...]:
    # The agent's own home plus root's: a start-up file there is just as much persistence.
    homes = ["/root"]
    if home and home != "/":
        homes.append(posixpath.normpath(home))
    return tuple(homes)


def _in_home_dir(parent: str, home: str) -> bool:
    if parent in _homes(home):
        return True
    # Any other user's home directory (/home/<user>).
    return posixpath.dirname(parent) == "/home"


def is_secret_path(path: str, home: str, extra: tuple[str, ...] = ()) -> bool:
    """True when ``path`` (resolved, absolute) holds or controls credentials."""
    if not path:
        return False
    path = posixpath.normpath(path)
    for root in extra:
        # Only absolute entries; "/" would make every path a secret. An entry "!/dir" carves a directory
        # out of the protected ones (the agents' own worktrees inside the gateway's state directory).
        if (root.startswith("/") and root.strip("/") and is_within(path, posixpath.normpath(root))
                and not any(e.startswith("!/") and is_within(path, posixpath.normpath(e[1:])) for e in extra)):
            return True
    if _PROC_ENVIRON.match(path):
        return True  # a process's whole environment, API keys included
    parent, _, name = path.rpartition("/")
    parent = parent or "/"
    if is_key_material(name):
        return True
    if name != "passwd" and _NAMED_FOR_A_SECRET.fullmatch(name):
        return True
    if path.startswith(_SYSTEM_TREE_ROOTS) and any(is_within(path, tree) for tree in _SYSTEM_SECRET_TREES):
        return True
    # Fast exit for the common case: every rule below involves a dot-file or dot-directory, /etc,
    # or an SSH key name.
    if "/." not in path and not path.startswith("/etc/") and not name.startswith(("id_", "_netrc")):
        return False
    parts = [p for p in path.split("/") if p]
    if not parts:
        return False

    if _is_env_file(name) or name in _SECRET_NAMES:
        return True
    if _SSH_PRIVATE_KEY.fullmatch(name) and not name.endswith(".pub"):
        return True

    if name in _SECRET_DIRS:
        return True
    for i, part in enumerate(parts[:-1]):
        if part in _SECRET_DIRS:
            if part == ".ssh" and i == len(parts) - 2:
                return not (name.endswith(".pub") or name in _SSH_PUBLIC_FILES)
            return True

    padded = path + "/"
    if any(segment in padded for segment in _SECRET_SEGMENTS):
        return True
    for root in _homes(home):
        if padded.startswith(root + "/") and any(padded.startswith(f"{root}/{s}/") for s in _HOME_SECRET_SEGMENTS):
            return True

    if name in _HOME_ONLY_NAMES and _in_home_dir(parent, home):
        return True
    if _tool_credentials(path, name, home):
        return True

    if path in _SYSTEM_SECRETS or any(is_within(path, d) for d in _SYSTEM_SECRET_DIRS):
        return True
    return parent == "/etc/ssh" and bool(_SSH_HOST_KEY.fullmatch(name))


# Command-line tools keep their keys in a configuration file in the home: a dot-file (`~/.ossutilconfig`,
# `~/.s3cfg`, `~/.cos.conf`) or a file in the tool's dot-directory (`~/.aliyun/config.json`, `~/.tccli/x.credential`,
# `~/.config/tool/credentials`). Which tools exist is not knowable; these shapes are what they share. The ones
# everyone reads for ordinary reasons stay open.
_OPEN_DOT_FILES = frozenset({".gitconfig", ".editorconfig", ".tmux.conf", ".fonts.conf", ".ripgreprc", ".wezterm.lua"})
_OPEN_DOT_DIRS = frozenset({".cache", ".local", ".vscode", ".vscode-server", ".npm", ".nvm", ".pyenv", ".rbenv",
                            ".rustup", ".cargo", ".vim", ".emacs.d", ".oh-my-zsh", ".ipython", ".jupyter", ".git",
                            ".tmux", ".zsh", ".mozilla", ".dotnet", ".android", ".gradle", ".m2", ".sdkman", ".bun",
                            ".deno", ".go", ".cursor", ".claude", ".gemini", ".codex", ".ollama", ".conda",
                            ".continue", ".wdm", ".pki"})
_TOOL_CONFIG_NAMES = frozenset({"config", "config.json", "config.yaml", "config.yml", "config.toml", "config.ini",
                                "conf.json", "settings.json"})
_TOOL_CREDENTIAL_NAMES = re.compile(r"(?:credentials?|creds|auth|tokens?|access[-_]?tokens?|secrets?|hosts\.yml)"
                                    r"(?:\.(?:json|ya?ml|toml|ini|conf|txt))?|.+\.credentials?|.+[-_](?:credentials?"
                                    r"|token|secret)s?\.(?:json|ya?ml|toml)", re.I)


def _tool_credentials(path: str, name: str, home: str) -> bool:
    for root in _homes(home):
        if not path.startswith(root + "/."):
            continue
        rel = path[len(root) + 1:].split("/")
        if len(rel) == 1:  # `~/.ossutilconfig`, `~/.s3cfg`, `~/.cos.conf`
            return name not in _OPEN_DOT_FILES and name.lower().endswith(
                ("config", "cfg", ".conf", ".cnf", "tickets", "ticket", "token", "tokens", "passwd", "password",
                 "passwords", "secret", "secrets", "credentials", "credential"))  # `~/.p4tickets`, `~/.vault-token`
        if rel[0] == ".config" and len(rel) == 3:  # `~/.config/TOOL/credentials`
            return bool(_TOOL_CREDENTIAL_NAMES.fullmatch(name))
        if len(rel) == 2:  # `~/.aliyun/config.json`, `~/.tccli/default.credential`
            return bool(_TOOL_CREDENTIAL_NAMES.fullmatch(name)) or (
                name in _TOOL_CONFIG_NAMES and rel[0] not in _OPEN_DOT_DIRS and rel[0] != ".config")
    return False


def holds_secrets(directory: str, home: str) -> bool:
    """True when the directory (resolved) contains the machine's or the user's secrets: reading it
    recursively (`diff -r /etc`, `grep -r x ~`, `tar c /root`) reads them. The workspace's own `.env`
    does not count: searching one's project is ordinary work."""
    directory = posixpath.normpath(directory or "/")
    places = [*_SYSTEM_SECRETS, *_SYSTEM_SECRET_DIRS, "/etc/ssh", "/root/.ssh"]
    places += [posixpath.join(h, d) for h in _homes(home) for d in _SECRET_DIRS]
    places += [posixpath.join(h, s.strip("/")) for h in _homes(home)
               for s in (*_SECRET_SEGMENTS, *_HOME_SECRET_SEGMENTS)]
    return any(is_within(p, directory) for p in places)


# Settings files of the agent CLIs, where the gate hook is configured (project, user and system scopes).
_AGENT_CONFIG_DIRS = frozenset({".claude", ".gemini", "claude-code", "gemini-cli"})
_AGENT_CONFIG_FILES = frozenset({"settings.json", "settings.local.json", "managed-settings.json",
                                 "system-defaults.json"})


def is_agent_settings(path: str) -> bool:
    """True when ``path`` (resolved) is a Claude Code or Gemini CLI settings file, where the gate hook
    lives. An agent that could write one could remove its own gate."""
    parent, _, name = posixpath.normpath(path).rpartition("/")
    return name in _AGENT_CONFIG_FILES and parent.rpartition("/")[2] in _AGENT_CONFIG_DIRS


# What the next agent reads or runs: instruction files, rules, custom commands, MCP servers, the agent CLIs'
# configuration (every CLI's, not only the two this gateway gates), dev-container and direnv hooks. An agent
# that rewrites them tampers with the gate of every agent after it (docs/rules.md#agent-configuration).
_AGENT_FILES = frozenset({"CLAUDE.md", "CLAUDE.local.md", "AGENTS.md", "AGENT.md", "GEMINI.md", "QWEN.md", "CRUSH.md",
                          ".cursorrules", ".windsurfrules", ".clinerules", ".roorules", ".goosehints", ".continuerules",
                          ".aider.conf.yml", ".aider.conf.yaml", ".mcp.json", "mcp.json", "mcp_config.json",
                          "opencode.json", "opencode.jsonc", ".crush.json", "crush.json", ".envrc",
                          "copilot-instructions.md", "devcontainer.json", ".devcontainer.json", ".cursorignore"})
_AGENT_DIRS = frozenset({".claude", ".gemini", ".codex", ".cursor", ".windsurf", ".clinerules", ".roo", ".kiro",
                         ".amazonq", ".continue", ".opencode", ".qwen", ".crush", ".goose", ".aider", ".devcontainer",
                         ".junie", ".augment", ".trae", ".zed", "claude-code", "gemini-cli"})
_AGENT_CONFIG_TREES = ("/.config/opencode/", "/.config/goose/", "/.config/crush/", "/.config/github-copilot/",
                       "/.copilot/", "/.github/instructions/", "/.github/prompts/", "/.github/chatmodes/",
                       "/.github/agents/", "/.github/hooks/", "/.vscode/mcp.json")


def is_agent_config(path: str) -> bool:
    """True when ``path`` (resolved) configures or instructs an agent: the CLIs' settings (the gate hook
    lives there), instruction and rule files, custom commands, MCP server lists, dev-container and direnv
    hooks. Writing or deleting one is ``gate_tamper``."""
    path = posixpath.normpath(path)
    if is_agent_settings(path):
        return True
    parts = path.split("/")
    if parts[-1] in _AGENT_FILES:
        return True
    if any(part in _AGENT_DIRS for part in parts[:-1]):
        return True
    return any(tree in path + ("/" if not tree.endswith(".json") else "") for tree in _AGENT_CONFIG_TREES)


# -- secrets that are not files ------------------------------------------------------------------------

# Cloud instance metadata services: they hand out the machine's role credentials and tokens to any process
# that asks (AWS/Azure/OpenStack/Oracle 169.254.169.254, ECS task credentials, GCP, Alibaba, AWS IPv6).
_METADATA_HOSTS = frozenset({"169.254.169.254", "169.254.170.2", "169.254.169.253", "metadata.google.internal",
                             "metadata", "metadata.goog", "100.100.100.200", "fd00:ec2::254", "instance-data",
                             "instance-data.ec2.internal", "metadata.azure.com", "169.254.169.123",
                             "metadata.tencentyun.com"})


# Metadata services by the shape of their paths, whatever the host is called (Tencent's metadata.tencentyun.com,
# Huawei's, an alias in /etc/hosts): the role credentials and tokens they serve.
_METADATA_PATH = re.compile(r"^/(?:latest/meta-data/|latest/api/token|computeMetadata/v1|metadata/(?:instance|identity)"
                            r"\b|opc/v[12]/|openstack/latest/|metadata/v1/)|/meta-data/(?:iam|ram|cam)/security-cred",
                            re.I)


def is_metadata_url(url: str) -> bool:
    """A request to a cloud metadata service: by its host, or by a path only such services serve."""
    from urllib.parse import urlsplit

    try:
        parts = urlsplit(url if "://" in url else "http://" + url)
    except ValueError:
        return False
    host = (parts.hostname or "").lower()
    # By path only where such a service can be: an address, a name of the private network, or one named for it.
    private = bool(re.fullmatch(r"[\d.]+|\[?[0-9a-f:]+\]?", host)) or "." not in host or host.endswith(
        (".internal", ".local", ".lan", ".intranet")) or host.split(".", 1)[0] in ("metadata", "imds", "instance-data")
    return is_metadata_host(host) or (private and bool(_METADATA_PATH.search(parts.path or "")))


def is_metadata_host(host: str) -> bool:
    """A cloud metadata endpoint (also in decimal, hex or IPv4-mapped IPv6 spellings of 169.254.169.254)."""
    host = host.strip("[]").lower().rstrip(".")
    return host in _METADATA_HOSTS or host in ("2852039166", "0xa9fea9fe", "0251.0376.0251.0376",
                                               "::ffff:169.254.169.254", "::ffff:a9fe:a9fe")

# Environment variable names that say they hold a secret (AWS_SECRET_ACCESS_KEY, GITHUB_TOKEN, DB_PASSWORD,
# ANTHROPIC_API_KEY, ACTEON_AGENT_KEY …).
_SECRET_VARIABLE = re.compile(
    r"(?:^|_)(?:SECRET|TOKEN|PASSWD|PASSWORD|PASSPHRASE|API_?KEY|PRIVATE_?KEY|ACCESS_?KEY|AGENT_KEY|ADMIN_KEY"
    r"|OPERATOR_KEY|CREDENTIALS?|SESSION_KEY|AUTH)(?:_|$)", re.I)
_VARIABLE_REFERENCE = re.compile(r"\$\{?([A-Za-z_][A-Za-z0-9_]*)")
# Literal values in well-known secret formats (case-sensitive, as the formats are), and `key=value` pairs
# whose key names a secret. Each is searched only when a cheap substring test says it could match: these
# run on every echoed or requested argument, and a long argument must not cost milliseconds.
_TOKEN_MARKERS = ("AKIA", "ASIA", "gh", "github_pat_", "sk-", "xox", "AIza", "glpat-", "npm_", "PRIVATE KEY")
_SECRET_TOKEN = re.compile(
    r"(?:AKIA|ASIA)[0-9A-Z]{16}|gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{30,}"
    r"|sk-(?:ant-|proj-)?[A-Za-z0-9_-]{20,}|xox[abprs]-[A-Za-z0-9-]{10,}|AIza[0-9A-Za-z_-]{35}"
    r"|glpat-[A-Za-z0-9_-]{20,}|npm_[A-Za-z0-9]{36}|-----BEGIN [A-Z ]*PRIVATE KEY-----")
_SECRET_PAIR = re.compile(r"(?i:password|passwd|secret|token|api_?key)=[^&\s]{8,}|[?&](?i:key)=[A-Za-z0-9_-]{20,}")


# `*_KEY` names a secret (`STRIPE_KEY`, `SUPABASE_SERVICE_ROLE_KEY`, `SIGNING_KEY`) unless the word before it names
# a key of data (`CACHE_KEY`, `PARTITION_KEY`, `PUBLIC_KEY`).
_DATA_KEY = re.compile(r"(?:^|_)(?:CACHE|PRIMARY|SORT|PARTITION|IDEMPOTENCY|PUBLIC|PUB|FOREIGN|ROUTING|OBJECT|S3|LOOKUP"
                       r"|MAP|HASH|SHARD|GROUP|DEDUP|DEDUPE|RANGE|INDEX|QUEUE|BUCKET|ID|UNIQUE|COMPOSITE|SURROGATE|NATURAL"
                       r"|TRACE|METRIC|LABEL|CONFIG|SETTINGS|STATE|LOCK|REDIS|SESSION_ID|MESSAGE|EVENT|ORDER|RECORD|ROW"
                       r"|TABLE|JOIN|FILTER|TOPIC|STREAM|COLUMN|FIELD|DICT|SEARCH|I18N|TRANSLATION|MODEL)_KEY$", re.I)


def is_secret_variable(name: str) -> bool:
    return bool(_SECRET_VARIABLE.search(name) or _GLUED_SECRET.search(name)) or (
        len(name) > 4 and name[-4:].upper() == "_KEY" and not _DATA_KEY.search(name))


_GLUED_SECRET = re.compile(r"[A-Za-z0-9](?:TOKEN|SECRET|PASSWORD|PASSWD|APIKEY)$", re.I)  # `SYSTEM_ACCESSTOKEN`


def mentions_secret(text: str) -> bool:
    """``text`` expands a secret-named variable (``$GITHUB_TOKEN``) or carries a secret-looking value."""
    if "$" in text and any(is_secret_variable(m.group(1)) for m in _VARIABLE_REFERENCE.finditer(text)):
        return True
    if any(marker in text for marker in _TOKEN_MARKERS) and _SECRET_TOKEN.search(text):
        return True
    return "=" in text and _SECRET_PAIR.search(text) is not None
