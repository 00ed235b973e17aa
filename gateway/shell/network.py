"""Network clients: downloads, uploads, raw connections and remote copies.

Downloads produce a *payload* flow (executing it is remote code). A local file or local data reaching a
non-local host is exfiltration; a raw connection handing a shell to the network is a reverse shell.
"""

from __future__ import annotations

import posixpath
import re
from urllib.parse import unquote_plus, urlsplit

from gateway.credentials import mentions_secret
from gateway.shell import categories as cat
from gateway.shell import devices, services
from gateway.shell import hosts as hostnames
from gateway.shell.databases import statement_effect
from gateway.shell.facts import NETWORK_STREAM
from gateway.shell.flow import EMPTY, OPAQUE, PAYLOAD, Flow
from gateway.shell.invocation import Invocation
from gateway.shell.options import scan, short_letters, spec
from gateway.shell.words import Word, literal_word


def _remote(hosts: list[str | None]) -> bool:
    """Data sent to these hosts leaves the machine (an unknown destination counts as remote)."""
    known = [h for h in hosts if h]
    return not known or any(not hostnames.is_local(h) for h in known)


def _sends_local_data(call: Invocation) -> bool:
    return call.stdin.local_data


def _check_secrets(call: Invocation) -> None:
    """A request whose URL, headers or body carry a secret (`-H "Authorization: $GITHUB_TOKEN"`, a key in
    the query string) sends that secret to whoever answers: exfiltration."""
    if any(mentions_secret(w.value) for w in call.args):
        call.flag(cat.EXFILTRATION)


def _sql_sent(call: Invocation, fields: list[str]) -> None:
    """SQL sent to a database's HTTP API (`/exec?query=DROP TABLE x`, `--data-urlencode "query=TRUNCATE …"`,
    ClickHouse's body): judged as SQL, as a database client's would be."""
    for field in fields[:32]:
        for part in field.split("&")[:16]:
            text = unquote_plus(part.split("=", 1)[1] if "=" in part.split(" ", 1)[0] else part)
            effect = statement_effect(text)
            if effect is not None:
                call.flag(effect)


def _url_file_name(url: str) -> str:
    name = posixpath.basename(urlsplit(url).path)
    return name or "index.html"


# -- curl --------------------------------------------------------------------------------------------

_CURL = spec(
    "dFTHXuAebcKxmwrCEyYzDPQUo",
    ["--data", "--data-binary", "--data-raw", "--data-ascii", "--data-urlencode", "--json", "--form",
     "--form-string", "--upload-file", "--header", "--request", "--user", "--user-agent", "--referer",
     "--cookie", "--cookie-jar", "--config", "--proxy", "--max-time", "--connect-timeout", "--write-out",
     "--range", "--continue-at", "--cert", "--key", "--cacert", "--capath", "--url", "--retry",
     "--resolve", "--connect-to", "--output", "--output-dir", "--dump-header", "--trace",
     "--trace-ascii", "--stderr", "--interface", "--limit-rate", "--max-filesize", "--max-redirs",
     "--proxy-user", "--netrc-file", "--oauth2-bearer", "--unix-socket", "--variable", "--retry-delay",
     "--retry-max-time", "--speed-limit", "--speed-time", "--quote", "--ftp-port", "--local-port"],
    # curl's flags: an exact name wins over a unique prefix (`--netrc` is a flag, not `--netrc-file` taking `-X`)
    ["--netrc", "--netrc-optional", "--insecure", "--location", "--location-trusted", "--silent", "--show-error",
     "--fail", "--fail-with-body", "--compressed", "--include", "--head", "--verbose", "--globoff", "--get",
     "--progress-bar", "--no-progress-meter", "--no-buffer", "--remote-name", "--remote-name-all", "--create-dirs",
     "--ipv4", "--ipv6", "--http1.1", "--http2", "--http3", "--raw", "--anyauth", "--basic", "--digest", "--ntlm",
     "--negotiate", "--path-as-is", "--disable", "--retry-all-errors", "--parallel", "--remove-on-error",
     "--ssl", "--ssl-reqd", "--tcp-nodelay", "--proxy-insecure", "--cert-status", "--trace-time"],
)
_CURL_DATA = ("-d", "--data", "--data-binary", "--data-ascii", "--json", "--data-urlencode")


# Schemes that let a URL carry raw bytes to any host and port (the SSRF classics).
_RAW_SCHEMES = ("gopher://", "dict://", "telnet://")


def curl(call: Invocation) -> Flow:
    _check_secrets(call)
    options = scan(call.args, _CURL)
    urls = [w for w in options.operands] + options.values("--url")
    for url in urls:
        if url.value.lower().startswith("file://"):  # curl file:///etc/shadow reads a local file
            call.read(Word(url.value[len("file://"):] or "/"))
        # gopher://, dict://, telnet:// (or plain http) to the store's port speak to Redis directly.
        parsed = re.match(r"^(?:[a-z]+://)?(?:[^@/]*@)?(\[[^\]]+\]|[^:/]+):(\d+)", url.value, re.I)
        if parsed:
            call.facts.connects(hostnames.normalize(parsed.group(1)), parsed.group(2))
        if url.value.lower().startswith(_RAW_SCHEMES) and _remote([hostnames.bare_url_host(url.value)]):
            call.flag(cat.EXFILTRATION)  # gopher://host:port/_BYTES writes arbitrary bytes to any port
    hosts = [call.host(hostnames.bare_url_host(w.value)) for w in urls if w.value]
    uploads: list[Word] = []
    sends_stdin = False
    for name, value in options.flags:
        if value is None:
            continue
        text = value.value
        source: str | None = None
        if name in _CURL_DATA:
            # `@file` (or `name@file` for --data-urlencode) sends the file's content.
            if text.startswith("@"):
                source = text[1:]
            elif name == "--data-urlencode" and "@" in text and "=" not in text.split("@", 1)[0]:
                source = text.split("@", 1)[1]
        elif name in ("-F", "--form"):
            _, eq, rest = text.partition("=")
            if eq and rest[:1] in ("@", "<"):
                source = rest[1:].split(";", 1)[0]
        elif name in ("-T", "--upload-file"):
            source = text
        elif name in ("-K", "--config", "--netrc-file", "-E", "--cert", "--key"):
            call.read(value)
        if source is None:
            continue
        if source in ("-", "."):
            sends_stdin = True
        else:
            uploads.append(value.tail(len(text) - len(source)) if text.endswith(source) else Word(source))
    for word in uploads:
        call.read(word)
    leaked = bool(uploads) or (sends_stdin and _sends_local_data(call)) or call.args_flow.local_data
    if leaked and _remote(hosts):
        call.flag(cat.EXFILTRATION)
    method = options.value("-X", "--request")
    sends = any(name in _CURL_DATA or name in ("-F", "--form") for name, _ in options.flags) and not (
        "G" in short_letters(options) or options.has("--get"))  # `-G`: the data goes in the URL of a GET
    services.judge(call, method.value if method is not None else "PUT" if options.has("-T", "--upload-file")
                   else "POST" if sends else "GET", [w.value for w in urls])
    _sql_sent(call, [v.value for n, v in options.flags if n in _CURL_DATA and v is not None] +
              [u.value.split("?", 1)[1] for u in urls if "?" in u.value])
    output = options.values("-o", "--output")
    for word in output:
        call.download(word)
    letters = short_letters(options)
    if "O" in letters or options.has("--remote-name", "--remote-name-all"):
        directory = options.value("--output-dir")
        for url in urls:
            name = _url_file_name(url.value)
            target = posixpath.join(directory.value, name) if directory is not None else name
            call.download(literal_word(target))
        return EMPTY
    if output and all(w.value != "-" for w in output):
        return EMPTY
    return PAYLOAD


# -- wget --------------------------------------------------------------------------------------------

_WGET = spec(
    "OoaPiBUtTwQlARDXIe",
    ["--output-document", "--output-file", "--append-output", "--directory-prefix", "--input-file",
     "--base", "--user-agent", "--header", "--post-data", "--post-file", "--body-data", "--body-file",
     "--method", "--execute", "--tries", "--timeout", "--wait", "--quota", "--level", "--accept",
     "--reject", "--domains", "--exclude-directories", "--include-directories", "--user", "--password",
     "--http-user", "--http-password", "--load-cookies", "--save-cookies", "--ca-certificate",
     "--certificate", "--private-key", "--config", "--referer", "--limit-rate"],
)


def wget(call: Invocation) -> Flow:
    _check_secrets(call)
    options = scan(call.args, _WGET)
    urls = options.operands
    hosts = [call.host(hostnames.bare_url_host(w.value)) for w in urls if w.value]
    uploads = options.values("--post-file", "--body-file")
    for word in uploads:
        call.read(word)
    for word in options.values("-i", "--input-file", "--load-cookies", "--config", "--private-key",
                               "--certificate"):
        call.read(word)
    if uploads and _remote(hosts):
        call.flag(cat.EXFILTRATION)
    method = options.value("--method")
    posts = options.has("--post-data", "--post-file", "--body-data", "--body-file")
    services.judge(call, method.value if method is not None else "POST" if posts else "GET", [w.value for w in urls])
    for word in options.values("-o", "--output-file", "-a", "--append-output"):
        call.write(word)
    document = options.value("-O", "--output-document")
    if document is not None:
        if document.value == "-":
            return PAYLOAD
        call.download(document)
        return EMPTY
    prefix = options.value("-P", "--directory-prefix")
    for url in urls:
        name = _url_file_name(url.value)
        target = posixpath.join(prefix.value, name) if prefix is not None else name
        call.download(literal_word(target))
    return EMPTY


def httpie(call: Invocation) -> Flow:
    _check_secrets(call)
    """httpie (`http`, `https`): `field=@file`, `field:=@file` and `@file` send local files."""
    hosts: list[str | None] = []
    leaked = False
    method = ""
    urls: list[str] = []
    items = False
    for word in call.args:
        text = word.value
        if text.startswith("-"):
            continue
        if not hosts and not method and text.isalpha() and text.isupper():
            method = text  # `http DELETE url`
            continue
        if "://" in text or (not hosts and ("." in text.split("/", 1)[0] or text.startswith(":")) and "=" not in text):
            hosts.append(call.host(hostnames.bare_url_host(text)))
            urls.append(text if "://" in text else "http://" + ("localhost" + text if text.startswith(":") else text))
            continue
        items = items or "=" in text
        if text.startswith("@") or "=@" in text or ":=@" in text:
            call.read(Word(text.split("@", 1)[1]))
            leaked = True
            continue
        if text.startswith("@") or "=@" in text or ":=@" in text:
            call.read(Word(text.split("@", 1)[1]))
            leaked = True
    if (leaked or call.stdin.local_data) and _remote(hosts):
        call.flag(cat.EXFILTRATION)
    services.judge(call, method or ("POST" if items else "GET"), urls)
    return PAYLOAD


# -- raw connections -----------------------------------------------------------------------------

_NC = spec("pswiOTVIqXxegGMcm", ["--exec", "--sh-exec", "--lua-exec", "--proxy", "--proxy-type",
                                  "--output", "--idle-timeout", "--wait", "--source-port", "--source"])


def netcat(call: Invocation) -> Flow:
    options = scan(call.args, _NC)
    call.role(NETWORK_STREAM)
    if options.has("-e", "-c", "--exec", "--sh-exec", "--lua-exec"):
        call.flag(cat.REVERSE_SHELL)
    listening = "l" in short_letters(options) or options.has("--listen")
    host: str | None = None
    if not listening and options.operands:
        host = call.host(hostnames.user_host(options.operands[0].value))
        if "z" not in short_letters(options):  # `nc -z host port` only checks the port is open
            call.facts.connects(host, options.operands[1].value if len(options.operands) > 1 else None)
    if _sends_local_data(call) and (listening or _remote([host])):
        call.flag(cat.EXFILTRATION)
    return PAYLOAD


def telnet(call: Invocation) -> Flow:
    operands = scan(call.args, spec("lnbeS")).operands
    call.role(NETWORK_STREAM)
    host = call.host(hostnames.user_host(operands[0].value)) if operands else None
    call.facts.connects(host, operands[1].value if len(operands) > 1 else "23")
    if _sends_local_data(call) and _remote([host]):
        call.flag(cat.EXFILTRATION)
    return PAYLOAD


def socat(call: Invocation) -> Flow:
    call.role(NETWORK_STREAM)
    hosts: list[str | None] = []
    reads_file = False
    for word in call.args:
        text = word.value
        lower = text.lower()
        if lower.startswith("-") and len(text) > 1:
            continue
        kind, _, rest = lower.partition(":")
        if kind in ("exec", "system"):
            call.flag(cat.REVERSE_SHELL)
        elif kind.startswith(("tcp", "udp", "openssl", "sctp", "socks", "proxy")) and rest:
            spec_text = text.split(":", 1)[1]
            host_part = spec_text.rsplit(":", 1)[0] if spec_text.count(":") >= 1 else spec_text
            if host_part and not host_part.isdigit():
                hosts.append(call.host(host_part.split(",", 1)[0]))
                port = spec_text.rsplit(":", 1)[1].split(",", 1)[0] if ":" in spec_text else None
                call.facts.connects(hosts[-1], port)
        elif kind in ("file", "open", "gopen", "create") and rest:
            path = text.split(":", 1)[1].split(",", 1)[0]
            call.read(Word(path))
            reads_file = True
    if (reads_file or call.stdin.local_data) and hosts and _remote(hosts):
        call.flag(cat.EXFILTRATION)
    return PAYLOAD


def openssl(call: Invocation) -> Flow:
    args = call.args
    if not args:
        return OPAQUE
    sub = args[0].value
    rest = args[1:]
    if sub == "s_client":
        call.role(NETWORK_STREAM)
        host = None
        for i, word in enumerate(rest):
            if word.value == "-connect" and i + 1 < len(rest):
                host = call.host(rest[i + 1].value)
        if _sends_local_data(call) and _remote([host]):
            call.flag(cat.EXFILTRATION)
        return PAYLOAD
    if sub in ("base64", "enc") and any(w.value == "-d" for w in rest):
        return Flow(payload=True)
    for i, word in enumerate(rest):
        if word.value in ("-in", "-key", "-inkey") and i + 1 < len(rest):
            call.read(rest[i + 1])
        elif word.value == "-out" and i + 1 < len(rest):
            call.write(rest[i + 1])
    return OPAQUE


# -- ssh family ------------------------------------------------------------------------------------

_SSH = spec("BbcDEeFIiJLlmOoPpQRSWw", stop=True)


def ssh(call: Invocation) -> Flow:
    options = scan(call.args, _SSH)
    if len(options.operands) > 1 and options.operands[1].value.startswith("-"):
        # ssh reads options after the host too (`ssh db1 -L 3309:db:3306 -N`): they are not a remote command
        later = scan(options.operands[1:], _SSH)
        options.flags += later.flags
        options.operands = [options.operands[0], *later.operands]
    for word in options.values("-F"):
        call.read(word)
    for word in options.values("-i"):
        call.inspect(word)  # ssh authenticates with the key; it does not disclose it
    for word in options.values("-o"):
        # `-o ProxyCommand=cmd` or `-o 'ProxyCommand cmd'` (ssh_config syntax allows either)
        key, *rest = re.split(r"[=\s]", word.value.strip(), maxsplit=1)
        value = rest[0] if rest else ""
        if key.strip().lower() in ("proxycommand", "localcommand", "knownhostscommand") and value.strip():
            call.run_script(value)  # runs locally
    if not options.operands:
        return OPAQUE
    host = call.host(hostnames.user_host(options.operands[0].value))
    if _sends_local_data(call) and _remote([host]):
        call.flag(cat.EXFILTRATION)
    if len(options.operands) > 1:
        # `ssh host 'psql -c …'`: the remote shell runs the words joined; judged like a local command (a
        # deploy host's database and services matter more than the agent's own, not less).
        remote = " ".join(w.value for w in options.operands[1:])
        call.run_script(remote)
        if options.operands[0].literal:  # (a computed host may be options too: which word is the command is unknown)
            devices.judge_remote(call, remote)  # a device's command line, a host's own tools
    elif not options.has("-N", "-G", "-V", "-O", "-Q", "-W") and not options.operands[0].value.startswith("git@"):
        # (`ssh -T git@github.com`: a git host's login answers a greeting and runs no shell)
        if call.stdin.script is not None:
            call.run_script(call.stdin.script)  # `ssh host <<'EOF' … EOF`, `ssh host < steps.sh`: those commands
            devices.judge_remote(call, call.stdin.script)
        else:
            call.flag(cat.DYNAMIC_COMMAND)  # a remote login shell: what is typed into it is never seen here
    return OPAQUE


_SCP = spec("cFiJloPSDX")
_RSYNC = spec("efBTM", ["--rsh", "--filter", "--exclude", "--include", "--exclude-from", "--include-from",
                        "--files-from", "--port", "--backup-dir", "--log-file", "--password-file",
                        "--temp-dir", "--partial-dir", "--chmod", "--chown", "--compare-dest",
                        "--copy-dest", "--link-dest", "--rsync-path", "--out-format", "--timeout"])


def _copy(call: Invocation, operands: list[Word], deletes: bool) -> Flow:
    if len(operands) < 2:
        for word in operands:
            call.host(hostnames.remote_spec_host(word.value))
        return OPAQUE
    sources, destination = operands[:-1], operands[-1]
    destination_host = hostnames.remote_spec_host(destination.value)
    local_sources = False
    for word in sources:
        host = hostnames.remote_spec_host(word.value)
        if host:
            call.host(host)
        else:
            call.read(word)
            local_sources = True
    if destination_host:
        call.host(destination_host)
        if local_sources and _remote([destination_host]):
            call.flag(cat.EXFILTRATION)
    else:
        call.write(destination)
        if deletes:
            # --delete removes whatever in the destination is not in the source.
            call.delete(destination, True)
    return OPAQUE


def scp(call: Invocation) -> Flow:
    options = scan(call.args, _SCP)
    for word in options.values("-F", "-i"):
        call.inspect(word)
    return _copy(call, options.operands, False)


def rsync(call: Invocation) -> Flow:
    options = scan(call.args, _RSYNC)
    for word in options.values("--exclude-from", "--include-from", "--files-from", "--password-file"):
        call.read(word)
    deletes = any(name.startswith("--delete") for name, _ in options.flags)
    flow = _copy(call, options.operands, deletes)
    if any(name == "--remove-source-files" for name, _ in options.flags):
        # a move: the local sources are deleted once sent (files only, so not recursive)
        for word in options.operands[:-1]:
            if not hostnames.remote_spec_host(word.value):
                call.delete(word, False)
    return flow


# Redis clients: the gateway's approvals, quotas, throttles, audit and rule pack live in a Redis. An agent
# holds no password for it, but a client in an agent's hands is the first step of every attack on that
# state, and an agent's own work rarely needs one (a pack can allow it per run for a project that does).
REDIS_CLIENTS = frozenset({"redis-cli", "valkey-cli", "keydb-cli", "redis-benchmark", "valkey-benchmark",
                           "redis-check-aof", "redis-check-rdb", "iredis"})


def redis_client(call: Invocation) -> Flow:
    call.flag(cat.GATEWAY_STATE)
    script = call.stdin.script or ""
    flushes = any(w.value.upper() in ("FLUSHALL", "FLUSHDB") for w in call.args)
    if flushes or re.search(r"\bFLUSH(ALL|DB)\b", script, re.I):
        call.flag(cat.DATABASE_DESTROY)
    return OPAQUE


def host_only(call: Invocation) -> Flow:
    """ping, sftp, ftp, dig, …: record the host (first operand) and nothing else."""
    options = scan(call.args, spec("cCiIlpstwWPoFfb"))
    for word in options.operands[:1]:
        call.host(hostnames.user_host(word.value))
    for word in options.values("-f", "-b"):  # `dig -f FILE`: a batch file of queries, echoed in errors
        call.read(word)
    return OPAQUE
