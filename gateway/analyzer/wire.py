"""Frames between the worker and an analysis child: 4-byte big-endian length, then a JSON body.

The child's side uses blocking file objects; the worker's side reads with a deadline (``pool.py``).
Facts travel as plain lists so that the child's answer is data, never code (no pickle).
"""

from __future__ import annotations

import struct
from typing import BinaryIO

import orjson

from gateway.normalize import Facts
from gateway.paths import PathFact
from gateway.shell.analysis import Attached

HEADER = struct.Struct(">I")
MAX_FRAME = 16 * 1024 * 1024  # an answer bigger than this is a broken child


def write_frame(out: BinaryIO, body: bytes) -> None:
    out.write(HEADER.pack(len(body)) + body)
    out.flush()


def read_frame(inp: BinaryIO) -> bytes | None:
    """One frame, or None at end of input (the worker went away)."""
    head = inp.read(HEADER.size)
    if len(head) < HEADER.size:
        return None
    (size,) = HEADER.unpack(head)
    body = inp.read(size)
    return body if len(body) == size else None


def request(command: str, workdir: str | None, home: str, secret_paths: tuple[str, ...],
            files: Attached = ()) -> bytes:
    return orjson.dumps([command, workdir, home, list(secret_paths), [list(f) for f in files]])


def parse_request(body: bytes) -> tuple[str, str | None, str, tuple[str, ...], Attached]:
    command, workdir, home, secret_paths, files = orjson.loads(body)
    attached = tuple((str(p), t if isinstance(t, str) else None) for p, t in files)
    return (str(command), workdir if isinstance(workdir, str) else None, str(home), tuple(map(str, secret_paths)),
            attached)


def facts_to_wire(f: Facts) -> bytes:
    return orjson.dumps([
        f.target, f.paths, f.path_classes, f.hosts, f.categories, f.executables, f.commands,
        [[p.path, p.path_class, p.contains_workspace] for p in f.path_facts], f.limit, f.writes, f.git_dirs,
        f.fetched, f.written_texts,
    ])


def facts_from_wire(body: bytes) -> Facts:
    (target, paths, classes, hosts, categories, executables, commands, path_facts, limit, writes,
     git_dirs, fetched, written_texts) = orjson.loads(body)
    return Facts(
        target=target, paths=tuple(paths), path_classes=tuple(classes), hosts=tuple(hosts),
        categories=tuple(categories), executables=tuple(executables), commands=tuple(commands),
        path_facts=tuple(PathFact(p, c, bool(w)) for p, c, w in path_facts), limit=limit,
        writes=tuple(writes), git_dirs=tuple(git_dirs), fetched=tuple(fetched),
        written_texts=tuple((str(p), str(t)) for p, t in written_texts),
    )
