"""The one place errors, and the notes that qualify an answer, become words for people (CLI and window
alike)."""

from __future__ import annotations

from core.errors import Cancelled, UserError
from models.errors import ModelError
from models.types import Answer

ANSWER_NOTES = {
    "checked": "Checked: a passage states the same figure.",
    "unchecked": "Not cross-checked: computed from the table; no passage states this figure.",
    "conflict": "The table and the text disagree",
    "text": "From the text only; no table figure to check it against.",
    "refused": "",
}


ANSWER_KINDS = {
    "lookup": "a figure looked up in a table",
    "figures": "several figures, in the order asked",
    "computed": "a computed figure",
    "row_labels": "row labels of a table",
    "column_headers": "a year or period (a column header)",
    "title": "what a table is about",
    "text": "words from the text",
    "yes_no": "yes or no",
    "count": "a count",
}
"""What each answer type (``core.answering.answer_types``) is called where people read it."""


def describe(error: BaseException) -> str:
    if isinstance(error, Cancelled):
        return "Cancelled."
    if isinstance(error, (UserError, ModelError)) and getattr(error, "user_fixable", True):
        return str(error)
    if isinstance(error, ModelError):
        return f"The language model failed: {error}"
    if isinstance(error, MemoryError):
        return "Folio ran out of memory. Close other programs or add smaller files."
    if isinstance(error, OSError) and error.errno == 28:
        return "The disk is full. Free some space and try again; nothing was changed."
    return f"Something went wrong inside Folio ({type(error).__name__}: {error}). Please report this."


def plural(count: int, word: str, many: str = "") -> str:
    """ "1 page", "3 pages", "1 library", "2 libraries" (``many`` when the plural is not word + "s")."""
    return f"{count:,} {word if count == 1 else (many or word + 's')}"


def answer_note(answer: Answer) -> str:
    """A line saying how far an answer can be trusted (checked, not cross-checked, in conflict), or ""."""
    if answer.mode == "naive" and answer.status != "refused":
        return "Simple mode: the model's own words from the passages found; nothing was computed or checked."
    note = ANSWER_NOTES.get(answer.status, "")
    if answer.status == "conflict":
        detail = next((s.conflict for s in answer.steps if s.conflict), "")
        return f"{note}: {detail}." if detail else f"{note}."
    return note


def answer_kind(answer: Answer) -> str:
    """The kind of answer the question was taken to want ("Answered as a year or period (a column header)."),
    so a person sees why a year, a label or a sentence came back rather than a figure; "" for a refusal."""
    kind = ANSWER_KINDS.get(answer.answer_type, "")
    return f"Answered as {kind}." if kind and answer.status != "refused" else ""
