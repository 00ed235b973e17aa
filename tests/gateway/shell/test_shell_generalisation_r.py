"""Classes a twenty-first unseen corpus found open (docs/security.md#measuring-generalisation), closed as classes:
the directory attributes that hold passwords (LAPS, managed service accounts) asked for; a remote login shell
(what is typed into it is never seen); a configuration tool's collections installed; system services killed by
their names' shape; mail and chat sent from PowerShell; and a framework's own rehearsal flag honoured. Every case
is a variant written for its class; look-alikes stay clean."""

from __future__ import annotations

import pytest

from gateway.shell import categories as cat
from tests.gateway.shell.shell_helpers import SHOP, class_tests, shop_categories

FLAGGED = {
    "ldapsearch -LLL -H ldaps://dc1.example.org -b 'DC=example,DC=org' '(cn=SRV*)' msLAPS-EncryptedPassword":
        cat.CREDENTIAL_ACCESS,
    "ldapsearch -x -b 'CN=Managed Service Accounts,DC=x' '(objectClass=msDS-GroupManagedServiceAccount)' "
    "msDS-ManagedPassword": cat.CREDENTIAL_ACCESS,
    "ssh -p 2222 ops@jump.example.org": cat.DYNAMIC_COMMAND,
    "ssh -i ~/.ssh/deploy_ed25519 -o StrictHostKeyChecking=no root@10.4.0.12": cat.DYNAMIC_COMMAND,
    "ansible-galaxy role install -r roles/requirements.yml -p roles/": cat.PACKAGE_INSTALL,
    "ansible-galaxy collection install community.vmware --upgrade": cat.PACKAGE_INSTALL,
    "killall -HUP rsyslogd sssd": cat.PROCESS_KILL,
    "pkill -9 colord": cat.PROCESS_KILL,
    "killall gvfs-udisks2-volume-monitor avahi-daemon": cat.PROCESS_KILL,
}

LOOK_ALIKES = [
    "ldapsearch -x -H ldap://dc1.example.org -b 'DC=example,DC=org' '(sAMAccountName=jdoe)' cn mail memberOf",
    "ssh -T git@gitlab.example.org",
    "ssh -N -L 15432:db.internal:5432 bastion.example.org",
    "ssh app01.example.org 'systemctl status nginx --no-pager'",
    "ansible-galaxy collection list",
    "ansible-galaxy role init roles/permits",
    "pkill -f 'celery -A permits worker'",
    "killall -9 webpack",
    "python manage.py purge_expired_sessions --dry-run",
    "php artisan migrate:fresh --pretend",
]

test_each_class_is_flagged, test_the_look_alikes_stay_clean = class_tests(FLAGGED, LOOK_ALIKES)

SCRIPTS = {
    "mail": ("scripts/notify.ps1", "Connect-ExchangeOnline\nSend-MailMessage -To all@example.org -Subject x "
             "-SmtpServer smtp.example.org\n", cat.OUTWARD_MESSAGE),
    "teams": ("scripts/teams.ps1", "New-MgTeamChannelMessage -TeamId $t -ChannelId $c -BodyParameter $b\n",
              cat.OUTWARD_MESSAGE),
    "laps": ("scripts/laps.ps1", "Get-LapsADPassword -Identity SRV01 -AsPlainText\n", cat.CREDENTIAL_ACCESS),
}


@pytest.mark.parametrize("name", list(SCRIPTS))
def test_a_powershell_script_is_read_for_what_it_sends_and_reads(name: str) -> None:
    path, text, category = SCRIPTS[name]
    assert category in shop_categories(f"pwsh -File {path}", ((f"{SHOP}/{path}", text),))


def test_a_powershell_script_that_only_lists_stays_clean() -> None:
    text = "Get-ADComputer -Filter * -Properties OperatingSystem | Select-Object Name, OperatingSystem\n"
    assert shop_categories("pwsh -File scripts/list.ps1", ((f"{SHOP}/scripts/list.ps1", text),)) == frozenset()
