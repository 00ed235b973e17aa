"""Research computing: batch schedulers, MPI launchers and HPC containers run the programs they are given.

`srun CMD`, `salloc … CMD`, `mpirun -n 64 CMD`, `qsub -- CMD` and `sbatch --wrap 'CMD'` run CMD on the cluster's
nodes — judged as if it ran here, like `ssh HOST CMD` (a cluster's shared file systems hold everyone's data);
`sbatch job.sh` runs the job script (attached by the command hook like any script). A job array in the tens of
thousands, or on GPUs by the thousand, floods a shared queue (``resource_exhaustion``). Cancelling jobs chosen by
who or where they run rather than by their ids (`scancel -u USER`, `scancel --partition=gpu`, job ids piped in
from `squeue`, `qdel all`, `bkill 0`) ends other people's work or all of one's own (``process_kill``); changing
the cluster itself (`scontrol update NodeName=… State=DRAIN`, `scontrol reboot`) is ``infra_change``.
Apptainer/Singularity run a command in an image with the host's folders bound in: a bind of the host's root or
system folders is a write there, as for `docker run -v`; `apptainer shell` is a terminal; `push` publishes the
image (to a library, an OCI registry).
"""

from __future__ import annotations

import re

from gateway.shell import categories as cat
from gateway.shell.flow import OPAQUE, Flow
from gateway.shell.invocation import Invocation
from gateway.shell.options import scan, spec
from gateway.shell.words import Word, literal_word

_SLURM_VALUES = ["--account", "--partition", "--time", "--nodes", "--ntasks", "--cpus-per-task", "--mem",
                 "--mem-per-cpu", "--gres", "--gpus", "--job-name", "--output", "--error", "--constraint", "--qos",
                 "--chdir", "--export", "--array", "--dependency", "--nodelist", "--exclude", "--reservation",
                 "--mail-type", "--mail-user", "--begin", "--deadline", "--wckey", "--licenses", "--cluster",
                 "--clusters", "--ntasks-per-node", "--gpus-per-node", "--distribution", "--mpi", "--cpu-bind",
                 "--signal", "--comment", "--container", "--time-min", "--wrap", "--input"]
_SRUN = spec("ANpntcJoeCqDwxdiLmMkrtXbSQ", _SLURM_VALUES, stop=True)
# mpirun/mpiexec options (Open MPI, MPICH, Intel MPI spell many with one dash) → how many values follow
_MPI_VALUES = {**dict.fromkeys(("-n", "-np", "--np", "-c", "-N", "-H", "--host", "-host", "-hosts", "--hostfile",
                                "-hostfile", "-machinefile", "--machinefile", "-f", "--map-by", "--bind-to",
                                "--rank-by", "-x", "-wdir", "--wdir", "-ppn", "--prefix", "-p", "-s", "-bootstrap",
                                "-iface", "--tag-output-format"), 1),
               **dict.fromkeys(("-genv", "-env", "--mca", "-mca", "-gmca"), 2)}
_QSUB = spec("AaceIjlMmNopqrSuvWJ", stop=False)
_CONTAINER = spec("BcCeHiopuwW", ["--bind", "--mount", "--home", "--pwd", "--workdir", "--env", "--env-file",
                                  "--overlay", "--scratch", "--security", "--app", "--network", "--hostname",
                                  "--fusemount", "--apply-cgroups", "--add-caps", "--drop-caps"], stop=True)
_ARRAY = re.compile(r"(\d+)-(\d+)")
_FLOOD_TASKS = 10_000


def _array_flood(call: Invocation, options_values: list[Word]) -> None:
    for word in options_values:
        for low, high in _ARRAY.findall(word.value):
            if int(high) - int(low) >= _FLOOD_TASKS:
                call.flag(cat.RESOURCE_EXHAUSTION)  # `sbatch --array=1-100000 …`: a shared queue flooded


def srun(call: Invocation) -> Flow:
    """`srun [opts] CMD…`, `salloc [opts] [CMD…]`: CMD runs on the allocated nodes."""
    options = scan(call.args, _SRUN)
    _array_flood(call, options.values("-a", "--array"))
    if options.operands:
        return call.invoke(options.operands, call.stdin)  # its output is the command's (`srun printenv > f`)
    if call.name == "salloc":
        call.flag(cat.DYNAMIC_COMMAND)  # an interactive allocation: what runs next is typed in
    return OPAQUE


def sbatch(call: Invocation) -> Flow:
    """`sbatch --wrap 'CMD'` runs CMD through a shell; `sbatch job.sh ARGS` runs the job script."""
    options = scan(call.args, _SRUN)
    _array_flood(call, options.values("-a", "--array"))
    for wrapped in options.values("--wrap"):
        call.invoke([literal_word("sh"), literal_word("-c"), wrapped])
    if options.operands and not options.values("--wrap"):
        call.invoke([literal_word("sh"), *options.operands])
    return OPAQUE


def mpirun(call: Invocation) -> Flow:
    """`mpirun -n 64 CMD…` / `mpiexec`: CMD runs on every rank."""
    args = call.args
    i = 0
    while i < len(args) and args[i].value.startswith("-"):
        i += 1 + _MPI_VALUES.get(args[i].value, 0)
    return call.invoke(args[i:], call.stdin) if i < len(args) else OPAQUE


def qsub(call: Invocation) -> Flow:
    """PBS/Torque/SGE `qsub [opts] -- CMD…` runs CMD; `qsub job.sh` runs the job script."""
    args = call.args
    marker = next((i for i, w in enumerate(args) if w.value == "--"), None)
    if marker is not None and marker + 1 < len(args):
        call.invoke(args[marker + 1:])
        return OPAQUE
    operands = scan(args, _QSUB).operands
    _array_flood(call, [args[i + 1] for i, w in enumerate(args[:-1]) if w.value in ("-J", "-t")])
    if operands:
        call.invoke([literal_word("sh"), operands[0]])
    elif call.stdin.script is not None:
        call.invoke([literal_word("sh")], call.stdin)  # `echo CMD | qsub`: the job is its input
    return OPAQUE


def container(call: Invocation) -> Flow:
    """`apptainer|singularity exec|run [opts] IMAGE CMD…`, `… shell IMAGE`: binds of host folders, then CMD."""
    words = [w.value for w in call.args]
    verb = next((w for w in words if not w.startswith("-")), "")
    if verb == "push":
        call.flag(cat.PUBLISH)
    if verb not in ("exec", "run", "shell", "instance"):
        return OPAQUE
    rest = call.args[words.index(verb) + 1:]
    options = scan(rest, _CONTAINER)
    inside: list[tuple[str, str]] = []  # (folder in the image, the host folder bound there)
    for bind in options.values("-B", "--bind", "--mount"):
        for item in bind.value.split(","):
            source, _, target = item.partition(":")
            source = source.removeprefix("src=").removeprefix("source=")
            if source.startswith("/"):
                call.write(Word(source))  # a bind of / or /etc: the image can change the host there
            if target.startswith("/"):
                inside.append((target.split(":", 1)[0].rstrip("/"), source))
    if verb == "shell":
        call.flag(cat.DYNAMIC_COMMAND)  # a terminal inside the image: what runs is typed in
    elif verb == "exec" and len(options.operands) > 1:
        return call.invoke([_on_host(w, inside) for w in options.operands[1:]], call.stdin)
    return OPAQUE


def _on_host(word: Word, binds: list[tuple[str, str]]) -> Word:
    """A path inside the image as the host folder bound there (`/data/qc` with `--bind $PWD:/data` is `$PWD/qc`)."""
    for target, source in binds:
        if target and (word.value == target or word.value.startswith(target + "/")):
            return Word(source + word.value[len(target):])
    return word


# scancel options that choose jobs by a filter instead of by id (short letters: -u -A -p -t -n -w -q -R -M)
_SCANCEL_FILTERS = ("-u", "--user", "-A", "--account", "-p", "--partition", "-t", "--state", "-n", "--name",
                    "--jobname", "-w", "--nodelist", "-q", "--qos", "-R", "--reservation", "--me", "-M",
                    "--clusters", "--wckey")
_JOB_ID = re.compile(r"\d+(?:[_.+]\w+)*")
# scontrol verbs that only look (anything else changes the cluster or its jobs)
_SCONTROL_READ = frozenset({"show", "ping", "listpids", "version", "help", "wait_job", "getaddrs", "token",
                            "listjobs", "liststeps"})
# scontrol verbs that act on the jobs they name (by id, or `JobId=…` for update)
_SCONTROL_ON_JOBS = frozenset({"update", "hold", "release", "uhold", "requeue", "requeuehold", "suspend", "resume",
                               "top", "notify"})
# what names something other than a job: the cluster's nodes, partitions, reservations
_SCONTROL_CLUSTER = re.compile(r"(?i)(?:node|nodename|partition|partitionname|reservation|reservationname"
                               r"|frontendname|powerdowndelay)=")
_SCONTROL_JOB = re.compile(r"(?i)(?:jobid|job|stepid)=\S+|\d+(?:[_.+]\w+)*")


def _from_elsewhere(word: Word) -> bool:
    """Ids not known before it runs: a command's output (`$(squeue …)`) or items piped in (`xargs scancel`). A
    variable (`$SLURM_JOB_ID`) is one id, as a literal is."""
    return bool(word.subs) or word.target is not None


def _chosen_by_filter(call: Invocation, filters: tuple[str, ...], operands: list[Word]) -> bool:
    return (any(a.value.split("=", 1)[0] in filters for a in call.args) or not operands
            or any(_from_elsewhere(w) for w in operands))


def scancel(call: Invocation) -> Flow:
    """`scancel 1234 1235_7` cancels those jobs; by user, partition, state … (or ids from elsewhere), whoever's."""
    valued = {i + 1 for i, a in enumerate(call.args) if a.value in (*_SCANCEL_FILTERS, "-s", "--signal")}
    operands = [a for i, a in enumerate(call.args) if i not in valued and not a.value.startswith("-")]
    if _chosen_by_filter(call, _SCANCEL_FILTERS, operands):
        call.flag(cat.PROCESS_KILL)
    return OPAQUE


def scontrol(call: Invocation) -> Flow:
    """`scontrol show …` looks; `update JobId=…`, `hold`, `requeue` … of named jobs act on those jobs; anything else
    (nodes, partitions, reservations, reboot, shutdown, reconfigure) changes the cluster."""
    words = [a.value for a in call.args if not a.value.startswith("-")]
    verb = words[0].lower() if words else ""
    if not verb or verb in _SCONTROL_READ:
        return OPAQUE
    rest = words[1:]
    if verb in _SCONTROL_ON_JOBS and any(_SCONTROL_JOB.fullmatch(w) for w in rest) and not any(
            _SCONTROL_CLUSTER.match(w) for w in rest):
        return OPAQUE
    call.flag(cat.INFRA_CHANGE)
    return OPAQUE


def qdel(call: Invocation) -> Flow:
    """PBS/SGE `qdel 123.server`; `qdel all`, `qdel -u USER`, ids piped in: whoever's jobs."""
    operands = [a for a in call.args if not a.value.startswith("-")]
    if _chosen_by_filter(call, ("-u",), operands) or any(a.value.lower() in ("all", "*") for a in operands):
        call.flag(cat.PROCESS_KILL)
    return OPAQUE


def bkill(call: Invocation) -> Flow:
    """LSF `bkill 123`; `bkill 0` (every job), `-u USER`, `-q QUEUE`, `-m HOST`: whoever's jobs."""
    operands = [a for a in call.args if not a.value.startswith("-")]
    if _chosen_by_filter(call, ("-u", "-q", "-m", "-g", "-J", "-app", "-stat"), operands) or any(
            a.value == "0" for a in operands):
        call.flag(cat.PROCESS_KILL)
    return OPAQUE


HANDLERS = {"srun": srun, "salloc": srun, "sbatch": sbatch, "mpirun": mpirun, "mpiexec": mpirun, "qsub": qsub,
            "apptainer": container, "singularity": container, "scancel": scancel, "scontrol": scontrol,
            "qdel": qdel, "bkill": bkill}
