"""``acteon-gateway operators|workers add|list|revoke``: named keys, made through a running gateway.

Operator keys are people's (with a role); worker keys are machines' that run agents of a distributed run
(they only mint per-attempt agent keys). The key is printed once and never again (the gateway keeps its
SHA-256). The command talks to the
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

from acteon_core import contract as c
from gateway.auth import ADMIN_KEY_FILE

NOUNS = {"operators": "operator", "workers": "worker"}


def build_parser(noun: str = "operators") -> argparse.ArgumentParser:
    one = NOUNS[noun]
    description = ("Manage named operator keys (roles: viewer, operator, admin)." if one == "operator" else
                   "Manage worker keys: one per machine that runs agents of a distributed run; a worker key "
                   "only mints per-attempt agent keys.")
    p = argparse.ArgumentParser(prog=f"acteon-gateway {noun}", description=description)
    p.add_argument("--url", default=os.environ.get(c.ENV_URL) or c.DEFAULT_URL,
                   help=f"the gateway (default ${c.ENV_URL} or {c.DEFAULT_URL})")
    p.add_argument("--json", action="store_true", help="print JSON")
    # The same options after the verb too (`operators add alice --url …`): SUPPRESS keeps a value given first.
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--url", default=argparse.SUPPRESS, help="the gateway")
    common.add_argument("--json", action="store_true", default=argparse.SUPPRESS, help="print JSON")
    sub = p.add_subparsers(dest="verb", required=True)
    add = sub.add_parser("add", parents=[common],
                         help=f"create {'an' if one == 'operator' else 'a'} {one} and print its key (once)")
    add.add_argument("name")
    if one == "operator":
        add.add_argument("--role", choices=["viewer", "operator", "admin"], default="operator",
                         help="viewer looks; operator also decides; admin also manages rules and keys")
    sub.add_parser("list", parents=[common], help=f"the {noun} (never their keys)")
    rev = sub.add_parser("revoke", parents=[common], help="the key stops working at once" +
                         (", signed-in sessions included" if one == "operator" else ""))
    rev.add_argument("name")
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


def main(argv: list[str], noun: str = "operators") -> int:
    args = build_parser(noun).parse_args(argv)
    one = NOUNS[noun]
    key = _admin_key()
    if not key:
        print(f"acteon-gateway {noun}: no admin key: set {c.ENV_ADMIN_KEY} (or {c.ENV_STATE_DIR} to the "
              "gateway's state directory)", file=sys.stderr)
        return 2
    import httpx

    made: dict[str, Any] = {"name": getattr(args, "name", "")}
    if one == "operator":
        made["role"] = getattr(args, "role", "")
    method, path, body = {"add": ("POST", "", made),
                          "list": ("GET", "", None),
                          "revoke": ("DELETE", f"/{getattr(args, 'name', '')}", None)}[args.verb]
    try:
        r = httpx.request(method, f"{args.url.rstrip('/')}{c.API_PREFIX}/{noun}{path}", json=body,
                          headers={"Authorization": f"Bearer {key}"}, timeout=10)
    except httpx.HTTPError as e:
        print(f"acteon-gateway {noun}: cannot reach the gateway at {args.url} ({type(e).__name__}): start it "
              f"(`acteon-gateway`) or give --url", file=sys.stderr)
        return 2
    data: Any = r.json() if r.headers.get("content-type", "").startswith("application/json") else {}
    if r.status_code >= 400:
        message = (data.get("error") or {}).get("message") if isinstance(data, dict) else None
        print(f"acteon-gateway {noun}: {r.status_code}: {message or r.text[:300]}", file=sys.stderr)
        return 1
    if args.json:
        print(json.dumps(data, indent=2))
    elif args.verb == "add":
        print(f"{one} {data['name']}" + (f" ({data['role']})" if one == "operator" else "") +
              "; its key, shown only this once:")
        print(data[f"{one}_key"])
    elif args.verb == "list":
        for o in data[noun]:
            print(f"{o['name']}\t{o['role']}")
    else:
        print(f"{one} {data['name']} revoked")
    return 0
