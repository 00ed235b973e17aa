"""Commands a project declares in its tools' own files, run by those tools: pre-commit hooks, mise tasks and
hooks, Tiltfiles, tox environments, noxfiles, scientific workflows (Snakemake, Nextflow, CWL, DVC stages).

`pre-commit run` (and the git hook `pre-commit install` puts in place) runs the `entry` of each local hook in
`.pre-commit-config.yaml`; `mise run X` runs task X of `mise.toml`, and mise runs its `[hooks]` on its own
when a shell enters the folder; `tilt up` runs the `local(…)` and `local_resource(cmd=…)` commands of the
Tiltfile. Like a Makefile's recipes (``gateway.shell.tasks``), the declared lines are analysed as shell code
— from the file attached by the command hook, or written earlier — and writing such a file is judged as
running it (``gateway.runnable``). Hooks fetched from other repositories are the project's chosen tools,
pinned by revision: they are not read here.
"""

from __future__ import annotations

import configparser
import re
import tomllib
from typing import Any

import yaml

from gateway.shell import categories as cat
from gateway.shell.flow import Flow
from gateway.shell.generic import default_handler
from gateway.shell.invocation import Invocation
from gateway.shell.tasks import manifest, named_file, run_lines
from gateway.shell.words import Word

PRE_COMMIT = (".pre-commit-config.yaml", ".pre-commit-config.yml")
MISE = ("mise.toml", ".mise.toml", "mise.local.toml", ".mise.local.toml", ".config/mise.toml", "mise/config.toml",
        ".config/mise/config.toml")
TILTFILES = ("Tiltfile",)
_MAX = 256  # declared commands read per file
_TILT_CALL = re.compile(r"""\blocal\s*\(\s*(?:command\s*=\s*)?(['"])((?:(?!\1)[^\\]|\\.)*)\1"""
                        r"""|\b(?:cmd|serve_cmd|command)\s*=\s*(['"])((?:(?!\3)[^\\]|\\.)*)\3""")


def _commands(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [v for v in value[:_MAX] if isinstance(v, str)]
    return []


def pre_commit_hooks(text: str, only: str | None = None) -> list[str]:
    """The command lines of the local hooks (`repo: local`), or of hook ``only``."""
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError:
        return []
    out: list[str] = []
    for repo in (data or {}).get("repos", [])[:_MAX] if isinstance(data, dict) else []:
        if not isinstance(repo, dict) or repo.get("repo") != "local":
            continue
        for hook in repo.get("hooks", [])[:_MAX] if isinstance(repo.get("hooks"), list) else []:
            if not isinstance(hook, dict) or not isinstance(hook.get("entry"), str):
                continue
            if only is not None and hook.get("id") != only:
                continue
            args = [a for a in hook.get("args", []) if isinstance(a, str)] if isinstance(hook.get("args"), list) else []
            out.append(" ".join([hook["entry"], *args]))
    return out


def mise_lines(text: str, tasks: list[str] | None) -> list[str]:
    """The commands of mise tasks ``tasks`` (all when None) and of every `[hooks]` entry."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        return []
    out: list[str] = []
    declared = data.get("tasks")
    for name, task in list(declared.items() if isinstance(declared, dict) else ())[:_MAX]:
        if tasks is not None and name not in tasks:
            continue
        out += _commands(task.get("run") if isinstance(task, dict) else task)
    hooks = data.get("hooks")
    for hook in list(hooks.values() if isinstance(hooks, dict) else ())[:_MAX]:
        out += _commands(hook.get("script") if isinstance(hook, dict) else hook)
    return out


def has_mise_hooks(text: str) -> bool:
    """Commands mise runs by itself: `[hooks]` (entering the folder, installing) or a sourced env script."""
    return bool(re.search(r"(?m)^\s*\[hooks[\].]|^\s*_\.source\s*=|\b_\.source\s*=", text))


def tox_commands(text: str, environments: list[str] | None) -> list[str]:
    """The `commands` (and `commands_pre`/`_post`) of tox environments ``environments`` (all when None)."""
    parser = configparser.ConfigParser(interpolation=None, strict=False)
    try:
        parser.read_string(text[: 1 << 16])
    except configparser.Error:
        return []
    out: list[str] = []
    for section in parser.sections()[:_MAX]:
        if not section.startswith("testenv"):
            continue
        name = section.partition(":")[2] or "testenv"
        if environments is not None and name not in environments and not (name == "testenv" and environments):
            continue
        for key in ("commands_pre", "commands", "commands_post"):
            out += [_tox_substituted(line.strip()) for line in parser.get(section, key, fallback="").splitlines()
                    if line.strip()]
    return out[:_MAX]


_TOX_ENV = re.compile(r"\{env:([A-Za-z_]\w*)(?::([^}]*))?\}")
_TOX_PLACES = {"{homedir}": "~", "{toxinidir}": ".", "{tox_root}": ".", "{envdir}": ".tox/env", "{env_dir}": ".tox/env",
               "{envtmpdir}": ".tox/env/tmp", "{env_tmp_dir}": ".tox/env/tmp", "{temp_dir}": ".tox/.tmp",
               "{posargs}": "", "{envpython}": "python", "{env_python}": "python"}


def _tox_substituted(line: str) -> str:
    """tox's substitutions as the shell values they become: `{env:HOME}` is `$HOME`, `{homedir}` the home."""
    line = _TOX_ENV.sub(lambda m: "${" + m.group(1) + (":-" + m.group(2) if m.group(2) else "") + "}", line)
    for placeholder, value in _TOX_PLACES.items():
        line = line.replace(placeholder, value)
    return line


def tox(call: Invocation) -> Flow:
    """`tox -e ENV…` (or every environment): their commands; `tox exec -e ENV -- CMD` runs CMD."""
    args = call.args
    marker = next((i for i, w in enumerate(args) if w.value == "--"), None)
    if any(w.value == "exec" for w in args[:marker if marker is not None else 1]):
        if marker is not None and marker + 1 < len(args):
            call.invoke(args[marker + 1:])
        return default_handler(call)
    chosen = [v for i, w in enumerate(args[:-1]) if w.value in ("-e", "--env") for v in args[i + 1].value.split(",")]
    chosen += [v for w in args if w.value.startswith("-e") and len(w.value) > 2 for v in w.value[2:].split(",")]
    run_lines(call, manifest(call, ("tox.ini",)), lambda text: tox_commands(text, chosen or None))
    return default_handler(call)


def nox(call: Invocation) -> Flow:
    """`nox [-s SESSION]`: the noxfile runs (its `session.run(…)` commands are read with it as Python)."""
    found = manifest(call, ("noxfile.py",))
    if found is not None and found[1].script is not None:
        call.invoke([Word("python3"), Word(found[0])])
    return default_handler(call)


# Scientific workflow engines: Snakemake's `shell:` directives, Nextflow's `script:`/`shell:` blocks, a CWL tool's
# command line, DVC's stage commands.
_SNAKE_SHELL = re.compile(r"""(?m)^\s*shell\s*:\s*(?:\n\s*)?(?:r|f)?("{3}|'{3}|"|')(.*?)\1""", re.S)
_NF_SCRIPT = re.compile(r"""(?m)^\s*(?:script|shell)\s*:\s*\n\s*(?:"{3}|'{3})(.*?)(?:"{3}|'{3})""", re.S)
# A Snakefile's `shell("…")` calls: in `run:` blocks and in the handlers run at the start, end or failure of a run
# (`onstart:`, `onsuccess:`, `onerror:`).
_SNAKE_CALL = re.compile(r"""\bshell\(\s*(?:r|f)?("{3}|'{3}|"|')(.*?)\1""", re.S)
# Nextflow runs a process's `beforeScript` and `afterScript` in the shell around its script, as a directive in a
# `.nf` file or a setting in `nextflow.config` (`process.beforeScript = '…'`, `process { beforeScript = '…' }`).
_NF_AROUND = re.compile(r"""\b(?:beforeScript|afterScript)\s*=?\s*("{3}|'{3}|"|')(.*?)\1""", re.S)
NEXTFLOW_CONFIGS = ("nextflow.config",)
# Snakemake creates the rules' conda environments before it runs them
_SNAKE_CONDA = re.compile(r"--use-conda\b|--conda-create-envs-only\b"
                          r"|--(?:sdm|software-deployment-method)[= ][\w ]*conda")
SNAKEFILES = ("Snakefile", "workflow/Snakefile", "snakefile")
_GROOVY_VALUE = re.compile(r"[$!]\{[^{}\n]{0,200}\}")


def workflow_commands(name: str, text: str) -> list[str]:
    """The commands a workflow file runs, by its kind (`Snakefile`/`.smk`, `.nf`, `.cwl`, `dvc.yaml`)."""
    text = text[: 1 << 16]
    if name.endswith((".nf", ".config")):
        # Groovy's interpolations (`${bam.baseName}`, a shell block's `!{x}`) are values Nextflow fills in
        found = [] if name.endswith(".config") else [m.group(1) for m in _NF_SCRIPT.finditer(text)]
        found += [m.group(2) for m in _NF_AROUND.finditer(text)]
        return [_GROOVY_VALUE.sub("${NF_VALUE}", c) for c in found][:_MAX]
    if name.endswith(".cwl"):
        try:
            data = yaml.safe_load(text)
        except yaml.YAMLError:
            return []
        if not isinstance(data, dict):
            return []
        base = _commands(data.get("baseCommand"))
        arguments = [a for a in data.get("arguments", []) if isinstance(a, str)] if isinstance(
            data.get("arguments"), list) else []
        return [" ".join([*base, *arguments])] if base else []
    if name == "dvc.yaml":
        try:
            data = yaml.safe_load(text)
        except yaml.YAMLError:
            return []
        stages = data.get("stages") if isinstance(data, dict) else None
        return [c for stage in (stages.values() if isinstance(stages, dict) else []) if isinstance(stage, dict)
                for c in _commands(stage.get("cmd"))][:_MAX]
    return [m.group(2) for pattern in (_SNAKE_SHELL, _SNAKE_CALL) for m in pattern.finditer(text)][:_MAX]


def is_workflow_file(name: str) -> bool:
    return name in SNAKEFILES or name.endswith((".smk", ".nf", ".cwl")) or name in ("dvc.yaml", *NEXTFLOW_CONFIGS)


def _remote(word: str) -> bool:
    return word.startswith(("http://", "https://", "git@", "github:")) or ("://" in word)


def nextflow(call: Invocation) -> Flow:
    """`nextflow run PIPELINE`: a pipeline named `org/repo` (or a URL) is fetched and run — its processes run
    here; a local `.nf` file's `script:` blocks are read."""
    words = [w for w in call.args if not w.value.startswith("-")]
    if words[:1] and words[0].value == "run" and len(words) > 1:
        # the configuration read at launch: the launch directory's, and any given with -c / -config
        configs = [named_file(call, call.args[i + 1]) for i, w in enumerate(call.args[:-1])
                   if w.value in ("-c", "-config")]
        for found in (manifest(call, NEXTFLOW_CONFIGS), *configs):
            run_lines(call, found, lambda text: workflow_commands("nextflow.config", text))
        target = words[1]
        if target.value.endswith(".nf") or target.value.startswith((".", "/")):
            run_lines(call, named_file(call, target), lambda text: workflow_commands(".nf", text))
        elif "/" in target.value or _remote(target.value):
            call.flag(cat.PACKAGE_RUNNER)  # `nextflow run nf-core/rnaseq`: fetched from its repository and run
    return default_handler(call)


def snakemake(call: Invocation) -> Flow:
    """`snakemake [-s FILE]`: its rules' `shell:` commands; a Snakefile from a URL is remote code."""
    args = call.args
    named = next((args[i + 1] for i, w in enumerate(args[:-1]) if w.value in ("-s", "--snakefile")), None)
    if named is not None and _remote(named.value):
        call.flag(cat.REMOTE_CODE)
        return default_handler(call)
    found = named_file(call, named) if named is not None else manifest(call, SNAKEFILES)
    if not any(w.value in ("-n", "--dry-run", "--dryrun", "--list", "-l", "--lint", "--dag", "--rulegraph")
               for w in args):
        run_lines(call, found, lambda text: workflow_commands("Snakefile", text))
        # the rules' conda environments are created first: their packages downloaded and installed
        if _SNAKE_CONDA.search(" ".join(w.value for w in args)):
            call.flag(cat.PACKAGE_INSTALL)
    return default_handler(call)


def cwltool(call: Invocation) -> Flow:
    """`cwltool TOOL.cwl JOB.yml`: the tool's command line runs; a tool fetched from a URL is remote code."""
    operands = [w for w in call.args if not w.value.startswith("-")]
    if operands and _remote(operands[0].value):
        call.flag(cat.REMOTE_CODE)
    elif operands:
        run_lines(call, named_file(call, operands[0]), lambda text: workflow_commands(".cwl", text))
    return default_handler(call)


def dvc(call: Invocation) -> Flow:
    """`dvc repro` / `dvc exp run`: the stages' commands of dvc.yaml."""
    words = [w.value for w in call.args if not w.value.startswith("-")]
    if words[:1] == ["repro"] or words[:2] == ["exp", "run"]:
        run_lines(call, manifest(call, ("dvc.yaml",)), lambda text: workflow_commands("dvc.yaml", text))
    return default_handler(call)


def tiltfile_commands(text: str) -> list[str]:
    return [m.group(2) if m.group(2) is not None else m.group(4) for m in _TILT_CALL.finditer(text[: 1 << 16])][:_MAX]


def pre_commit(call: Invocation) -> Flow:
    """`pre-commit run [HOOK]`, `pre-commit install` / `install-hooks`: the local hooks run (now, or on
    every commit from then on)."""
    words = [w.value for w in call.args if not w.value.startswith("-")]
    if words[:1] in (["run"], ["install"], ["install-hooks"], ["try-repo"]) or not words:
        config = next((call.args[i + 1] for i, w in enumerate(call.args[:-1]) if w.value in ("-c", "--config")),
                      None)
        found = (named_file(call, config) if config is not None else None) or manifest(call, PRE_COMMIT)
        only = words[1] if words[:1] == ["run"] and len(words) > 1 else None
        run_lines(call, found, lambda text: pre_commit_hooks(text, only))
    if words[:1] == ["install"]:  # it writes a git hook that runs on every commit (or push …) from now on
        types = [call.args[i + 1].value for i, w in enumerate(call.args[:-1]) if w.value in ("-t", "--hook-type")]
        for hook in types or ["pre-commit"]:
            call.write(Word(f".git/hooks/{hook}"))
    return default_handler(call)


def mise(call: Invocation) -> Flow:
    """`mise run TASK…` (`mise r`, `mise tasks run`): the tasks' commands and the hooks (`mise exec` is
    followed by its table, gateway/shell/cli_tables/launchers.yaml)."""
    words = [w.value for w in call.args if not w.value.startswith("-")]
    if words[:1] in (["run"], ["r"]) or words[:2] == ["tasks", "run"]:
        names = words[2:] if words[0] == "tasks" else words[1:]
        found = manifest(call, MISE)
        run_lines(call, found, lambda text: mise_lines(text, names or None))
    return default_handler(call)


def tilt(call: Invocation) -> Flow:
    """`tilt up` / `tilt ci`: the Tiltfile's local commands run."""
    words = [w.value for w in call.args if not w.value.startswith("-")]
    if words[:1] in (["up"], ["ci"]):
        run_lines(call, manifest(call, TILTFILES), tiltfile_commands)
    return default_handler(call)


HANDLERS = {"pre-commit": pre_commit, "prek": pre_commit, "mise": mise, "tilt": tilt, "tox": tox, "nox": nox,
            "nextflow": nextflow, "snakemake": snakemake, "cwltool": cwltool, "cwl-runner": cwltool, "toil-cwl-runner":
            cwltool, "dvc": dvc}
