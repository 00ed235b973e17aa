"""Services reached over HTTP, judged by what a request to them does (docs/rules.md#what-a-request-does).

A `curl` is data transfer to the shell, but the same request can post to a team's chat, charge a card or
drop a search index. The effect is read from the method and the endpoint:

- **messages**: endpoints that exist to deliver a message — chat and incident webhooks, mail and SMS APIs,
  any endpoint whose path says it sends (`…/messages:send`, `/sendMessage`, `/notify`) — and payment APIs
  written to → ``outward_message``;
- **data stores** spoken to over HTTP (Elasticsearch/OpenSearch, CouchDB, Solr, InfluxDB, Meilisearch,
  Typesense, Qdrant …), by port or by their destructive endpoints: a `DELETE`, `_delete_by_query`, an index
  drop → ``database_destroy``; other writes → ``database_change``;
- any other `DELETE` to a host off this machine → ``infra_destroy``, and so is a write to an endpoint whose
  path says it deletes (`POST /api/v1/admin/tsdb/delete_series`); one whose path says it deploys or moves
  a stage (`…/transition-stage`, `…/deploy`) → ``infra_change``, and so is any other `PUT` or `PATCH` to a
  host off this machine, and a `POST` to an operation endpoint (RESTCONF `…/restconf/operations/…`).
"""

from __future__ import annotations

import re

from gateway.credentials import is_metadata_url
from gateway.shell import categories as cat
from gateway.shell import hosts as hostnames
from gateway.shell.invocation import Invocation

# Hosts whose requests deliver messages (any method: they are send-only endpoints).
_MESSAGE_HOSTS = ("hooks.slack.com", "slack.com/api/chat.", "discord.com/api/webhooks", "discordapp.com/api/webhooks",
                  "webhook.office.com", "outlook.office.com/webhook", "api.telegram.org/bot", "chat.googleapis.com",
                  "api.twilio.com", "api.sendgrid.com", "api.mailgun.net", "api.postmarkapp.com", "api.pushover.net",
                  "events.pagerduty.com", "api.opsgenie.com", "hooks.zapier.com", "api.mailchimp.com",
                  "mandrillapp.com/api", "api.resend.com", "api.brevo.com", "api.sparkpost.com", "api.vonage.com",
                  "rest.nexmo.com", "api.messagebird.com", "graph.facebook.com", "api.twitter.com", "api.x.com",
                  "api.linkedin.com", "api.pushbullet.com", "maker.ifttt.com", "ntfy.sh", "api.postmark.com",
                  "smtp.", "mattermost", "/hooks/", "/webhook", "rocket.chat",
                  # chat bots by the shape of their URLs (`…/bot/v2/hook/ID`, `…/robot/send?access_token=`)
                  "/hook/", "/robot/send", "/cgi-bin/webhook/")
# A chat API's channel messages (Discord's `…/api/v10/channels/ID/messages`): posting there is a message.
_CHAT_API = re.compile(r"(?:www\.)?discord(?:app)?\.com/api/(?:v\d+/)?(?:channels/\d+/messages|interactions/)")
# Payment APIs: a write there moves money.
_PAYMENT_HOSTS = ("api.stripe.com", "api.paypal.com", "api-m.paypal.com", "connect.squareup.com",
                  "api.squareup.com", "api.braintreegateway.com", "api.adyen.com", "checkout-test.adyen.com",
                  "api.razorpay.com", "api.mollie.com", "api.lemonsqueezy.com", "api.paddle.com", "api.coinbase.com")
_DATASTORE_PORTS = frozenset({"9200", "9201", "9243", "5984", "8983", "8086", "8529", "6333", "7700", "8108", "7474",
                              "8091", "2379", "4001", "8123", "8428"})
_DATASTORE_DESTROY = re.compile(r"/_delete_by_query|/_all\b|/_flush|/_truncate|/_drop|/solr/[^/]+/update\?.*delete|"
                                r"/api/v\d+/.*(?:drop|truncate)|/_data_stream/", re.I)
_WRITES = frozenset({"POST", "PUT", "PATCH", "DELETE"})
# A write to an endpoint whose path moves money back or out (`/v3/refund/domestic/refunds`, `/v1/payouts`): a
# payment API no list above names.
_PATH_PAYS = re.compile(r"(?:^|/)(?:refunds?|payouts?|charges?|captures?|disbursements?|withdrawals?)(?=$|[/?])",
                        re.I)
# A write to an endpoint whose path names a destroy or deploy verb as a word of its own (RPC-style APIs).
_PATH_VERB = re.compile(r"(?:^|[/_.:-])(delete|destroy|purge|wipe|erase|drop|truncate|terminate|deregister"
                        r"|decommission|clean_?tombstones|reset|factory|reboot|poweroff|power_?off|halt|reimage"
                        r"|reinitiali[sz]e|format|deploy|undeploy|redeploy|rollback|rollout|restart"
                        r"|promote|transition|failover|shutdown|scale|stop|suspend|disable|reload|upgrade"
                        r"|downgrade|migrate|resize|reconfigure|rebuild|trigger|toggle|activate|deactivate)(?=$|[/_.:?-])")
# The verbs above that change a service rather than destroy what it holds (a reset, a wipe, a reimage do).
_CHANGE_VERBS = frozenset({"deploy", "undeploy", "redeploy", "rollback", "rollout", "restart", "promote",
                           "transition", "failover", "scale", "stop", "suspend", "disable", "reload", "upgrade",
                           "downgrade", "migrate", "resize", "reconfigure", "rebuild", "trigger", "toggle", "activate",
                           "deactivate"})
# Endpoints where a POST runs an operation or creates configuration: RESTCONF's operations and data, NETCONF
# over HTTP, NSO's and other controllers' RPC endpoints.
_RPC_PATH = re.compile(r"(?:^|/)restconf/(?:operations|data)(?:/|$)|(?:^|/)(?:api/)?(?:running|operations)/"
                       r"|(?:^|/)netconf(?:/|$)")
# A write to a collection of credentials or accounts (`/robots`, `/api-keys`, `/users/42/tokens`).
_IDENTITY_COLLECTION = re.compile(r"(?:^|/)(?:robots?|tokens|access[-_]?tokens|personal[-_]?access[-_]?tokens"
                                  r"|api[-_]?keys?|apikeys?|keys|access[-_]?keys?|credentials|service[-_]?accounts?"
                                  r"|users|accounts"
                                  r"|client[-_]?secrets?"
                                  r"|deploy[-_]?keys|ssh[-_]?keys|secrets)/?$", re.I)
# A write to an endpoint whose path says it delivers something to people (`…/messages:send`, `/sendMessage`,
# `/v3/mail/send`, `/notify`): a message service no list above names.
_PATH_SEND = re.compile(r"(?:^|[/_.:-])(send(?:_?(?:messages?|mail|email|sms|notifications?|push|alerts?))?"
                        r"|notify|broadcast)(?=$|[/_.:?-])", re.I)


def judge(call: Invocation, method: str, urls: list[str], *, verbs_in_path: bool = True) -> None:
    """Flag what ``method`` requests to ``urls`` do. ``verbs_in_path=False`` for URLs merely named in a
    program's text (a link to `…/delete-objects.html` in a comment is not a request)."""
    method = method.upper()
    for url in urls[:64]:
        lowered = url.lower()
        rest = lowered.split("://", 1)[-1]
        path = rest.split("?", 1)[0].split("/", 1)[-1]
        host = hostnames.bare_url_host(url) or ""
        port_match = re.match(r"^(?:[^@/]*@)?(?:\[[^\]]+\]|[^:/]+):(\d+)", rest)
        port = port_match.group(1) if port_match else ""
        local = not host or hostnames.is_local(host)
        messages = not local and (any(marker in rest for marker in _MESSAGE_HOSTS) or bool(
            _CHAT_API.match(rest))) and (
            method in _WRITES or "/bot" in rest)
        pays = method in _WRITES and (any(rest.startswith(h) for h in _PAYMENT_HOSTS) or (
            not local and verbs_in_path and bool(_PATH_PAYS.search(path))))
        sends = method in _WRITES and not local and verbs_in_path and bool(_PATH_SEND.search(path))
        if messages or pays or sends:
            call.flag(cat.OUTWARD_MESSAGE)
        if is_metadata_url(url):
            call.flag(cat.CREDENTIAL_ACCESS)  # the instance's role credentials, whatever the host is called
        if method in ("POST", "PUT") and not local and verbs_in_path and _IDENTITY_COLLECTION.search(path):
            call.flag(cat.CREDENTIAL_CREATION)  # `POST …/api/v2.0/robots`, `…/personal_access_tokens`: a credential
        datastore = port in _DATASTORE_PORTS or "elastic" in host or "opensearch" in host or "solr" in host or \
            "couch" in host
        if (_DATASTORE_DESTROY.search(rest) and method in _WRITES) or (datastore and method == "DELETE"):
            call.flag(cat.DATABASE_DESTROY)
        elif datastore and method in _WRITES and not local:
            call.flag(cat.DATABASE_CHANGE)
        elif method == "DELETE" and not local:
            call.flag(cat.INFRA_DESTROY)
        elif method in _WRITES and not local and verbs_in_path:
            # the path as written, its camel case split (`/channels/_redeployAll` names `redeploy`)
            written = url.split("://", 1)[-1].split("?", 1)[0].split("/", 1)[-1]
            verb = _PATH_VERB.search(re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "-", written).lower())
            if verb is not None:  # `POST …/admin/tsdb/delete_series`, `…/model-versions/transition-stage`
                call.flag(cat.INFRA_CHANGE if verb.group(1) in _CHANGE_VERBS else cat.INFRA_DESTROY)
            elif method in ("PUT", "PATCH") or _RPC_PATH.search(path):
                # A PUT or PATCH replaces or edits what the service holds (`PATCH …/dcim/interfaces/8/`), and a
                # POST to an operation endpoint runs it (RESTCONF `…/restconf/operations/…:sync-to`).
                call.flag(cat.INFRA_CHANGE)
