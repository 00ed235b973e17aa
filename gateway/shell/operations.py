"""Tools that act on things beyond the workspace: infrastructure, databases, registries, processes, secrets.

Each handler reads the tool's subcommand words (``words``: the arguments that are not options, in order)
and flags what the call would do (docs/rules.md):

- ``infra_destroy``: terraform/tofu destroy, ``kubectl delete`` of namespaces or ``--all``, helm uninstall,
  docker system/volume prunes and removals, cloud CLIs deleting or terminating (aws, gcloud, az, …);
- ``database_destroy``: DROP DATABASE/TABLE/SCHEMA, TRUNCATE and DELETE without WHERE — read with a SQL
  parser (sqlparse) from ``-c``/``-e``, stdin and here-documents — through psql, mysql, sqlite3 and
  friends; mongosh drops; FLUSHALL/FLUSHDB; dropdb; framework resets;
- ``publish``: npm/pnpm/yarn publish, twine upload, cargo publish, gem push, docker push, gh release
  create, poetry publish, …;
- ``process_kill``: every process (``kill -9 -1``), PID 1, another user's processes (``pkill -u``), or
  system daemons by name;
- ``credential_access``: CLIs that print credentials (``gh auth token``, ``gcloud auth
  print-access-token``, ``git credential fill``, ``aws configure get …secret…``);
- ``package_runner``: runners that fetch a package and execute it at once (``npx -y``, ``pnpm dlx``,
  ``bunx``, ``uvx``, ``pipx run``): remote code a human should look at first.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from gateway.shell import categories as cat
from gateway.shell import compose, databases, exhaustion, hosts, lexicon
from gateway.shell.flow import LOCAL_DATA, OPAQUE, Flow
from gateway.shell.generic import default_handler
from gateway.shell.invocation import Handler, Invocation
from gateway.shell.processes import DAEMONS as _DAEMONS
from gateway.shell.words import Word, literal_word


def words(call: Invocation) -> list[str]:
    """The arguments that are not options (`-x`, `--x`, `--x=v`), lower-cased, in order."""
    return [w.value.lower() for w in call.args if not w.value.startswith("-")]


def flags(call: Invocation) -> set[str]:
    return {w.value.split("=", 1)[0] for w in call.args if w.value.startswith("-")}


# -- infrastructure ------------------------------------------------------------------------------------

def _terraform(call: Invocation) -> str | None:
    w, f = words(call), flags(call)
    if w[:1] == ["destroy"] or (w[:1] == ["apply"] and "-destroy" in f):
        return cat.INFRA_DESTROY
    if w[:2] in (["state", "rm"], ["workspace", "delete"]) or (w[:2] == ["state", "push"] and "-force" in f):
        return cat.INFRA_DESTROY
    return None


_CLUSTER_WIDE = frozenset({"namespace", "namespaces", "ns", "all", "project", "projects", "pv", "persistentvolume",
                           "node", "nodes", "crd", "customresourcedefinition"})


def _kubectl(call: Invocation) -> str | None:
    w, f = words(call), flags(call)
    if "delete" not in w[:2]:
        return None
    kinds = w[w.index("delete") + 1:]
    if f & {"--all", "-A", "--all-namespaces"} or any(k.split("/")[0] in _CLUSTER_WIDE for k in kinds[:1]):
        return cat.INFRA_DESTROY
    return None


def _helm(call: Invocation) -> str | None:
    return cat.INFRA_DESTROY if words(call)[:1] in (["uninstall"], ["delete"], ["del"], ["un"]) else None


_HOST_MOUNT = re.compile(r"(?:^|[,=\s])(?:src|source)=(/[^,\s]*)|^(/[^:]*):")


def _container_host_access(call: Invocation) -> None:
    """A container given the host's root or system directories (`-v /:/host`, `--mount src=/`), the
    host's namespaces or `--privileged` can change the host like root; `docker cp` writes host paths."""
    args = [w.value for w in call.args]
    verbs = words(call)
    if verbs[:1] in (["run"], ["create"]) or verbs[:2] in (["container", "run"], ["container", "create"]):
        for i, value in enumerate(args):
            if value in ("--privileged", "--pid=host", "--ipc=host", "--userns=host", "--cap-add=ALL",
                         "--cap-add=SYS_ADMIN") or (value in ("--pid", "--ipc") and args[i + 1:i + 2] == ["host"]):
                call.flag(cat.SYSTEM_WRITE)
            mount = value.split("=", 1)[1] if value.startswith(("--volume=", "--mount=")) else \
                args[i + 1] if value in ("-v", "--volume", "--mount") and i + 1 < len(args) else None
            if mount is None:
                continue
            match = _HOST_MOUNT.search(mount)
            source = (match.group(1) or match.group(2)) if match else None
            if source is not None:
                call.write(Word(source))  # a bind mount of / or /etc is a write there
    if verbs[:1] == ["cp"] or verbs[:2] == ["container", "cp"]:
        operands = [w for w in call.args if not w.value.startswith("-")][1 if verbs[:1] == ["cp"] else 2:]
        if len(operands) == 2 and ":" not in operands[1].value.split("/", 1)[0]:
            call.write(operands[1])


def _container(call: Invocation) -> str | None:
    _container_host_access(call)
    w = words(call)
    if w[:2] in (["system", "prune"], ["volume", "prune"], ["volume", "rm"], ["container", "prune"],
                 ["image", "prune"], ["network", "prune"]):
        return cat.INFRA_DESTROY
    if w[:1] == ["compose"]:
        return _compose(call)
    if w[:1] == ["push"] or w[:2] in (["image", "push"], ["manifest", "push"]):
        return cat.PUBLISH
    return None


def _compose(call: Invocation) -> str | None:
    compose.judge(call, [w for w in words(call) if w != "compose"])
    return cat.INFRA_DESTROY if "down" in words(call) and flags(call) & {"-v", "--volumes", "--rmi"} else None


def _cloud_delete(call: Invocation) -> str | None:
    """aws, gcloud, az, doctl, gsutil, …: a word that deletes, terminates or removes a resource."""
    if flags(call) & {"--help", "-h", "--dryrun", "--dry-run", "--what-if", "--whatif"} or "help" in words(call)[:3]:
        return None  # help prints (`aws s3 rm help`: the last word of the command), a rehearsal changes nothing
    for word in words(call):
        if word.startswith(("delete", "terminate", "remove-", "deregister")) or word in (
                "rb", "rm", "destroy", "purge", "apps:destroy"):
            return cat.INFRA_DESTROY
    return None


def _destroy_word(call: Invocation) -> str | None:
    """pulumi, cdk, sls, fly, eksctl, …: `destroy`/`remove`/`delete` as a subcommand."""
    w = words(call)
    return cat.INFRA_DESTROY if set(w[:3]) & {"destroy", "remove", "delete", "rm"} else None


# -- publishing ----------------------------------------------------------------------------------------

def _package_manager(call: Invocation) -> str | None:
    w = words(call)
    if "publish" in w[:2] or w[:2] in (["dist-tag", "add"], ["npm", "publish"]):
        return cat.PUBLISH
    return None


def _first_word_publishes(*subcommands: str) -> Callable[[Invocation], str | None]:
    def judge(call: Invocation) -> str | None:
        w = words(call)
        return cat.PUBLISH if w and w[0] in subcommands else None

    return judge


def _gh(call: Invocation) -> str | None:
    w = words(call)
    if w[:2] in (["release", "create"], ["release", "upload"], ["release", "edit"]):
        return cat.PUBLISH
    if w[:2] == ["auth", "token"] or (w[:2] == ["auth", "status"] and flags(call) & {"-t", "--show-token"}):
        return cat.CREDENTIAL_ACCESS
    if w[:2] == ["repo", "delete"] or w[:2] == ["release", "delete"]:
        return cat.INFRA_DESTROY
    return None


# -- processes -----------------------------------------------------------------------------------------

_FINDERS = re.compile(r"\$\(\s*(?:pgrep|pidof)\s+(?:-\w+\s+)*([\w.-]+)|`\s*(?:pgrep|pidof)\s+(?:-\w+\s+)*([\w.-]+)")


def _kill_targets(args: list[Word]) -> list[str]:
    """`kill [-SIG | -s SIG | -n N] [--] TARGET…`: the targets (a negative number is a process group)."""
    values = [w.value for w in args]
    i = 0
    if i < len(values) and values[i] in ("-s", "-n", "--signal"):
        i += 2
    elif i < len(values) and values[i].startswith("-") and values[i] not in ("--", "-l", "-L"):
        i += 1  # -9, -KILL, -SIGTERM
    if i < len(values) and values[i] == "--":
        i += 1
    return values[i:]


def _kill(call: Invocation) -> str | None:
    if call.scope.root and set(_kill_targets(call.args)) - {"-l", "-L"}:
        return cat.PROCESS_KILL  # as root: the agent's own processes never need it, so these are someone else's
    if call.args_flow.processes or any(w.flow.processes for w in call.args):
        return cat.PROCESS_KILL  # PIDs from a listing of the machine (gateway/shell/processes.py)
    for value in _kill_targets(call.args):
        if value in ("-1", "1", "0", "-0"):
            return cat.PROCESS_KILL  # -1: every process we may signal; 1: init; 0: our whole process group
    for w in call.args:
        for match in _FINDERS.finditer(w.value):
            if (match.group(1) or match.group(2) or "").lower() in _DAEMONS:
                return cat.PROCESS_KILL
    return None


def _pkill(call: Invocation) -> str | None:
    if call.scope.root and words(call):
        return cat.PROCESS_KILL  # as root (`sudo pkill -9 cupsd`): processes the agent did not start
    f = flags(call)
    if f & {"-u", "-U", "--euid", "--uid", "-g", "-G", "--group"} or any(
            w.value.startswith(("-u", "-U")) and len(w.value) > 2 for w in call.args):
        return cat.PROCESS_KILL  # by user or group: processes the agent did not start
    names = [w.lstrip("^").rstrip("$").lower() for w in words(call)]
    if call.name == "killall5" or any(n in _DAEMONS or n in ("", ".", ".*") or _daemon_name(n, "-f" in f)
                                      for n in names) or (call.name == "killall" and not names):
        return cat.PROCESS_KILL
    return None


def _daemon_name(name: str, full_command_line: bool) -> bool:
    """A system service by its name's shape: `*daemon*`, or an exact process name ending in `d` the Unix way
    (`smbd`, `winbindd`, `cupsd`, `bluetoothd`, Perforce's `p4d`) — not a pattern matched against command lines
    (`pkill -f build`)."""
    return "daemon" in name or (not full_command_line and re.fullmatch(r"[a-z][a-z0-9_.-]{1,30}d", name) is not None)


# -- credentials and runners ---------------------------------------------------------------------------

def _credential_cli(call: Invocation) -> str | None:
    w, name = words(call), call.name
    if name == "gcloud" and "auth" in w and any(x.startswith("print-") for x in w):
        return cat.CREDENTIAL_ACCESS
    if name == "aws" and w[:2] == ["configure", "get"] and any(
            s in " ".join(w[2:]) for s in ("secret", "token", "key")):
        return cat.CREDENTIAL_ACCESS
    if name == "aws" and w[:2] in (["configure", "export-credentials"], ["ecr", "get-login-password"]):
        return cat.CREDENTIAL_ACCESS
    if name == "az" and w[:2] == ["account", "get-access-token"]:
        return cat.CREDENTIAL_ACCESS
    if name in ("op", "vault", "pass", "secret-tool", "security", "bw", "lpass", "gopass", "keyring") and (
            set(w[:2]) & {"read", "get", "show", "lookup", "find-generic-password", "find-internet-password"}
            or any(x.startswith(("dump", "export")) for x in w[:2])):
        return cat.CREDENTIAL_ACCESS  # printed, dumped (`security dump-keychain -d`) or exported (`bw export`)
    if name.startswith("docker-credential-") and w[:1] == ["get"]:
        return cat.CREDENTIAL_ACCESS
    return _cloud_delete(call) if name in ("aws", "gcloud", "az") else None


def _influx(call: Invocation) -> str | None:
    """InfluxDB 2's CLI: `influx delete …` and `influx bucket|org|… delete` destroy data; `influx auth
    create` mints a token (`auth list` prints them); queries go to the SQL client's judgement."""
    w = words(call)
    if w[:1] == ["delete"] or (len(w) > 1 and w[1] in ("delete", "rm")):
        return cat.DATABASE_DESTROY
    if w[:2] in (["auth", "create"], ["v1", "auth"], ["user", "password"], ["user", "create"]):
        return cat.CREDENTIAL_CREATION
    if w[:2] in (["auth", "list"], ["auth", "ls"], ["config", "list"], ["config", "ls"]):
        return cat.CREDENTIAL_ACCESS
    return None


def _runner(call: Invocation) -> str | None:
    """npx -y / --yes, npm exec -y, pnpm dlx, yarn dlx, bunx, uvx, pipx run: fetch and execute at once."""
    name, w, f = call.name, words(call), flags(call)
    if name in ("bunx", "uvx", "pnpx") or (name == "npx" and f & {"-y", "--yes"}):
        return cat.PACKAGE_RUNNER if call.args else None
    if name == "npm" and w[:1] in (["exec"], ["x"]) and f & {"-y", "--yes"}:
        return cat.PACKAGE_RUNNER
    if name == "npx" and any(_remote_spec(x) for x in w[:1]):
        return cat.PACKAGE_RUNNER  # `npx github:user/repo`, `npx https://…/x.tgz`: code from anywhere, at once
    if name == "go" and w[:1] == ["run"] and any("@" in x and "/" in x for x in w[1:]):
        return cat.PACKAGE_RUNNER  # `go run example.com/tool@latest`: fetched, built and run
    if name == "deno" and w[:1] in (["run"], ["x"], ["eval"], ["install"]) and any(_remote_spec(x) for x in w[1:]):
        return cat.PACKAGE_RUNNER  # `deno run https://…/cli.ts`, `deno run npm:x`
    if name == "deno" and w and _remote_spec(w[0]):
        return cat.PACKAGE_RUNNER
    if name == "composer" and w[:1] == ["create-project"] and any(
            (a.value.split("=", 1)[0] in ("--repository", "--repository-url") and "://" in a.value) or "://" in a.value
            for a in call.args[1:]):
        return cat.PACKAGE_RUNNER  # a project fetched from anywhere, its install scripts run at once
    if name == "nix" and w[:1] == ["run"] and w[1:2] and not w[1].startswith((".", "/", "path:", "self")):
        return cat.PACKAGE_RUNNER  # `nix run github:o/tool -- …`, `nix run nixpkgs#x`: fetched and run at once
    if name == "nix" and w[:1] in (["shell"], ["develop"]) and any(_remote_spec(x) for x in w[1:]):
        return cat.PACKAGE_RUNNER  # `nix develop github:someone/env -c …`: their shell hooks run here
    if name in ("uv", "hatch", "pdm") and w[:1] == ["run"] and any(_remote_spec(x) for x in w[1:2]):
        return cat.PACKAGE_RUNNER  # `uv run https://…/convert.py`: a script from anywhere, run at once
    if name in ("conda", "mamba", "micromamba") and w[:1] == ["env"] and _remote_file_option(call):
        return cat.PACKAGE_RUNNER  # `mamba env create -f https://…/env.yml`: a stranger's packages and pip lines
    if name in ("cs", "coursier") and w[:1] == ["launch"]:
        return cat.PACKAGE_RUNNER  # `cs launch org:tool:1.0 -- …`: fetched from a repository and run at once
    if (name == "pnpm" and w[:1] == ["dlx"]) or (name == "yarn" and w[:1] == ["dlx"]) or (
            name == "pipx" and w[:1] == ["run"]) or (name == "uv" and w[:2] == ["tool", "run"]) or (
            name == "bun" and w[:1] == ["x"]):
        return cat.PACKAGE_RUNNER
    return None


def _launched(call: Invocation) -> str | None:
    """`go run PKG ARGS`, `cargo run [opts] -- ARGS`: the project's program, its arguments read for verbs."""
    args = call.args
    w = words(call)
    if call.name == "go" and w[:1] == ["run"]:
        operands = [i for i, a in enumerate(args) if not a.value.startswith("-")]
        if len(operands) >= 2:
            rest = args[operands[1] + 1:]
            rest = rest[1:] if rest and rest[0].value == "--" else rest  # `go run ./cmd/x -- promote …`
            lexicon.judge_launched(call, rest, args[operands[1]].value)
    elif call.name in ("mvn", "mvnw", "gradle", "gradlew"):
        for a in args:  # `mvn exec:java -Dexec.args="…"`, `gradle run --args='…'`: the program's arguments
            name, eq, value = a.value.partition("=")
            if eq and name in ("-Dexec.args", "--args", "-Pargs", "-Dargs"):
                lexicon.judge_launched(call, [Word(x) for x in value.split()])
            # A build property that switches publishing on (`-Dquarkus.container-image.push=true`, `-Pdeploy`)
            last = name[2:].rsplit(".", 1)[-1].lower() if name.startswith(("-D", "-P")) else ""
            if last in ("push", "deploy", "publish", "release") and value.lower() in ("", "true"):
                return cat.PUBLISH
    elif call.name in ("bazel", "bazelisk") and w[:1] == ["run"]:
        # `bazel run //services/api:image_push -- --tag …`: a target is a program named for its job (rules_oci's
        # push targets, rules_k8s' `.apply`/`.delete`), so its name alone says what running it does
        end = next((i for i, a in enumerate(args) if a.value == "--"), len(args))
        target = next((a.value for a in args[:end] if a.value.startswith(("//", ":", "@"))), "")
        name = target.rsplit(":", 1)[-1].rsplit("/", 1)[-1].replace(".", "_")
        category = lexicon.program_verb(name)
        if category is not None:
            call.flag(category)
        tool = next((t for t in re.split(r"[_-]", name.lower()) if t in exhaustion.LOAD_GENERATORS), None)
        if tool is not None:  # `bazel run //loadtest:ghz_ledger -- -c 1000 host:9090`: that load tool, wrapped
            call.invoke([literal_word(tool), *args[end + 1:]])
        lexicon.judge_launched(call, args[end + 1:])
    elif call.name in ("cargo", "dotnet") and w[:1] == ["run"]:
        marker = next((i for i, a in enumerate(args) if a.value == "--"), None)
        options = args[:marker] if marker is not None else args
        # `cargo run --bin wipe_renditions -- …`, `dotnet run --project tools/Purge`: the program's own name
        name = next((b.value if not eq else value for a, b in zip(options, [*options[1:], Word("")], strict=True)
                     for key, eq, value in [a.value.partition("=")]
                     if key in ("--bin", "--example", "--project", "-p", "--package")), "")
        if marker is not None or name:
            lexicon.judge_launched(call, args[marker + 1:] if marker is not None else [], name)
    return None


def _remote_spec(word: str) -> bool:
    """A package or program named by where it comes from rather than by a registry name."""
    return word.startswith(("http://", "https://", "github:", "gitlab:", "bitbucket:", "git+", "git://", "npm:", "jsr:",
                            "git@")) or word.endswith((".git", ".tgz", ".tar.gz"))


def _remote_file_option(call: Invocation) -> bool:
    args = [a.value for a in call.args]
    for i, value in enumerate(args):
        given = args[i + 1] if value in ("-f", "--file") and i + 1 < len(args) else \
            value.partition("=")[2] if value.startswith("--file=") else value[2:] if value.startswith("-f") else ""
        if given.startswith(("http://", "https://")):
            return True
    return False


def with_judges(handler: Handler, *judges: Callable[[Invocation], str | None]) -> Handler:
    """``handler`` (a package manager's install check, or the generic handler) plus the given judges."""
    def handle(call: Invocation) -> Flow:
        # `npm publish --dry-run`, `cargo publish --dry-run`: a rehearsal changes nothing anywhere.
        rehearsal = any(w.value == "--dry-run" or w.value.startswith("--dry-run=") for w in call.args)
        for judge in () if rehearsal else judges:
            category = judge(call)
            if category is not None:
                call.flag(category)
        return handler(call)

    return handle


def _run_package(call: Invocation) -> Flow:
    """npx/bunx/uvx/pnpx CMD …: flag a fetch-and-run, then judge CMD like any command (`npx prisma migrate
    reset` resets a database whether or not npx fetched prisma first)."""
    category = _runner(call)
    if category is not None:
        call.flag(category)
    args = call.args
    i = 0
    while i < len(args) and args[i].value.startswith("-"):
        i += 2 if args[i].value in ("-p", "--package", "--from", "--with", "-c", "--call") else 1
    if i < len(args):
        call.invoke([Word(args[i].value.split("@", 1)[0] if not args[i].value.startswith("@") else
                          args[i].value), *args[i + 1:]])
    return OPAQUE


def _publishes_remotely(call: Invocation) -> bool:
    """An MQTT client publishing (`mosquitto_pub`, `mqttx pub`, `mqtt pub`) to a broker that is not this machine,
    named by `-h`/`--host` or a `-L`/`--url` URL (the default broker is localhost)."""
    values = [w.value for w in call.args[:64]]
    if call.name in ("mqttx", "mqtt") and "pub" not in values[:2] and "publish" not in values[:2]:
        return False
    named = [values[i + 1] for i, v in enumerate(values[:-1]) if v in ("-h", "--host", "-L", "--url")]
    return any(not hosts.is_local(hosts.normalize(h.split("://", 1)[-1].split("/", 1)[0]) or "localhost")
               for h in named)


def _handler(judge: Callable[[Invocation], str | None]) -> Handler:
    """The judge, then the rest as for any program: path arguments, URL hosts, and a shell handed over
    (`docker run -it alpine /bin/sh`, `kubectl exec -it pod -- bash`)."""
    return with_judges(default_handler, judge)


def _database_client(judge: Callable[[Invocation], str | None]) -> Handler:
    """A database client: judged like any program, and what it prints is the database's data — sent away
    (`psql -c 'SELECT …' | curl --data-binary @- https://…`) as a local file's content would be."""
    handle = _handler(judge)

    def client(call: Invocation) -> Flow:
        return handle(call).merge(LOCAL_DATA)

    return client


# Dump and export tools print what they read (`pg_dump`, `mysqldump`, `mongoexport`, `etcd-dump`): their output is
# the data, sent away as a file's would be (`pg_dump db | gzip | nc HOST PORT`). Recognised by the shape of
# their name (gateway/shell/commands.py).
DUMPER = _database_client(lambda call: None)

_STEAM_UPLOADS = frozenset({"+run_app_build", "+run_app_build_http", "+run_workshop_build", "+workshop_build_item",
                            "+build_depot"})

INFRA: dict[str, Handler] = {
    **dict.fromkeys(["terraform", "tofu", "terragrunt"], _handler(_terraform)),
    **dict.fromkeys(["kubectl", "oc", "k"], _handler(_kubectl)),
    "helm": _handler(_helm),
    **dict.fromkeys(["docker", "podman", "nerdctl", "ctr"], _handler(_container)),
    "docker-compose": _handler(_compose),
    **dict.fromkeys(["aws", "gcloud", "az"], _handler(_credential_cli)),
    **dict.fromkeys(["gsutil", "doctl", "linode-cli", "hcloud", "oci", "ibmcloud", "heroku"], _handler(_cloud_delete)),
    **dict.fromkeys(["pulumi", "cdk", "sls", "serverless", "fly", "flyctl", "eksctl", "vercel", "netlify", "sam"],
                    _handler(_destroy_word)),
    **dict.fromkeys(["psql", "mysql", "mariadb", "sqlite3", "duckdb", "clickhouse-client", "sqlcmd", "cockroach",
                     "cqlsh", "snowsql", "bq-shell", "trino", "presto", "usql", "litecli", "pgcli", "mycli", "vsql",
                     "isql", "sqlplus", "db2", "mongosh-sql", "spark-sql", "beeline", "hive", "impala-shell",
                     "clickhouse", "turso", "libsql", "psql.exe", "bteq", "tdsql", "nzsql", "dbisql"],
                    _database_client(databases.sql_client)),
    **dict.fromkeys(["impdp", "imp", "bcp"], _handler(databases.bulk_load)),
    "influx": _handler(lambda call: _influx(call) or databases.sql_client(call)),
    **dict.fromkeys(["pg_restore", "mongorestore"], _handler(databases.restore)),
    "bq": _database_client(databases.bq),
    **dict.fromkeys(["mongosh", "mongo"], _database_client(databases.mongo)),
    "dropdb": _handler(lambda call: cat.DATABASE_DESTROY),
    # kcat (kafkacat): `-P` produces records into a topic others consume (`-C`, `-L`, `-Q` only read). Its mode
    # letters differ from its options by case alone (`-p` partition, `-l` one record per line), so exactly `-P`.
    **dict.fromkeys(["kcat", "kafkacat"], _handler(
        lambda call: cat.DATABASE_CHANGE if any(w.value == "-P" for w in call.args) else None)),
    # MQTT: a message published to a broker off this machine reaches the devices and services subscribed to it
    # (`mosquitto_pub -h mqtt.prod -t fleet/ota -r …`), as `kcat -P` does for Kafka; a local broker is a test's.
    **dict.fromkeys(["mosquitto_pub", "mosquitto_rr", "mqttx", "mqtt"], _handler(
        lambda call: cat.DATABASE_CHANGE if _publishes_remotely(call) else None)),
    "mysqladmin": _handler(lambda call: cat.DATABASE_DESTROY if "drop" in words(call) else None),
    **dict.fromkeys(["rails", "rake", "prisma"], _handler(databases.framework_db)),
    "twine": _handler(_first_word_publishes("upload")),
    **dict.fromkeys(["flit", "hatch"], _handler(_first_word_publishes("publish"))),
    "vsce": _handler(_first_word_publishes("publish")),
    # SteamCMD's `+command` script: `+run_app_build app_build.vdf` uploads a build to Steam (and may set it live)
    **dict.fromkeys(["steamcmd", "steamcmd.sh", "steamcmd.exe"], _handler(
        lambda call: cat.PUBLISH if any(w.value.lower() in _STEAM_UPLOADS for w in call.args) else None)),
    "gh": _handler(_gh),
    "kill": _handler(_kill),
    **dict.fromkeys(["pkill", "killall", "killall5", "skill", "slay"], _handler(_pkill)),
    **dict.fromkeys(["op", "vault", "pass", "secret-tool", "security", "bw", "lpass", "gopass", "keyring",
                     "docker-credential-desktop", "docker-credential-pass", "docker-credential-secretservice",
                     "docker-credential-osxkeychain"], _handler(_credential_cli)),
    **dict.fromkeys(["npx", "bunx", "uvx", "pnpx"], _run_package),
    "deno": _handler(_runner),
}


# Package managers that already have install handlers (packages.py) also run and publish packages.
RUNNER_AND_PUBLISH = (_runner, _package_manager)
RUNNER = _runner
LAUNCHED = _launched
PUBLISHERS = {"cargo": _first_word_publishes("publish"), "gem": _first_word_publishes("push")}
