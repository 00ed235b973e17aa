"""Process listings: `ps`, `pgrep`, `pidof`, `nvidia-smi`. What they print is judged by what it is used for.

- Their PIDs, when they list processes the agent did not start — the whole machine (`ps aux`, `ps -e`),
  another user's (`pgrep -u postgres`), a system daemon by name (`pidof sshd`) — carry ``Flow.processes``:
  a `kill` handed them (`ps aux | grep node | awk '{print $2}' | xargs kill -9`) is ``process_kill``
  (operations.py), whatever filter picked them in between.
- `ps e` (BSD `e`) prints every process's environment: a dump of secrets, like `env`.
"""

from __future__ import annotations

from gateway.shell.flow import ENVIRONMENT, LOCAL_DATA, Flow
from gateway.shell.invocation import Invocation

# Processes every agent machine runs that the agent did not start (matched by pgrep/pidof pattern).
DAEMONS = frozenset({"init", "systemd", "sshd", "cron", "crond", "dockerd", "containerd", "kubelet", "postgres",
                     "postgresql", "mysqld", "mariadbd", "redis-server", "nginx", "apache2", "httpd", "xorg",
                     "gdm", "sddm", "dbus-daemon", "networkmanager", "rsyslogd", "journald", "systemd-journald",
                     "auditd", "polkitd", "udevd", "systemd-udevd", "snapd", "sudo", "login", "agetty",
                     "gnome-shell", "plasmashell", "code", "claude", "gemini", "acteon-gateway", "mongod",
                     "elasticsearch", "java", "node", "python", "python3", "ruby", "php-fpm", "memcached",
                     "rabbitmq-server", "kafka", "zookeeper", "etcd", "containerd-shim", "tmux", "screen", "ssh-agent",
                     "gpg-agent", "pulseaudio", "pipewire", "Xwayland", "xwayland",
                     # cluster and network agents of the machine: schedulers, service meshes, VPNs, proxies
                     "nomad", "consul", "vault", "tailscaled", "tailscale", "cloudflared", "nats-server", "minio",
                     "slurmd", "slurmctld", "slurmdbd", "munged", "pbs_mom", "pbs_server", "sge_execd", "ceph-osd",
                     "ceph-mon", "irodsServer", "lustre", "nfsd", "rpcbind", "sssd", "ipa", "krb5kdc", "kadmind",
                     "traefik", "caddy", "haproxy", "envoy", "prometheus", "grafana-server", "node_exporter",
                     "telegraf", "fluent-bit", "fluentd", "vector", "k3s", "k3s-server", "kube-apiserver",
                     "kube-proxy", "kube-scheduler", "kube-controller-manager", "supervisord", "wireguard",
                     "wg-quick", "openvpn", "netbird", "zerotier-one", "ntpd", "chronyd", "named", "unbound",
                     "dnsmasq", "postfix", "dovecot", "clickhouse-server", "cockroach", "temporal", "pgbouncer",
                     "patroni", "keepalived", "corosync", "pacemakerd"})
_SYSTEM_WIDE = frozenset("aAegx")  # ps letters that widen the listing beyond this terminal's processes


def ps(call: Invocation) -> Flow:
    flow = Flow(local_data=True)
    for word in call.args:
        value = word.value
        if value.startswith("--"):
            continue
        letters = value[1:] if value.startswith("-") else value
        if not value.startswith("-") and "e" in letters and letters.isalpha():
            flow = flow.merge(ENVIRONMENT)  # BSD `ps e`/`ps auxe`/`ps eww`: environments after the commands
        if set(letters) & _SYSTEM_WIDE or value in ("-e", "-A"):
            flow = flow.merge(Flow(processes=True))
    return flow


def pgrep(call: Invocation) -> Flow:
    """pgrep/pidof: PIDs of another user's processes or of a daemon are processes the agent did not start."""
    options_with_user = ("-u", "-U", "-G", "-g", "--euid", "--uid", "--group", "--pgroup")
    names: list[str] = []
    others = False
    args = call.args
    for i, word in enumerate(args):
        value = word.value
        if value in options_with_user or any(value.startswith(o) and len(value) > 2 and not o.startswith("--")
                                             for o in options_with_user):
            others = True
        elif not value.startswith("-") and not (i > 0 and args[i - 1].value in ("-P", "--parent", "-s", "--session",
                                                                                 "-t", "--terminal", "-F",
                                                                                 "--pidfile")):
            # `pgrep -f 'jupyter|raylet|python'`: each alternative is a name
            names.extend(part.lstrip("^").rstrip("$").strip().rsplit("/", 1)[-1].lower() for part in value.split("|"))
    if others or any(n in DAEMONS or n in ("", ".", ".*") for n in names):
        return Flow(local_data=True, processes=True)
    return LOCAL_DATA


def nvidia_smi(call: Invocation) -> Flow:
    """`nvidia-smi --query-compute-apps=pid` and `nvidia-smi pmon` list every process on the GPUs, whoever
    started it: a kill handed those PIDs is a kill of other users' training jobs."""
    values = [w.value for w in call.args]
    if any(v.startswith("--query-compute-apps") or v.startswith("--query-accounted-apps") for v in values) or \
            "pmon" in values:
        return Flow(local_data=True, processes=True)
    return LOCAL_DATA
