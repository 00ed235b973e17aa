"""What program text does to the services it talks to: requests it makes with a method of its own, and the calls
it makes through a client that holds a service's credentials (docs/rules.md#what-a-request-does).

``program_text`` judges URLs merely named in code as POSTs without reading their paths (a link in a comment is not
a request), and client-library methods by a few unmistakable verbs (delete, deploy, upload, send), because
everyday words (create, update) are local work in most code. Two shapes say more:

- **a request made with its method**: `requests.patch('https://…/gates/x', …)`, `httpx.delete(…)`,
  `fetch('https://…/messages/send', {method: 'POST'})` — judged as the same request by `curl -X METHOD URL`,
  path included;
- **a client holding a service's credentials** (a secret-named environment variable read, or a service SDK's
  own credential loader) whose calls write: `sb.from('profiles').update(…)`, `auth.admin.createUser(…)`,
  `service.mutate_campaign_budgets(…)`, `AdSet(id).api_update(…)`, `analytics.track(…)`, a GraphQL
  `mutation { draftOrderInvoiceSend … }`. What the name says decides the category: a credential or user made is
  ``credential_creation``, a message or send ``outward_message``, a delete or archive ``infra_destroy``,
  records written ``database_change``, anything else ``infra_change``. A prompt to a language model
  (`chat.completions.create`, `messages.create`, `generate_content`) writes nothing.
"""

from __future__ import annotations

import re

from gateway.shell import categories as cat
from gateway.shell import services
from gateway.shell.invocation import Invocation

_MAX_TEXT = 1 << 16

# `requests.patch('https://…'`, `httpx.delete(f"https://…"`, `session.put(`, `axios.post(`, `$http->put(`.
_METHOD_CALL = re.compile(r"""(?<![A-Za-z0-9_$])(?:requests|httpx|session|client|http|axios|ky|got|superagent|s|r)"""
                          r"""\s*(?:\.|->)\s*"""
                          r"""(post|put|patch|delete)\s*\(\s*f?(['"`])(https?://[^'"`\s]+)\2""", re.I)
# `fetch('https://…', { method: 'PATCH', … })`, `requests.request('DELETE', 'https://…')`.
_FETCH = re.compile(r"""\bfetch\s*\(\s*(['"`])(https?://[^'"`\s]+)\1\s*,\s*\{[^}]{0,400}?method\s*:\s*['"]"""
                    r"""(POST|PUT|PATCH|DELETE)['"]""", re.I | re.S)
_REQUEST = re.compile(r"""\.request\s*\(\s*['"](POST|PUT|PATCH|DELETE)['"]\s*,\s*f?(['"])(https?://[^'"\s]+)\2""",
                      re.I)

# A client that holds a service's credentials: a secret-named variable read from the environment, or an SDK's own
# credential loader (Google Ads' `load_from_storage`, Looker's `init40`, Meta's `FacebookAdsApi.init`, a Shopify
# session).
_CREDENTIAL = re.compile(r"""(?:process\.env\.|os\.environ\[\s*['"]|os\.environ\.get\(\s*['"]|os\.getenv\(\s*['"]"""
                         r"""|ENV\[\s*['"]|Deno\.env\.get\(\s*['"]|getenv\(\s*['"])"""
                         r"""\w*(?:TOKEN|KEY|SECRET|PASSWORD|SERVICE_ROLE|CREDENTIAL)"""
                         r"""|\bload_from_storage\s*\(|\blooker_sdk\.init\d+\s*\(|\bFacebookAdsApi\.init\s*\("""
                         r"""|\.activate_session\s*\(""", re.I)
# Calls that write, by name: a verb joined to what it acts on (`mutate_campaign_budgets`, `createUser`,
# `create_campaign_send_job`, `api_update`), the bare verbs no local collection has (`create`, `upsert`,
# `mutate`, `trigger`, `track`, `identify`), and PostgREST's writes on a table (`.from('t').update(…)`).
_WRITE_CALL = re.compile(r"""\.((?:api_)?(?:create|update|mutate|upsert|trigger|delete|remove|archive|send|enable"""
                         r"""|disable|toggle|pause|activate|deactivate|invite|import|publish|schedule)"""
                         r"""(?:_\w+|[A-Z]\w*)|create|upsert|mutate|trigger|track|identify|archive|api_update"""
                         r"""|api_create|api_delete)\s*\(""")
# A cloud SDK holds the machine's credentials without naming them (boto3, the Google and Azure libraries): its
# clients' changing operations are named by more verbs (`update_thing_shadow`, `put_object`, `stop_instances`,
# `attach_role_policy`); `get_`, `list_`, `describe_` read.
CLOUD_SDK = re.compile(r"""\bboto3\b|\bbotocore\b|google\.cloud|from\s+azure|@aws-sdk/|['"]aws-sdk['"]"""
                       r"""|@google-cloud/|@azure/""", re.I)
_CLOUD_WRITE = re.compile(r"""\.((?:put|modify|attach|detach|start|stop|reboot|associate|disassociate|register"""
                          r"""|deregister|tag|untag|rotate|revoke|reset|cancel|replace|restore|grant|assign|update"""
                          r"""|create|delete|publish|send|invoke)_\w+)\s*\(""")
# A service's resource collection reached through its client (`cf.dns.records.edit(…)`, `mux.video.assets.delete(
# id)`, `stripe.customers.update(…)`): a plural noun after two or more steps, then a write. Its client often
# reads the credentials itself, so this holds with none in sight (`this.cache.entries.delete(k)` is not a client).
_COLLECTION_WRITE = re.compile(r"""(?<![\w.])(?!this\.|self\.|cls\.)[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)+\."""
                               r"""([a-z][a-z_]*s)\.(create|update|edit|delete|del|remove|destroy|patch|purge)\s*\(""")
_TABLE_WRITE = re.compile(r"""\.from\(\s*['"`][\w.]+['"`]\s*\)\s*\.\s*(update|upsert|insert|delete)\s*\(""")
_MUTATION = re.compile(r"""\bmutation\b[^{]{0,200}\{\s*([A-Za-z_]\w*)""")
# A language model's prompt and its other read-like calls: they create a response, not a resource.
_MODEL_CALL = re.compile(r"""(?:completions|messages|responses|embeddings|moderations|chat|images|audio|speech"""
                         r"""|transcriptions|translations)$|^(?:create_?(?:embedding|completion|chat|message|response)"""
                         r"""|generate)""", re.I)
_IDENTITY = re.compile(r"user|credential|token|api_?key|password|invite|login|member|role|permission|secret", re.I)
_SENDING = re.compile(r"send|message|email|sms|push|notif|broadcast|invoice", re.I)
_REMOVING = re.compile(r"delete|remove|archive|destroy|purge", re.I)
_RECORDS = re.compile(r"^(?:track|identify|upsert|insert|import)", re.I)


def judge(call: Invocation, code: str) -> None:
    text = code[:_MAX_TEXT]
    for method, url in _requests(text):
        services.judge(call, method, [url])
    for match in list(_COLLECTION_WRITE.finditer(text))[:16]:
        if not _MODEL_CALL.search(match.group(1)):  # `client.chat.completions.create(…)`: a prompt
            call.flag(_category(match.group(2)) if match.group(2) not in ("create", "update", "edit", "patch")
                      else _category(match.group(1) + "_" + match.group(2)))
    cloud = CLOUD_SDK.search(text) is not None
    if cloud:
        for match in list(_CLOUD_WRITE.finditer(text))[:32]:
            call.flag(_category(match.group(1)))
    if not cloud and not _CREDENTIAL.search(text):
        return
    for match in list(_TABLE_WRITE.finditer(text))[:16]:
        call.flag(cat.DATABASE_DESTROY if match.group(1) == "delete" and not _FILTERED.match(
            text, match.end()) else cat.DATABASE_CHANGE)
    for match in list(_WRITE_CALL.finditer(text))[:32]:
        receiver = text[max(0, match.start() - 40):match.start()].rsplit(".", 1)[-1]
        if _MODEL_CALL.search(receiver) or _MODEL_CALL.search(match.group(1)):
            continue  # `client.chat.completions.create(…)`: a prompt
        if receiver.endswith(("Client", "Session", "Api", "API")):
            continue  # `hubspot.Client.create(access_token=…)`: the client being made
        call.flag(_category(match.group(1)))
    for match in list(_MUTATION.finditer(text))[:8]:
        call.flag(_category(match.group(1)))


# A delete narrowed by a filter that the call chain applies after it (`.delete().eq('id', 4)`) removes some rows.
_FILTERED = re.compile(r"""[^;\n]{0,200}?\)\s*\.\s*(?:eq|neq|in_?|match|filter|lt|lte|gt|gte|like|ilike|is_?)\s*\(""")


def _category(name: str) -> str:
    if "invite" in name.lower() or (_IDENTITY.search(name) and not _SENDING.search(name)):
        return cat.CREDENTIAL_CREATION  # (`inviteUserByEmail` makes an account; the mail is how it arrives)
    if _SENDING.search(name):
        return cat.OUTWARD_MESSAGE
    if _REMOVING.search(name):
        return cat.INFRA_DESTROY
    if _RECORDS.match(name):
        return cat.DATABASE_CHANGE
    return cat.INFRA_CHANGE


def _requests(text: str) -> list[tuple[str, str]]:
    found = [(m.group(1), m.group(3)) for m in _METHOD_CALL.finditer(text)]
    found += [(m.group(3), m.group(2)) for m in _FETCH.finditer(text)]
    found += [(m.group(1), m.group(3)) for m in _REQUEST.finditer(text)]
    return [(method.upper(), url) for method, url in found[:32]]
