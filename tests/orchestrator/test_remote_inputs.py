"""Files named by an agent's environment on the coordinator reach an agent on a worker machine."""

from __future__ import annotations

import os
from pathlib import Path

from orchestrator.executors.temporal.inputs import pack, unpack


def test_file_variables_travel_by_content_and_point_at_the_workers_copies(tmp_path: Path) -> None:
    coordinator, worker = tmp_path / "coordinator", tmp_path / "worker"
    coordinator.mkdir()
    (coordinator / "synthesis.md").write_text("both parents agree: use the cache")
    (coordinator / "a.json").write_text('{"verdict": "a"}')
    (coordinator / "b.json").write_text('{"verdict": "b"}')
    env, files = pack({"GIT_AUTHOR_NAME": "agent", "ACTEON_SYNTHESIS": str(coordinator / "synthesis.md"),
                       "ACTEON_LENS_REPORT": os.pathsep.join(str(coordinator / f) for f in ("a.json", "b.json")),
                       "ACTEON_RETRY_REPORT": str(coordinator / "gone.json")})
    assert env == {"GIT_AUTHOR_NAME": "agent"}  # no coordinator path crosses
    assert set(files) == {"ACTEON_SYNTHESIS", "ACTEON_LENS_REPORT"}  # a missing file is not invented
    # What crossed is plain data (a workflow payload): lists, not tuples, on the other side.
    there = unpack({var: [list(item) for item in items] for var, items in files.items()}, worker)
    assert Path(there["ACTEON_SYNTHESIS"]).read_text() == "both parents agree: use the cache"
    lens = [Path(p).read_text() for p in there["ACTEON_LENS_REPORT"].split(os.pathsep)]
    assert lens == ['{"verdict": "a"}', '{"verdict": "b"}']
    assert all(Path(p).is_relative_to(worker) for v in there.values() for p in v.split(os.pathsep))


def test_a_spec_cannot_write_outside_the_attempt_or_set_other_variables(tmp_path: Path) -> None:
    there = unpack({"ACTEON_SYNTHESIS": [["../../../etc/evil", "x"]], "PATH": [["p", "/evil"]]}, tmp_path)
    assert set(there) == {"ACTEON_SYNTHESIS"}
    assert Path(there["ACTEON_SYNTHESIS"]) == tmp_path / "inputs" / "acteon_synthesis" / "evil"
