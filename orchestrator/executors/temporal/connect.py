"""How the coordinator and the workers reach Temporal: address, namespace, TLS (mTLS), API key."""

from __future__ import annotations

import os
from pathlib import Path

from temporalio.client import Client
from temporalio.service import TLSConfig

from orchestrator.errors import UserError
from orchestrator.executors.base import ExecutorConfig
from orchestrator.teardown import native_runtime_started


def _read(path: str, what: str) -> bytes:
    try:
        return Path(path).expanduser().read_bytes()
    except OSError as e:
        raise UserError(f"[executor] {what} {path}: {e.strerror}") from None


async def connect(cfg: ExecutorConfig) -> Client:
    """A Temporal client; every failure to connect is a one-line UserError naming the address."""
    tls: TLSConfig | bool = False
    if cfg.tls_ca or cfg.tls_cert:
        tls = TLSConfig(server_root_ca_cert=_read(cfg.tls_ca, "tls_ca") if cfg.tls_ca else None,
                        client_cert=_read(cfg.tls_cert, "tls_cert") if cfg.tls_cert else None,
                        client_private_key=_read(cfg.tls_key, "tls_key") if cfg.tls_key else None)
    api_key = os.environ.get(cfg.api_key_env) if cfg.api_key_env else None  # read here, never stored
    if cfg.api_key_env and not api_key:
        raise UserError(f"[executor] api_key_env: ${cfg.api_key_env} is not set")
    if api_key and tls is False:
        tls = True  # an API key only ever travels encrypted
    native_runtime_started()  # even a refused connect has started the SDK's runtime threads
    try:
        return await Client.connect(cfg.address, namespace=cfg.namespace, tls=tls, api_key=api_key)
    except Exception as e:  # the SDK raises RuntimeError with the transport's words
        raise UserError(f"cannot reach Temporal at {cfg.address} (namespace {cfg.namespace}): "
                        f"{str(e).splitlines()[0][:300]}") from None
