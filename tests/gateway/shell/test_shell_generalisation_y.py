"""Classes a twenty-eighth unseen corpus (an online-learning company's product engineering team) found open
(docs/security.md#measuring-generalisation), closed as classes: Ruby run against production data by its verbs,
a Rails database console by its SQL, local files written into a remote store with rclone, a dev server put on a
public tunnel, a credential collection named in the singular, Expo's dependency install, a service's resource
collection written through its client; and the wrong blocks: Rails' own tmp/ and log/ cleared. Every case is a
variant written for its class; look-alikes stay clean."""

from __future__ import annotations

from gateway.shell import categories as cat
from tests.gateway.shell.shell_helpers import class_tests, node_e, python_c

FLAGGED = {
    # Ruby run against production data, by what its code does.
    "bin/rails runner -e production 'Lesson.where(draft: true).destroy_all'": cat.DATABASE_DESTROY,
    "RAILS_ENV=production bin/rails r 'Course.find(9).update!(price_cents: 0)'": cat.DATABASE_CHANGE,
    "bin/rails runner --environment=production 'User.admins.each { |u| u.keys.create!(label: \"x\") }'":
        cat.CREDENTIAL_CREATION,
    "RAILS_ENV=production rails runner 'Learner.find_each { |l| DigestMailer.weekly(l).deliver_now }'":
        cat.OUTWARD_MESSAGE,
    # A database console given SQL is judged by it; given nothing, what is typed later is unknowable.
    "bin/rails dbconsole -p <<< 'TRUNCATE lessons;'": cat.DATABASE_DESTROY,
    "echo \"UPDATE users SET admin = true WHERE id = 4;\" | bin/rails db": cat.DATABASE_CHANGE,
    "bin/rails dbconsole -e production": cat.DYNAMIC_COMMAND,
    # Local files written into a remote store: a change of it, as `aws s3 cp` (was `rclone copy ./dist r2:static`
    # in test_shell_generalisation_h's look-alikes, while `aws s3 cp ./dist s3://static` was a change).
    "rclone copy tmp/learner-export.csv partner-sftp:/inbound/": cat.INFRA_CHANGE,
    "rclone copyto --progress exports/grades.xlsx dropbox:shared/grades.xlsx": cat.INFRA_CHANGE,
    "rclone copy ./dist r2:static": cat.INFRA_CHANGE,
    # A dev server on a public tunnel.
    "npx expo start --tunnel --port 8082": cat.NETWORK_LISTEN,
    # A credential collection named in the singular.
    "curl -X POST https://grafana.corp.example/api/serviceaccount -d '{\"name\": \"ci\"}'": cat.CREDENTIAL_CREATION,
    "http POST https://bi.corp.example/api/api-key name=sync": cat.CREDENTIAL_CREATION,
    # Expo's dependency install.
    "npx expo install expo-camera expo-file-system": cat.PACKAGE_INSTALL,
    # A service's resource collection written through its client.
    python_c("from cloudflare import Cloudflare\ncf = Cloudflare()\ncf.zones.dns_records.delete('r1', zone_id='z')"):
        cat.INFRA_DESTROY,
    node_e("const Mux = require('@mux/mux-node');\nconst mux = new Mux();\nmux.video.live_streams.update('ls1', {})"):
        cat.INFRA_CHANGE,
}

LOOK_ALIKES = [
    "bin/rails runner -e production 'puts Course.published.count'",
    "bin/rails runner 'Course.update_all(price_cents: 0)'",  # the developer's own database
    "bin/rails runner -e test 'Lesson.update_all(draft: false)'",
    "bin/rails dbconsole <<< 'SELECT id, title FROM courses LIMIT 5;'",
    "bin/rails tmp:clear log:clear",
    "bin/rails tmp:cache:clear",
    "rclone copy r2:course-assets/thumbs ./tmp/thumbs",
    "rclone sync --dry-run ./public/assets r2:static-staging",
    "rclone lsf partner-sftp:/inbound/",
    "npx expo start --lan",
    "curl -s https://grafana.corp.example/api/serviceaccounts/search",
    node_e("class Store { drop(k) { this.cache.entries.delete(k) } }\nnew Store().drop('a')"),
    python_c("from openai import OpenAI\nc = OpenAI()\nprint(c.chat.completions.create(model='m', messages=[]))"),
    python_c("from cloudflare import Cloudflare\ncf = Cloudflare()\nprint(cf.zones.dns_records.list(zone_id='z'))"),
]

test_each_class_is_flagged, test_the_look_alikes_stay_clean = class_tests(FLAGGED, LOOK_ALIKES)
