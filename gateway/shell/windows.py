"""Windows administration from an agent's shell (WSL, Git Bash, MSYS): scheduled tasks, the registry, services,
`cmd /c`, WMI, users and shadow copies.

An agent on a Windows machine reaches the same effects as on Linux through other programs: `schtasks /create`
and a `…\\CurrentVersion\\Run` registry value start a program at every logon (``persistence``, as cron and
systemd units are), `sc create` installs a service, `reg save HKLM\\SAM` copies the password hashes
(``credential_access``), `net user X P /add` creates an account (``credential_creation``), `vssadmin delete
shadows` destroys the backups, `cmd /c CMD` and `wmic process call create CMD` run CMD. Options are spelled
`/x` or `-x`, in any case. A program called with its `.exe` suffix is the same program (``commands.py``).
"""

from __future__ import annotations

import re

from gateway.shell import categories as cat
from gateway.shell.flow import OPAQUE, Flow
from gateway.shell.generic import noting
from gateway.shell.invocation import Invocation
from gateway.shell.words import Word

# Registry keys whose values Windows runs by itself: at logon, for every program started, as a service.
_AUTORUN_KEYS = re.compile(r"\\(?:Run|RunOnce|RunServices|RunOnceEx|Winlogon|Image File Execution Options|"
                           r"Services|Policies\\Explorer\\Run|Shell Folders|User Shell Folders|AppInit_DLLs|"
                           r"Environment|Command Processor|Active Setup)\b", re.I)
_HIVES_WITH_SECRETS = re.compile(r"^(?:HKLM|HKEY_LOCAL_MACHINE)[\\/]?(?:SAM|SYSTEM|SECURITY)\b", re.I)


def _switches(call: Invocation) -> list[str]:
    return [w.value.lower() for w in call.args if w.value.startswith(("/", "-")) and len(w.value) > 1]


def _value_of(call: Invocation, *names: str) -> Word | None:
    for i, word in enumerate(call.args[:-1]):
        if word.value.lower() in names:
            return call.args[i + 1]
    return None


def _verb(call: Invocation) -> str:
    for word in call.args:
        if not word.value.startswith(("/", "-")):
            return word.value.lower()
    return ""


def schtasks(call: Invocation) -> Flow:
    switches = _switches(call)
    if {"/create", "-create", "/change", "-change"} & set(switches):
        call.flag(cat.PERSISTENCE)  # runs on a schedule, on its own
        task = _value_of(call, "/tr", "-tr")
        if task is not None:
            call.run_script(_unix_line(task.value))
    elif {"/delete", "-delete", "/run", "-run", "/end", "-end"} & set(switches):
        call.flag(cat.SYSTEM_CONFIG)
    return OPAQUE


def reg(call: Invocation) -> Flow:
    verb = _verb(call)
    keys = [w.value for w in call.args[1:] if not w.value.startswith(("/", "-"))]
    key = keys[0] if keys else ""
    if verb in ("add", "import", "copy", "restore", "load"):
        call.flag(cat.PERSISTENCE if verb in ("import", "restore", "load") or _AUTORUN_KEYS.search(key)
                  else cat.SYSTEM_CONFIG)
    elif verb in ("delete", "unload"):
        call.flag(cat.SYSTEM_CONFIG)
    elif verb in ("save", "export") and _HIVES_WITH_SECRETS.match(key):
        call.flag(cat.CREDENTIAL_ACCESS)  # the password hashes and the keys that decrypt them
    return OPAQUE


def sc(call: Invocation) -> Flow:
    verb = _verb(call)
    if verb in ("create", "config", "failure", "sdset"):
        call.flag(cat.PERSISTENCE)  # a service: runs at boot, as SYSTEM
    elif verb in ("delete", "stop", "start", "pause", "control"):
        call.flag(cat.SYSTEM_CONFIG)
    return OPAQUE


def net(call: Invocation) -> Flow:
    words = [w.value.lower() for w in call.args]
    if words[:1] in (["user"], ["users"]) and ("/add" in words or "/active:yes" in words or len(words) >= 3):
        call.flag(cat.CREDENTIAL_CREATION)  # `net user x P@ss /add`, or a new password for an account
    elif (words[:1] in (["localgroup"], ["group"]) and ("/add" in words or "/delete" in words)) or (
            words[:1] in (["stop"], ["start"], ["share"]) and len(words) > 1):
        call.flag(cat.SYSTEM_CONFIG)  # group membership, services, shares
    return OPAQUE


def vssadmin(call: Invocation) -> Flow:
    if _verb(call) in ("delete", "resize"):
        call.flag(cat.INFRA_DESTROY)  # the machine's restore points: what undoes a disaster
    return OPAQUE


def wmic(call: Invocation) -> Flow:
    words = [w.value.lower() for w in call.args]
    if "call" in words and "create" in words:
        index = words.index("create")
        if index + 1 < len(call.args):
            call.run_script(_unix_line(call.args[index + 1].value))  # `wmic process call create "CMD"`
    elif "shadowcopy" in words and "delete" in words:
        call.flag(cat.INFRA_DESTROY)
    elif "delete" in words:
        call.flag(cat.SYSTEM_CONFIG)
    return OPAQUE


def cmd(call: Invocation) -> Flow:
    """`cmd /c CMD` / `cmd /k CMD`: the rest of the line is the command."""
    for i, word in enumerate(call.args):
        if word.value.lower() in ("/c", "/k", "/r"):
            rest = " ".join(w.value for w in call.args[i + 1:])
            if rest:
                call.run_script(_unix_line(rest))
            return OPAQUE
    call.flag(cat.DYNAMIC_COMMAND)  # an interactive command prompt
    return OPAQUE


_PROFILE = re.compile(r"%USERPROFILE%|%HOMEPATH%|%HOME%|\$env:(?:USERPROFILE|HOME)\b|\$HOME(?=[\\/])", re.I)
_DRIVE = re.compile(r"\b([A-Za-z]):[\\/]")
_CMD_REMOVE = re.compile(r"^\s*(?:rd|rmdir|del|erase)\s+((?:/\w\s+)*)(.+)$", re.I)


def posix_view(text: str) -> str:
    """Windows paths as the shell analysis reads them: the user's profile is the home (`%USERPROFILE%`,
    `$env:USERPROFILE`), a drive is where WSL mounts it (`C:\\x` → `/mnt/c/x`), and such a path's backslashes
    are separators. Used for cmd lines here and for PowerShell text (``program_text``)."""
    text = _DRIVE.sub(lambda m: f"/mnt/{m.group(1).lower()}/", _PROFILE.sub("~", text))
    return text.replace("\\", "/") if text.startswith(("~", "/")) or "/mnt/" in text or "~" in text else text


def _unix_line(line: str) -> str:
    """A cmd line as the shell analysis reads it (:func:`posix_view`), `rd /s /q X` and `del /s /q X` as
    `rm -rf X`."""
    line = posix_view(line)
    removal = _CMD_REMOVE.match(line)
    if removal is not None:
        target = removal.group(2).strip().strip('"').replace("\\", "/")
        recursive = "/s" in removal.group(1).lower()
        return f"rm {'-rf' if recursive else '-f'} '{target}'"
    return line


HANDLERS = {name: noting(handler) for name, handler in {
    "schtasks": schtasks, "reg": reg, "sc": sc, "net": net, "vssadmin": vssadmin, "wmic": wmic, "cmd": cmd,
}.items()}
