"""Which prior findings go into a task's prompt (docs/swarm.md): the most relevant ones from this run and,
when enabled, from earlier runs of the same workspace, within a count and a character budget.

Budgets are met by leaving findings out, never by cutting one: half a finding can say the opposite of
the whole. Findings are counted as :func:`orchestrator.roles.fence_findings` will count them after it
neutralizes fence-like text (which can lengthen it), so the fence never has to truncate one either.
"""

from __future__ import annotations

from orchestrator.memory.store import Hit, MemoryStore


def fenced_length(text: str) -> int:
    """An upper bound of the characters ``fence_findings`` counts for this text ("<" may become "&lt;")."""
    stripped = text.strip()
    return len(stripped) + 3 * stripped.count("<")


def for_prompt(
    store: MemoryStore,
    *,
    query: str,
    workspace: str,
    run_id: str,
    cross_run: bool,
    max_findings: int,
    max_chars: int,
) -> list[Hit]:
    """The findings to inject, best first: at most ``max_findings`` whose texts total at most
    ``max_chars``. Scores of this run's and earlier runs' findings are comparable (one bm25 over the
    whole index), so both lists merge by score. The caller syncs the store first and fences the texts."""
    if max_findings <= 0 or max_chars <= 0:
        return []
    # Fetch more than needed: some candidates will not fit the character budget.
    pool = max_findings * 4
    hits = store.search(query, run_id=run_id, limit=pool)
    if cross_run:
        hits += store.search(query, workspace=workspace, exclude_run=run_id, limit=pool)
    # The store's order: best score, then newest, then id (stable sorts, least significant key first).
    hits.sort(key=lambda h: h.memory.id)
    hits.sort(key=lambda h: h.memory.created, reverse=True)
    hits.sort(key=lambda h: h.score, reverse=True)
    chosen: list[Hit] = []
    seen: set[str] = set()
    budget = max_chars
    for hit in hits:
        size = fenced_length(hit.memory.text)
        if hit.memory.id in seen or size > budget or size == 0:
            continue
        seen.add(hit.memory.id)
        chosen.append(hit)
        budget -= size
        if len(chosen) == max_findings:
            break
    return chosen
