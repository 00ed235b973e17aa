"""What a lens member must answer, and reading it: a JSON object ``{"findings": [...]}``.

Each finding is validated on its own: a malformed one is dropped with the reason kept (the member still
counts as having answered), while an answer with no findings object at all is *invalid* — it never counts
towards the quorum. Evidence is ``file:line`` (or ``file:start-end``), relative to the repository root;
paths that climb out of it or carry control characters are refused, so a member cannot smuggle text into
the report through a "file name".
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import Annotated, Any, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, ValidationError, field_validator

from orchestrator.engines.answer_json import json_object

Severity = Literal["info", "low", "medium", "high", "critical"]
SEVERITIES: tuple[Severity, ...] = ("info", "low", "medium", "high", "critical")
RANK = {s: i for i, s in enumerate(SEVERITIES)}
MAX_FINDINGS = 200  # per member: more is dropped with a note, so one member cannot drown the others
MAX_ANSWER_CHARS = 1_000_000

INSTRUCTIONS = """Answer with one JSON object and nothing else, in this exact shape:
{"findings": [{"claim": "what is wrong or notable, in one or two sentences",
               "category": "one lowercase word or two, e.g. security, correctness, performance, docs",
               "severity": "info | low | medium | high | critical",
               "evidence": ["path/relative/to/repo.py:42", "other/file.py:10-18"],
               "confidence": 0.8}]}
Every finding needs at least one evidence entry file:line. Use {"findings": []} if you find nothing."""

_FILE_LINE = re.compile(r"^(?P<file>[^\s:][^:]*?)(?::(?P<start>\d{1,7})(?:\s*-\s*(?P<end>\d{1,7}))?)?$")
_CATEGORY = re.compile(r"^[a-z0-9][a-z0-9 _/-]{0,39}$")


class AnswerError(ValueError):
    """The member's answer holds no findings object; the message says why."""


@dataclass(frozen=True)
class Evidence:
    file: str
    start: int
    end: int

    def __str__(self) -> str:
        return f"{self.file}:{self.start}" + (f"-{self.end}" if self.end != self.start else "")


def _clean_path(raw: str, root: str) -> str:
    path = raw.strip().replace("\\", "/")
    if root and path.startswith(root.rstrip("/") + "/"):
        path = path[len(root.rstrip("/")) + 1:]
    while path.startswith("./"):
        path = path[2:]
    if not path or len(path) > 300 or any(ord(ch) < 32 or ord(ch) == 127 for ch in path):
        raise ValueError(f"bad file path {raw[:60]!r}")
    parts = PurePosixPath(path).parts
    if path.startswith("/") or ".." in parts:
        raise ValueError(f"file path {raw[:60]!r} is not inside the repository")
    return str(PurePosixPath(*parts))


def parse_evidence(item: Any, root: str = "") -> Evidence:
    """``"file:12"``, ``"file:12-14"`` or ``{"file", "line", "end_line"}`` as :class:`Evidence`."""
    if isinstance(item, dict):
        file, start, end = item.get("file"), item.get("line"), item.get("end_line", item.get("line"))
        if not isinstance(file, str) or not isinstance(start, int) or not isinstance(end, int) \
                or isinstance(start, bool) or isinstance(end, bool):
            raise ValueError("evidence object needs 'file' (text) and 'line' (a number)")
    elif isinstance(item, str):
        m = _FILE_LINE.match(item.strip())
        if m is None or m.group("start") is None:
            raise ValueError(f"evidence {item[:60]!r} is not file:line")
        file, start = m.group("file"), int(m.group("start"))
        end = int(m.group("end")) if m.group("end") else start
    else:
        raise ValueError("evidence must be 'file:line' text")
    if start < 1 or end < start:
        raise ValueError(f"evidence line range {start}-{end} is not valid")
    return Evidence(_clean_path(file, root), start, min(end, start + 100_000))


def _lower(value: Any) -> Any:
    return value.strip().lower() if isinstance(value, str) else value


class Finding(BaseModel):
    """One validated finding of one member. Unknown keys are ignored (models add ids and titles)."""

    model_config = ConfigDict(extra="ignore", frozen=True, arbitrary_types_allowed=True)

    claim: str = Field(min_length=1, max_length=2000)
    category: Annotated[str, BeforeValidator(_lower)]
    severity: Annotated[Severity, BeforeValidator(_lower)]
    evidence: tuple[Evidence, ...] = Field(min_length=1, max_length=10)
    confidence: float = Field(ge=0, le=1)

    @field_validator("category")
    @classmethod
    def _category(cls, value: str) -> str:
        if not _CATEGORY.match(value):
            raise ValueError("category must be a short lowercase word (letters, digits, space, - _ /)")
        return value

    @field_validator("claim")
    @classmethod
    def _claim(cls, value: str) -> str:
        text = value.strip()
        if not text:
            raise ValueError("claim is empty")
        return text

    @property
    def where(self) -> Evidence:
        return self.evidence[0]

    def to_json(self) -> dict[str, Any]:
        return {"claim": self.claim, "category": self.category, "severity": self.severity,
                "evidence": [str(e) for e in self.evidence], "confidence": self.confidence}


@dataclass
class Answer:
    findings: list[Finding] = field(default_factory=list)
    rejected: list[str] = field(default_factory=list)  # why each malformed finding was dropped


def _json_object(text: str) -> dict[str, Any]:
    """The findings object in a model's answer: the whole text, a fenced ```json block, or the outermost
    braces (models wrap JSON in prose and fences)."""
    data = json_object(text, lambda d: "findings" in d)
    if data is not None:
        return data
    raise AnswerError("no JSON object with 'findings' in the answer")


def parse_answer(text: str, root: str = "") -> Answer:
    """The member's validated findings; :class:`AnswerError` when the answer has no findings list.
    ``root``: the directory the member worked in (absolute paths under it become relative)."""
    if len(text) > MAX_ANSWER_CHARS:
        raise AnswerError(f"the answer is too long ({len(text)} characters, at most {MAX_ANSWER_CHARS})")
    data = _json_object(text)
    raw = data["findings"]
    if not isinstance(raw, list):
        raise AnswerError("'findings' is not a list")
    answer = Answer()
    for n, item in enumerate(raw, 1):
        if len(answer.findings) >= MAX_FINDINGS:
            answer.rejected.append(f"{len(raw) - n + 1} finding(s) beyond {MAX_FINDINGS} left out")
            break
        try:
            if not isinstance(item, dict):
                raise ValueError("a finding must be an object")
            evidence = item.get("evidence")
            items = evidence if isinstance(evidence, list) else [evidence] if evidence is not None else []
            parsed = tuple(parse_evidence(e, root) for e in items[:10])
            answer.findings.append(Finding.model_validate({**item, "evidence": parsed}))
        except ValidationError as e:
            why = "; ".join(f"{'.'.join(str(x) for x in err['loc'])}: {err['msg']}" for err in e.errors())
            answer.rejected.append(f"finding {n}: {why}"[:300])
        except ValueError as e:
            answer.rejected.append(f"finding {n}: {e}"[:300])
    return answer
