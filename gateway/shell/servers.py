"""Commands that open the machine to the network: servers on every interface, tunnels, packet capture.

An agent starting a dev server on localhost is ordinary work. A server bound to every interface
(`0.0.0.0`, `::`, `*`) serves the workspace — or `/` — to whoever can reach the machine, a tunnel
(`code tunnel`, `ngrok`, `cloudflared`, `ssh -R`) publishes a local port to the internet, a few
programs serve files on all interfaces unless told otherwise (`python -m http.server`, `php -S`,
`busybox httpd`, `ruby -run -e httpd`, a container's published port), `fzf --listen` runs commands sent over
HTTP, and a packet
capture sees other programs' traffic, credentials included. All of them are ``network_listen``.
"""

from __future__ import annotations

import ipaddress
import re

from gateway.shell import categories as cat
from gateway.shell import hosts as hostnames
from gateway.shell.invocation import Invocation

# An address meaning "every interface", alone or with a port (`0.0.0.0:80`, `[::]:8080`, `*:80`).
_ALL_INTERFACES = re.compile(r"(?:^|[=@\s])(?:(?:0\.0\.0\.0|\[?::\]?)(?::\d+)?|\*:\d+)$")
# Servers that listen on every interface unless given a loopback address.
_SERVERS = frozenset({"httpd", "nginx", "apache2", "apachectl", "lighttpd", "thttpd", "mini_httpd", "darkhttpd",
                      "webfsd", "http-server", "miniserve", "caddy", "simple-http-server", "twistd", "dufs"})
_TUNNELS = {"code": "tunnel", "code-insiders": "tunnel", "cloudflared": "tunnel", "tailscale": "funnel"}
_ALWAYS = frozenset({"ngrok", "lt", "localtunnel", "bore", "frpc", "chisel", "tcpdump", "tshark", "wireshark",
                     "dumpcap", "termshark", "ngrep", "tcpflow", "ettercap", "bettercap"})
_PYTHON_SERVERS = frozenset({"http.server", "SimpleHTTPServer", "pyftpdlib", "smtpd", "aiosmtpd",
                             "wsgiref.simple_server"})
_PYTHON_CODE_SERVER = re.compile(r"serve_forever|TCPServer\(|HTTPServer\(")
_RUBY_SERVER = re.compile(r"\bhttpd\b|WEBrick|HTTPServer")


_CONTAINERS = frozenset({"docker", "podman", "nerdctl"})


def _publishes_everywhere(values: list[str]) -> bool:
    """`docker run -p 8080:80` (no address: every interface, as the daemon binds by default), `-p 0.0.0.0:…`,
    `-P`: a container's port on every interface of the machine. `-p 127.0.0.1:8080:80` stays on loopback."""
    verbs = [v for v in values if not v.startswith("-")][:2]
    if verbs[:1] not in (["run"], ["create"]) and verbs != ["container", "run"] and verbs != ["container", "create"]:
        return False
    for i, value in enumerate(values):
        if value in ("-P", "--publish-all"):
            return True
        spec = value.split("=", 1)[1] if value.startswith("--publish=") else \
            values[i + 1] if value in ("-p", "--publish") and i + 1 < len(values) else None
        if spec is None:
            continue
        address = spec.rsplit(":", 2)[0] if spec.count(":") >= 2 and not spec.startswith("[") else \
            spec[1:spec.index("]")] if spec.startswith("[") and "]" in spec else ""
        if not address or not _is_loopback_address(address):
            return True
    return False


def listens(call: Invocation) -> bool:
    """Whether ``call`` exposes the machine to the network (see the module docstring)."""
    name = call.name
    values = [w.value for w in call.args]
    if any(_ALL_INTERFACES.search(v) and "://" not in v for v in values):
        return True
    if name in _CONTAINERS and _publishes_everywhere(values):
        return True
    if name in _ALWAYS:
        return not _reads_saved_capture(name, values)
    if (name in _TUNNELS and _TUNNELS[name] in values) or "--tunnel" in values:
        return True  # (`expo start --tunnel`: a dev server put on a public address through a tunnel service)
    if name == "fzf":
        return any(v == "--listen" or v.startswith("--listen=") for v in values)
    if name == "ssh":
        return any(v == "-R" or (v.startswith("-R") and len(v) > 2) for v in values)
    # Only asked once a server is recognised: this runs for every simple command, and each value may need
    # an address parse.
    def on_all_interfaces() -> bool:
        return not any(_is_loopback_address(v) for v in values)

    if name in _SERVERS or (name == "busybox" and values[:1] == ["httpd"]):
        return on_all_interfaces()
    if name == "php":
        return any(v == "-S" for v in values) and on_all_interfaces()
    if name.startswith(("python", "pypy")):
        module = next((values[i + 1] for i, v in enumerate(values[:-1]) if v == "-m"), None)
        code = next((values[i + 1] for i, v in enumerate(values[:-1]) if v == "-c"), "")
        return (module in _PYTHON_SERVERS or bool(_PYTHON_CODE_SERVER.search(code))) and on_all_interfaces()
    if name.startswith("ruby"):
        code = " ".join(values)
        return ("-run" in values or "-rwebrick" in values or "webrick" in code.lower()) and bool(
            _RUBY_SERVER.search(code)) and on_all_interfaces()
    if name in ("kubectl", "oc") and values[:1] in (["proxy"], ["port-forward"]):
        return any(v.startswith("--address") and not _is_loopback_address(v.split("=", 1)[-1]) for v in values)
    return False


# Capture tools given a saved capture to read (`tcpdump -nnr n3.pcap`, `tshark -r x.pcapng`): no interface opened.
_READ_CAPTURE = {"tcpdump": "r", "tshark": "r", "termshark": "r", "wireshark": "r", "tcpflow": "r", "ngrep": "I"}


def _reads_saved_capture(name: str, values: list[str]) -> bool:
    letter = _READ_CAPTURE.get(name)
    if letter is None:
        return False
    clusters = [v[1:] for v in values if v.startswith("-") and not v.startswith("--") and v[1:2].isalpha()]
    reads = any(c.endswith(letter) or c.startswith(letter) for c in clusters) or any(
        v.startswith("--read-file") for v in values)
    opens_interface = any("i" in c.split(letter, 1)[0] for c in clusters if not c.startswith(letter)) or any(
        v.startswith("--interface") for v in values)
    return reads and not opens_interface


def _is_loopback_address(value: str) -> bool:
    host = value.split("=", 1)[-1]
    if host.startswith("[") and "]" in host:
        host = host[1:host.index("]")]
    elif host.count(":") == 1:
        host = host.split(":", 1)[0]
    if not host or not hostnames.is_local(host):
        return False
    try:
        return not ipaddress.ip_address(host).is_unspecified  # 0.0.0.0 and :: are every interface
    except ValueError:
        return True  # localhost


def judge(call: Invocation) -> None:
    if listens(call):
        call.flag(cat.NETWORK_LISTEN)
