"""Command name → handler. Names not listed get the generic treatment (path-like arguments, URLs)."""

from __future__ import annotations

import re

from gateway.shell import (
    access,
    admin,
    ansible,
    archives,
    buildhooks,
    certificates,
    clis,
    databases,
    declared,
    devices,
    exhaustion,
    fanout,
    files,
    foreign,
    hpc,
    interpreters,
    lexicon,
    media,
    network,
    notebooks,
    operations,
    operators,
    packages,
    permissions,
    processes,
    pytasks,
    readers,
    salt,
    system,
    tasks,
    transfers,
    vcs,
    windows,
)
from gateway.shell.find import find
from gateway.shell.flow import Flow
from gateway.shell.generic import BASH_LIKE_SHELLS, default_handler, no_effect
from gateway.shell.invocation import Handler, Invocation

HANDLERS: dict[str, Handler] = {
    # deleting, moving, writing
    "rm": files.rm,
    "rmdir": files.rmdir,
    "unlink": files.unlink,
    "shred": files.shred,
    "truncate": files.truncate,
    "mv": files.mv,
    "cp": files.cp,
    "ffmpeg": media.ffmpeg,
    **dict.fromkeys(["convert", "magick", "mogrify", "montage", "composite"], media.imagemagick),
    "install": files.install,
    "ln": files.ln,
    "touch": files.touch,
    "mkdir": files.mkdir,
    "tee": files.tee,
    **dict.fromkeys(["apply_patch", "applypatch"], files.apply_patch),
    "dd": files.dd,
    "sudoedit": files.touch,
    "find": find,
    # the gateway's own store, and this product's operator commands
    **dict.fromkeys(network.REDIS_CLIENTS, network.redis_client),
    **operators.HANDLERS,
    # navigating and inspecting
    "cd": files.cd,
    "pushd": files.cd,
    "popd": files.popd,
    **dict.fromkeys(["dirname", "basename", "realpath", "pwd"], files.path_text),
    "mktemp": files.mktemp,
    **dict.fromkeys(["ls", "stat", "du", "readlink", "tree",
                     "test", "[", "[[", "df", "exa", "eza", "lsattr", "getfacl", "namei"],
                    files.inspect_operands),
    # permissions
    "chmod": permissions.chmod,
    "chown": permissions.chown,
    "chgrp": permissions.chown,
    "chattr": permissions.chattr,
    "setfacl": permissions.setfacl,
    # reading and filtering
    "cat": readers.cat_,
    "pv": readers.cat_,
    "tac": readers.head_tail,
    "head": readers.head_tail,
    "tail": readers.head_tail,
    **dict.fromkeys(["nl", "wc", "cut", "paste", "fold", "fmt", "expand", "unexpand", "column", "less",
                     "more", "most", "strings", "md5sum", "sha1sum", "sha224sum", "sha256sum", "sha384sum",
                     "sha512sum", "b2sum", "b3sum", "shasum", "xxhsum", "xxh64sum", "xxh128sum", "md5", "sum",
                     "cksum", "comm", "cmp", "hexdump", "bat", "shellcheck", "hadolint", "yamllint", "actionlint",
                     "jsonlint", "markdownlint", "shfmt"],
                    readers.plain_filter),
    "tr": readers.tr,
    "rev": readers.rev,
    "base64": readers.base64_,
    "base32": readers.base64_,
    "basenc": readers.base64_,
    "xxd": readers.xxd,
    "iconv": readers.iconv,
    "cpio": archives.cpio,
    "file": files.file_,
    "od": readers.od,
    "diff": readers.diff,
    **dict.fromkeys(["grep", "egrep", "fgrep", "zgrep"], readers.grep),
    "rg": readers.ripgrep,
    "ag": readers.silver,
    "ack": readers.silver,
    "jq": readers.jq,
    "yq": readers.jq,
    **dict.fromkeys(["gzip", "gunzip", "zcat", "bzip2", "bunzip2", "bzcat", "xz", "unxz", "xzcat", "zstd",
                     "unzstd", "zstdcat", "lz4"], readers.compressor),
    "sort": readers.sort_,
    "uniq": readers.uniq,
    "sed": readers.sed,
    **dict.fromkeys(["awk", "gawk", "mawk", "nawk"], readers.awk),
    "tar": archives.tar,
    "zip": archives.zip_,
    "unzip": archives.unzip,
    "echo": readers.echo,
    "printf": readers.printf,
    "printenv": readers.environment_dump,
    "compgen": readers.compgen,
    "read": readers.read_builtin,
    "set": readers.set_builtin,
    # network
    "curl": network.curl,
    "wget": network.wget,
    "http": network.httpie,
    "https": network.httpie,
    **dict.fromkeys(["nc", "ncat", "netcat", "nc.traditional", "nc.openbsd", "pwncat"], network.netcat),
    **dict.fromkeys(["telnet", "rsh", "rexec"], network.telnet),
    "rlogin": foreign.session,  # an interactive login elsewhere: what runs there is typed in
    "socat": network.socat,
    "openssl": network.openssl,
    "ssh": network.ssh,
    **dict.fromkeys(devices.DEVICE_CLIS, devices.device_cli),
    **dict.fromkeys(fanout.PROGRAMS, fanout.fan_out),
    "kinit": access.kinit,
    "scp": network.scp,
    "rsync": network.rsync,
    **dict.fromkeys(["tftp", "ping", "ping6", "dig", "nslookup", "host", "traceroute",
                     "mosh"], network.host_only),
    # nested code
    **dict.fromkeys(BASH_LIKE_SHELLS, interpreters.shell),
    "eval": interpreters.eval_,
    "source": interpreters.source,
    ".": interpreters.source,
    "trap": interpreters.trap,
    "alias": interpreters.alias,
    "script": interpreters.script_command,
    "perl": interpreters.perl,
    "ruby": interpreters.ruby,
    "php": interpreters.php,
    "node": interpreters.node,
    "nodejs": interpreters.node,
    **foreign.HANDLERS,
    # the machine's own configuration
    **admin.HANDLERS,
    # packages and git
    "pip": packages.pip,
    "git": vcs.git,
    **packages.HANDLERS,
    **{name: operations.with_judges(packages.HANDLERS[name], *operations.RUNNER_AND_PUBLISH)
       for name in ("pipx", "uv", "poetry")},
    **{name: operations.with_judges(packages.HANDLERS[name], operations.RUNNER)
       for name in ("conda", "mamba", "micromamba")},
    **{name: tasks.package_manager(operations.with_judges(packages.HANDLERS[name], *operations.RUNNER_AND_PUBLISH))
       for name in ("npm", "pnpm", "yarn", "bun")},
    **dict.fromkeys(["just", "task"], tasks.task_runner),
    **dict.fromkeys(["honcho", "foreman", "overmind", "hivemind", "forego"], tasks.procfile_runner),
    **{name: operations.with_judges(packages.HANDLERS[name], judge, operations.LAUNCHED)
       for name, judge in operations.PUBLISHERS.items()},
    "go": operations.with_judges(packages.HANDLERS["go"], *operations.RUNNER_AND_PUBLISH, operations.LAUNCHED),
    "nix": operations.with_judges(default_handler, operations.RUNNER),
    **dict.fromkeys(["cs", "coursier"], operations.with_judges(default_handler, operations.RUNNER)),
    "ansible": ansible.ansible,
    "boundary": access.boundary,
    # infrastructure, databases, registries, processes, credential stores
    **operations.INFRA,
    # floods
    "fallocate": exhaustion.fallocate,
    "seq": exhaustion.seq,
    "yes": exhaustion.yes,
    # processes
    "ps": processes.ps,
    **dict.fromkeys(["pgrep", "pidof"], processes.pgrep),
    "nvidia-smi": processes.nvidia_smi,
    # machine
    **dict.fromkeys(["shutdown", "reboot", "halt", "poweroff"], system.power),
    "systemctl": system.systemctl,
    "loginctl": system.loginctl,
    "init": system.init,
    "telinit": system.init,
    "kexec": system.kexec,
    **dict.fromkeys(["mkswap", "mke2fs", "mkdosfs", "mkntfs", "blkdiscard"], system.disk_format),
    **dict.fromkeys(["fdisk", "sfdisk", "cfdisk", "gdisk", "sgdisk", "parted"], system.partitioner),
    "wipefs": system.wipefs,
    "history": system.history,
    "crontab": system.crontab,
    "scrontab": system.crontab,  # Slurm's crontab: jobs submitted on a schedule
    **dict.fromkeys(["at", "batch", "atq", "atrm"], system.at),
    "systemd-run": system.systemd_run,
    "launchctl": system.launchctl,
    **dict.fromkeys(["make", "gmake", "bmake"], system.make),
    # nothing to see
    **dict.fromkeys(["true", "false", ":", "sleep", "date", "whoami", "id", "uname", "hostname",
                     "which", "type", "hash", "wait", "jobs", "exit", "return", "shift", "clear",
                     "nproc", "uptime"], no_effect),
}

def _described_by_its_verbs(call: Invocation) -> Flow:
    """A program nobody described but for one judge on top (`conan install`): its verbs still say what the rest
    of it does (`conan upload`), as for any program the walker meets without a handler."""
    lexicon.judge(call)
    return default_handler(call)


HANDLERS.update(hpc.HANDLERS)
HANDLERS.update(transfers.HANDLERS)
HANDLERS.update(windows.HANDLERS)
HANDLERS.update(declared.HANDLERS)  # before the tables: mise's table follows `mise exec` on top of it
# Powerful CLIs judged by their known-safe tables (gateway/shell/cli_tables), on top of their own handler.
for _name in clis.tables():
    HANDLERS[_name] = clis.handler(HANDLERS.get(_name, default_handler))
for _names, _judge in ((certificates.ISSUERS, certificates.issues_certificate),
                       (packages.DEPENDENCY_INSTALLERS, packages.dependency_install), (("dbt",), databases.dbt_target)):
    for _name in _names:  # one judge on top of what the program already has (or of its verbs' reading)
        HANDLERS[_name] = operations.with_judges(HANDLERS.get(_name, _described_by_its_verbs), _judge)
HANDLERS["mix"] = foreign.mix(HANDLERS["mix"])
HANDLERS["dart"] = foreign.dart(HANDLERS.get("dart", default_handler))
HANDLERS["blender"] = foreign.blender
for _name in ("java", "jbang"):
    HANDLERS[_name] = foreign.java(HANDLERS.get(_name, default_handler))
HANDLERS["deno"] = buildhooks.deno(HANDLERS["deno"])
for _name in ("bun", "deno"):
    HANDLERS[_name] = interpreters.js_runtime(HANDLERS[_name])
HANDLERS["composer"] = buildhooks.composer(operations.with_judges(HANDLERS["composer"], operations.RUNNER))
HANDLERS["cargo"] = buildhooks.cargo(HANDLERS["cargo"])
HANDLERS["go"] = buildhooks.go_run(HANDLERS["go"])
for _name in ("gradle", "gradlew"):
    HANDLERS[_name] = buildhooks.gradle(HANDLERS[_name])
for _name in ("tsx", "ts-node", "ts-node-esm", "esno", "vite-node", "jiti"):
    HANDLERS[_name] = interpreters.node  # TypeScript runners: `tsx scripts/x.ts` is node running x
HANDLERS.update(notebooks.HANDLERS)
HANDLERS.update(pytasks.HANDLERS)
HANDLERS.update(salt.HANDLERS)
HANDLERS["sbt"] = buildhooks.sbt(HANDLERS.get("sbt", default_handler))
for _name in ("cmake", "ctest"):
    HANDLERS[_name] = buildhooks.cmake(HANDLERS.get(_name, default_handler))
for _name in ("mvn", "mvnw", "gradle", "gradlew", "dotnet"):  # the programs they run get their arguments read
    HANDLERS[_name] = operations.with_judges(HANDLERS[_name], operations.LAUNCHED)
for _name in ("bazel", "bazelisk"):
    HANDLERS[_name] = operations.with_judges(buildhooks.bazel(HANDLERS.get(_name, default_handler)),
                                             operations.LAUNCHED)

_VERSIONED = (
    # Python under the names applications embed it by (Houdini's hython, Maya's mayapy, ParaView's pvpython …)
    (re.compile(r"python[0-9.]*w?|pypy[0-9.]*|hython[0-9.]*|mayapy[0-9.]*|pvpython|pvbatch|mjpython|nuke-python"),
     interpreters.python),
    (re.compile(r"pip[0-9.]*"), packages.pip),
    (re.compile(r"mkfs(\..+)?"), system.disk_format),
    (re.compile(r"perl[0-9.]+"), interpreters.perl),
    (re.compile(r"ruby[0-9.]+"), interpreters.ruby),
    (re.compile(r"php[0-9.]+"), interpreters.php),
    (re.compile(r"lua[0-9.]+"), foreign.HANDLERS["lua"]),
    # Clients of databases that speak another's protocol under their own name (`ysqlsh`, `ycqlsh`, `ksql`):
    # handed SQL like psql or cqlsh
    (re.compile(r"[a-z0-9_-]{1,24}(?:sql|sqlsh|cqlsh)(?:\.exe)?"), HANDLERS["psql"]),
    (re.compile(r"[a-z0-9_-]{0,24}(?:dump|dumpall|export)(?:\.exe)?"), operations.DUMPER),
)


_RESOLVED: dict[str, Handler] = {}

# Handlers of tools whose arguments are data (readers, file operations, permissions) or that analyse
# the code they are given themselves (shells, interpreters, find -exec): `handoff` leaves them alone.
_DATA_MODULES = frozenset({readers.__name__, archives.__name__, files.__name__, permissions.__name__,
                           interpreters.__name__, notebooks.__name__, find.__module__})


def checks_handoff(handler: Handler) -> bool:
    """Whether ``handoff.check`` judges what this handler's program is handed."""
    return handler.__module__ not in _DATA_MODULES and handler is not no_effect


def program_name(name: str) -> str:
    """`sqlcmd.exe`, `schtasks.exe`, `rm.exe` from WSL or Git Bash: the same program, judged by its name."""
    return name[:-4] if name[-4:].lower() == ".exe" and len(name) > 4 else name


def handler_for(name: str) -> Handler:
    name = program_name(name)
    handler = HANDLERS.get(name) or _RESOLVED.get(name)
    if handler is not None:
        return handler
    handler = next((h for pattern, h in _VERSIONED if pattern.fullmatch(name)), default_handler)
    if len(_RESOLVED) < 4096:  # command names come from untrusted input: keep the memo bounded
        _RESOLVED[name] = handler
    return handler
