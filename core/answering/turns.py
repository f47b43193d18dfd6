"""A question as a turn of a conversation: read against the questions before it, and answered one figure at a
time when it compares.

``answer_turn`` runs before the answering loop takes a question on its own. A follow-up ("and in 2017?") is
written out in full against the conversation's earlier questions (``core.answering.followup``) and answered as
that question; ``Answer.read_as`` then says how it was understood, so a wrong carry-over shows. A comparison
(``core.answering.comparison``: several issuers the library knows, or periods set against each other) is asked
one figure at a time of the same loop, each routed to its own documents by the issuer and period its question
names, and the answers are combined in code. Anything else is the loop's alone (None).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from typing import Protocol

from core.answering.comparison import Comparison, combine, comparison_of
from core.answering.followup import understood
from core.answering.reading import read
from core.jobs import JobContext
from core.library.store import Library
from core.search.routing import issuer_names
from models.types import Answer, ProgressEvent, Step


class Answering(Protocol):
    """What a turn needs of the answering loop (``core.answering.loop.Answerer``)."""

    library: Library
    mode: str

    def answer(self, question: str, ctx: JobContext | None = None, on_token: Callable[[str], None] | None = None,
               on_step: Callable[[Step], None] | None = None, documents: Sequence[int] | None = None,
               earlier: Sequence[str] = ()) -> Answer: ...


def answer_turn(answerer: Answering, question: str, earlier: Sequence[str], ctx: JobContext,
                on_token: Callable[[str], None] | None, on_step: Callable[[Step], None] | None,
                documents: Sequence[int] | None) -> Answer | None:
    """``question`` answered as a turn of its conversation (``earlier``: the questions before it as understood,
    most recent last), or None when it is a question for the loop alone: no follow-up and no comparison.
    ``documents`` (the person chose where to ask) rules out splitting it over issuers and periods."""
    known = known_issuers(answerer.library)
    names = [name for group in known for name in group]
    reading = read(question, names)
    read_as = understood(reading, earlier, names) if earlier else None
    compared = None
    if documents is None and answerer.mode == "tablerag":
        compared = comparison_of(read(read_as, names) if read_as else reading, known)
    if compared is not None:
        answer = _compared(answerer, compared, ctx, on_step)
    elif read_as is not None:
        answer = answerer.answer(read_as, ctx, on_token, on_step, documents)
    else:
        return None
    return dataclasses.replace(answer, question=question, read_as=read_as or "")


def known_issuers(library: Library) -> list[tuple[str, ...]]:
    """For each issuer the library's documents name, the names a question may call it by, each issuer once."""
    groups = (tuple(issuer_names(m.issuer)) for m in library.document_metadata().values() if m.issuer)
    return list(dict.fromkeys(group for group in groups if group))


def _compared(answerer: Answering, comparison: Comparison, ctx: JobContext,
              on_step: Callable[[Step], None] | None) -> Answer:
    """Each figure asked of the loop on its own (its progress said with what it is of), then one answer."""
    answers = []
    questions = comparison.questions()
    for subject, part in zip(comparison.subjects, questions):
        ctx.check()

        def report(event: ProgressEvent, subject: str = subject) -> None:
            if event.stage != "done":  # the part is done; the comparison is not
                ctx.report(dataclasses.replace(event, message=f"{subject}: {event.message}" if event.message else ""))

        answers.append(answerer.answer(part, JobContext(report, ctx.token), None, on_step))
    ctx.check()
    answer = combine(comparison, answers)  # computed, not written: shown whole, nothing to stream
    ctx.report(ProgressEvent("done", "Answered" if answer.status != "refused" else "No answer found"))
    return answer
