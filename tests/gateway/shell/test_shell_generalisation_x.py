"""Classes a twenty-seventh unseen corpus (a consumer IoT company's firmware and cloud team) found open
(docs/security.md#measuring-generalisation), closed as classes: disk images written onto a named block device,
messages published to a remote MQTT broker, a cloud SDK's changing operations, a login shell opened by a
launcher's shell subcommand, one-way eFuse burns; and three wrong blocks: a development board's programmers flash
and erase it, a build tool's option that deletes its own outputs, a CA certificate named in camel case. Every case
is a variant written for its class; look-alikes stay clean. (CMake deleting under the environment's directories:
tests/gateway/test_written_programs.py.)"""

from __future__ import annotations

from gateway.shell import categories as cat
from tests.gateway.shell.shell_helpers import class_tests, python_c

FLAGGED = {
    # A disk image written onto a block device by an imaging tool, or by any tool told to copy or flash it there.
    "sudo bmaptool copy --nobmap out/gw-image.wic.xz /dev/sdc": cat.DISK_WRITE,
    "sudo ddrescue recovered.img /dev/mmcblk0 --force": cat.DISK_WRITE,
    "imgflash write build/rootfs.ext4 /dev/nvme1n1": cat.DISK_WRITE,
    # A message published to a broker off this machine.
    "mosquitto_pub -h broker.eu.fleet.example -t 'devices/+/cmd' -m reboot": cat.DATABASE_CHANGE,
    "mqttx pub -h mqtt.fleet.example -p 8883 -t ota/rollout -m '{\"pct\": 100}'": cat.DATABASE_CHANGE,
    "mosquitto_pub -L mqtts://ops@mqtt.fleet.example:8883/cmd/all -m wipe": cat.DATABASE_CHANGE,
    # A cloud SDK's changing operations (it holds the machine's credentials without naming them).
    python_c("import boto3\nboto3.client('iot').attach_policy(policyName='FleetAdmin', target=arn)"):
        cat.INFRA_CHANGE,
    python_c("import boto3\nboto3.client('ec2').stop_instances(InstanceIds=['i-1'])"): cat.INFRA_CHANGE,
    python_c("from google.cloud import storage\nstorage.Client().bucket('fw').blob('x').delete_blob()"):
        cat.INFRA_DESTROY,
    # A launcher's shell subcommand with no command is a login shell there.
    "adb -s emulator-5554 shell": cat.DYNAMIC_COMMAND,
    # One-way eFuse burns.
    "espefuse.py -p /dev/ttyACM0 burn_efuse JTAG_DISABLE 1": cat.INFRA_DESTROY,
    "idf.py efuse-burn FLASH_CRYPT_CNT 1": cat.INFRA_DESTROY,
}

LOOK_ALIKES = [
    "bmaptool create -o out/gw.bmap out/gw-image.wic",
    "smartctl -a /dev/nvme0n1",
    "sudo fdisk -l /dev/sdc",
    "mosquitto_pub -t test/ping -m hi",
    "mosquitto_pub -h 127.0.0.1 -p 1884 -t sim/telemetry -f sample.json",
    "mosquitto_sub -h broker.eu.fleet.example -t 'devices/+/state' -C 10 -W 30",
    python_c("import boto3\nprint(boto3.client('iot').describe_thing(thingName='hub-17'))"),
    python_c("import boto3\nfor t in boto3.client('iot').list_things()['things']:\n    print(t['thingName'])"),
    "adb -s emulator-5554 shell getprop ro.build.version.release",
    "adb logcat -d -s AcmeHub",
    "espefuse.py -p /dev/ttyACM0 summary",
    "west flash -d build/hub --erase",
    "esptool.py --chip esp32s3 -p /dev/ttyUSB0 erase_flash",
    "idf.py -p /dev/ttyUSB0 erase-flash flash monitor",
    "probe-rs erase --chip nRF5340_xxAA_APP",
    "dart run build_runner build --delete-conflicting-outputs",
    "openssl x509 -in certs/AmazonRootCA1.pem -noout -enddate",
    "cat certs/DigiCertGlobalRootG2.pem",
]

test_each_class_is_flagged, test_the_look_alikes_stay_clean = class_tests(FLAGGED, LOOK_ALIKES)
