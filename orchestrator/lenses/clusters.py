"""Clustering the members' findings and counting votes — deterministic, no model involved.

Two findings are about the same thing when they have the same category and their first evidence points
into the same file at lines at most ``TOLERANCE`` apart (ranges chained: a sweep over the findings sorted
by line). A cluster's vote count is the number of *distinct* members that support it; a member cannot vote
twice for one cluster by repeating itself. The counts, the supporters and the severity rule below are ours,
not the merger's: a member's text cannot change them.

Severity of a cluster, by ``merge_mode``:

* ``faithful``: the median of what its supporters said (lower median), in file order;
* ``consensus-first`` (default): the median, *promoted* to the highest severity a supporter gave only when
  the cluster reaches the consensus threshold (``consensus`` × answering members); consensus clusters
  first, then majority, then minority;
* ``risk-first``: the highest severity any supporter gave, most severe first.

Minority clusters (supported by fewer than half of the answering members) are kept and marked, never
dropped.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from orchestrator.lenses.answers import RANK, SEVERITIES, Finding

TOLERANCE = 3  # lines between two findings' evidence that still count as the same place


@dataclass(frozen=True)
class Support:
    member: str
    index: int  # 1-based position of the finding in the member's answer
    finding: Finding


@dataclass
class Cluster:
    id: str
    category: str
    file: str
    start: int
    end: int
    supports: list[Support] = field(default_factory=list)

    @property
    def members(self) -> list[str]:
        return sorted({s.member for s in self.supports})

    @property
    def votes(self) -> int:
        return len(self.members)


def cluster(answers: dict[str, list[Finding]]) -> list[Cluster]:
    """The findings of every member grouped into clusters, ids ``c1``… in (file, line, category) order.
    The result depends only on the answers, not on the order members finished in."""
    items = sorted(
        (Support(member, n, f) for member, found in answers.items() for n, f in enumerate(found, 1)),
        key=lambda s: (s.finding.where.file, s.finding.category, s.finding.where.start, s.finding.where.end,
                       s.member, s.index))
    clusters: list[Cluster] = []
    current: Cluster | None = None
    for s in items:
        w = s.finding.where
        if (current is None or (current.file, current.category) != (w.file, s.finding.category)
                or w.start > current.end + TOLERANCE):
            current = Cluster("", s.finding.category, w.file, w.start, w.end)
            clusters.append(current)
        current.supports.append(s)
        current.end = max(current.end, w.end)
    clusters.sort(key=lambda c: (c.file, c.start, c.category))
    for n, c in enumerate(clusters, 1):
        c.id = f"c{n}"
    return clusters


def tier(votes: int, answered: int, consensus: float) -> str:
    """``consensus`` (at least ⌈consensus × answered⌉ members), ``majority`` (more than half), else
    ``minority``."""
    if answered and votes >= max(1, math.ceil(consensus * answered - 1e-9)):
        return "consensus"
    if votes * 2 > answered:
        return "majority"
    return "minority"


def _median(ranks: list[int]) -> int:
    ordered = sorted(ranks)
    return ordered[(len(ordered) - 1) // 2]


def rate(c: Cluster, answered: int, mode: str, consensus: float) -> dict[str, Any]:
    """The cluster as the merged report states it: votes, supporters, tier and its severity under ``mode``."""
    # One severity per member: a member that repeats itself counts with its highest.
    by_member: dict[str, int] = {}
    for s in c.supports:
        by_member[s.member] = max(by_member.get(s.member, 0), RANK[s.finding.severity])
    ranks = list(by_member.values())
    typical, highest = _median(ranks), max(ranks)
    level = tier(c.votes, answered, consensus)
    promote = mode == "risk-first" or (mode == "consensus-first" and level == "consensus")
    chosen = highest if promote else typical
    return {
        "id": c.id, "category": c.category, "file": c.file, "lines": f"{c.start}" if c.start == c.end
        else f"{c.start}-{c.end}", "votes": c.votes, "answered": answered, "members": c.members, "tier": level,
        "minority": level == "minority", "severity": SEVERITIES[chosen], "claimed_severity": SEVERITIES[typical],
        "highest_severity": SEVERITIES[highest], "promoted": chosen > typical,
        "confidence": round(sum(s.finding.confidence for s in c.supports) / len(c.supports), 3),
        "findings": [{"member": s.member, "index": s.index, **s.finding.to_json()} for s in c.supports],
    }


_TIER_ORDER = {"consensus": 0, "majority": 1, "minority": 2}


def ranked(clusters: list[Cluster], answered: int, mode: str, consensus: float) -> list[dict[str, Any]]:
    """Every cluster rated and ordered for ``mode`` (nothing is dropped)."""
    rated = [rate(c, answered, mode, consensus) for c in clusters]
    if mode == "consensus-first":
        rated.sort(key=lambda r: (_TIER_ORDER[r["tier"]], -RANK[r["severity"]], -r["votes"]))
    elif mode == "risk-first":
        rated.sort(key=lambda r: (-RANK[r["severity"]], -r["votes"]))
    return rated  # faithful: file order (the sorts are stable: equal keys keep file order too)
