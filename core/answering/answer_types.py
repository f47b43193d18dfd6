"""What kind of answer a question wants, decided once per question.

A question asking "in which year was X highest" wants a column header ("2017"), not the figure SQL
selected; "what are the respective values in 2019 and 2018" wants both figures, never their
difference; "what are the types of X" wants row labels; "how is X recognised" wants a sentence from the
text. The question's reading (``core.answering.reading``) says which from the frame of its asking clause;
where the frame leaves it open, the tables' structure decides (a question whose words no table label covers
is not a lookup in a table) and else the reading's measure (a line is looked up, a composed measure computed).

Each type says which TAT-QA answer type it corresponds to (``GOLD_KIND``), so the benchmark can print
the confusion between the type decided and the gold type.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from core.answering import operations as ops
from core.reports.values import YEAR_WORD

if TYPE_CHECKING:
    from core.answering.reading import QuestionReading

LOOKUP = "lookup"
"""One figure read from a table cell (or stated in a passage)."""
FIGURES = "figures"
"""Several figures, each with its label, in the order asked ("the respective values in 2019 and 2018")."""
COMPUTED = "computed"
"""A figure no single cell holds: a change, a sum, an average, a ratio, a percentage."""
ROW_LABELS = "row_labels"
"""One row label or several ("which component is the greatest", "what are the types of X")."""
COLUMN_HEADERS = "column_headers"
"""One column header or several ("in which year was X highest", "which years does the table cover")."""
TITLE = "title"
"""What a table is about: its title or subject ("what data does the table contain")."""
TEXT = "text"
"""A sentence or phrase from the text ("how is X recognised", "why did X decrease")."""
YES_NO = "yes_no"
"""Yes or no, with the evidence."""
COUNT = "count"
"""A count of rows or columns ("how many types of X are there", "how many years did X exceed N")."""

ANSWER_TYPES: tuple[str, ...] = (LOOKUP, FIGURES, COMPUTED, ROW_LABELS, COLUMN_HEADERS, TITLE, TEXT, YES_NO, COUNT)

GOLD_KIND: dict[str, str] = {
    LOOKUP: "span", FIGURES: "multi-span", COMPUTED: "arithmetic", ROW_LABELS: "span", COLUMN_HEADERS: "span",
    TITLE: "span", TEXT: "span", YES_NO: "span", COUNT: "count",
}
"""The TAT-QA answer type each answer type corresponds to (several labels or headers are a multi-span)."""


@dataclass(frozen=True)
class AnswerType:
    """The kind of answer a question wants, how it was decided, and whether it wants one part or several."""

    kind: str
    decided_by: str
    """"wording", "table" or "model": what settled it."""
    several: bool = False
    """Several labels or headers ("which years", "what are the types") rather than one."""

    @property
    def gold_kind(self) -> str:
        """The TAT-QA answer type this corresponds to."""
        if self.kind in (ROW_LABELS, COLUMN_HEADERS) and self.several:
            return "multi-span"
        return GOLD_KIND[self.kind]

    def describe(self) -> str:
        return f"{self.kind}{' (several)' if self.several else ''}, by {self.decided_by}"


def type_from_tables(question: str, label_words: Sequence[set[str]]) -> AnswerType | None:
    """What the tables' structure says when the wording did not: a question that names a year and whose
    subject a table's labels mostly cover is a lookup; one whose subject no table's label names at all is
    answered from the text. None when neither is clear."""
    asked = {w for w in ops.words(question) if not YEAR_WORD.fullmatch(w)}
    if not asked:
        return None
    best = max((len(asked & labels) / len(asked) for labels in label_words), default=0.0)
    if best >= 0.6 and YEAR_WORD.search(question):
        return AnswerType(LOOKUP, "table")
    if best == 0:
        return AnswerType(TEXT, "table")
    return None


def of_reading(reading: QuestionReading, label_words: Sequence[set[str]] = ()) -> AnswerType:
    """The question's answer type: the one its reading's frame settled ("in which year", "respective", "why"),
    else the one the tables' labels make clear (``type_from_tables``), else the reading's own (a lookup of a line,
    a computed measure)."""
    if reading.settled:
        return AnswerType(reading.kind, "wording", reading.several)
    if reading.computed:
        return AnswerType(COMPUTED, "wording")
    if reading.measure is not None and reading.years and (reading.query is None or reading.query.operation == "how_many"):
        return AnswerType(LOOKUP, "wording")  # "what was X in 2019": a line, in a period
    return type_from_tables(reading.text, label_words) or AnswerType(reading.kind, "reading", reading.several)
