"""Files that make something run later on its own (docs/rules.md `persistence`).

A write to one of these is not ordinary work even when it is harmless today: a git hook runs on the
user's next commit, an rc file on their next shell, a unit or a crontab on the next boot or minute.
Paths are resolved and lexical; ``home`` is the agent's home.
"""

from __future__ import annotations

import posixpath
import re

from gateway.credentials import STARTUP_FILES

_HOME_FILES = STARTUP_FILES | frozenset({
    # other shells
    ".cshrc", ".tcshrc", ".kshrc", ".mkshrc", ".config/fish/config.fish",
    # tools that run commands from their configuration
    ".gitconfig", ".config/git/config", ".ssh/config", ".ssh/rc", ".vimrc", ".exrc", ".config/nvim/init.vim",
    ".config/nvim/init.lua", ".emacs", ".emacs.d/init.el", ".tmux.conf", ".config/tmux/tmux.conf", ".screenrc",
    ".pythonrc", ".pythonrc.py", ".npmrc", ".yarnrc", ".direnvrc", ".config/direnv/direnvrc", ".xinitrc",
    ".xprofile", ".xsessionrc", ".xsession", ".inputrc", ".wgetrc", ".curlrc", ".lesskey", ".mailcap", ".lessfilter",
    ".bash_aliases", ".bash_functions", ".config/procps/toprc", ".toprc", ".rtorrent.rc", ".gdbinit",
    ".config/gdb/gdbinit", ".muttrc", ".config/htop/htoprc", ".mc/ini", ".config/mc/ini", ".config/ranger/rc.conf",
    # interpreters' and clients' start-up files, package managers' configuration (a script shell, preloads)
    ".irbrc", ".pryrc", ".psqlrc", ".myclirc", ".sqliterc", ".node_repl.js", ".Rprofile", ".julia/config/startup.jl",
    ".ipython/profile_default/ipython_config.py", ".config/ipython/profile_default/ipython_config.py",
    ".pdbrc", ".pdbrc.py", ".perldb", ".gemrc", ".bundle/config", ".yarnrc.yml", ".config/pip/pip.conf",
    ".pip/pip.conf",
    ".pydistutils.cfg", ".condarc", ".cargo/config.toml", ".cargo/config", ".m2/settings.xml", ".gradle/init.gradle",
    ".gradle/gradle.properties", ".docker/config.json", ".config/git/attributes", ".gitattributes", ".mavenrc",
    ".mvn/jvm.config", ".config/pip/pip.ini", ".iex.exs", ".erlang", ".config/erlang/.erlang", ".ghci",
    ".ghc/ghci.conf", ".sbtrc", ".config/jshell/startup.jsh", ".lein/profiles.clj", ".clojure/deps.edn",
    "Documents/MATLAB/startup.m", "ado/personal/profile.do", ".stata/profile.do",
})
_HOME_DIRS = (".config/systemd/user", ".config/autostart", "Library/LaunchAgents", ".config/fish/conf.d",
              ".local/share/systemd/user", ".config/upstart", ".kde/Autostart", ".config/plasma-workspace/env",
              ".ipython/profile_default/startup", ".gradle/init.d", ".config/zsh", ".oh-my-zsh/custom", ".zsh/",
              # Jupyter's configuration (`c.ServerApp.…` is Python run at every start) and kernel specs (argv)
              ".jupyter", ".local/share/jupyter/kernels", ".ipython", ".sbt/1.0/plugins", ".sbt/1.0/global.sbt",
              # PowerShell's profiles (every pwsh start), on Linux and in a Windows home
              ".config/powershell", "Documents/PowerShell", "Documents/WindowsPowerShell")
_SYSTEM_PREFIXES = ("/etc/cron", "/var/spool/cron", "/etc/anacrontab", "/etc/systemd", "/lib/systemd",
                    "/usr/lib/systemd", "/etc/init.d", "/etc/rc.local", "/etc/rc", "/etc/profile",
                    "/etc/bash.bashrc", "/etc/zsh", "/etc/environment", "/etc/ld.so.preload", "/etc/xdg/autostart",
                    "/Library/LaunchAgents", "/Library/LaunchDaemons", "/etc/update-motd.d", "/etc/sudoers")
_ANYWHERE = re.compile(r"(?:^|/)\.git/(?:hooks/|config$)|(?:^|/)(?:sitecustomize|usercustomize)\.py$"
                       r"|/site-packages/[^/]+\.pth$|(?:^|/)\.husky/"
                       # a conda environment's activation hooks run in every shell that activates it
                       r"|/etc/conda/(?:de)?activate\.d/")


def is_persistence_path(path: str, home: str) -> bool:
    if _ANYWHERE.search(path):
        return True
    if any(path == p or path.startswith(p) for p in _SYSTEM_PREFIXES):
        return True
    if home and home != "/" and path.startswith(home.rstrip("/") + "/"):
        rel = path[len(home.rstrip("/")) + 1:]
        if rel in _HOME_FILES:
            return True
        return any(rel == d or rel.startswith(d + "/") for d in _HOME_DIRS)
    return posixpath.basename(path) in (".bashrc", ".zshrc", ".profile", ".bash_profile")
