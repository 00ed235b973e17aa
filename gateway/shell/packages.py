"""Package managers: installing software is worth a human's approval (docs/rules.md)."""

from __future__ import annotations

from collections.abc import Callable

from gateway.shell import categories as cat
from gateway.shell.flow import OPAQUE, Flow
from gateway.shell.generic import default_handler, note_arguments
from gateway.shell.invocation import Handler, Invocation
from gateway.shell.options import Spec, scan, spec
from gateway.shell.words import Word

_PIP = spec("", ["--python", "--proxy", "--log", "--cache-dir", "--timeout", "--retries",
                 "--exists-action", "--trusted-host", "--cert", "--client-cert", "--use-feature"],
            stop=True)
_PIP_INSTALLS = frozenset({"install"})


def pip_arguments(call: Invocation, args: list[Word]) -> None:
    """`pip ARGS` / `python -m pip ARGS`."""
    operands = scan(args, _PIP).operands
    if operands and operands[0].value in _PIP_INSTALLS:
        call.flag(cat.PACKAGE_INSTALL)
        options = scan(operands[1:], spec("rcet", ["--requirement", "--constraint", "--editable",
                                                   "--target", "--index-url", "--extra-index-url"]))
        for word in options.values("-r", "--requirement", "-c", "--constraint"):
            call.read(word)
    note_arguments(call, operands[1:])


def pip(call: Invocation) -> Flow:
    pip_arguments(call, call.args)
    return OPAQUE


_CONDA_INSTALLS = frozenset({"install", "create", "update", "upgrade"})


def _subcommand_installer(option_spec: Spec, installs: frozenset[str], *, bare_installs: bool = False,
                          nested: dict[str, frozenset[str]] | None = None) -> Handler:
    """A package manager whose subcommand (or `group sub`) says whether it installs."""

    def handle(call: Invocation) -> Flow:
        operands = scan(call.args, option_spec).operands
        words = [w.value for w in operands if not w.value.startswith("-")]
        if not words:
            informational = any(w.value in ("-v", "-V", "--version", "-h", "--help") for w in call.args)
            if bare_installs and not informational:
                call.flag(cat.PACKAGE_INSTALL)  # a bare `yarn` installs the project's dependencies
            return OPAQUE
        first = words[0]
        nested_install = nested is not None and len(words) > 1 and words[1] in nested.get(first, ())
        if first in installs or nested_install:
            call.flag(cat.PACKAGE_INSTALL)
        note_arguments(call, operands[1:])
        return OPAQUE

    return handle


def _operands_install(call: Invocation) -> Flow:
    """cpanm, easy_install: every invocation installs."""
    if call.args:
        call.flag(cat.PACKAGE_INSTALL)
    return OPAQUE


def _flag_installs(is_install: Callable[[str], bool]) -> Handler:
    """A package tool whose option (not subcommand) says it installs (`dpkg -i`, `rpm -U`)."""

    def handle(call: Invocation) -> Flow:
        if any(is_install(w.value) for w in call.args):
            call.flag(cat.PACKAGE_INSTALL)
        return default_handler(call)  # `rpm --eval '%(cmd)'` runs a shell like any program handed one

    return handle


def pacman(call: Invocation) -> Flow:
    for word in call.args:
        text = word.value
        # -S / -Sy / -Syu / -U install; -Ss, -Si, -Sl, -Sg, -Sc, -Sp only query or clean.
        syncs = text.startswith("-S") and not any(c in text[2:] for c in "silgcp")
        if syncs or text.startswith("-U") or text in ("--sync", "--upgrade"):
            call.flag(cat.PACKAGE_INSTALL)
    return OPAQUE


_NPM_INSTALLS = frozenset({"install", "i", "in", "ins", "inst", "insta", "instal", "isnt", "isnta", "isntal",
                           "isntall", "add", "ci", "clean-install", "ic", "install-clean", "install-test",
                           "it", "install-ci-test", "cit"})

_SYSTEM_INSTALLS = frozenset({"install", "reinstall", "localinstall", "groupinstall", "in", "add", "build-dep"})

HANDLERS: dict[str, Handler] = {
    "npm": _subcommand_installer(spec("Cw", ["--prefix", "--registry", "--cache", "--userconfig",
                                              "--globalconfig", "--workspace", "--loglevel"]), _NPM_INSTALLS),
    "yarn": _subcommand_installer(spec("", ["--cwd", "--modules-folder", "--cache-folder", "--registry"]),
                                  frozenset({"add", "install"}), bare_installs=True,
                                  nested={"global": frozenset({"add"})}),
    "pnpm": _subcommand_installer(spec("CF", ["--dir", "--filter"]), frozenset({"add", "install", "i"})),
    "bun": _subcommand_installer(spec(), frozenset({"add", "install", "i", "a"})),
    "uv": _subcommand_installer(spec("", ["--directory", "--project", "--python", "--cache-dir"]),
                                frozenset({"add", "sync"}),
                                nested={"pip": frozenset({"install", "sync"}), "tool": frozenset({"install"})}),
    "poetry": _subcommand_installer(spec("C", ["--directory", "--project"]), frozenset({"add", "install", "update",
                                                                                         "sync"}),
                                    nested={"self": frozenset({"add", "install"})}),
    "pipx": _subcommand_installer(spec(), frozenset({"install", "inject"})),
    **dict.fromkeys(("pipenv", "pdm", "rye"), _subcommand_installer(spec("", ["--python", "--project", "-p"]),
                                                                    frozenset({"install", "add", "sync", "update"}))),
    **dict.fromkeys(("bundle", "bundler"), _subcommand_installer(spec("", ["--gemfile", "--path", "--jobs"]),
                                                                 frozenset({"install", "update", "add"}),
                                                                 bare_installs=True)),
    "apt": _subcommand_installer(spec("otc", ["--option", "--target-release", "--config-file"]),
                                 _SYSTEM_INSTALLS),
    "apt-get": _subcommand_installer(spec("otc", ["--option", "--target-release", "--config-file"]),
                                     _SYSTEM_INSTALLS),
    "aptitude": _subcommand_installer(spec("ot"), _SYSTEM_INSTALLS),
    "dnf": _subcommand_installer(spec("cx", ["--config", "--exclude", "--repo", "--enablerepo",
                                             "--disablerepo", "--releasever"]), _SYSTEM_INSTALLS),
    "yum": _subcommand_installer(spec("cx", ["--config", "--exclude", "--enablerepo", "--disablerepo"]),
                                 _SYSTEM_INSTALLS),
    "microdnf": _subcommand_installer(spec(), _SYSTEM_INSTALLS),
    "zypper": _subcommand_installer(spec(), _SYSTEM_INSTALLS),
    "apk": _subcommand_installer(spec("pX", ["--root", "--repository"]), frozenset({"add"})),
    "brew": _subcommand_installer(spec(), frozenset({"install", "reinstall"})),
    # Windows' package managers
    "choco": _subcommand_installer(spec(), frozenset({"install", "upgrade"})),
    "winget": _subcommand_installer(spec(), frozenset({"install", "upgrade", "import"})),
    "scoop": _subcommand_installer(spec(), frozenset({"install", "update"})),
    "port": _subcommand_installer(spec(), frozenset({"install"})),
    "snap": _subcommand_installer(spec(), frozenset({"install"})),
    "gem": _subcommand_installer(spec(), frozenset({"install"})),
    "cargo": _subcommand_installer(spec("Z", ["--manifest-path", "--config"]), frozenset({"install", "add"})),
    "go": _subcommand_installer(spec("C"), frozenset({"install", "get"})),
    # An environment created or updated downloads and installs its packages (`conda create -n qc fastqc`,
    # `mamba env create -f env.yml`), as `install` does.
    **dict.fromkeys(("conda", "mamba", "micromamba"), _subcommand_installer(
        spec(), _CONDA_INSTALLS, nested={"env": frozenset({"create", "update"})})),
    "composer": _subcommand_installer(spec("d", ["--working-dir"]), frozenset({"require", "install"})),
    "pacman": pacman,
    # Installing a package file runs its maintainer scripts as root: `dpkg -i x.deb`, `rpm -ivh x.rpm`.
    "dpkg": _flag_installs(lambda w: w in ("-i", "--install", "--unpack", "-E") or (
        w.startswith("-") and not w.startswith("--") and "i" in w[1:] and len(w) <= 4)),
    "rpm": _flag_installs(lambda w: w in ("--install", "--upgrade", "--freshen", "--reinstall") or (
        w.startswith("-") and not w.startswith("--") and w[1:2] in ("i", "U", "F"))),
    "opkg": _subcommand_installer(spec("f", ["--conf", "--dest", "--offline-root"]), frozenset({"install"})),
    "pkg": _subcommand_installer(spec("jcr", ["--jail", "--chroot", "--rootdir"]), frozenset({"install", "add"})),
    "pkg_add": _operands_install,
    "flatpak": _subcommand_installer(spec(), frozenset({"install"})),
    "nix-env": _flag_installs(lambda w: w in ("-i", "--install", "-iA") or w.startswith("-i")),
    "installer": _operands_install,
    "cpanm": _operands_install,
    "easy_install": _operands_install,
}


# Tools that fetch a project's declared dependencies and install them (as `npm ci` and `bundle install` do):
# the words that do it. Judged on top of the tool's own handler or table (commands.py).
_DEPENDENCY_INSTALLS: dict[str, tuple[tuple[str, ...], ...]] = {
    "pod": (("install",), ("update",)),
    "carthage": (("update",), ("bootstrap",), ("checkout",)),
    "swift": (("package", "update"), ("package", "resolve")),
    "flutter": (("pub", "get"), ("pub", "upgrade"), ("pub", "add"), ("packages", "get"), ("packages", "upgrade")),
    "dart": (("pub", "get"), ("pub", "upgrade"), ("pub", "add")),
    "mix": (("deps.get",), ("deps.update",), ("archive.install",)),
    "dotnet": (("restore",), ("add", "package"), ("tool", "install"), ("tool", "restore"), ("workload", "install")),
    "nuget": (("restore",), ("install",)),
    "conan": (("install",),),
    "vcpkg": (("install",),),
    "mint": (("install",), ("bootstrap",)),
    "ansible-galaxy": (("collection", "install"), ("role", "install"), ("install",)),
    "dbt": (("deps",),),  # packages from the hub or git, with their macros
    "expo": (("install",),),  # `npx expo install expo-av`: npm packages at versions the SDK pins
}


def dependency_install(call: Invocation) -> str | None:
    """`pod install`, `carthage bootstrap`, `flutter pub get`, `dotnet restore`, `xcodebuild
    -resolvePackageDependencies`: the project's dependencies downloaded and installed."""
    if call.name == "xcodebuild":
        return cat.PACKAGE_INSTALL if any(w.value == "-resolvePackageDependencies" for w in call.args) else None
    words = [w.value for w in call.args if not w.value.startswith("-")]
    for verb in _DEPENDENCY_INSTALLS.get(call.name, ()):
        # `swift package --package-path Packages/Core update`: an option's value may sit between the words
        if words[:1] == [verb[0]] and all(v in words[1:4] for v in verb[1:]):
            return cat.PACKAGE_INSTALL
    return None


DEPENDENCY_INSTALLERS = (*_DEPENDENCY_INSTALLS, "xcodebuild")
