"""The orchestrator's side of the gateway API (it never imports the gateway: HTTP only)."""

from __future__ import annotations

from typing import Any

import httpx

from acteon_core import contract as c
from orchestrator.errors import UserError


class GatewayError(UserError):
    """The gateway refused or could not be reached; the message is for humans."""


class Unreachable(GatewayError):
    """Nothing answered at the gateway's address (a finished run's embedded gateway is gone)."""


class NotFound(GatewayError):
    """The gateway does not know the run or approval (a fresh embedded gateway knows no earlier run)."""


class Unauthorized(GatewayError):
    """401: the gateway does not know the key sent."""


class Conflict(GatewayError):
    """409: the state does not allow it now (a scope claim in the way, a lapsed claim, a resolved approval)."""


class GatewayClient:
    def __init__(self, url: str, admin_key: str, timeout_s: float = 10.0) -> None:
        self.url = url.rstrip("/")
        # No key, no header: /health needs none, and an empty bearer is not even a valid header.
        self._http = httpx.AsyncClient(base_url=self.url, timeout=timeout_s,
                                       headers={"Authorization": f"Bearer {admin_key}"} if admin_key else {})

    async def aclose(self) -> None:
        await self._http.aclose()

    async def _call(self, method: str, path: str, *, key: str | None = None, **kw: Any) -> Any:
        headers = {"Authorization": f"Bearer {key}"} if key else None
        try:
            r = await self._http.request(method, c.API_PREFIX + path, headers=headers, **kw)
        except httpx.TransportError as e:
            raise Unreachable(f"cannot reach the gateway at {self.url}: nothing answers ({type(e).__name__})") from None
        except httpx.HTTPError as e:
            raise GatewayError(f"cannot reach the gateway at {self.url}: {e}") from None
        if r.status_code >= 400:
            try:
                message = r.json()["error"]["message"]
            except (ValueError, KeyError, TypeError):
                message = r.text[:300]
            error = {401: Unauthorized, 404: NotFound, 409: Conflict}.get(r.status_code, GatewayError)
            raise error(f"gateway {method} {path}: {r.status_code}: {message}")
        return r.json()

    async def explain(self, body: dict[str, Any]) -> dict[str, Any]:
        """How the gateway would decide a call: facts, matching rules, the deciding one (admin/operator key)."""
        return dict(await self._call("POST", "/explain", json=body))

    async def health(self) -> dict[str, Any]:
        return dict(await self._call("GET", "/health"))

    async def rules(self) -> list[dict[str, Any]]:
        """The global rule pack in force (admin key)."""
        return list((await self._call("GET", "/rules"))["rules"])

    async def create_run(self, run_id: str, rules: list[dict[str, Any]], quota: dict[str, Any] | None,
                         agents: dict[str, int] | None = None) -> str:
        body: dict[str, Any] = {"run_id": run_id, "rules": rules or None}
        if quota:
            body["quota"] = quota
        if agents:
            body["agents"] = agents
        return str((await self._call("POST", "/runs", json=body))["agent_key"])

    async def mint_key(self, run_id: str, binding: dict[str, Any] | None = None) -> str:
        """Another agent key for the run; ``binding`` ({agent_id, root, files_scope, claim}) makes it one
        agent's, held to its worktree and file scope by the gateway."""
        return str((await self._call("POST", f"/runs/{run_id}/agent-keys", json=binding))["agent_key"])

    async def mint_attempt(self, worker_key: str, run_id: str, agent_id: str, attempt: int,
                           binding: dict[str, Any] | None = None) -> str:
        """A worker's agent key for one attempt (409 ``Conflict`` unless the attempt is newer than the
        agent's current one, or once the run was cancelled)."""
        body = {**(binding or {}), "agent_id": agent_id, "attempt": attempt}
        return str((await self._call("POST", f"/runs/{run_id}/attempts", key=worker_key, json=body))["agent_key"])

    async def claim(self, repo: str, owner: str, globs: list[str], ttl_s: float) -> dict[str, Any]:
        """A write claim on globs of a repository; raises :class:`Conflict` naming the claim in the way."""
        body = {"repo": repo, "owner": owner, "globs": globs, "mode": "write", "ttl_s": ttl_s}
        return dict(await self._call("POST", "/claims", json=body))

    async def renew_claim(self, repo: str, claim_id: str, token: int, ttl_s: float) -> dict[str, Any]:
        body = {"repo": repo, "token": token, "ttl_s": ttl_s}
        return dict(await self._call("POST", f"/claims/{claim_id}/renew", json=body))

    async def release_claim(self, repo: str, claim_id: str, token: int) -> bool:
        params = {"repo": repo, "token": token}
        return bool((await self._call("DELETE", f"/claims/{claim_id}", params=params))["released"])

    async def stats(self, run_id: str) -> dict[str, Any]:
        return dict(await self._call("GET", f"/runs/{run_id}/stats"))

    async def run(self, run_id: str) -> dict[str, Any]:
        """The run as the gateway holds it (``status`` is ``cancelled`` once anyone cancelled it there)."""
        return dict(await self._call("GET", f"/runs/{run_id}"))

    async def post_state(self, run_id: str, change: dict[str, Any]) -> None:
        """A task's (or the run's) new state, for the operator console."""
        await self._call("POST", f"/runs/{run_id}/state", json=change)

    async def cancel(self, run_id: str) -> dict[str, Any]:
        return dict(await self._call("POST", f"/runs/{run_id}/cancel"))

    async def audit(self, run_id: str, **filters: Any) -> list[dict[str, Any]]:
        """Every audit record (all pages) matching the filters."""
        out: list[dict[str, Any]] = []
        cursor = None
        while True:
            params = {k: v for k, v in {**filters, "cursor": cursor, "limit": 1000}.items() if v is not None}
            page = await self._call("GET", f"/runs/{run_id}/audit", params=params)
            out.extend(page["records"])
            cursor = page["next_cursor"]
            if cursor is None:
                return out

    async def audit_page(
        self, run_id: str, cursor: str | None = None, limit: int = 500
    ) -> tuple[list[dict[str, Any]], str | None]:
        """One page of audit records after ``cursor`` (oldest first) and the cursor of the next page,
        None when the stream is exhausted (for now: a follower keeps its last record's cursor)."""
        params = {k: v for k, v in {"cursor": cursor, "limit": limit}.items() if v is not None}
        page = await self._call("GET", f"/runs/{run_id}/audit", params=params)
        return list(page["records"]), page["next_cursor"]

    async def events_page(
        self, run_id: str, cursor: str | None = None, limit: int = 500
    ) -> tuple[list[dict[str, Any]], str | None]:
        """One page of completion events after ``cursor``; same paging as :meth:`audit_page`."""
        params = {k: v for k, v in {"cursor": cursor, "limit": limit}.items() if v is not None}
        page = await self._call("GET", f"/runs/{run_id}/events", params=params)
        return list(page["events"]), page["next_cursor"]

    async def run_rules(self, run_id: str) -> list[dict[str, Any]]:
        """The run's own rules (not the global pack), as stored."""
        return list((await self._call("GET", f"/runs/{run_id}/rules"))["rules"])

    async def put_run_rules(self, run_id: str, rules: list[dict[str, Any]]) -> dict[str, Any]:
        """Replace the run's own rules; the gateway validates them and keeps the old ones when invalid."""
        return dict(await self._call("PUT", f"/runs/{run_id}/rules", json={"rules": rules}))

    async def approvals(self, run_id: str | None = None, status: str | None = None) -> list[dict[str, Any]]:
        params = {k: v for k, v in {"run": run_id, "status": status, "limit": 1000}.items() if v is not None}
        return list((await self._call("GET", "/approvals", params=params))["approvals"])

    async def approval(self, approval_id: str) -> dict[str, Any]:
        """One approval, with the document a person is shown (``shown``) and its ``shown_sha256``."""
        return dict(await self._call("GET", f"/approvals/{approval_id}"))

    async def resolve(self, approval_id: str, approve: bool, by: str | None, reason: str = "",
                      shown_sha256: str | None = None) -> dict[str, Any]:
        """Decide. ``shown_sha256``: the hash of what the person saw; the gateway refuses the decision if the
        approval is no longer that (an operator key must send it)."""
        verb = "approve" if approve else "reject"
        body = {"by": by, "reason": reason or None, "shown_sha256": shown_sha256}
        return dict(await self._call("POST", f"/approvals/{approval_id}/{verb}", json=body))

    async def dispatch(self, key: str, body: dict[str, Any]) -> dict[str, Any]:
        return dict(await self._call("POST", "/dispatch", key=key, json=body))

    async def event(self, key: str, run_id: str, body: dict[str, Any]) -> None:
        await self._call("POST", f"/runs/{run_id}/events", key=key, json=body)

    async def wait_approval(self, key: str, approval_id: str, timeout_s: float) -> dict[str, Any]:
        return dict(await self._call("GET", f"/approvals/{approval_id}/wait", key=key,
                                     params={"timeout_s": min(300.0, max(0.0, timeout_s))},
                                     timeout=timeout_s + 10))
