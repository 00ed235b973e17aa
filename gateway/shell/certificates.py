"""Certificates signed by an existing authority: a credential other systems will trust (`credential_creation`,
docs/rules.md). Signing a CSR with a CA's key (`openssl x509 -req -CAkey`, `openssl ca`, `cfssl gencert -ca-key`,
`cfssl sign`, `certstrap sign`, `easyrsa sign-req`), or asking an online CA for one (`step ca certificate|token|
sign`). A self-signed or brand-new authority for local development (`openssl req -x509`, `cfssl gencert -initca`,
`step certificate create --profile root-ca`) is no one else's trust: not flagged."""

from __future__ import annotations

from gateway.shell import categories as cat
from gateway.shell.invocation import Invocation

_STEP_CA_ISSUES = frozenset({"certificate", "token", "sign", "renew", "rekey"})
_EASYRSA_ISSUES = frozenset({"sign-req", "sign", "build-client-full", "build-server-full", "build-serverclient-full"})


def issues_certificate(call: Invocation) -> str | None:
    values = [w.value for w in call.args]
    words = [v for v in values if not v.startswith("-")]
    options = {v.split("=", 1)[0] for v in values if v.startswith("-")}
    issues = False
    if call.name == "openssl":
        issues = words[:1] == ["ca"] or (words[:1] == ["x509"] and "-req" in options and bool(
            options & {"-CAkey", "-CA"}))
    elif call.name == "cfssl":
        issues = words[:1] == ["sign"] or (words[:1] == ["gencert"] and bool(options & {"-ca-key", "-ca"}))
    elif call.name == "step":
        issues = (words[:1] == ["ca"] and len(words) > 1 and words[1] in _STEP_CA_ISSUES) or (
            words[:2] == ["certificate", "create"] and "--ca-key" in options) or words[:2] == ["certificate", "sign"]
    elif call.name == "certstrap":
        issues = words[:1] == ["sign"]
    elif call.name in ("easyrsa", "easyrsa3"):
        issues = bool(words[:1]) and words[0] in _EASYRSA_ISSUES
    return cat.CREDENTIAL_CREATION if issues else None


ISSUERS = ("openssl", "cfssl", "step", "certstrap", "easyrsa", "easyrsa3")
