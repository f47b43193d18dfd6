"""Which table a question is about, among the tables behind the retrieved chunks.

Retrieval ranks chunks, not tables, and a table's chunks carry its values, which match a question's
years and words everywhere in a library of similar reports. What names the right table is its labels:
the row labels, column headers, caption and heading. So each candidate table (one with a chunk among
the retrieved) scores the reciprocal ranks of its chunks plus, weighted above them, how much of the
question its labels cover, each word counted by how rare it is among the candidates (a word every
candidate has, like "total", tells them apart from nothing), and more again when the question names
one of its row labels word for word ("Total net deferred tax assets"). Years are left out: every
table has them. A table is credited for its best chunk only, so a long table's many row chunks do
not outvote a short table's one.

Measured with ``tests/bench/bench_tatqa.py --table-choice`` (no model) on three samples of TAT-QA
dev rendered into reports (seed 11: 112 table questions over 25 reports; seed 7: 23 over 5; seed 23:
82 over 17), the right table comes first for 0.69 / 0.91 / 0.89 of the questions and is among the
two the model is shown for 0.80 / 1.00 / 0.92; taking tables in the order of their best chunk, as
the loop first did, put it first for about 0.32 on the first sample.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence

from core.answering.operations import TableView, words
from core.answering.vocabulary import is_statement, report_words, statements_asked
from core.reports.table_naming import table_label, tables_said
from core.reports.values import YEAR_WORD
from models.types import Chunk

RRF_K = 60
LABEL_WEIGHT = 0.03
"""Weight of one unit of label coverage (a word's IDF) against one chunk's reciprocal rank (<= 1/61)."""
PHRASE_WEIGHT = 0.02
"""Weight per word of the longest row label (two words or more) the question quotes whole."""
STATEMENT_WEIGHT = 0.15
"""Weight of being the statement the question names ("... shown in the cash flow statement")."""
NUMBER_WEIGHT = 1.0
"""Weight of being the table the question names by its number ("in Table 4"): above any sum of the others."""
_YEAR = YEAR_WORD
_WORDS = re.compile(r"\w+")


def label_words(view: TableView) -> set[str]:
    """The content words of what names a table's parts: caption, heading, column headers (the row labels' own, as
    "Group" or "Region", too), row labels."""
    info = view.info
    label = view.label_column.header if view.label_column is not None else ""
    return words(" ".join([info.caption, info.heading, label, *(r.label for r in view.rows),
                           *(f"{c.name.replace('_', ' ')} {c.header}" for c in view.data_columns)]))


def question_words(question: str, printed: set[str] | None = None) -> set[str]:
    """The question's content words that can name a table's parts: every word but bare years, with the
    words reports print for the line items it names ("capex": "purchases of property, plant ...") unless
    the report's labels (``printed``) use the question's own name for them."""
    said = report_words(question, None if printed is None else lambda name: words(name) <= printed)
    return {w for w in words(f"{question} {said}") if not _YEAR.fullmatch(w)}


def _plain(text: str) -> str:
    return " ".join(_WORDS.findall(text.lower()))


def _longest_quoted_label(view: TableView, quoted: str) -> int:
    """Words in the longest row label of two words or more that ``quoted`` (plain, space-padded) contains."""
    best = 0
    for row in view.rows:
        label = _plain(row.label)
        size = label.count(" ") + 1 if label else 0
        if size >= 2 and size > best and f" {label} " in quoted:
            best = size
    return best


def rank_tables(question: str, chunks: Sequence[Chunk], load_view: Callable[[int], TableView | None]) -> list[TableView]:
    """The tables behind ``chunks`` (ranked retrieval results), most likely first for ``question``."""
    chunk_score: dict[int, float] = {}
    for rank, chunk in enumerate(chunks):
        if chunk.kind == "table" and chunk.table_id is not None:
            chunk_score.setdefault(chunk.table_id, 1.0 / (RRF_K + rank + 1))
    views = {tid: v for tid in chunk_score if (v := load_view(tid)) is not None}
    if not views:
        return []
    every_label = {tid: label_words(v) for tid, v in views.items()}
    asked = question_words(question, set().union(*every_label.values()))
    labels = {tid: every_label[tid] & asked for tid in views}
    frequency: dict[str, int] = {}
    for found in labels.values():
        for word in found:
            frequency[word] = frequency.get(word, 0) + 1
    quoted = f" {_plain(question)} "
    statements = statements_asked(question)
    numbered = tables_said(question)
    score = {
        tid: chunk_score[tid]
        + LABEL_WEIGHT * sum(math.log(1 + len(views) / frequency[w]) for w in labels[tid])
        + PHRASE_WEIGHT * _longest_quoted_label(view, quoted)
        + STATEMENT_WEIGHT * any(is_statement(kind, view.info.title) for kind in statements)
        + NUMBER_WEIGHT * (bool(numbered) and table_label(view.info.caption) in numbered)
        for tid, view in views.items()
    }
    # ``views`` is in retrieval order and the sort is stable: on equal scores, first retrieved first.
    return [views[tid] for tid in sorted(views, key=lambda tid: -score[tid])]
