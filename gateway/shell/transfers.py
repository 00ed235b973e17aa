"""File-transfer clients driven by a command script: sftp, lftp, ftp, smbclient, ncftpput, azcopy; DICOM senders.

`scp out/x.csv partner:/inbound/` sends local files away and is judged as such (``network.py``). The same
upload is more often written in the client's own command language — `sftp -b - host <<< 'put x.csv'`,
`lftp -e "put -O /inbound x.csv; bye" sftp://host`, `smbclient //fs/share -c 'put x.csv'` — or by a copy tool
whose destination is a URL (`azcopy copy x.xlsx 'https://acct.blob.core.windows.net/c/?sig=…'`). So the
script is read wherever it comes from (an option, a batch file, standard input): a `put`, `mput`, `reput`,
`append` or a reverse `mirror` sends local files to the host (``exfiltration``, as for scp), an `rm`,
`mrm`, `rmdir`, `delete`, `deltree` or a mirror with `--delete` removes files there (``infra_destroy``);
`get`, `ls`, `cd` only look or fetch. A script that cannot be seen (a batch file nobody attached, input
produced at run time) is judged by what the command line says alone.
"""

from __future__ import annotations

import re

from gateway.shell import categories as cat
from gateway.shell import hosts as hostnames
from gateway.shell.flow import OPAQUE, Flow
from gateway.shell.generic import noting
from gateway.shell.invocation import Invocation
from gateway.shell.options import Options, scan, spec
from gateway.shell.words import Word

_UPLOADS = frozenset({"put", "mput", "reput", "append", "send", "mreput", "pput"})
_REMOVES = frozenset({"rm", "mrm", "rmdir", "delete", "mdelete", "del", "deltree", "rmr"})
_STATEMENT = re.compile(r"[;\n]")
_MAX_STATEMENTS = 256


def _effects(call: Invocation, script: str) -> tuple[bool, bool]:
    """(sends local files, removes remote ones) for a client command script; the local files it sends are read
    (a key sent is a key read) and those it fetches written (`get /etc/shadow /etc/cron.d/x`)."""
    uploads = removes = False
    for statement in _STATEMENT.split(script)[:_MAX_STATEMENTS]:
        words = statement.strip().lstrip("!@-").split()
        if not words:
            continue
        verb = words[0].lower()
        operands = [w for w in words[1:] if not w.startswith("-")]
        if verb in _UPLOADS:
            uploads = True
            for local in operands[:1] if verb in ("put", "reput", "append", "send", "pput") else operands[:16]:
                call.read(Word(local))
        elif verb in ("get", "reget", "recv", "pget") and len(operands) >= 2:
            call.write(Word(operands[1]))
        elif verb in _REMOVES:
            removes = True
        elif verb == "mirror":
            flags = {w for w in words[1:] if w.startswith("-")}
            if flags & {"-R", "--reverse"} or any(f.startswith("-") and not f.startswith("--") and "R" in f
                                                   for f in flags):
                uploads = True
                removes = removes or bool(flags & {"--delete", "-e"})
    return uploads, removes


def _judge(call: Invocation, scripts: list[str], host: str | None) -> None:
    for script in scripts:
        uploads, removes = _effects(call, script)
        if uploads and _remote(host):
            call.flag(cat.EXFILTRATION)
        if removes:
            call.flag(cat.INFRA_DESTROY)


def _remote(host: str | None) -> bool:
    return host is None or not hostnames.is_local(host)


def _script_of(call: Invocation, word: Word | None) -> str | None:
    """A batch file's text (`-b FILE`, `-f FILE`; `-` is standard input) when it is known."""
    if word is None:
        return None
    if word.value == "-":
        return call.stdin.script
    content = call.file_content(word)
    return content.script if content is not None else None


def _host_of(options: Options) -> str | None:
    for word in options.operands:
        host = hostnames.user_host(word.value.split(":", 1)[0] if "://" not in word.value else word.value)
        if host:
            return host
    return None


_SFTP = spec("BbcDFiJloPRSsX")
_LFTP = spec("efcupdU", ["--env-password", "--norc", "--rcfile"])
_SMBCLIENT = spec("cDIpRsUWmnOTAlLdbtMEg", ["--command", "--directory", "--user", "--port", "--authentication-file",
                                             "--workgroup", "--configfile"])


def sftp(call: Invocation) -> Flow:
    options = scan(call.args, _SFTP)
    host = _host_of(options)
    call.host(host)
    batch = options.value("-b")
    scripts = [_script_of(call, batch)] if batch is not None else [call.stdin.script]
    _judge(call, [s for s in scripts if s], host)
    return OPAQUE


def lftp(call: Invocation) -> Flow:
    options = scan(call.args, _LFTP)
    host = _host_of(options)
    call.host(host)
    scripts = [w.value for w in options.values("-e", "-c")]
    scripts += [s for s in (_script_of(call, w) for w in options.values("-f")) if s]
    if call.stdin.script:
        scripts.append(call.stdin.script)
    for script in scripts:  # `lftp -e "open sftp://host; put x"`: the host may be opened in the script
        for url in re.findall(r"\bopen\s+(?:-\S+\s+\S+\s+)*(\S+)", script):
            host = host or hostnames.user_host(url)
            call.host(hostnames.user_host(url))
    _judge(call, scripts, host)
    return OPAQUE


def ftp(call: Invocation) -> Flow:
    """ftp, tnftp, ncftp: the commands come on standard input."""
    options = scan(call.args, spec("PsTo"))
    host = _host_of(options)
    call.host(host)
    if call.stdin.script:
        _judge(call, [call.stdin.script], host)
    return OPAQUE


def smbclient(call: Invocation) -> Flow:
    options = scan(call.args, _SMBCLIENT)
    share = options.operands[0].value if options.operands else ""
    host = hostnames.user_host(share.lstrip("/\\").replace("\\", "/").split("/", 1)[0]) if share else None
    call.host(host)
    scripts = [w.value for w in options.values("-c", "--command")]
    if call.stdin.script:
        scripts.append(call.stdin.script)
    _judge(call, scripts, host)
    return OPAQUE


def ncftpput(call: Invocation) -> Flow:
    """`ncftpput [opts] HOST REMOTE-DIR FILES…`: always an upload."""
    return _sends_files(call, scan(call.args, spec("uUpPjtoCayIfEmMW")).operands)


def _sends_files(call: Invocation, operands: list[Word]) -> Flow:
    """`HOST SOMETHING FILE…` operands: the files, read, are sent to HOST."""
    host = hostnames.user_host(operands[0].value) if operands else None
    call.host(host)
    for word in operands[2:]:
        call.read(word)
    if len(operands) > 2 and _remote(host):
        call.flag(cat.EXFILTRATION)
    return OPAQUE


# DICOM senders (dcmtk's storescu, dcmsend; `PEER PORT FILES…`) send images to another node: like ncftpput. dcmtk
# spells its options with one dash (`-aec TITLE`) and some with a plus (`+sd`).
_DICOM_VALUES = frozenset({"-aet", "--aetitle", "-aec", "--call", "-aem", "--move-aet", "-to", "--timeout", "-ta",
                           "--acse-timeout", "-td", "--dimse-timeout", "-pdu", "--max-pdu", "-xf", "--config-file",
                           "-od", "--output-directory", "-ll", "--log-level", "-lc", "--log-config", "+sp",
                           "--scan-pattern"})


def dicom_send(call: Invocation) -> Flow:
    """`storescu [opts] PEER PORT FILE…`, `dcmsend [opts] PEER PORT FILE…`: the files are sent to PEER."""
    operands: list[Word] = []
    args = call.args
    i = 0
    while i < len(args):
        value = args[i].value
        if value in _DICOM_VALUES:
            i += 2
            continue
        if not value.startswith(("-", "+")):
            operands.append(args[i])
        i += 1
    return _sends_files(call, operands)


def azcopy(call: Invocation) -> Flow:
    """`azcopy copy|cp|sync SRC DST`: local files to a URL are sent there; `remove`, and a sync that deletes
    at the destination, delete there."""
    options = scan(call.args, spec("", ["--include-pattern", "--exclude-pattern", "--log-level", "--from-to",
                                        "--cap-mbps", "--block-size-mb", "--include-path", "--exclude-path"]))
    words = options.operands
    if not words:
        return OPAQUE
    verb = words[0].value.lower()
    if options.has("--dry-run"):
        return OPAQUE  # lists what it would do
    urls = [w for w in words[1:] if "://" in w.value]
    for word in urls:
        call.host(hostnames.user_host(word.value))
    if verb in ("remove", "rm"):
        call.flag(cat.INFRA_DESTROY)
    elif verb in ("copy", "cp", "sync") and len(words) >= 3:
        source, destination = words[1], words[-1]
        if "://" in destination.value and "://" not in source.value:
            call.read(source)
            call.flag(cat.EXFILTRATION)
        elif "://" not in destination.value:
            call.write(destination)
        deletes = any(name == "--delete-destination" and (value is None or value.value.lower() != "false")
                      for name, value in options.flags)
        if verb == "sync" and deletes:
            call.flag(cat.INFRA_DESTROY)
    return OPAQUE


_RCLONE_COPIES = frozenset({"copy", "copyto", "sync", "move", "moveto", "bisync"})
_REMOTE_SPEC = re.compile(r"^[\w.-]{2,}:")  # `gdrive:exports`, `r2:bucket/x` (one letter is a Windows drive)


def rclone(call: Invocation) -> Flow:
    """`rclone copy exports/ gdrive:x`: local files written into a remote store — a change of that store, as
    `aws s3 cp exports/ s3://x` is (its table reads a download the other way round)."""
    operands = [w for w in call.args if not w.value.startswith("-")]
    if any(w.value in ("--dry-run", "-n", "--interactive", "-i") for w in call.args):
        return OPAQUE  # a rehearsal, or one that asks before each transfer
    if len(operands) >= 3 and operands[0].value in _RCLONE_COPIES:
        source, destination = operands[1], operands[-1]
        if not _REMOTE_SPEC.match(source.value) and _REMOTE_SPEC.match(destination.value):
            call.read(source)  # a secret sent there is still read
            call.flag(cat.INFRA_CHANGE)
    return OPAQUE


HANDLERS = {name: noting(handler) for name, handler in {
    "rclone": rclone,
    "sftp": sftp,
    "lftp": lftp,
    **dict.fromkeys(("ftp", "tnftp", "ncftp", "pftp", "netkit-ftp"), ftp),
    "smbclient": smbclient,
    "ncftpput": ncftpput,
    **dict.fromkeys(("storescu", "dcmsend"), dicom_send),
    "azcopy": azcopy,
}.items()}
