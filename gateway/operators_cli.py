"""``acteon-gateway operators add|list|revoke``: named operator keys, made through a running gateway.

The key is printed once and never again (the gateway keeps its SHA-256). The command talks to the
gateway over HTTP with the admin key (``ACTEON_ADMIN_KEY``, or the state directory's ``admin.key``), so it
works the same whether the gateway keeps its state in Redis or embedded.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

from gateway.auth import ADMIN_KEY_FILE
from hook import contract as c


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="acteon-gateway operators",
                                description="Manage named operator keys (roles: viewer, operator, admin).")
    p.add_argument("--url", default=os.environ.get(c.ENV_URL) or c.DEFAULT_URL,
                   help=f"the gateway (default ${c.ENV_URL} or {c.DEFAULT_URL})")
    sub = p.add_subparsers(dest="verb", required=True)
    add = sub.add_parser("add", help="create an operator and print its key (once)")
    add.add_argument("name")
    add.add_argument("--role", choices=["viewer", "operator", "admin"], default="operator",
                     help="viewer looks; operator also decides; admin also manages rules and keys")
    sub.add_parser("list", help="the operators and their roles (never their keys)")
    rev = sub.add_parser("revoke", help="the key stops working at once, signed-in sessions included")
    rev.add_argument("name")
    p.add_argument("--json", action="store_true", help="print JSON")
    return p


def _admin_key() -> str | None:
    key = os.environ.get(c.ENV_ADMIN_KEY)
    if key:
        return key
    path = Path(os.environ.get(c.ENV_STATE_DIR) or c.DEFAULT_STATE_DIR) / ADMIN_KEY_FILE
    try:
        return path.read_text(encoding="utf-8").strip() or None
    except OSError:
        return None


def main(argv: list[str]) -> int:
    args = build_parser().parse_args(argv)
    key = _admin_key()
    if not key:
        print(f"acteon-gateway operators: no admin key: set {c.ENV_ADMIN_KEY} (or {c.ENV_STATE_DIR} to the "
              "gateway's state directory)", file=sys.stderr)
        return 2
    import httpx

    method, path, body = {"add": ("POST", "", {"name": getattr(args, "name", ""), "role": getattr(args, "role", "")}),
                          "list": ("GET", "", None),
                          "revoke": ("DELETE", f"/{getattr(args, 'name', '')}", None)}[args.verb]
    try:
        r = httpx.request(method, f"{args.url.rstrip('/')}{c.API_PREFIX}/operators{path}", json=body,
                          headers={"Authorization": f"Bearer {key}"}, timeout=10)
    except httpx.HTTPError as e:
        print(f"acteon-gateway operators: cannot reach the gateway at {args.url}: {type(e).__name__}", file=sys.stderr)
        return 1
    data: Any = r.json() if r.headers.get("content-type", "").startswith("application/json") else {}
    if r.status_code >= 400:
        message = (data.get("error") or {}).get("message") if isinstance(data, dict) else None
        print(f"acteon-gateway operators: {r.status_code}: {message or r.text[:300]}", file=sys.stderr)
        return 1
    if args.json:
        print(json.dumps(data, indent=2))
    elif args.verb == "add":
        print(f"operator {data['name']} ({data['role']}); its key, shown only this once:")
        print(data["operator_key"])
    elif args.verb == "list":
        for o in data["operators"]:
            print(f"{o['name']}\t{o['role']}")
    else:
        print(f"operator {data['name']} revoked")
    return 0
