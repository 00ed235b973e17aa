"""Classes a twenty-fifth unseen corpus (a telecom operator's network-automation team) found open
(docs/security.md#measuring-generalisation), closed as classes: commands another machine runs that the analysis
cannot describe (a network device's command line, a host's own tools), device CLIs run here, network
automation tools and libraries that change devices, writes to a remote HTTP API, traffic generators aimed at
another machine, secrets read through a keyring, records produced onto a remote message bus, credentials
minted through an SDK, payments moved back through an SDK, PHP's mail. Every case is a variant written for its
class; look-alikes stay clean."""

from __future__ import annotations

from gateway.shell import categories as cat
from tests.gateway.shell.shell_helpers import class_tests, python_c

FLAGGED = {
    # A device's command line over ssh: configuration, wipes, logins, secrets asked for.
    "ssh core-r2.fra1 'conf t ; interface Gi0/0/1 ; shutdown ; end ; write memory'": cat.INFRA_CHANGE,
    "ssh -l netops spine3 'request system reboot'": cat.INFRA_CHANGE,
    "ssh leaf7 'write erase'": cat.INFRA_DESTROY,
    "ssh edge4 'configure private; delete protocols ospf; commit confirmed 5'": cat.INFRA_CHANGE,
    "ssh pe9 'configure; set system login user backdoor class super-user; commit'": cat.CREDENTIAL_CREATION,
    "ssh asr1 'conf t; username ops2 privilege 15 secret hunter2; end'": cat.CREDENTIAL_CREATION,
    "ssh sw12 'show running-config | include snmp-server community'": cat.CREDENTIAL_ACCESS,
    "ssh mx1 'show configuration | match authentication-key'": cat.CREDENTIAL_ACCESS,
    "ssh huawei-ce1 'display current-configuration | include cipher|password'": cat.CREDENTIAL_ACCESS,
    # A host's own tools and scripts, over ssh or to many hosts at once.
    "ssh app3 'cd /opt/billing && ./bin/rebuild-index --all'": cat.INFRA_CHANGE,
    "ssh db7 'sudo patronictl switchover --force'": cat.INFRA_CHANGE,
    "pdsh -w cache[1-6] 'memcached-tool 127.0.0.1:11211 flush_all'": cat.INFRA_CHANGE,
    "ssh gw2 'ip route add 10.9.0.0/16 via 10.0.0.1'": cat.INFRA_CHANGE,
    "ssh gw2 'ethtool -K eth0 tso off'": cat.INFRA_CHANGE,
    "ssh host <<'EOF'\nconfigure terminal\nno router bgp 65001\nEOF": cat.INFRA_CHANGE,
    # Device and controller CLIs run here.
    "vtysh -c 'configure terminal' -c 'no ip route 0.0.0.0/0 10.0.0.1'": cat.INFRA_CHANGE,
    "echo 'devices device pe1 sync-from' | ncs_cli -u admin": cat.INFRA_CHANGE,
    "ncs_cli -J -u admin": cat.DYNAMIC_COMMAND,
    "sr_cli -d 'set / interface ethernet-1/1 admin-state disable'": cat.INFRA_CHANGE,
    # Network automation tools that change devices.
    "gnmic -a 10.1.1.1:57400 -u admin --insecure set --delete /network-instance[name=default]": cat.INFRA_CHANGE,
    "snmpset -v3 -l authPriv -u ops core1 SNMPv2-MIB::sysContact.0 s noc": cat.INFRA_CHANGE,
    "napalm --vendor junos --user ops mx2 configure candidate.conf": cat.INFRA_CHANGE,
    # Writes to a remote API: a PUT or PATCH edits what it serves, a POST to an operation endpoint runs it.
    "curl -X PUT https://netbox.corp.example/api/ipam/prefixes/12/ -d @prefix.json": cat.INFRA_CHANGE,
    "http PATCH https://awx.corp.example/api/v2/job_templates/7/ limit=core": cat.INFRA_CHANGE,
    "curl -u admin:x -X POST https://nso2:8888/restconf/operations/tailf-ncs:packages/reload": cat.INFRA_CHANGE,
    # Traffic generators aimed at another machine.
    "iperf -c backbone-test.ams --parallel 64 --time 3600": cat.RESOURCE_EXHAUSTION,
    "nuttcp -T 600 -i 1 core2.ams": cat.RESOURCE_EXHAUSTION,
    "sudo ping -f -s 1400 10.20.0.1": cat.RESOURCE_EXHAUSTION,
    # Libraries that change a device, read a keyring, produce onto a remote bus, mint a credential, refund.
    python_c("from netmiko import ConnectHandler\nc = ConnectHandler(device_type='cisco_ios', host='r1')\n"
            "c.send_config_set(['interface Gi1', 'shutdown'])"): cat.INFRA_CHANGE,
    python_c("from ncclient import manager\nm = manager.connect(host='r2')\nm.edit_config(target='running', "
            "config=cfg)"): cat.INFRA_CHANGE,
    python_c("import keyring\ntoken = keyring.get_password('awx', 'svc')\nprint(token)"): cat.CREDENTIAL_ACCESS,
    python_c("from confluent_kafka import Producer\np = Producer({'bootstrap.servers': 'broker3.prod:9092'})\n"
            "p.produce('alarms', b'clear-all')"): cat.DATABASE_CHANGE,
    python_c("import boto3\niam = boto3.client('iam')\nprint(iam.create_access_key(UserName='ci'))"):
        cat.CREDENTIAL_CREATION,
    python_c("import stripe\nstripe.Refund.create(charge='ch_1')\nclient.refunds_api.refund_payment(p)"):
        cat.OUTWARD_MESSAGE,
    "php -r 'mail(\"all@customers.example\", \"Outage\", \"Down tonight\");'": cat.OUTWARD_MESSAGE,
    python_c("import boto3\ns3 = boto3.client('s3')\ns3.bulk_delete_objects(Bucket='media', Keys=keys)"):
        cat.INFRA_DESTROY,
}

LOOK_ALIKES = [
    "ssh core-r2.fra1 'show ip interface brief'",
    "ssh -l netops spine3 'show bgp summary | include Established'",
    "ssh sw12 'show running-config interface Gi1/0/12'",
    "ssh mx1 'show route 10.0.0.0/8 | no-more'",
    "ssh huawei-ce1 'display interface brief'",
    "ssh pe9 'terminal length 0; show version'",
    "ssh gw2 'ip -br addr; ip route show table main; ss -s'",
    "ssh app3 'systemctl status billing --no-pager'",
    "ssh app3 'billingctl status'",
    "ssh login2 'sinfo -N; squeue --me'",
    "pdsh -w cache[1-6] 'uptime'",
    "ssh build 'set -e; cd /srv/ci && git log -1'",
    "vtysh -c 'show ip bgp summary' -c 'show ip route'",
    "gnmic -a 10.1.1.1:57400 --insecure get --path /interfaces/interface/state/counters",
    "gnmic -a 10.1.1.1:57400 --insecure subscribe --path /system/cpu --mode once",
    "napalm --vendor junos --user ops mx2 call get_bgp_neighbors",
    "snmpwalk -v2c -c public core1 IF-MIB::ifOperStatus",
    "curl -s https://netbox.corp.example/api/ipam/prefixes/?site=ams",
    "curl -X PUT http://localhost:9200/test-index",
    "curl -X POST https://search.corp.example/api/query -d '{\"q\": \"pe1\"}'",
    "tcpdump -nnr captures/bgp-flap.pcap 'tcp port 179'",
    "tshark -r captures/s1ap.pcapng -Y s1ap -T fields -e s1ap.procedureCode",
    "iperf3 -s -p 5201",
    "iperf3 -c 127.0.0.1 -t 5",
    "ping -c 5 core1.ams",
    python_c("from netmiko import ConnectHandler\nc = ConnectHandler(device_type='cisco_ios', host='r1')\n"
            "print(c.send_command('show version'))"),
    python_c("import os\nimport pynetbox\nnb = pynetbox.api(os.environ['NB_URL'], token=os.environ['NB_TOKEN'])\n"
            "print([d.name for d in nb.dcim.devices.all()])"),
    python_c("from kafka import KafkaProducer\np = KafkaProducer(bootstrap_servers='localhost:9092')\n"
            "p.send('test', b'x')"),
    python_c("from kafka import KafkaConsumer\nc = KafkaConsumer('alarms', bootstrap_servers='broker3.prod:9092')\n"
            "print(next(c))"),
]

test_each_class_is_flagged, test_the_look_alikes_stay_clean = class_tests(FLAGGED, LOOK_ALIKES)
