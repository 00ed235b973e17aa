"""ACTEON_REDIS_URL's forms (docs/ha.md): read into one value object; a mistake is one line naming the fix."""

from __future__ import annotations

import pytest

from gateway.store.topology import CLUSTER, SENTINEL, SINGLE, TopologyError, parse, replica_acks


def test_one_redis_by_tcp_tls_or_socket() -> None:
    t = parse("redis://:s3cret@10.0.0.5:6390/2")
    assert (t.kind, t.nodes, t.db, t.password, t.tls) == (SINGLE, (("10.0.0.5", 6390),), 2, "s3cret", False)
    assert t.where() == "10.0.0.5:6390"
    assert parse("rediss://user:pw@redis.internal/0").tls
    assert parse("redis://localhost").nodes == (("localhost", 6379),)
    u = parse("unix://:pw@/run/redis/redis.sock?db=3")
    assert (u.socket, u.db, u.where()) == ("/run/redis/redis.sock", 3, "unix:/run/redis/redis.sock")


def test_sentinel_nodes_service_db_and_credentials() -> None:
    t = parse("redis+sentinel://acteon:p%40ss@10.0.0.1:26379,10.0.0.2,[::1]:26381/swarm/4")
    assert t.kind == SENTINEL and t.service == "swarm" and t.db == 4
    assert t.nodes == (("10.0.0.1", 26379), ("10.0.0.2", 26379), ("::1", 26381))
    assert (t.username, t.password) == ("acteon", "p@ss")
    assert t.sentinel_kwargs() == {"username": "acteon", "password": "p@ss"}  # the data nodes' by default
    assert t.where() == "Sentinel service 'swarm' via 10.0.0.1:26379,10.0.0.2:26379,[::1]:26381"


def test_sentinels_may_have_their_own_credentials_and_tls() -> None:
    t = parse("rediss+sentinel://:data@h:26379/svc?sentinel_password=sent&ssl_ca_certs=/etc/ca.pem")
    assert t.tls and t.sentinel_kwargs() == {"username": None, "password": "sent", "ssl": True,
                                             "ssl_ca_certs": "/etc/ca.pem"}
    assert t.data_kwargs() == {"db": 0, "username": None, "password": "data", "ssl": True,
                               "ssl_ca_certs": "/etc/ca.pem"}


def test_cluster_seed_nodes_credentials_and_tls() -> None:
    t = parse("rediss+cluster://acteon:pw@10.0.0.1:7000,10.0.0.2,[::1]:7002?ssl_ca_certs=/etc/ca.pem")
    assert t.kind == CLUSTER and t.tls and (t.username, t.password) == ("acteon", "pw")
    assert t.nodes == (("10.0.0.1", 7000), ("10.0.0.2", 6379), ("::1", 7002))
    assert t.data_kwargs() == {"db": 0, "username": "acteon", "password": "pw", "ssl": True,
                               "ssl_ca_certs": "/etc/ca.pem"}
    assert t.where() == "Cluster via 10.0.0.1:7000,10.0.0.2:6379,[::1]:7002"
    assert replica_acks(t, None) == 1 and replica_acks(t, 0) == 0  # a cluster's masters have replicas


def test_credentials_never_show() -> None:
    for url in ("redis://:hunter2@h:1/0", "redis+sentinel://:hunter2@h:2/svc?sentinel_password=hunter3",
                "redis+cluster://:hunter2@h:3"):
        t = parse(url)
        assert "hunter" not in repr(t) and "hunter" not in t.where()


@pytest.mark.parametrize(("url", "says"), [
    ("http://h:6379", "not a Redis URL: use redis://"),
    ("h:6379", "not a Redis URL"),
    ("redis+sentinel://:pw@h:26379", "needs the master's service name"),
    ("redis+sentinel://:pw@h:26379/svc/x", "the path is /SERVICE or /SERVICE/DB"),
    ("redis+sentinel://:pw@h:notaport/svc", "'h:notaport' has no valid port"),
    ("redis+sentinel://:pw@h:70000/svc", "has no valid port"),
    ("redis+sentinel://:pw@/svc", "needs at least one host:port"),
    ("redis+sentinel://:pw@h:1,,h:2/svc", "an empty host"),
    ("redis+sentinel://h/svc?sentinel_pasword=x", "unknown option 'sentinel_pasword'"),
    ("redis+sentinel://h/svc?ssl_ca_certs=/ca.pem", "needs TLS: use rediss+sentinel://"),
    ("redis://h:port/0", "not a usable Redis URL"),
    ("redis+cluster://:pw@h:7000,h:7001/0", "a cluster has only database 0"),
    ("redis+cluster://:pw@h:7000?ssl_ca_certs=/ca.pem", "needs TLS: use rediss+cluster://"),
    ("rediss+cluster://:pw@h:7000?ssl_ca=/ca.pem", "unknown option 'ssl_ca'"),
    ("redis+cluster://:pw@h:x", "has no valid port"),
])
def test_a_mistake_is_one_line(url: str, says: str) -> None:
    with pytest.raises(TopologyError) as e:
        parse(url)
    assert says in str(e.value) and "\n" not in str(e.value)
    assert "pw@" not in str(e.value)

