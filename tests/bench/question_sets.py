"""The held-apart question sets in ``tests/bench/data`` (how they were made: its README): reading a half of a
set, and the side-by-side tables the benchmarks print for them.

Each set is two files, ``<set>_tune.jsonl`` and ``<set>_heldout.jsonl``; only the tune half may be used for
tuning, the held-out half is read when a figure is reported.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

DATA_DIR = Path(__file__).resolve().parent / "data"
HALVES = ("tune", "heldout")


def halves(choice: str) -> tuple[str, ...]:
    """The halves a ``--half`` choice names: "tune", "heldout" or "both"."""
    if choice == "both":
        return HALVES
    if choice not in HALVES:
        raise ValueError(f"unknown half {choice!r}: tune, heldout or both")
    return (choice,)


def load(name: str, choice: str) -> list[dict[str, Any]]:
    """The lines of set ``name`` (``financebench_reworded``, ...) in the halves ``choice`` names, tune first."""
    rows: list[dict[str, Any]] = []
    single = DATA_DIR / f"{name}.jsonl"
    for half in halves(choice):
        path = DATA_DIR / f"{name}_{half}.jsonl"
        if single.is_file():  # a set kept in one file (the probe): its lines name their half
            rows.extend(r for r in _lines(single) if r.get("half") == half)
        else:
            rows.extend(_lines(path))
    return rows


def _lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def table(header: Sequence[str], rows: Sequence[Sequence[Any]], first: int = 30, width: int = 18) -> str:
    """Rows under a header, the first column ``first`` wide and the others right-aligned; floats with three decimals."""
    def cell(value: Any) -> str:
        return f"{value:.3f}" if isinstance(value, float) else str(value)

    lines = [f"{header[0]:{first}}" + "".join(f"{h:>{width}}" for h in header[1:])]
    for row in rows:
        lines.append(f"{cell(row[0]):{first}}" + "".join(f"{cell(v):>{width}}" for v in row[1:]))
    return "\n".join(lines)


def rate(hits: Sequence[float]) -> str:
    """A share and its count ("0.833 of 30"), or "-" for nothing asked."""
    return f"{sum(hits) / len(hits):.3f} of {len(hits)}" if hits else "-"
