"""Classes a twenty-fourth unseen corpus (a game studio's build and live-ops team) found open
(docs/security.md#measuring-generalisation), closed as classes: a Windows program named with `.exe`; daemons with
short names; Windows package managers; files named for credentials in short; Perforce's global format option and
its previews; a dry run of an itch.io push. (Files a shell command writes out in full are judged by their content:
tests/gateway/test_written_programs.py.) Every case is a variant written for its class; look-alikes stay clean."""

from __future__ import annotations

from gateway.shell import categories as cat
from tests.gateway.shell.shell_helpers import class_tests

FLAGGED = {
    # The same program under its Windows file name: its table and its judges apply.
    'sqlcmd.EXE -S players-sql -d Live -Q "TRUNCATE TABLE dbo.Inventory"': cat.DATABASE_DESTROY,
    "git.exe push --force origin main": cat.GIT_PUSH,
    # A daemon by its short Unix name.
    "pkill -9 p4d": cat.PROCESS_KILL,
    # Windows' package managers.
    "choco upgrade unreal-engine-prereqs -y": cat.PACKAGE_INSTALL,
    "winget install --id Valve.Steam --silent": cat.PACKAGE_INSTALL,
    "scoop install steamcmd": cat.PACKAGE_INSTALL,
    # A file named for the credentials it holds, in short.
    "cat ~/.config/epic/legendary_creds.json": cat.CREDENTIAL_ACCESS,
    "cp deploy/steam_creds /tmp/x": cat.CREDENTIAL_ACCESS,
}

LOOK_ALIKES = [
    "sqlcmd.exe -S players-sql -d Live -Q \"SELECT TOP 10 * FROM dbo.Inventory\"",
    "pkill -f 'UnrealEditor -run=cook'",
    "choco list --local-only",
    "winget search steam",
    "cat Source/Online/CredsPanel.cpp",
    "p4 -ztag -F '%change% %user%' changes -m 20 //depot/Game/...",
    "p4 revert -n //game_ws/Config/...",
    "p4 reconcile -n //game_ws/Content/...",
    "butler push Saved/StagedBuilds/Windows studio/game:windows-beta --dry-run",
]

test_each_class_is_flagged, test_the_look_alikes_stay_clean = class_tests(FLAGGED, LOOK_ALIKES)
