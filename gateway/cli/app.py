"""``acteon-gateway``: run the gateway server (also ``acteon-swarm gateway serve``)."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from acteon_core import contract as c


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="acteon-gateway",
        description="Run the acteon-swarm policy gateway. Every agent tool call is sent here before it runs.",
        epilog="Operator keys: acteon-gateway operators add NAME --role viewer|operator|admin (also list, revoke). "
        "Worker keys (machines of a distributed run): acteon-gateway workers add NAME (also list, revoke). "
        f"Environment: {c.ENV_REDIS_URL} (unset = embedded in-process store), {c.ENV_ADMIN_KEY}, "
        f"{c.ENV_RULES_DIR}, {c.ENV_STATE_DIR}.",
    )
    p.add_argument("--host", default=c.DEFAULT_HOST, help="address to bind (default %(default)s, loopback)")
    p.add_argument("--port", type=int, default=c.DEFAULT_PORT, help="port (default %(default)s)")
    p.add_argument("--rules", type=Path, default=None, help="rules directory (default: the bundled rules/)")
    p.add_argument("--workers", type=int, default=1, help="worker processes (needs ACTEON_REDIS_URL when > 1)")
    p.add_argument("--insecure-redis", action="store_true",
                   help="serve even if Redis accepts commands without a password (not recommended)")
    p.add_argument("--rules-from-file", action="store_true",
                   help="enforce the rules directory, replacing a pack uploaded through the API "
                        "(also the way back when the store lost an uploaded pack)")
    p.add_argument("--ssl-certfile", type=Path, default=None,
                   help="serve HTTPS with this certificate (PEM; needed off loopback: remote workers' agents send "
                        "their keys to it), or put the gateway behind a TLS proxy")
    p.add_argument("--ssl-keyfile", type=Path, default=None, help="the certificate's private key (PEM)")
    p.add_argument("--log-level", default="warning", choices=["critical", "error", "warning", "info", "debug"])
    p.add_argument("--version", action="version", version=f"acteon-gateway {c.VERSION}")
    return p


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] in (["operators"], ["workers"]):
        from gateway.cli.operators import main as keys_main

        return keys_main(argv[1:], noun=argv[0])
    args = build_parser().parse_args(argv)
    if (args.ssl_certfile is None) != (args.ssl_keyfile is None):
        print("acteon-gateway: --ssl-certfile and --ssl-keyfile go together", file=sys.stderr)
        return 2
    for tls_file in (args.ssl_certfile, args.ssl_keyfile):
        if tls_file is not None and not tls_file.is_file():
            print(f"acteon-gateway: {tls_file}: no such file", file=sys.stderr)
            return 2
    if args.rules is not None:
        if not args.rules.is_dir():
            print(f"acteon-gateway: --rules {args.rules}: not a directory", file=sys.stderr)
            return 2
        os.environ[c.ENV_RULES_DIR] = str(args.rules.resolve())
    if args.workers > 1 and not os.environ.get(c.ENV_REDIS_URL):
        print("acteon-gateway: --workers > 1 needs ACTEON_REDIS_URL (the embedded store is per process)",
              file=sys.stderr)
        return 2
    # Fail fast on a bad pack or unusable settings, before uvicorn forks workers.
    from gateway.config import ENV_INSECURE_REDIS, ENV_RULES_FROM_FILE, Settings
    from gateway.rules import RuleError, load_dir
    from gateway.store.guard import OpenStore, refuse_open_store

    if args.insecure_redis:
        os.environ[ENV_INSECURE_REDIS] = "1"
    if args.rules_from_file:
        os.environ[ENV_RULES_FROM_FILE] = "1"
    settings = Settings.from_env()
    from gateway.store.topology import CLUSTER, TopologyError, parse

    if settings.redis_url:
        try:
            parse(settings.redis_url)
        except TopologyError as e:
            print(f"acteon-gateway: {c.ENV_REDIS_URL}: {e}", file=sys.stderr)
            return 2
    if settings.redis_url and not settings.insecure_redis:
        try:
            refuse_open_store(settings.redis_url)
        except OpenStore as e:
            print(f"acteon-gateway: {e}", file=sys.stderr)
            return 2
    try:
        pack = load_dir(settings.rules_dir)
        if settings.redis_url and parse(settings.redis_url).kind == CLUSTER:
            problems = pack.cluster_problems()
            if problems:
                raise RuleError(problems)
    except RuleError as e:
        print("acteon-gateway: the rule pack does not load:", file=sys.stderr)
        for err in e.errors:
            print(f"  {err}", file=sys.stderr)
        return 2
    in_use = _port_in_use(args.host, args.port)
    if in_use:
        print(f"acteon-gateway: {args.host}:{args.port} is in use ({in_use}): stop what listens there (another "
              "gateway?) or give --port", file=sys.stderr)
        return 2
    from gateway.startup import banner

    tls = args.ssl_certfile is not None
    for line in banner(settings, pack, host=args.host, port=args.port, workers=args.workers, tls=tls):
        print(line, file=sys.stderr)
    import uvicorn

    uvicorn.run(
        "gateway.app:app_from_env", factory=True, host=args.host, port=args.port,
        workers=args.workers, log_level=args.log_level, access_log=False,
        ssl_certfile=str(args.ssl_certfile) if tls else None, ssl_keyfile=str(args.ssl_keyfile) if tls else None,
    )
    return 0


def _port_in_use(host: str, port: int) -> str | None:
    """Why ``host:port`` cannot be bound, checked before the start-up banner: a port in use is one line, not a
    banner followed by uvicorn's error. (Port 0 asks for any free port.)"""
    import socket

    if port == 0:
        return None
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except OSError as e:
        return str(e)
    family, kind, proto, _name, address = infos[0]
    with socket.socket(family, kind, proto) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as uvicorn binds: TIME_WAIT is no conflict
        try:
            probe.bind(address)
        except OSError as e:
            return e.strerror or str(e)
    return None


if __name__ == "__main__":
    raise SystemExit(main())
