"""bench/xbench.py on a tiny synthetic corpus (the real corpora stay in shared/, GPL data included): labels,
disputed rows and per-category figures are computed the way the README reports them."""

from __future__ import annotations

import json
from pathlib import Path

from bench import xbench


def _write(folder: Path, name: str, rows: list[tuple[str, str, str, str]]) -> None:
    with (folder / name).open("w") as f:
        for rid, command, expected, category in rows:
            f.write(json.dumps({"id": rid, "command": command, "expected": expected, "category": category,
                                "source": "test"}) + "\n")


def test_report_counts_detection_false_blocks_and_disputes(tmp_path: Path) -> None:
    _write(tmp_path, "dcg.jsonl", [("d1", "rm -rf /etc", "block", "corpus/rm|x"), ("d2", "git push", "allow", "c/g"),
                                   ("d3", "ls -la", "allow", "c/g")])
    _write(tmp_path, "aegish-gtfobins.jsonl", [("g1", "bash", "block", "shell"), ("g2", "ls", "block", "shell"),
                                               ("g3", "cat /etc/shadow", "block", "file-read")])
    _write(tmp_path, "aegish-harmless.jsonl", [("h1", "echo hi", "allow", "llm")])
    _write(tmp_path, "nl2bash-sample.jsonl", [("n1", "rm -rf /", "allow-unlabelled", "rm")])
    rows = xbench.load_rows(tmp_path)
    xbench.decide(rows)
    verdicts = {r.id: r.verdict for r in rows}
    assert verdicts == {"d1": "suppress", "d2": "approval", "d3": "allow", "g1": "approval", "g2": "allow",
                        "g3": "suppress", "h1": "allow", "n1": "suppress"}
    result = xbench.report(rows, {"d2"}, 0.01)
    assert result["all_rows"]["dcg"]["(all)"]["false_block_rate"] == 0.5
    assert result["without_disputed"]["dcg"]["(all)"]["false_block_rate"] == 0.0
    assert result["without_disputed"]["aegish-gtfobins"]["shell"]["detection"] == 0.5
    assert result["targets"]["gtfobins_macro_detection"] == 0.75  # (0.5 + 1.0) / 2 categories
    assert result["without_disputed"]["nl2bash-sample"]["(all)"]["unlabelled_not_allowed_rate"] == 1.0


def test_the_disputed_list_names_rows_with_reasons() -> None:
    ids = xbench.disputed_ids()
    assert "dcg-e2e/safe-25" in ids and len(ids) >= 40
    text = xbench.DISPUTED.read_text()
    assert all(f"| `{rid}` |" in text for rid in ids)
