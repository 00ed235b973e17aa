"""Classes a twenty-sixth unseen corpus (a retailer's growth and data team) found open
(docs/security.md#measuring-generalisation), closed as classes: requests program text makes with a method of its
own, writes through a client that holds a service's credentials (gateway/shell/service_calls.py), API paths that
trigger or toggle, dbt's live targets, its packages and its macros by name, psql's `\\copy … FROM`, feature-flag
CLIs, and a dry run of `gsutil rsync`. Every case is a variant written for its class; look-alikes stay clean."""

from __future__ import annotations

from gateway.shell import categories as cat
from tests.gateway.shell.shell_helpers import class_tests, node_e, python_c

FLAGGED = {
    # A request made with its method, judged as curl would be, path included.
    python_c("import requests\nrequests.put('https://api.flags.example/v2/segments/vip', json={'rules': []})"):
        cat.INFRA_CHANGE,
    python_c("import httpx\nhttpx.delete('https://api.crm.example/v1/contacts/991')"): cat.INFRA_DESTROY,
    node_e("fetch('https://api.mailer.example/v3/mail/send', {method: 'POST', body: JSON.stringify(m)})"):
        cat.OUTWARD_MESSAGE,
    python_c("import requests\nrequests.post('https://api.etl.example/v1/pipelines/88/trigger', json={})"):
        cat.INFRA_CHANGE,
    # Writes through a client holding a service's credentials.
    node_e("const {createClient} = require('@supabase/supabase-js');\n"
          "const db = createClient(process.env.SB_URL, process.env.SB_SERVICE_ROLE_KEY);\n"
          "db.from('carts').delete().neq('id', 0)"): cat.DATABASE_CHANGE,
    node_e("const db = createClient(u, process.env.SB_SERVICE_ROLE_KEY);\ndb.from('coupons').delete()"):
        cat.DATABASE_DESTROY,
    node_e("const db = createClient(u, process.env.SB_SERVICE_ROLE_KEY);\n"
          "db.auth.admin.inviteUserByEmail('x@example.com')"): cat.CREDENTIAL_CREATION,
    python_c("import os, hubspot\nc = hubspot.Client.create(access_token=os.environ['HUBSPOT_TOKEN'])\n"
            "c.crm.contacts.basic_api.archive(contact_id='51')"): cat.INFRA_DESTROY,
    python_c("import os\nfrom mixpanel import Mixpanel\nmp = Mixpanel(os.environ['MIXPANEL_TOKEN'])\n"
            "mp.track('u1', 'Refund Issued')"): cat.DATABASE_CHANGE,
    python_c("from google.ads.googleads.client import GoogleAdsClient\n"
            "c = GoogleAdsClient.load_from_storage('ads.yaml')\n"
            "c.get_service('CampaignService').mutate_campaigns(customer_id='1', operations=ops)"): cat.INFRA_CHANGE,
    python_c("import os, requests\nq = 'mutation { customerDelete(input: {id: \"gid://shop/Customer/7\"}) { id } }'\n"
            "requests.post(URL, json={'query': q}, headers={'X-Token': os.environ['SHOP_TOKEN']})"):
        cat.INFRA_DESTROY,
    python_c("import os, klaviyo\nk = klaviyo.Client(os.environ['KLAVIYO_KEY'])\nk.Flows.create_flow_send(f)"):
        cat.OUTWARD_MESSAGE,
    # dbt on the live warehouse, its packages, a macro named for a drop.
    "dbt build --target production --select tag:daily": cat.DATABASE_CHANGE,
    "dbt seed -t prd --full-refresh": cat.DATABASE_DESTROY,
    "dbt deps --upgrade": cat.PACKAGE_INSTALL,
    "dbt run-operation drop_stale_relations --args '{dry: false}'": cat.DATABASE_DESTROY,
    "dbt run-operation grant_usage_to_bi": cat.DATABASE_CHANGE,
    # psql's client-side COPY into a table.
    "psql \"$WAREHOUSE_URL\" -c \"\\copy public.refunds (id, amount) FROM 'fix/refunds.csv' CSV\"":
        cat.DATABASE_CHANGE,
    # Feature-flag CLIs.
    "ldcli flags update --project web --flag checkout-v2 --data '{\"on\": true}'": cat.INFRA_CHANGE,
    "configcat flag-v2 value update --flag-id 42 --environment-id prod --flag-value true": cat.INFRA_CHANGE,
}

LOOK_ALIKES = [
    python_c("import requests\nprint(requests.get('https://api.flags.example/v2/segments').json())"),
    python_c("import os\nfrom openai import OpenAI\nc = OpenAI(api_key=os.environ['OPENAI_API_KEY'])\n"
            "print(c.chat.completions.create(model='m', messages=[]))"),
    python_c("import os, anthropic\nc = anthropic.Anthropic(api_key=os.environ['ANTHROPIC_API_KEY'])\n"
            "print(c.messages.create(model='m', max_tokens=10, messages=[]))"),
    node_e("const db = createClient(u, process.env.SB_ANON_KEY);\ndb.from('products').select('*').limit(5)"),
    python_c("import os, stripe\nstripe.api_key = os.environ['STRIPE_KEY']\nprint(stripe.Customer.list(limit=3))"),
    python_c("import os\nheaders = {'Authorization': os.environ['API_TOKEN']}\nheaders.update({'Accept': 'x'})\n"
            "print(headers.keys())"),
    python_c("from collections import Counter\nc = Counter()\nc.update(['a'])\nprint(c)"),
    "dbt run --target dev --select stg_orders",
    "dbt build",
    "dbt run-operation generate_source --args '{schema_name: raw}'",
    "psql \"$DEV_URL\" -c \"\\copy (SELECT id FROM orders WHERE id > 9) TO 'o.csv' CSV\"",
    "gsutil -m rsync -n -r dags gs://composer-dev/dags",
    "ldcli flags list --project web",
    "ldcli flags get --project web --flag checkout-v2",
]

test_each_class_is_flagged, test_the_look_alikes_stay_clean = class_tests(FLAGGED, LOOK_ALIKES)
