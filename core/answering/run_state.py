"""The state of one question as the answering loop goes (``Run``), and what every kind of step uses:
the model calls with their one repair loop, retrieval into the shared context, and the checks a text
answer must pass. ``AnswererBase`` holds the library, retriever, SQL runner and model the steps share;
the steps themselves are ``table_step`` (SQL over a table, checked against the text) and ``formula_step``
(a formula over cells of connected tables); ``loop`` plans and assembles the answer.
"""

from __future__ import annotations

import dataclasses
import json
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from core.answering import (
    answer_types,
    sentences,
)
from core.answering import citations as cite
from core.answering import operations as ops
from core.answering.metrics import Plan
from core.answering.prompts import CONTEXT_TOKEN_BUDGET, Context, messages, token_counter
from core.answering.reading import QuestionReading, read
from core.answering.table_choice import label_words, question_words, rank_tables
from core.errors import Cancelled, UserError
from core.jobs import JobContext
from core.library.store import Library
from core.search.retrieval import Retriever
from core.sql.runner import SqlRunner
from models.errors import ModelError, ModelOutputError
from models.protocols import ChatModel, capabilities_of
from models.types import ChatMessage, Chunk, Citation, ProgressEvent, Step, Usage

_T = TypeVar("_T")

MAX_ITERATIONS = 5
MAX_REPAIRS = 2
RECALL = 30
MAX_TABLES = 2
MAX_TEXTS = 3
MODES = ("tablerag", "naive")
SQL_STYLES = ("auto", "structured", "free")
EMPTY_LIBRARY = "Add a PDF first: the library is empty, so there is nothing to answer from."
REFUSAL = "The library does not seem to hold the answer to this question, so I give no figure."
CLOSEST_TEXTS = 2
_NO_ANSWER_TEXT = re.compile(
    r"^\W*(unknown|n/?a|none|no answer|no (information|data|figure)\b|not (reported|stated|given|mentioned|"
    r"available|found|provided|specified|disclosed)\b|(it is |this is |that is )?not (in|stated in|given in|"
    r"found in|mentioned in) the (text|passages?|library|context|documents?)|cannot be (determined|answered|found)|"
    r"the (text|passages?|context) (does|do) not)",
    re.IGNORECASE,
)
FIGURE = re.compile(r"(?<![\w.])-?\d[\d,]*(?:\.\d+)?")


TIME_BUDGET = 60.0
"""Seconds a question may take on a local model: past them the answer is the best evidence found so far."""
WRAP_UP_SECONDS = 1.0
"""Of the budget, the seconds kept for what follows the last model call (typing, wording and citing the answer), so
an answer stopped by the time limit still comes within it."""
MIN_CALL_SECONDS = 4.0
"""A model call is not started with less time than this left: it would be cut off before it could answer."""


_WORDS_OF_AN_EXPLANATION = re.compile(r"[A-Za-z]{3,}\W+[A-Za-z]{2,}")
"""Two words or more in a row: what an answer to "why" or "how" says ("annual basis"; a figure with its unit
alone, "4.00%" or "$1.2 million", is none)."""


class OutOfTime(Exception):
    """The question's time budget ran out (before or during a model call): answer with what was found so far."""

    def __init__(self, stage: str) -> None:
        super().__init__(stage)
        self.stage = stage


@dataclass
class Deadline:
    """When a question's time runs out (``time.perf_counter`` seconds); None budget: never."""

    budget: float | None
    started: float = field(default_factory=time.perf_counter)

    def left(self) -> float:
        return float("inf") if self.budget is None else self.budget - (time.perf_counter() - self.started)

    @classmethod
    def for_question(cls, budget: float | None) -> Deadline:
        """The deadline of the model's work on a question answered within ``budget`` seconds in all."""
        return cls(None if budget is None else max(budget - WRAP_UP_SECONDS, 0.0))


def default_sql_style(chat: ChatModel) -> str:
    """Free SQL for models that declare they can write it (served ones, usually larger), structured otherwise."""
    return "free" if capabilities_of(chat).supports_free_sql else "structured"


def parse_json_object(text: str) -> dict[str, Any]:
    """The JSON object in a reply (tolerating code fences or chatter around it)."""
    cleaned = text.strip()
    try:
        value = json.loads(cleaned)
    except json.JSONDecodeError:
        match = re.search(r"\{.*\}", cleaned, re.DOTALL)
        if match is None:
            raise ModelOutputError(f"The model replied without JSON: {cleaned[:120]!r}") from None
        value = json.loads(match.group(0))
    if not isinstance(value, dict):
        raise ModelOutputError("The model's JSON is not an object.")
    return value


@dataclass
class Run:
    """The state of one question as the loop goes."""

    question: str
    context: Context
    likeliest: list[ops.TableView] = field(default_factory=list)
    """The question's likeliest tables (``MAX_TABLES``) as code reads them: the same whatever model answers, where
    the context holds only what the model's prompt has room for."""
    steps: list[Step] = field(default_factory=list)
    citations: list[Citation] = field(default_factory=list)
    usage: Usage = field(default_factory=Usage)
    table_chunks: dict[int, Chunk] = field(default_factory=dict)
    chunk_ids: list[int] = field(default_factory=list)
    views: dict[int, ops.TableView | None] = field(default_factory=dict)
    ctx: JobContext = field(default_factory=JobContext)
    names: cite.SourceNames | None = None
    findings: list[Finding | None] = field(default_factory=list)
    """Parallel to ``steps``: what each step found, in words, or None."""
    read: list[str] = field(default_factory=list)
    """Every passage and table chunk retrieved: what a figure in a text answer must be found in."""
    asked: QuestionReading | None = None
    """The question read once (``core.answering.reading``)."""
    plans: list[Plan] = field(default_factory=list)
    """What the reading's measure compiles to (``metrics.plans_of``): one plan a figure asked."""
    tried: list[Step] = field(default_factory=list)
    """Steps that failed before the loop's own (a formula whose values no row holds), shown first."""
    read_tables: dict[int, list[str]] = field(default_factory=dict)
    """Table id -> the texts of its chunks among ``read``: where a figure read off a table's rows came from."""
    read_passages: list[str] = field(default_factory=list)
    """The text passages among them: where a computed figure (a difference, a sum) must be found when the
    text, not SQL, answers a question asking for one; a table cell that happens to hold it is a copy."""
    answer_type: answer_types.AnswerType | None = None  # answer types (issue 13)
    task_usage: dict[str, tuple[int, int]] = field(default_factory=dict)
    """Kind of call ("Planning", "SQL", ...) -> (calls, prompt tokens), for ``Answer.task_usage``."""
    failures: list[str] = field(default_factory=list)
    """What failed since the last step was recorded (``Step.failures``): nothing a model got wrong is hidden."""
    deadline: Deadline = field(default_factory=lambda: Deadline(None))
    """When the question's time runs out."""
    first_document: int | None = None
    """The document routing put first among several it chose by what the question is about: the model's query plan
    is asked over its tables before the others' (routing's first is the asker's document more often than the
    best-scored table's is; code's own queries keep the tables' rank, where a table's labels decide)."""
    model_planned: bool = False
    """The model was asked for a query plan over the rows (once a question)."""
    unplanned_table: int | None = None
    """The table whose rows the model's query plan was over when every plan it gave failed its checks: cells chosen
    from it one by one (the operation choice's count of chosen cells, one row's figure) would not answer a question
    over its rows either, so the loop's later steps read the passages there instead."""
    unplanned_why: str = ""
    """Why the last of those plans failed, said in a refusal (what was tried)."""
    stopped: str = ""
    """What the run had not got to when its time ran out ("" while it had time)."""
    missing: str = ""
    """What the computation of the measure asked could not find ("net debt to EBITDA (No table row for “short-term
    debt” in 2021.)"), said in a refusal so a person knows which part is missing."""
    read_by_model: bool = False
    """The model was asked to read the question (once a question at most)."""
    query_parts: tuple[str, ...] = ()
    """The parts of an answer a query plan gave (the groups ranked, the items listed), or the figures of several
    computed in turn ("the respective X in 2018 and 2019")."""
    measure_printed: bool = False
    """The report prints the measure the question names as a line of its own: it is looked up, never composed."""

    def take_failures(self) -> tuple[str, ...]:
        """The failures to record on the step being made (and none left for the next one)."""
        taken, self.failures = tuple(self.failures), []
        return taken


@dataclass(frozen=True)
class Finding:
    """A step's answer as the user will read it: the sentence, the bare value, how it was checked."""

    sentence: str
    value: str
    status: str
    from_sql: bool
    computed: bool = False
    """SQL computed a figure no single cell holds (a sum, a difference): the answer is a computed figure."""


class AnswererBase:
    """The parts of an answerer every step uses."""

    def __init__(self, library: Library, retriever: Retriever, sql_runner: SqlRunner, chat: ChatModel, *,
                 mode: str = "tablerag", max_iterations: int = MAX_ITERATIONS, sql_style: str = "auto",
                 time_budget: float | None = TIME_BUDGET) -> None:
        if mode not in MODES:
            raise ValueError(f"mode must be one of {MODES}, not {mode!r}")
        if sql_style not in SQL_STYLES:
            raise ValueError(f"sql_style must be one of {SQL_STYLES}, not {sql_style!r}")
        self.library = library
        self.retriever = retriever
        self.sql_runner = sql_runner
        self.chat = chat
        self.mode = mode
        self.max_iterations = max(1, min(max_iterations, MAX_ITERATIONS))
        self.sql_style = default_sql_style(chat) if sql_style == "auto" else sql_style
        self.time_budget = time_budget
        """Seconds a question may take before it is answered with what was found so far (None: no limit)."""
        self._count_tokens = token_counter(chat)

    @staticmethod
    def _stage(run: Run, stage: str, message: str, done: int = 0) -> None:
        """Tell the caller which stage the answer is in (the window shows it with the time taken so far)."""
        run.ctx.check()
        run.ctx.report(ProgressEvent(stage, message, done, MAX_ITERATIONS))


    def _retrieve(self, query: str) -> list[Chunk]:
        """Every chunk the hybrid search recalls, best first: tables are ranked from all of them."""
        return self.retriever.search(query, k=RECALL, recall=RECALL)

    def _table_name(self, table_id: int) -> str | None:
        info = self.library.table(table_id)
        return info.name if info else None

    def _add_to_context(self, run: Run, query: str, chunks: Sequence[Chunk]) -> list[ops.TableView]:
        """Append the likeliest tables for ``query`` and the best passages, while the context stays under
        its token budget; return the candidate tables, likeliest first."""
        context = run.context
        for chunk in chunks:
            if chunk.id not in run.chunk_ids:
                run.chunk_ids.append(chunk.id)
                run.read.append(chunk.text)
                if chunk.kind == "text":
                    run.read_passages.append(chunk.text)
                elif chunk.table_id is not None:
                    run.read_tables.setdefault(chunk.table_id, []).append(chunk.text)
            if chunk.kind == "table" and chunk.table_id is not None:
                run.table_chunks.setdefault(chunk.table_id, chunk)
        ranked = rank_tables(f"{query} {run.question}" if query != run.question else query, chunks,
                             lambda table_id: self._view(run, table_id))
        if not run.likeliest:
            run.likeliest = list(ranked[:MAX_TABLES])
        for view in ranked:
            if len(context.tables) >= MAX_TABLES:
                break
            if any(t.info.id == view.info.id for t in context.tables):
                continue
            context.tables.append(view)
            if len(context.tables) > 1 and self._count_tokens(context.block()) > CONTEXT_TOKEN_BUDGET:
                context.tables.pop()
        for chunk in chunks:
            if len(context.texts) >= MAX_TEXTS:
                break
            if chunk.kind == "text" and all(c.id != chunk.id for c in context.texts):
                context.texts.append(chunk)
                if len(context.texts) > 1 and self._count_tokens(context.block()) > CONTEXT_TOKEN_BUDGET:
                    context.texts.pop()
        return ranked

    def _view(self, run: Run, table_id: int) -> ops.TableView | None:
        if table_id not in run.views:
            info = self.library.table(table_id)
            run.views[table_id] = ops.load_table_view(self.library, info) if info is not None else None
        return run.views[table_id]

    def _pick_table(self, run: Run, ranked: Sequence[ops.TableView], subquery: str) -> ops.TableView | None:
        """The most likely table in the context: the first of the sub-question's ranked candidates that
        is in the context, then the context's own order; for structured steps, only tables that share
        a word with the sub-question."""
        in_context = {v.info.id for v in run.context.tables}
        ordered: list[ops.TableView] = []
        for view in [*(v for v in ranked if v.info.id in in_context), *run.context.tables]:
            if all(view.info.id != seen.info.id for seen in ordered):
                ordered.append(view)
        if self.sql_style == "structured":
            ordered = [v for v in ordered if self._table_is_relevant(v, subquery)]
        return ordered[0] if ordered else None

    @staticmethod
    def _table_is_relevant(view: ops.TableView, subquery: str) -> bool:
        """Worth an operation step: the sub-question shares a word (not a bare year) with the table's
        row labels, column headers or caption. A small model asked to pick cells always picks some,
        even from the wrong table or for a question only the text can answer."""
        return bool(question_words(subquery) & label_words(view))


    def _context_citations(self, run: Run, query: str = "") -> list[Citation]:
        names = run.names or cite.SourceNames(self.library)
        out = [self._narrowed(cite.chunk_citation(c, label=names.label(c.document_id, c.page, fallback=c.document)),
                              c, query or run.question)
               for c in run.context.texts]
        for view in run.context.tables:
            chunk = run.table_chunks.get(view.info.id)
            if chunk is not None:
                label = names.label(view.info.document_id, chunk.page, view.info, view.info.document)
                out.append(cite.chunk_citation(chunk, table=view.name, label=label))
        return out

    def _narrowed(self, citation: Citation, chunk: Chunk, query: str) -> Citation:
        """A passage's citation highlighting only the sentences that answer ``query`` (never the page's
        headers, footers or number); unchanged when the PDF cannot be read now."""
        document = self.library.document(chunk.document_id)
        if document is None or not chunk.boxes:
            return citation
        picked = sentences.answering_sentences(Path(document.path), chunk.page, chunk.boxes, query)
        if not picked:
            return citation
        boxes = tuple(box for sentence in picked for box in sentence.boxes)
        return dataclasses.replace(citation, boxes=boxes, bbox=cite.union_box(boxes),
                                   snippet=cite.snippet(" ".join(s.text for s in picked)))


    def _call(self, run: Run, task: str, schema: dict[str, Any], max_tokens: int, what: str = "",
              extra: Sequence[ChatMessage] = (), alone: bool = False) -> dict[str, Any]:
        """One model call over the run's context and steps with ``task`` last (``alone``: the task by itself, for
        a call that needs no table or passage, such as reading the question)."""
        prompt = [ChatMessage("user", task)] if alone else messages(run.context, run.steps, task)
        ctx, deadline = run.ctx, run.deadline
        if deadline.left() < MIN_CALL_SECONDS:
            raise OutOfTime(what or "a model call")

        generated = 0
        started = time.perf_counter()

        def on_token(_token: str) -> None:
            nonlocal generated
            generated += 1
            ctx.check()  # every generated token checks for a stop request, so Stop ends even a long call
            if deadline.left() <= 0:
                raise OutOfTime(what or "a model call")
        try:
            reply = self.chat.chat([*prompt, *extra], schema=schema, max_tokens=max_tokens, on_token=on_token)
        except ModelError as exc:  # a failed call is counted like any other: its tokens and seconds were spent
            if exc.usage is not None:
                self._count(run, what, exc.usage)
            raise
        except (OutOfTime, Cancelled):  # stopped by the time limit or by the person: spent all the same
            self._count(run, what, Usage(1, 0, generated, time.perf_counter() - started))
            raise
        self._count(run, what, reply.usage)
        return parse_json_object(reply.text)

    @staticmethod
    def _count(run: Run, what: str, usage: Usage) -> None:
        run.usage = run.usage + Usage(1, usage.prompt_tokens, usage.completion_tokens, usage.seconds,
                                      reused_tokens=usage.reused_tokens)
        calls, tokens = run.task_usage.get(what, (0, 0))
        run.task_usage[what] = (calls + 1, tokens + usage.prompt_tokens)

    def _model_for(self, run: Run, what: str, max_tokens: int) -> Callable[[str, dict[str, Any]], dict[str, Any]]:
        """A model call for a module that handles a failed reply itself (answer types, composition): a reply
        that cannot be used raises ValueError there, as their contract says, and is recorded on the next step."""
        def call(task: str, schema: dict[str, Any]) -> dict[str, Any]:
            try:
                return self._call(run, task, schema, max_tokens=max_tokens, what=what)
            except (ModelOutputError, ValueError) as exc:
                run.failures.append(f"{what}: {exc}")
                raise ValueError(str(exc)) from exc
        return call

    def _ask_model(self, run: Run, what: str, task: str, schema: dict[str, Any], max_tokens: int,
                   alone: bool = False) -> dict[str, Any] | None:
        """One model call whose failure (no JSON, a reply outside the schema) is recorded on the next step
        as ``what: error``; None when it failed and the caller goes on without it."""
        try:
            return self._call(run, task, schema, max_tokens=max_tokens, what=what, alone=alone)
        except (ModelOutputError, ValueError) as exc:
            run.failures.append(f"{what}: {exc}")
            return None

    def _with_repairs(self, run: Run, what: str, task: str, schema: dict[str, Any], max_tokens: int,
                      attempt: Callable[[dict[str, Any]], _T],
                      repair: Callable[[dict[str, Any] | None, Exception], str],
                      alone: bool = False, repairs_allowed: int = MAX_REPAIRS) -> tuple[_T | None, str]:
        """The one repair loop every step shares: ask the model, try its reply with ``attempt``; a reply that
        fails (no JSON, a choice outside the lists, a formula outside the grammar, SQL that errs or finds
        nothing) goes back with ``repair``'s message naming the error, at most ``repairs_allowed`` times. Each
        failure is recorded (``run.failures``, shown on the step). Returns what ``attempt`` gave, or None and
        the last error. ``alone``: the task by itself, without the run's tables and passages (``_call``)."""
        repairs: list[str] = []
        error = ""
        failed: list[dict[str, Any]] = []
        for tried in range(1 + repairs_allowed):
            data: dict[str, Any] | None = None
            try:
                data = self._call(run, "\n\n".join([task, *repairs]), schema, max_tokens=max_tokens, what=what,
                                  alone=alone)
                if data in failed:
                    # the reply that already failed, word for word: the error named did not move the model, and
                    # another call would cost the question's time for the same reply (a 1.5B model repeats itself)
                    run.failures.append(f"{what}: the same reply again after the repair; given up")
                    return None, error
                return attempt(data), ""
            except (ModelOutputError, ValueError, UserError) as exc:  # FormulaError and InvalidChoice are ValueErrors
                error = str(exc)
                run.failures.append(f"{what}: {error}")
                if tried < repairs_allowed:  # (the last attempt's repair message would go nowhere)
                    repairs.append(repair(data, exc))
                if data is not None:
                    failed.append(data)
        return None, error

    @staticmethod
    def _asked(run: Run) -> QuestionReading:
        if run.asked is None:
            run.asked = read(run.question)
        return run.asked

    def _usable_text(self, run: Run, text: str) -> bool:
        """A text answer worth giving: it answers (not "not stated"), and each figure in it is in a
        passage or a table the loop read, or in a step's result. A table no query plan over its rows passed the
        checks of (``Run.unplanned_table``) vouches for no figure: the model picking a cell of it in a text answer
        ("18", the figure of a row of the other table of two stacked ones) is the cell choice refused there."""
        if not text.strip() or _NO_ANSWER_TEXT.search(text):
            return False
        if self._asked(run).explains and not _WORDS_OF_AN_EXPLANATION.search(FIGURE.sub(" ", text)):
            return False  # "how is the discount rate determined?": a figure is no explanation
        figures = {self._figure(f) for f in FIGURE.findall(text)} - {None}
        if not figures:
            return not self._unplanned_label(run, text)
        computed = self._asked(run).computed
        known: set[float] = set()
        unplanned = run.read_tables.get(run.unplanned_table, []) if run.unplanned_table is not None else []
        sources = [*(run.read_passages if computed else [t for t in run.read if t not in unplanned]),
                   *(c.text for c in run.context.texts),
                   *(s.intermediate_answer for s in run.steps if s.sql and not s.sql_error)]
        for source in sources:
            known.update(f for f in (self._figure(m) for m in FIGURE.findall(source)) if f is not None)
        for view in run.context.tables if not computed else ():
            if view.info.id == run.unplanned_table:
                continue
            known.update(round(float(v), 4) for row in view.values.values() for v in row if ops.is_number(v))
        # a small figure is often written in words ("three segments"); after a plan over the rows failed, a small
        # count the model gives ("2" demands, "0" programs) is as likely a guess, and must be printed somewhere
        small = run.unplanned_table is None
        if not all(f in known or (small and abs(f) < 10) for f in figures if f is not None):
            return False
        asked = self._asked(run)
        how_many = asked.query is not None and asked.query.operation in ("how_many", "count")
        if asked.kind == "count" or how_many:
            # a count only a passage stating it beside what it counts answers ("10 substances"), not a figure printed
            # anywhere ("2" of a cell) nor one the model counted itself (on the table benchmarks' probes, none of 14
            # such counts was right); of "how many X" asked of a line, the small figures a word may say elsewhere
            passages = [" ".join(p.split()) for p in (*run.read_passages, *(c.text for c in run.context.texts))]
            return all(_states_a_count(figure, asked.content, passages) for figure in figures
                       if figure is not None and (asked.kind == "count" or abs(figure) < 10))
        # "which instances had more than 1,300 courses": a figure names no row
        return asked.kind != answer_types.ROW_LABELS or bool(FIGURE.sub(" ", text).strip(" .,;:%$"))

    @staticmethod
    def _unplanned_label(run: Run, text: str) -> bool:
        """The words are a value of the table no plan over its rows passed the checks of ("Japan" of its three
        countries) that no passage read says: a cell of it picked, as a figure of it would be."""
        view = next((v for v in run.context.tables if v.info.id == run.unplanned_table), None)
        said = " ".join(text.split()).strip(" .").lower()
        if view is None or not said:
            return False
        labels = {" ".join(str(v).split()).lower() for row in view.values.values() for v in row if isinstance(v, str)}
        # one value, or several listed ("Finland, Sweden and Norway": three of its rows named)
        parts = [said] if said in labels else [p for p in re.split(r"\s*(?:[,;]|\band\b)\s*", said) if p]
        passages = [p.lower() for p in (*run.read_passages, *(c.text for c in run.context.texts))]
        return bool(parts) and all(part in labels and not any(part in p for p in passages) for part in parts)

    @staticmethod
    def _figure(text: str) -> float | None:
        try:
            return round(abs(float(text.replace(",", ""))), 4)
        except ValueError:
            return None


_NUMBER_NAMES = ("no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve")


def _states_a_count(figure: float, content: Sequence[str], passages: Sequence[str]) -> bool:
    """A passage prints ``figure`` (in figures, or in words up to twelve) within a few words of a content word of
    the question ("10 of the substances", "three segments")."""
    number = f"{figure:g}"
    words = [re.escape(w[:5]) for w in content if len(w) >= 4]
    if not words:
        return False
    said = rf"(?<![\d.,]){re.escape(number)}(?![\d.,]\d)"
    if figure == int(figure) and 0 <= figure < len(_NUMBER_NAMES):  # "three segments"
        said = rf"(?:{said}|\b{_NUMBER_NAMES[int(figure)]}\b)"
    near = re.compile(rf"{said}(?:\W+\w+)?\W+(?:{'|'.join(words)})|(?:{'|'.join(words)})\w*(?:\W+\w+){{0,3}}?\W+{said}",
                      re.IGNORECASE)
    # (a table's, a figure's or a page's number is none: "Table 2 lists the notices")
    return any(not re.search(r"\b(?:table|figure|fig|page|p|section|note|chart)\W*$", p[: m.start()], re.IGNORECASE)
               for p in passages for m in near.finditer(p))
