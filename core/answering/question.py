"""A question analysed once: what the loop's stages ask of it, computed when it arrives.

Its content words, what it is about (without asking words and years), the operation its wording
suggests, whether it asks for an explanation, the statements it names, the scale it wants its answer in,
and the formula it asks to compute (``metrics.plan_for``). The loop reads these fields instead of
re-reading the text at every stage.
"""

from __future__ import annotations

from dataclasses import dataclass

from core.answering import operations as ops
from core.answering.metrics import Plan, plan_for
from core.answering.table_choice import question_words
from core.answering.vocabulary import statements_asked

_ASKING_WORDS = frozenset(ops.words(
    "much many more most less least larger largest smaller smallest higher highest lower lowest grew grow growth "
    "change changed increase decrease difference than compared between there give tell show list listed percent "
    "percentage average sum ratio all any each per number can you me about according report document please "
    "table tables respective respectively above below first second third based values items components "
    "proportion share portion rate"))
"""Words a question uses for how it asks, not for what it asks about: they make no passage relevant."""


@dataclass(frozen=True)
class Question:
    text: str
    words: frozenset[str]
    """Content words (``operations.words``)."""
    topic: frozenset[str]
    """What it asks about: content words without years, figures and asking words."""
    hint: str | None
    """The operation its wording suggests (``operations.operation_hint``)."""
    explains: bool
    """It asks why or how, or what something means: the text answers it."""
    statements: frozenset[str]
    """The statements it names ("cash_flows", "balance_sheet", "income")."""
    wanted_scale: str
    """The scale it asks its answer in ("billion"), or ""."""
    plan: Plan | None
    """The measure it asks to compute, as a formula over named quantities, or None."""

    @property
    def computed(self) -> bool:
        """Its answer is a figure no single cell holds (a difference, a sum, a ratio, ...)."""
        return self.hint in ops.NEW_FIGURES


def topic_of(text: str) -> frozenset[str]:
    """What a question asks about: its content words without years, figures and asking words."""
    return frozenset({w for w in question_words(text) if not any(ch.isdigit() for ch in w)} - _ASKING_WORDS)


def analyse(text: str) -> Question:
    """The question's analysis, once, for every stage of the loop."""
    return Question(text, frozenset(ops.words(text)), topic_of(text), ops.operation_hint(text),
                    ops.asks_for_explanation(text), frozenset(statements_asked(text)), ops.wanted_scale(text),
                    plan_for(text))
