"""Resource exhaustion: filling the disk or the inode table, flooding processes or memory, mining.

A coding agent reproducing "disk full" or load-testing a parser has better tools than the machine it shares
with everyone else; these are ``resource_exhaustion`` (docs/rules.md):

- a file of a size no test needs (`fallocate -l 500G`, `truncate -s 1T`, `dd … bs=1M count=2000000`);
- an endless stream saved to a file (`yes > f`, `cat /dev/urandom > f`): ``Flow.unbounded`` reaching a
  redirection (walker) — `head -c 10M /dev/urandom > f` is bounded and fine;
- one file or process per item of a huge listing (`seq 1 50000000 | xargs touch`, `for i in $(seq 1e7)`);
- stress tools and cryptocurrency miners (by name, or by a `stratum+tcp://` pool address in any argument).
"""

from __future__ import annotations

import re

from gateway.shell import categories as cat
from gateway.shell import hosts
from gateway.shell.flow import OPAQUE, Flow
from gateway.shell.invocation import Invocation

LARGE_BYTES = 8 << 30  # a file this big is a flood, not a fixture
MANY_ITEMS = 1_000_000  # a listing this long fed one by one to a command that creates things
_UNITS = {"": 1, "B": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40, "P": 1 << 50, "E": 1 << 60}
_SIZE = re.compile(r"^\+?(\d+(?:\.\d+)?)\s*([KMGTPE]?)(?:i?B)?$", re.I)
MINERS = frozenset({"xmrig", "minerd", "cpuminer", "cpuminer-opt", "ethminer", "t-rex", "nbminer", "lolminer",
                    "cgminer",
                    "bfgminer", "xmr-stak", "xmr-stak-rx", "nanominer", "phoenixminer", "gminer", "teamredminer",
                    "srbminer", "srbminer-multi", "bzminer", "ccminer", "sgminer", "nheqminer", "wildrig"})
STRESS = frozenset({"stress", "stress-ng", "stressapptest", "memtester", "forkbomb", "hping3"})
CREATORS = frozenset({"touch", "mkdir", "fallocate", "dd", "cp", "ln", "truncate", "mktemp", "install", "tee", "mkfifo",
                      "curl", "wget", "docker", "git"})
_POOL = re.compile(r"stratum\+(?:tcp|ssl|tls)://|\bpool\.[\w.-]+:\d{3,5}\b|\bnicehash\b|\b(?:xmr|eth|rvn)[-.]?pool\b",
                   re.I)


def size_of(text: str) -> int | None:
    """`500G`, `1T`, `2GiB`, `100000000` as bytes (None when it is not a size)."""
    match = _SIZE.match(text.strip())
    if not match:
        return None
    return int(float(match.group(1)) * _UNITS[match.group(2).upper()])


def check_arguments(call: Invocation) -> None:
    """Miners and stress tools by name or by a mining pool in an argument (any program)."""
    if call.name.lower() in MINERS or call.name.lower() in STRESS:
        call.flag(cat.RESOURCE_EXHAUSTION)
        return
    if any(("stratum" in w.value or "pool" in w.value or "nicehash" in w.value) and _POOL.search(w.value)
           for w in call.args[:64] if len(w.value) < 4096):
        call.flag(cat.RESOURCE_EXHAUSTION)
    if call.name in LOAD_GENERATORS and (any(_remote_url(w.value) or _remote_address(w.value) for w in call.args[:64])
                                         or _aims_script(call) or _remote_url(call.stdin.script or "")):
        call.flag(cat.RESOURCE_EXHAUSTION)  # `hey -c 2000 https://api.example.com`: a flood of a live service
    if call.name in TRAFFIC_GENERATORS and _remote_peer(call):
        call.flag(cat.RESOURCE_EXHAUSTION)  # `iperf3 -c pe1.par1 -P 128 -t 86400`: a live link saturated
    if call.name.removesuffix(".sh") in BENCHMARKS and _remote_server(call):
        call.flag(cat.RESOURCE_EXHAUSTION)  # `kafka-producer-perf-test … bootstrap.servers=kafka-prod:9092`
    if call.name in CONTAINER_RUNNERS and {"run", "create", "exec"} & {
            w.value for w in call.args[:8] if not w.value.startswith("-")} and any(
            _flood_image(w.value) for w in call.args[:64]):
        call.flag(cat.RESOURCE_EXHAUSTION)  # `docker run --gpus all …/gpu-burn 604800`


# Load generators: pointed at a service off this machine they are a denial of service (a load test belongs on
# a local or staging stack the team set up for it, and the agent cannot tell which is which).
LOAD_GENERATORS = frozenset({"hey", "k6", "wrk", "wrk2", "ab", "vegeta", "locust", "artillery", "siege", "bombardier",
                             "oha", "autocannon", "h2load", "ghz", "jmeter", "gatling", "drill", "plow", "slowhttptest",
                             "goose-attack", "tsung", "ddosify", "loadtest"})
_URL = re.compile(r"(?:https?|wss?|grpcs?)://[^\s'\"]+")
# Network throughput and packet generators: aimed at another machine they fill the links on the way (a
# throughput test belongs on a lab link the team set up for it), and `ping -f` floods.
TRAFFIC_GENERATORS = frozenset({"iperf", "iperf3", "iperf2", "nuttcp", "netperf", "trafgen", "mausezahn", "mz",
                                "ping", "ping6", "fping", "nping", "packeth", "ostinato", "t-rex-64"})
_PEER_OPTIONS = frozenset({"-c", "--client", "-H", "--host", "--dest-ip"})


def _remote_peer(call: Invocation) -> bool:
    values = [w.value for w in call.args[:64]]
    if call.name in ("ping", "ping6", "fping", "nping"):
        if not any(v in ("-f", "--flood", "--rate") or (v.startswith("-") and not v.startswith("--") and "f" in v[1:]
                                                      and v[1:].isalpha()) for v in values):
            return False  # an ordinary ping: a few packets
        peers = [v for v in values if not v.startswith("-")]
    else:
        peers = [values[i + 1] for i, v in enumerate(values[:-1]) if v in _PEER_OPTIONS]
        peers += [v.split("=", 1)[1] for v in values if "=" in v and v.split("=", 1)[0] in _PEER_OPTIONS]
        peers += [v[2:] for v in values if v.startswith("-c") and len(v) > 2 and not v.startswith("--")]
        if call.name in ("nuttcp", "mausezahn", "mz", "trafgen"):
            peers += [v for v in values if not v.startswith("-")]
    return any(not hosts.is_local(hosts.user_host(p) or "localhost") for p in peers if p and not p.isdigit())
# Servers' own benchmarks: as floods of a server that is not this machine's, the same.
BENCHMARKS = frozenset({"kafka-producer-perf-test", "kafka-consumer-perf-test", "redis-benchmark", "pgbench",
                        "memtier_benchmark", "memtier-benchmark", "rabbitmq-perf-test", "nats-bench",
                        "cassandra-stress", "mongoperf", "sysbench", "rdkafka_performance", "mysqlslap",
                        "clickhouse-benchmark"})
_SERVER_OPTIONS = frozenset({"-h", "--host", "--hostname", "--bootstrap-server", "--broker-list", "--server",
                             "--uri", "--url", "--mysql-host", "--pgsql-host", "--nodes"})
_SERVERS_SETTING = re.compile(r"(?:bootstrap\.servers|metadata\.broker\.list|host|hosts|uri)=([^\s]+)", re.I)


def _remote_server(call: Invocation) -> bool:
    """A benchmark's server, named by an option, a `bootstrap.servers=` setting or a URL, is not this machine."""
    values = [w.value for w in call.args[:64]]
    named = [values[i + 1] for i, v in enumerate(values[:-1]) if v in _SERVER_OPTIONS]
    named += [v.split("=", 1)[1] for v in values if v.split("=", 1)[0] in _SERVER_OPTIONS and "=" in v]
    named += [m.group(1) for v in values for m in _SERVERS_SETTING.finditer(v)]
    servers = [part for value in named for part in value.split(",")[:8] if not part.isdigit()]
    return any(not hosts.is_local(hosts.user_host(h) or "localhost") for h in servers) or any(
        _remote_url(v) for v in values)


_ADDRESS = re.compile(r"[A-Za-z0-9][A-Za-z0-9.-]{0,253}:\d{1,5}")


def _remote_address(value: str) -> bool:
    """`engine.payments.internal:443` as gRPC and TCP load tools take their target: a host that is not this one."""
    return bool(_ADDRESS.fullmatch(value)) and not hosts.is_local(hosts.normalize(value) or "localhost")


def _aims_script(call: Invocation) -> bool:
    """A load test's script (`k6 run spike.js`, `locust -f x.py`, `artillery run x.yml`) aimed at a remote URL."""
    for word in call.args[:16]:
        content = call.file_content(word) if not word.value.startswith("-") else None
        if content is not None and content.script is not None and _remote_url(content.script):
            return True
    return False


def _remote_url(value: str) -> bool:
    return any(not hosts.is_local(hosts.bare_url_host(url) or "") for url in _URL.findall(value[:4096])[:8])


CONTAINER_RUNNERS = frozenset({"docker", "podman", "nerdctl", "ctr", "kubectl", "singularity", "apptainer", "enroot",
                               "lima", "finch"})
_FLOOD_IMAGE_WORDS = ("stress", "burn", "miner", "xmrig", "forkbomb", "memtester", "loadgen-cpu")


def _flood_image(value: str) -> bool:
    """An image named for a stress tool, a burn-in or a miner (`progrium/stress`, `x/gpu-burn:latest`)."""
    if value.startswith("--image="):
        value = value[len("--image="):]
    if value.startswith("-") or " " in value or len(value) > 256:
        return False
    base = value.rsplit("/", 1)[-1].split(":", 1)[0].split("@", 1)[0].lower()
    return any(word in base for word in _FLOOD_IMAGE_WORDS) or base in MINERS


def fallocate(call: Invocation) -> Flow:
    args = call.args
    for i, word in enumerate(args):
        name, eq, rest = word.value.partition("=")
        value = rest if eq else args[i + 1].value if name in ("-l", "--length") and i + 1 < len(args) else None
        if name in ("-l", "--length") and value is not None and (size_of(value) or 0) >= LARGE_BYTES:
            call.flag(cat.RESOURCE_EXHAUSTION)
    for word in [w for w in args if not w.value.startswith("-")][-1:]:
        call.write(word)
    return OPAQUE


def dd_size(call: Invocation) -> None:
    """`dd … bs=1M count=2000000`: how much it writes; an infinite source with no count never stops."""
    values = dict(w.value.split("=", 1) for w in call.args if "=" in w.value)
    block = size_of(values.get("bs", values.get("obs", "512"))) or 512
    count = values.get("count")
    if count is None:
        if values.get("if") in ("/dev/zero", "/dev/urandom", "/dev/random") and "of" in values and \
                not values["of"].startswith("/dev/"):
            call.flag(cat.RESOURCE_EXHAUSTION)  # fills the disk until it is full
        return
    number = size_of(count)
    if number is not None and number * block >= LARGE_BYTES:
        call.flag(cat.RESOURCE_EXHAUSTION)


def truncate_size(call: Invocation, size: str | None) -> None:
    if size is not None and (size_of(size) or 0) >= LARGE_BYTES:
        call.flag(cat.RESOURCE_EXHAUSTION)


def seq(call: Invocation) -> Flow:
    """seq prints numbers; a count past ``MANY_ITEMS`` marks the listing as huge."""
    numbers = [size_of(w.value) for w in call.args if not w.value.startswith("-") or w.value[1:2].isdigit()]
    known = [n for n in numbers if n is not None]
    if known and max(known) >= MANY_ITEMS and len(known) == len(numbers):
        return Flow(opaque=True, many=True)
    return OPAQUE


def yes(call: Invocation) -> Flow:
    return Flow(opaque=True, unbounded=True)


_FOREVER = re.compile(r"^(?:while|until)\s+(?:true|:|\[\s*1\s*\]|\(\(\s*1\s*\)\)|false)\s*;?\s*do\b", re.S)
_BACKGROUND = re.compile(r"(?<![&>|])&(?![&>])|\brun\s+(?:[^;|&]*\s)?(?:-d|--detach)\b|\bnohup\b|\bsetsid\b")


def spawns_forever(loop: str) -> bool:
    """An endless loop that starts a background job each time round and never waits for one, or writes a
    new file each time round (`while :; do head -c 1G /dev/urandom > /tmp/f.$RANDOM; done`) and never
    leaves."""
    loop = loop[: 1 << 16]
    if not _FOREVER.match(loop) or re.search(r"\b(?:break|exit|return)\b", loop):
        return False
    return (bool(_BACKGROUND.search(loop)) and "wait" not in loop) or bool(_NEW_FILE.search(loop)) or \
        bool(_NEW_COPY.search(loop)) or bool(_NEW_PATH.search(loop))


# A command that creates things, named by something that changes each time round (`cp -r x /tmp/c_$RANDOM`).
_NEW_COPY = re.compile(r"""\b(?:cp|mkdir|touch|dd|fallocate|truncate|ln|rsync|tar|git\s+clone|docker\s+run|mktemp)\b"""
                       r"""[^;&|\n]*\$\{?(?:RANDOM|SRANDOM|EPOCHREALTIME|BASHPID|i|n|count|idx)\b""")
# Any program given a file path that changes each time round (`ffmpeg … /tmp/burn-$(date +%s%N).mp4`): an
# output, most likely — nothing reads a file with a name nobody knows yet.
_CHANGING = (r"""(?:\$\{?(?:RANDOM|SRANDOM|EPOCHREALTIME|EPOCHSECONDS|BASHPID|i|j|k|n|count|counter|idx|index|seq|ts"""
             r"""|stamp|now)\b|\$\(\(|\$\(\s*(?:date|uuidgen|mktemp|openssl\s+rand|od|cat\s+/proc/sys/kernel/random))""")
_NEW_PATH = re.compile(r"""(?:^|[\s=])["']?(?:/|\./|~/)[^\s;&|"'()]*""" + _CHANGING)
# A redirection to a name that changes each time round: a variable or a command's output in the file name.
_NEW_FILE = re.compile(r""">>?\s*["']?[^\s;&|"']*(?:\$\{?(?:RANDOM|SRANDOM|EPOCHREALTIME|EPOCHSECONDS|BASHPID|i|j|k|n"""
                       r"""|count|counter|idx|index|seq|ts|stamp|now)\b|\$\(\("""
                       r"""|\$\(\s*(?:date|uuidgen|mktemp|openssl\s+rand|od|cat\s+/proc/sys/kernel/random))""")


_CREATES = re.compile(r"\b(?:" + "|".join(sorted(CREATORS)) + r")\b|&\s*(?:$|done|\))|>\s*\S")


def creates_things(body: str) -> bool:
    """A loop body that makes a file or a process each time round (a command that creates, `&`, `> file`)."""
    return bool(_CREATES.search(body[: 1 << 16]))
