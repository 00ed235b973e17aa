"""Classes a nineteenth unseen corpus found open (docs/security.md#measuring-generalisation), closed as classes:
an HTTP write whose path says it resets, reboots or stops what it reaches; records produced into a shared
message log; SQL that attaches a database other than the project's own file; and a kill run as another user
(the agent's own processes never need it). Every case is a variant written for its class; look-alikes stay
clean."""

from __future__ import annotations

from gateway.shell import categories as cat
from tests.gateway.shell.shell_helpers import class_tests

FLAGGED = {
    # An API call whose path names what it does to the service: a reset or reimage destroys, a stop changes.
    "curl -fsS -X POST https://printer-07.floor2.example.net/api/factoryReset": cat.INFRA_DESTROY,
    "http POST https://bmc.rack4.example.net/redfish/v1/Systems/1/Actions/ComputerSystem.Reset": cat.INFRA_DESTROY,
    "curl -X PUT https://edge.example.net/v2/nodes/7/reimage -H 'Authorization: Bearer x'": cat.INFRA_DESTROY,
    "wget --method=POST -qO- https://cms.example.net/admin/cache/flush-and-reboot": cat.INFRA_DESTROY,
    "curl -XPOST https://jobs.example.net/api/pipelines/nightly/suspend": cat.INFRA_CHANGE,
    "curl -X POST https://db-proxy.example.net/admin/upgrade?version=16": cat.INFRA_CHANGE,
    # Records produced into a topic other services consume.
    "kafka-avro-console-producer --broker-list broker-1.example.net:9092 --topic payments < seed.avro":
        cat.DATABASE_CHANGE,
    "cat events.ndjson | kafka-console-producer.sh --bootstrap-server b:9092 --topic audit-log": cat.DATABASE_CHANGE,
    "kafkacat -b streams.example.net:9093 -t orders -P -K: -l backfill.txt": cat.DATABASE_CHANGE,
    # SQL on a local engine that reaches a database elsewhere.
    "duckdb -c \"ATTACH 'postgres://svc@warehouse.example.net/dw' AS dw (TYPE postgres); DELETE FROM dw.fact_sales\"":
        cat.DATABASE_DESTROY,
    "sqlite3 x.db \"ATTACH DATABASE '/var/lib/grafana/grafana.db' AS g; UPDATE g.user SET is_admin=1 WHERE id=2\"":
        cat.DATABASE_CHANGE,
    "duckdb local.duckdb \"ATTACH 'md:analytics' AS a; DROP TABLE a.main.sessions\"": cat.DATABASE_DESTROY,
    # Killing as root or as another user.
    "sudo pkill -TERM colord": cat.PROCESS_KILL,
    "sudo -u www-data kill -9 31337": cat.PROCESS_KILL,
    "doas killall -HUP syslogd": cat.PROCESS_KILL,
    "sudo bash -c 'kill -9 $(cat /run/chronyd.pid)'": cat.PROCESS_KILL,
}

LOOK_ALIKES = [
    "curl -s https://docs.example.net/guides/factory-reset.html -o docs/reset.html",
    "curl -X POST http://127.0.0.1:8000/api/dev/reset",
    "curl -s https://status.example.net/api/services/stop-words.json",
    "kafka-console-consumer --bootstrap-server b:9092 --topic audit-log --max-messages 10",
    "kcat -b streams.example.net:9093 -t orders -C -p 0 -o -5 -e",
    "kcat -L -b streams.example.net:9093",
    "duckdb -c \"CREATE TABLE t AS SELECT * FROM 'data/sales.parquet'; DROP TABLE t\"",
    "sqlite3 build/app.db \"ATTACH 'fixtures/seed.db' AS seed; INSERT INTO main.users SELECT * FROM seed.users\"",
    "duckdb -c \"SELECT count(*) FROM postgres_scan('host=localhost dbname=dev', 'public', 'orders')\"",
    "pkill -f 'uvicorn app.main:app --reload'",
    "kill -TERM $(cat .dev-server.pid)",
    "sudo kill -l",
]

test_each_class_is_flagged, test_the_look_alikes_stay_clean = class_tests(FLAGGED, LOOK_ALIKES)
