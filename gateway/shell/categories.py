"""Category names produced by shell analysis (docs/rules.md); rule packs match on these exact strings."""

from __future__ import annotations

DESTRUCTIVE_DELETE = "destructive_delete"
DISK_WRITE = "disk_write"
POWER = "power"
FORK_BOMB = "fork_bomb"
PERMISSION_CHANGE = "permission_change"
SYSTEM_PERMISSION_CHANGE = "system_permission_change"
CREDENTIAL_ACCESS = "credential_access"
REMOTE_CODE = "remote_code"
REVERSE_SHELL = "reverse_shell"
EXFILTRATION = "exfiltration"
PACKAGE_INSTALL = "package_install"
GIT_PUSH = "git_push"
HISTORY_TAMPER = "history_tamper"
DYNAMIC_COMMAND = "dynamic_command"
UNPARSEABLE = "unparseable"
SYSTEM_WRITE = "system_write"
GATE_TAMPER = "gate_tamper"  # writing an agent CLI's settings (the gate hook lives there), operator commands
INFRA_DESTROY = "infra_destroy"  # terraform destroy, kubectl delete ns, cloud CLIs deleting resources
DATABASE_DESTROY = "database_destroy"  # DROP/TRUNCATE/DELETE without WHERE, FLUSHALL, dropdb
PUBLISH = "publish"  # npm publish, twine upload, docker push, gh release create
PERSISTENCE = "persistence"  # anything that runs later on its own: rc files, git hooks, cron, services
PROCESS_KILL = "process_kill"  # every process, PID 1, other users' processes, system daemons
PACKAGE_RUNNER = "package_runner"  # npx -y, uvx, pipx run: fetch a package and execute it at once
DESTRUCTIVE_GIT = "destructive_git"  # discarding work or history, or git aimed outside the workspace
GATEWAY_STATE = "gateway_state"  # a Redis client: the gateway's decisions live in a Redis
NETWORK_LISTEN = "network_listen"  # a server on every interface, a tunnel, packet capture
SYSTEM_CONFIG = "system_config"  # sysctl, firewall, services, daemons, mounts, modules, users
OTHER_PROJECT = "other_project"  # a write into another project under home (`~/other-repo/x`)
INFRA_CHANGE = "infra_change"  # a powerful CLI's subcommand not known to be read-only (deploy, scale, set)
DATABASE_CHANGE = "database_change"  # SQL that is not read-only, framework database tasks that change data
CREDENTIAL_CREATION = "credential_creation"  # new access keys, tokens, service-account keys, deploy keys
OUTWARD_MESSAGE = "outward_message"  # mail, chat webhooks, SMS, comments on issues, payments
RESOURCE_EXHAUSTION = "resource_exhaustion"  # disk, inode, process or memory floods, miners

ALL_CATEGORIES = frozenset(
    {
        DESTRUCTIVE_DELETE,
        DISK_WRITE,
        POWER,
        FORK_BOMB,
        PERMISSION_CHANGE,
        SYSTEM_PERMISSION_CHANGE,
        CREDENTIAL_ACCESS,
        REMOTE_CODE,
        REVERSE_SHELL,
        EXFILTRATION,
        PACKAGE_INSTALL,
        GIT_PUSH,
        HISTORY_TAMPER,
        DYNAMIC_COMMAND,
        UNPARSEABLE,
        SYSTEM_WRITE,
        GATE_TAMPER,
        GATEWAY_STATE,
        DESTRUCTIVE_GIT,
        INFRA_DESTROY,
        DATABASE_DESTROY,
        PUBLISH,
        PERSISTENCE,
        PROCESS_KILL,
        PACKAGE_RUNNER,
        NETWORK_LISTEN,
        SYSTEM_CONFIG,
        OTHER_PROJECT,
        INFRA_CHANGE,
        DATABASE_CHANGE,
        CREDENTIAL_CREATION,
        OUTWARD_MESSAGE,
        RESOURCE_EXHAUSTION,
    }
)
