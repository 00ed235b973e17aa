"""Everything one gateway process holds, built by the app factory and shared by the routes."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from gateway.auth import Authenticator
from gateway.config import Settings
from gateway.dispatch import Dispatcher
from gateway.metrics import Metrics
from gateway.notify import Notifier
from gateway.policy import Policy
from gateway.store.backend import Backend
from gateway.webhooks import Webhooks


@dataclass
class GatewayState:
    settings: Settings
    backend: Backend
    policy: Policy
    auth: Authenticator
    dispatcher: Dispatcher
    metrics: Metrics
    notifier: Notifier
    embedded: bool
    admin_key_file: Path | None
    webhooks: Webhooks
