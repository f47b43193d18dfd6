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
