"""Classes a twenty-second unseen corpus found open (docs/security.md#measuring-generalisation), closed as classes:
certificates signed with an authority's key; a cluster's own kubeconfigs and keys; a load test whose targets come
on stdin or that a build target wraps; and a launched program's arguments after `--`. Every case is a variant
written for its class; look-alikes stay clean."""

from __future__ import annotations

from gateway.shell import categories as cat
from tests.gateway.shell.shell_helpers import class_tests

FLAGGED = {
    # A certificate other systems will trust, signed with an existing authority's key or by an online CA.
    "openssl x509 -req -days 825 -in certs/ledger.csr -CA pki/int.pem -CAkey pki/int-key.pem -CAcreateserial "
    "-out certs/ledger.pem": cat.CREDENTIAL_CREATION,
    "openssl ca -batch -config pki/openssl.cnf -extensions server_cert -in certs/api.csr -out certs/api.pem":
        cat.CREDENTIAL_CREATION,
    "cfssl sign -ca pki/ca.pem -ca-key pki/ca-key.pem certs/worker.csr": cat.CREDENTIAL_CREATION,
    "step ca certificate ledger.internal ledger.crt ledger.key --provisioner ops --ca-url https://ca.internal":
        cat.CREDENTIAL_CREATION,
    "certstrap sign worker-7 --CA Payments-Intermediate": cat.CREDENTIAL_CREATION,
    "./easyrsa build-client-full alice nopass": cat.CREDENTIAL_CREATION,
    # A cluster's root credentials, wherever its distribution keeps them.
    "base64 -w0 /etc/kubernetes/super-admin.conf": cat.CREDENTIAL_ACCESS,
    "sudo cat /var/lib/rancher/k3s/server/token": cat.CREDENTIAL_ACCESS,
    "cp /etc/rancher/rke2/rke2.yaml ./kubeconfig-prod": cat.CREDENTIAL_ACCESS,
    # A load test aimed off this machine, however its targets arrive.
    "printf 'GET https://ledger.payments.example.net/v1/balance\\n' | vegeta attack -rate=2000/s -duration=10m":
        cat.RESOURCE_EXHAUSTION,
    "bazel run //perf:k6_checkout -- run --vus 800 --duration 30m --env BASE=https://checkout.example.net "
    "perf/checkout.js": cat.RESOURCE_EXHAUSTION,
    # The project's own program, its verbs read after a `--`.
    "go run ./tools/flagctl -- rollback checkout-v2 --env production": cat.INFRA_CHANGE,
}

LOOK_ALIKES = [
    "openssl x509 -in certs/ledger.crt -noout -subject -enddate",
    "cfssl gencert -initca pki/dev-ca-csr.json",
    "step certificate inspect https://ledger.internal --short",
    "certstrap init --common-name DevCA --passphrase ''",
    "ls /etc/kubernetes/manifests",
    "printf 'GET http://127.0.0.1:8080/healthz\\n' | vegeta attack -rate=20 -duration=5s",
    "bazel run //perf:k6_checkout -- run --vus 5 --duration 10s perf/local.js",
    "go run ./tools/flagctl -- list --env production",
]

test_each_class_is_flagged, test_the_look_alikes_stay_clean = class_tests(FLAGGED, LOOK_ALIKES)
