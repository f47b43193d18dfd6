"""The TableRAG answering loop: decompose, retrieve, SQL, intermediate answer; at most five times.

Each iteration: (1) the model, shown the tables behind the retrieved chunks and the passages, gives
ONE sub-question or the final answer; (2) hybrid retrieval for the sub-question adds passages and
tables to the context; (3) SQL over the most likely table: for small models (``sql_style
"structured"``) the model only chooses an operation and cells by their real labels, which is
compiled to SQL; stronger models write free SQL (``"free"``); either way an error or an empty
result goes back to the model at most twice; (4) the intermediate answer cross-checks the SQL
result against the text, falls back to the text when SQL failed, and records conflicts.

Before the loop, a question that asks for a computed measure ("the FY2020 working capital ratio, defined
as ...", "the 3 year average net profit margin", "the revenue CAGR from 2020 to 2022") is read into a
formula over named quantities (``core.answering.metrics``); each quantity is bound to one cell of the
connected tables (the document's statements and what search finds for it, ``core.answering.binding``),
and the formula runs as one read-only SQL statement over those cells (``core.answering.formula``), each
table's cells cited. Where the question spans statements and no rule reads it, the model composes the
formula from a list of the connected tables' cells instead. Either way a failure is recorded as a step
and the loop below goes on.

Numbers in answers come from SQL results formatted in code, never from the model copying them:
the final answer is a sentence made from the SQL result and the table's labels and units
(``operations.describe_in_words``), with its source; an answer from the text is kept only when every
figure in it appears in a passage or cell the loop read. Without evidence there is no figure: an
empty library is answered at once, without a model call, and a question nothing in the library is
about, or that neither SQL nor the text could answer, gets a refusal naming the closest passages and
tables. Each answer says whether the text confirmed it (``Answer.status``). Citations come from the
chunks and cells actually used (``core.answering.citations``), passages narrowed to the sentences
that answer (``core.answering.sentences``).

Progress: the loop reports each stage through ``JobContext.report`` (searching, reading a table,
computing, checking against the text, writing) and checks for cancellation between stages and on
every token the model generates, so a stop request ends even a long model call.
"""

from __future__ import annotations

import dataclasses
import json
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from core.answering import (
    answer_types,
    binding,
    compose,
    computation,
    formula,
    metrics,
    sentences,
    text_facts,
)
from core.answering import citations as cite
from core.answering import operations as ops
from core.answering.naive import naive_answer
from core.answering.prompts import CONTEXT_TOKEN_BUDGET, Context, messages, render, token_counter
from core.answering.question import Question, analyse, topic_of
from core.answering.table_choice import label_words, question_words, rank_tables
from core.errors import UserError
from core.jobs import JobContext
from core.library import Library, TableInfo
from core.retrieval import Retriever
from core.routing import Route, route_question
from core.sql_runner import SqlResult, SqlRunner
from models.errors import ModelOutputError
from models.protocols import ChatModel, capabilities_of
from models.types import Answer, ChatMessage, Chunk, Citation, ProgressEvent, Step, Usage

MAX_ITERATIONS = 5
MAX_REPAIRS = 2
RECALL = 30
MAX_TABLES = 2
MAX_TEXTS = 3
MODES = ("tablerag", "naive")
SQL_STYLES = ("auto", "structured", "free")
_ARITHMETIC = frozenset({"difference", "percent_change", "sum", "average", "ratio", "percentage", "count", "top_row",
                         "bottom_row"})
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
_FIGURE = re.compile(r"(?<![\w.])-?\d[\d,]*(?:\.\d+)?")


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
class SqlOutcome:
    """What the SQL stage produced for one sub-question."""

    table: TableInfo | None = None
    sql: str | None = None
    result: SqlResult | None = None
    error: str | None = None
    answer: str = ""
    cells: list[Any] = field(default_factory=list)
    words: str = ""
    """The result as a sentence (``operations.describe_in_words``), without its source."""
    joined: list[tuple[TableInfo, list[Any]]] = field(default_factory=list)
    """Other tables free SQL read (a join), with the cells it read from each."""

    @property
    def ok(self) -> bool:
        return self.result is not None and self.error is None and bool(self.answer)


@dataclass
class _Run:
    """The state of one question as the loop goes."""

    question: str
    context: Context
    steps: list[Step] = field(default_factory=list)
    citations: list[Citation] = field(default_factory=list)
    usage: Usage = field(default_factory=Usage)
    table_chunks: dict[int, Chunk] = field(default_factory=dict)
    chunk_ids: list[int] = field(default_factory=list)
    views: dict[int, ops.TableView | None] = field(default_factory=dict)
    ctx: JobContext = field(default_factory=JobContext)
    names: cite.SourceNames | None = None
    findings: list[_Finding | None] = field(default_factory=list)
    """Parallel to ``steps``: what each step found, in words, or None."""
    read: list[str] = field(default_factory=list)
    """Every passage and table chunk retrieved: what a figure in a text answer must be found in."""
    asked: Question | None = None
    """The question analysed once (``core.answering.question``)."""
    tried: list[Step] = field(default_factory=list)
    """Steps that failed before the loop's own (a formula whose values no row holds), shown first."""
    read_passages: list[str] = field(default_factory=list)
    """The text passages among them: where a computed figure (a difference, a sum) must be found when the
    text, not SQL, answers a question asking for one; a table cell that happens to hold it is a copy."""
    answer_type: answer_types.AnswerType | None = None  # answer types (issue 13)


@dataclass(frozen=True)
class _Finding:
    """A step's answer as the user will read it: the sentence, the bare value, how it was checked."""

    sentence: str
    value: str
    status: str
    from_sql: bool

class Answerer:
    """Answers questions over a library, TableRAG-style or NaiveRAG-style, with cited evidence."""

    def __init__(self, library: Library, retriever: Retriever, sql_runner: SqlRunner, chat: ChatModel, *,
                 mode: str = "tablerag", max_iterations: int = MAX_ITERATIONS, sql_style: str = "auto") -> None:
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
        self._count_tokens = token_counter(chat)

    # -- entry point ---------------------------------------------------------------------------------

    def answer(self, question: str, ctx: JobContext | None = None, on_token: Callable[[str], None] | None = None,
               on_step: Callable[[Step], None] | None = None, documents: Sequence[int] | None = None) -> Answer:
        question = " ".join(question.split())
        if not question:
            raise UserError("The question is empty.")
        ctx = ctx or JobContext()
        # The documents first (core.routing), then tables and passages; or the documents the person chose.
        route = route_question(question, self.library) if documents is None else \
            Route(tuple(documents), "asked in the documents chosen")
        self.retriever.limit_to(route.document_ids)
        if not self._has_documents():  # nothing to answer from: no search, no model call
            return self._deliver(ctx, Answer(question, EMPTY_LIBRARY, mode=self.mode, model=self.chat.name,
                                             status="refused"), on_token)
        if self.mode == "naive":
            return naive_answer(question, self.retriever, self.chat, ctx=ctx, on_token=on_token, on_step=on_step,
                                table_names=self._table_name)
        started = time.perf_counter()
        self.sql_runner.allow_only(self.library.table_names())  # the model's SQL reads data, not the library's own tables
        run = _Run(question, Context(question, with_types=self.sql_style == "free"), ctx=ctx,
                   names=cite.SourceNames(self.library), asked=analyse(question))
        self._stage(run, "searching", "Searching the library")
        retrieved = self._retrieve(question)
        self._add_to_context(run, question, retrieved)
        final: str | None = None
        chosen: int | None = None
        plan = run.asked.plan if run.asked is not None else None
        composed: compose.Composed | None = None
        if plan is not None and self._formula_step(run, plan, retrieved, on_step):
            chosen = len(run.steps) - 1  # the measure is computed: the loop has nothing to add
            run.answer_type = answer_types.AnswerType(answer_types.COMPUTED, "formula")
        elif (run.tried or plan is None and self._spans_statements(self._asked(run))) and \
                self._model_formula_step(run, retrieved, on_step):
            chosen = len(run.steps) - 1  # the model composed the formula over cells it chose
            run.answer_type = answer_types.AnswerType(answer_types.COMPUTED, "formula")
        else:
            # answer types (issue 13): the type is decided once; headers, several figures, labels, counts and
            # titles are composed from the table, and then the loop below has nothing left to do.
            ask_type = (lambda task, schema: self._call(run, task, schema, max_tokens=16)) \
                if self._is_relevant(question, retrieved) else None  # no model call where the library holds no answer
            run.answer_type = answer_types.decide(question, [label_words(v) for v in run.context.tables], ask_type)
            composed = self._compose_to_type(run, retrieved)
            if composed is not None:
                chosen = len(run.steps) - 1
        asked: set[str] = set()
        relevant = self._is_relevant(question, retrieved) and chosen is None
        for iteration in range(1, self.max_iterations + 1 if relevant else 1):
            ctx.check()
            if iteration == 1 and self._needs_table_arithmetic(run):
                # The only sub-question a forced first step can usefully ask is the question itself;
                # a small model rewording it loses the years or the rows, so it is not asked to.
                action, text = "ask", question
            else:
                self._stage(run, "planning", "Working out what to look up" if iteration == 1 else
                            f"Planning step {iteration}", iteration - 1)
                action, text = self._decompose(run)
            if action == "answer":
                final = text
                if not run.steps:
                    run.citations.extend(self._context_citations(run, f"{question} {text}"))
                break
            subquery = text or question
            key = " ".join(sorted(ops.words(subquery)))
            if key in asked and run.steps:  # the model is going round in circles: stop with what we have
                break
            asked.add(key)
            ctx.check()
            ctx.report(ProgressEvent("step", subquery, iteration - 1, self.max_iterations))
            step, step_citations, finding = self._run_step(run, subquery)
            run.steps.append(step)
            run.findings.append(finding)
            run.citations.extend(step_citations)
            if on_step is not None:
                on_step(step)
            if (finding is not None or step.intermediate_answer) and self._covers_question(subquery, question):
                # The question itself was tried: its answer is final, or neither SQL nor the text has one.
                chosen = len(run.steps) - 1 if finding is not None else None
                break
        ctx.check()
        self._stage(run, "writing", "Writing the answer")
        text, value, status = self._final_words(run, final, chosen)
        if run.answer_type is not None and run.answer_type.decided_by != "formula":
            text, value, status, parts = self._to_type(run, text, value, status, chosen, composed)  # issue 13
        else:
            parts = ()
        text = " ".join(filter(None, [text, route.note(c.document_id for c in run.citations)]))
        usage = Usage(run.usage.calls, run.usage.prompt_tokens, run.usage.completion_tokens,
                      time.perf_counter() - started, reused_tokens=run.usage.reused_tokens)
        kind = run.answer_type.kind if run.answer_type else ""
        steps = tuple(dataclasses.replace(s, answer_type=kind) for s in (*run.tried, *run.steps))  # issue 13
        return self._deliver(ctx, Answer(question, text, cite.dedupe(run.citations), steps, usage,
                                         mode="tablerag", model=self.chat.name, status=status, value=value,
                                         answer_type=kind, parts=parts,
                                         alternatives=route.alternatives(c.document_id for c in run.citations)), on_token)

    @staticmethod
    def _deliver(ctx: JobContext, answer: Answer, on_token: Callable[[str], None] | None) -> Answer:
        """Stream the final sentence (word by word, so a window shows it being written) and report the end."""
        if on_token is not None:
            for piece in re.findall(r"\S+\s*", answer.text):
                ctx.check()
                on_token(piece)
        ctx.report(ProgressEvent("done", "Answered" if answer.status != "refused" else "No answer found"))
        return answer

    def _has_documents(self) -> bool:
        return bool(self.library.conn.execute("SELECT EXISTS (SELECT 1 FROM documents)").fetchone()[0])

    @staticmethod
    def _stage(run: _Run, stage: str, message: str, done: int = 0) -> None:
        """Tell the caller which stage the answer is in (the window shows it with the time taken so far)."""
        run.ctx.check()
        run.ctx.report(ProgressEvent(stage, message, done, MAX_ITERATIONS))

    @staticmethod
    def _is_relevant(question: str, chunks: Sequence[Chunk]) -> bool:
        """The retrieved passages and tables name at least half of what the question asks about. Search
        always returns its nearest chunks, related or not; when most of the question's subject is named
        nowhere in them ("spent on defence and the armed forces" against a council report that only
        says "spent"), the library does not hold the answer and no model call could find it there.
        (On TAT-QA dev, with each question's whole context as the chunks, 1,623 of 1,655 pass.)"""
        asked = topic_of(question)
        if not asked:
            return bool(chunks)
        found = asked & set().union(*(ops.words(chunk.text) for chunk in chunks))
        return 2 * len(found) >= len(asked)

    # -- the final answer ----------------------------------------------------------------------------

    def _final_words(self, run: _Run, model_text: str | None, chosen: int | None) -> tuple[str, str, str]:
        """The answer text, its bare value and its status (``models.types.ANSWER_STATUSES``)."""
        found = [f for f in run.findings if f is not None]
        if model_text and self._usable_text(run, model_text):
            # The model answered from the steps or the passages; every figure it wrote was read somewhere.
            sql = [f for f in found if f.from_sql]
            status = "conflict" if any(f.status == "conflict" for f in found) else ("unchecked" if sql else "text")
            return model_text, model_text, status
        finding = run.findings[chosen] if chosen is not None else self._best_finding(run)
        if finding is not None:
            return finding.sentence, finding.value, finding.status
        return self._refusal(run), "", "refused"

    def _best_finding(self, run: _Run) -> _Finding | None:
        """When the loop stops without a final answer: the finding of the step that asked most nearly the
        user's question (a later step wins a tie), not simply the last one, which may have been a side
        question such as a difference taken on the way."""
        asked = ops.words(run.question)
        found = [(len(asked & ops.words(s.subquery)), i, f) for i, (s, f) in enumerate(zip(run.steps, run.findings))
                 if f is not None]
        return max(found, key=lambda item: (item[0], item[1]))[2] if found else None

    def _refusal(self, run: _Run) -> str:
        """No figure: say so, and name the closest tables and passages found (also cited, to be opened)."""
        names = run.names or cite.SourceNames(self.library)
        closest: list[tuple[int, str, str]] = []  # document id, document name, what was found there
        for view in run.context.tables[:1]:
            info = view.info
            chunk = run.table_chunks.get(info.id)
            label = names.label(info.document_id, info.page, info, info.document)
            closest.append((info.document_id, names.document(info.document_id, info.document),
                            f"{names.table(info)} (p. {info.page})"))
            if chunk is not None:
                run.citations.append(cite.chunk_citation(chunk, table=view.name, label=label))
        for chunk in run.context.texts[:CLOSEST_TEXTS]:
            label = names.label(chunk.document_id, chunk.page, fallback=chunk.document)
            citation = self._narrowed(cite.chunk_citation(chunk, label=label), chunk, run.question)
            run.citations.append(citation)
            closest.append((chunk.document_id, names.document(chunk.document_id, chunk.document),
                            f"\u201c{cite.snippet(citation.snippet, 90)}\u201d (p. {chunk.page})"))
        if not closest:
            return REFUSAL
        documents = {document_id for document_id, _, _ in closest}
        if len(documents) == 1:
            return f"{REFUSAL} The closest I found, in {closest[0][1]}: " + "; ".join(c for _, _, c in closest) + "."
        return f"{REFUSAL} The closest I found: " + "; ".join(f"{d}, {c}" for _, d, c in closest) + "."

    def _usable_text(self, run: _Run, text: str) -> bool:
        """A text answer worth giving: it answers (not "not stated"), and each figure in it is in a
        passage or a table the loop read, or in a step's result."""
        if not text.strip() or _NO_ANSWER_TEXT.search(text):
            return False
        figures = {self._figure(f) for f in _FIGURE.findall(text)} - {None}
        if not figures:
            return True
        computed = self._asked(run).computed
        known: set[float] = set()
        sources = [*(run.read_passages if computed else run.read), *(c.text for c in run.context.texts),
                   *(s.intermediate_answer for s in run.steps if s.sql and not s.sql_error)]
        for source in sources:
            known.update(f for f in (self._figure(m) for m in _FIGURE.findall(source)) if f is not None)
        for view in run.context.tables if not computed else ():
            known.update(round(float(v), 4) for row in view.values.values() for v in row if ops.is_number(v))
        return all(f in known or abs(f) < 10 for f in figures if f is not None)

    @staticmethod
    def _figure(text: str) -> float | None:
        try:
            return round(abs(float(text.replace(",", ""))), 4)
        except ValueError:
            return None

    def likely_tables(self, question: str) -> list[TableInfo]:
        """The tables the library's search links to ``question``, likeliest first (no model call)."""
        run = _Run(question, Context(question))
        return [view.info for view in self._add_to_context(run, question, self._retrieve(question))]

    # -- retrieval and context -----------------------------------------------------------------------

    def _retrieve(self, query: str) -> list[Chunk]:
        """Every chunk the hybrid search recalls, best first: tables are ranked from all of them."""
        return self.retriever.search(query, k=RECALL, recall=RECALL)

    def _table_name(self, table_id: int) -> str | None:
        info = self.library.table(table_id)
        return info.name if info else None

    def _add_to_context(self, run: _Run, query: str, chunks: Sequence[Chunk]) -> list[ops.TableView]:
        """Append the likeliest tables for ``query`` and the best passages, while the context stays under
        its token budget; return the candidate tables, likeliest first."""
        context = run.context
        for chunk in chunks:
            if chunk.id not in run.chunk_ids:
                run.chunk_ids.append(chunk.id)
                run.read.append(chunk.text)
                if chunk.kind == "text":
                    run.read_passages.append(chunk.text)
            if chunk.kind == "table" and chunk.table_id is not None:
                run.table_chunks.setdefault(chunk.table_id, chunk)
        ranked = rank_tables(f"{query} {run.question}" if query != run.question else query, chunks,
                             lambda table_id: self._view(run, table_id))
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

    def _view(self, run: _Run, table_id: int) -> ops.TableView | None:
        if table_id not in run.views:
            info = self.library.table(table_id)
            run.views[table_id] = ops.load_table_view(self.library, info) if info is not None else None
        return run.views[table_id]

    def _pick_table(self, run: _Run, ranked: Sequence[ops.TableView], subquery: str) -> ops.TableView | None:
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

    def _context_citations(self, run: _Run, query: str = "") -> list[Citation]:
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

    @staticmethod
    def _covers_question(subquery: str, question: str) -> bool:
        """The sub-question is the question itself (near enough), so its answer is the final one."""
        asked, sub = ops.words(question), ops.words(subquery)
        return bool(asked) and len(asked & sub) >= 0.8 * len(asked)

    # -- model calls ---------------------------------------------------------------------------------

    def _call(self, run: _Run, task: str, schema: dict[str, Any], max_tokens: int,
              extra: Sequence[ChatMessage] = ()) -> dict[str, Any]:
        prompt = messages(run.context, run.steps, task)
        ctx = run.ctx
        # Every generated token checks for a stop request, so Stop ends even a long call.
        reply = self.chat.chat([*prompt, *extra], schema=schema, max_tokens=max_tokens,
                               on_token=lambda _token: ctx.check())
        run.usage = run.usage + Usage(1, reply.usage.prompt_tokens, reply.usage.completion_tokens, reply.usage.seconds,
                                      reused_tokens=reply.usage.reused_tokens)
        return parse_json_object(reply.text)

    def _needs_table_arithmetic(self, run: _Run) -> bool:
        """Arithmetic over a table (by the question's wording), or a figure from a statement the question
        names ("... shown in the cash flow statement"), with no step taken yet: SQL must come first."""
        asked = self._asked(run)
        return (not run.steps and bool(run.context.tables) and not asked.explains
                and (asked.hint in _ARITHMETIC or bool(asked.statements)))

    def _decompose(self, run: _Run) -> tuple[str, str]:
        must_ask = self._needs_table_arithmetic(run)
        actions = ["ask"] if must_ask else ["ask", "answer"]
        schema = {
            "type": "object",
            "properties": {"action": {"type": "string", "enum": actions}, "text": {"type": "string"}},
            "required": ["action", "text"],
        }
        try:
            data = self._call(run, render("decompose"), schema, max_tokens=80)
        except (ModelOutputError, ValueError):
            return "ask", run.question
        action = str(data.get("action", "ask"))
        text = " ".join(str(data.get("text", "")).split())
        if action == "answer" and text and not must_ask:
            return "answer", text
        return "ask", text or run.question

    # -- a computed measure (formula over cells of connected tables) ---------------------------------

    def _formula_step(self, run: _Run, plan: metrics.Plan, retrieved: Sequence[Chunk],
                      on_step: Callable[[Step], None] | None) -> bool:
        """Compute the measure the question defines or names, over cells bound in the connected tables;
        True when it was computed (the step and its finding are recorded), else the failure is recorded
        in ``run.tried`` and the loop's own steps go on."""
        self._stage(run, "reading", f"Finding the values for {plan.measure or 'the formula'}")
        views = computation.connected_views(
            [q.words for q in plan.quantities], retrieved, self.library,
            lambda query, documents: self.retriever.search(query, k=RECALL, recall=RECALL, document_ids=documents),
            lambda table_id: self._view(run, table_id))
        if computation.printed_measure(plan, views):
            return False  # the report prints the measure itself: the loop looks it up
        self._stage(run, "computing", f"Computing {plan.measure or 'the formula'}")
        subquery = f"{plan.measure or 'Formula'}: {plan.formula}"
        try:
            done = computation.compute(plan, views, run.question, self.sql_runner,
                                       choose=lambda options: self._choose_rows(run, plan, options))
        except (LookupError, formula.FormulaError, UserError) as exc:
            run.tried.append(Step(subquery=subquery, sql_error=str(exc)))
            return False
        self._record_computation(run, done, retrieved, subquery, on_step)
        return True

    def _record_computation(self, run: _Run, done: computation.Computation, retrieved: Sequence[Chunk],
                            subquery: str, on_step: Callable[[Step], None] | None) -> None:
        """A computed measure as a step and a finding, each table's cells cited beside the one SQL statement."""
        names = run.names or cite.SourceNames(self.library)
        for table_id, view in done.views.items():
            bound = [c for c in done.cells.values() if c.table_id == table_id]
            cells = cite.cells_for(self.library, view.info, [(c.row, c.column) for c in bound])
            cell_names = {(c.row, c.column): f"{c.label}, {c.period}" for c in bound}
            run.citations.append(cite.sql_citation(view.info, done.sql, done.result.columns, done.result.rows, cells,
                                                   names, cell_names))
        step = Step(subquery=subquery, chunk_ids=tuple(c.id for c in retrieved), sql=done.sql,
                    sql_columns=done.result.columns, sql_result=done.result.rows,
                    intermediate_answer=f"{done.shown} (used: {done.read})")
        run.steps.append(step)
        run.findings.append(_Finding(done.sentence + ".", done.shown, "unchecked", True))
        if on_step is not None:
            on_step(step)

    @staticmethod
    def _spans_statements(asked: Question) -> bool:
        """Arithmetic that the question says needs two statements ("... using the balance sheet and the
        cash flow statement, what is ..."): one table per step cannot answer it."""
        return len(asked.statements) >= 2 and (asked.computed or bool(
            re.search(r"\bratio\b|\bmargin\b|\bturnover\b", asked.text, re.IGNORECASE)))

    @staticmethod
    def _asked(run: _Run) -> Question:
        if run.asked is None:
            run.asked = analyse(run.question)
        return run.asked

    def _model_formula_step(self, run: _Run, retrieved: Sequence[Chunk], on_step: Callable[[Step], None] | None) -> bool:
        """The model composes the computation: it names values by choosing cells from a list of the
        connected tables' rows (an enum: nothing else can be named) and writes a formula over the names
        in the formula grammar. A formula that fails (outside the grammar, a name not chosen, no number)
        goes back with the error, at most twice. True when a figure was computed."""
        question = run.question
        plan = metrics.Plan("", "", (), False, metrics.decimals_asked(question), "model", "")
        views = computation.connected_views(
            [question], retrieved, self.library,
            lambda query, documents: self.retriever.search(query, k=RECALL, recall=RECALL, document_ids=documents),
            lambda table_id: self._view(run, table_id))
        options = binding.offered(question, metrics.years_asked(question), views)
        if len(options) < 2:
            return False
        self._stage(run, "computing", "Composing the computation")
        keys = list(options)
        schema = {
            "type": "object",
            "properties": {
                "values": {"type": "array", "minItems": 1, "maxItems": len(formula.VALUE_NAMES),
                           "items": {"type": "object", "required": ["name", "cell"], "properties": {
                               "name": {"type": "string", "enum": list(formula.VALUE_NAMES)},
                               "cell": {"type": "string", "enum": keys}}}},
                "formula": {"type": "string"},
            },
            "required": ["values", "formula"],
        }
        hint = run.tried[-1].sql_error if run.tried else ""
        task = render("formula", question=question, hint=f"(Earlier: {hint})" if hint else "") + \
            "\nCells:\n" + "\n".join(keys)
        repairs: list[str] = []
        for _attempt in range(1 + MAX_REPAIRS):
            data: dict[str, Any] = {}
            try:
                data = self._call(run, "\n\n".join([task, *repairs]), schema, max_tokens=220)
                picks = {str(v.get("name")): options[str(v.get("cell"))] for v in data.get("values", [])
                         if isinstance(v, dict) and str(v.get("cell")) in options}
                if not picks:
                    raise formula.FormulaError("No value was chosen from the list.")
                common = binding.common_scale([c for c, _ in picks.values()])
                cells = {name: binding.cell_of(name, candidate, column, common)
                         for name, (candidate, column) in picks.items()}
                tree = formula.parse(str(data.get("formula", "")), list(cells))
                composed = dataclasses.replace(plan, formula=str(data.get("formula", "")),
                                               percent=formula.is_percent(tree),
                                               measure=metrics.asked_name(question) or "The result")
                done = computation.evaluate(composed, cells, views, question, self.sql_runner)
            except (ModelOutputError, ValueError, UserError) as exc:  # FormulaError is a ValueError
                run.tried.append(Step(subquery=f"Formula: {data.get('formula', '')}", sql_error=str(exc)))
                repairs.append(render("formula_repair", formula=json.dumps(data.get("formula", "")),
                                      values=json.dumps(data.get("values", [])), error=str(exc)))
                continue
            self._record_computation(run, done, retrieved, f"Formula: {composed.formula}", on_step)
            return True
        return False

    def _choose_rows(self, run: _Run, plan: metrics.Plan, options: dict[str, list[str]]) -> dict[str, str]:
        """The model's pick among close candidate rows for each value, constrained to the candidates."""
        keys = {f"v{i}": words for i, words in enumerate(options)}
        schema = {"type": "object", "properties": {k: {"type": "string", "enum": options[w]} for k, w in keys.items()},
                  "required": list(keys)}
        listing = "\n".join(f"{k} = {w}: " + " | ".join(options[w]) for k, w in keys.items())
        task = render("choose_rows", quantities=", ".join(dict.fromkeys(q.words for q in plan.quantities))) \
            + "\n" + listing
        try:
            data = self._call(run, task, schema, max_tokens=40 * len(keys))
        except (ModelOutputError, ValueError):
            return {}
        return {w: str(data[k]) for k, w in keys.items() if k in data}

    # -- answer types (issue 13) ----------------------------------------------------------------------

    def _compose_to_type(self, run: _Run, retrieved: Sequence[Chunk]) -> compose.Composed | None:
        """A header, several figures, labels, a count or a title composed from the likeliest table, added
        to the run as its one step; None when the answer type is left to the loop or no table fits."""
        kind = run.answer_type
        if kind is None or not run.context.tables:
            return None
        try:
            composed = compose.compose(run.context.tables, run.question, kind, self.sql_runner.run,
                                       lambda task, schema: self._call(run, task, schema, max_tokens=120))
        except (UserError, ValueError):  # the statement failed: the loop answers as it would without a type
            return None
        if composed is None:
            return None
        step, citations, sentence = compose.as_step(composed, run.question, [c.id for c in retrieved], self.library,
                                                    run.names or cite.SourceNames(self.library))
        run.steps.append(step)
        run.findings.append(_Finding(sentence, composed.value, "unchecked", True))
        run.citations.extend(citations)
        return composed

    def _to_type(self, run: _Run, text: str, value: str, status: str, chosen: int | None,
                 composed: compose.Composed | None) -> tuple[str, str, str, tuple[str, ...]]:
        """The final answer made to fit its type: a composed answer's parts; a ranking's label; a figure a
        passage states outright for the question's subject, cited, and flagged where the table disagrees."""
        kind = run.answer_type
        if kind is None:
            return text, value, status, ()
        if composed is not None:
            return text, composed.value, status, composed.parts
        if kind.kind == answer_types.ROW_LABELS and not kind.several and value:
            return text, compose.label_of_ranking(value), status, ()
        finding = run.findings[chosen] if chosen is not None else self._best_finding(run)
        fixed = text_facts.reconcile(run.question, kind.kind, text, value, status,
                                     finding.sentence if finding is not None else text, run.context.texts)
        if fixed is None:
            return text, value, status, ()
        chunk, names = fixed.stated.chunk, run.names or cite.SourceNames(self.library)
        run.citations.append(self._narrowed(cite.chunk_citation(
            chunk, label=names.label(chunk.document_id, chunk.page, fallback=chunk.document)), chunk, fixed.stated.clause))
        return fixed.text, fixed.value, fixed.status, ()

    # -- one step ------------------------------------------------------------------------------------

    def _run_step(self, run: _Run, subquery: str) -> tuple[Step, list[Citation], _Finding | None]:
        if run.steps:
            self._stage(run, "searching", f"Searching for: {subquery}", len(run.steps))
        retrieved = self._retrieve(subquery)
        ranked = self._add_to_context(run, subquery, retrieved)
        view = self._pick_table(run, ranked, subquery)
        names = run.names or cite.SourceNames(self.library)
        if ops.asks_for_explanation(subquery) or (self._asked(run).explains
                                                  and ops.operation_hint(subquery) not in _ARITHMETIC):
            outcome = SqlOutcome(error="The question asks for an explanation, which the text gives, not a figure.")
        elif run.answer_type is not None and run.answer_type.kind == answer_types.TEXT:  # answer types (issue 13)
            outcome = SqlOutcome(error=f"The question asks for words from the text, not a figure "
                                       f"({run.answer_type.describe()}).")
        elif view is None:
            outcome = SqlOutcome(error="No retrieved table names what the sub-question asks about.")
        else:
            self._stage(run, "reading", f"Reading {names.table(view.info)}", len(run.steps))
            if self.sql_style == "structured":
                outcome = self._structured_sql(run, subquery, view)
            else:
                outcome = self._free_sql(run, subquery)
        chunk_ids = tuple(c.id for c in retrieved)
        result = outcome.result
        confirmed = False
        if outcome.ok:
            self._stage(run, "checking", "Checking the figure against the text", len(run.steps))
            answer, conflict, used_text, confirmed = self._cross_check(run, subquery, outcome)
        else:
            self._stage(run, "reading", "Reading the passages", len(run.steps))
            answer, conflict, used_text = self._text_answer(run, subquery, outcome), "", True
        step = Step(
            subquery=subquery, chunk_ids=chunk_ids, sql=outcome.sql,
            sql_columns=result.columns if result else (), sql_result=result.rows if result else (),
            sql_error=outcome.error, intermediate_answer=answer, conflict=conflict,
        )
        found: list[Citation] = []
        sql_cited: Citation | None = None
        if outcome.ok and outcome.table is not None and result is not None and (not used_text or conflict):
            sql_cited = cite.sql_citation(outcome.table, result.sql, result.columns, result.rows, outcome.cells, names,
                                          self._cell_names(run, outcome))
            found.append(sql_cited)
            for info, cells in outcome.joined:  # the other tables a join read, each with its own cells
                found.append(cite.sql_citation(info, result.sql, result.columns, result.rows, cells, names))
        if used_text or conflict:
            found.extend(self._context_citations(run, f"{subquery} {answer}"))
        finding: _Finding | None = None
        if not used_text and outcome.ok:
            words = outcome.words or outcome.answer
            source = f"; source: {cite.short_label(sql_cited.label)}" if sql_cited is not None and sql_cited.label else ""
            status = "conflict" if conflict else ("checked" if confirmed else "unchecked")
            finding = _Finding(f"{words[0].upper()}{words[1:]}{source}.", outcome.answer, status, True)
        elif self._usable_text(run, answer):
            finding = _Finding(answer, answer, "conflict" if conflict else "text", False)
        return step, found, finding

    def _cell_names(self, run: _Run, outcome: SqlOutcome) -> dict[tuple[int, str], str]:
        """(``_row``, column) -> "row label, column header" for the cells a result read."""
        if outcome.table is None:
            return {}
        view = self._view(run, outcome.table.id)
        if view is None:
            return {}
        labels = {r.row: r.label for r in view.rows}
        return {(c.row, c.column): f"{labels.get(c.row, f'row {c.row}')}, {ops.column_title(view, c.column)}"
                for c in outcome.cells if view.label_column is None or c.column != view.label_column.name}

    @staticmethod
    def _table_is_relevant(view: ops.TableView, subquery: str) -> bool:
        """Worth an operation step: the sub-question shares a word (not a bare year) with the table's
        row labels, column headers or caption. A small model asked to pick cells always picks some,
        even from the wrong table or for a question only the text can answer."""
        return bool(question_words(subquery) & label_words(view))

    def _structured_sql(self, run: _Run, subquery: str, view: ops.TableView) -> SqlOutcome:
        rows = view.row_choices(f"{subquery} {run.question}")
        columns = view.column_choices(f"{subquery} {run.question}")
        if not rows or not columns:
            return SqlOutcome(view.info, error=f"Table {view.name} has no rows or value columns to choose from.")
        decided = ops.decided_lookup(view, run.question) if subquery == run.question else None
        if decided is not None:  # one year, one clearly named row: no model call needed
            try:
                sql = ops.compile_sql(view, decided)
                result = self.sql_runner.run(sql)
                answer = ops.describe_result(view, decided, result.columns, result.rows)
            except (ValueError, UserError):
                answer = ""  # the model chooses instead
            if answer and not ops.sql_is_empty(result.rows):
                return self._computed(run, SqlOutcome(view.info, sql=sql, result=result), view, decided, result, answer)
        hint = ops.operation_hint(subquery, [r.label for r in rows])
        task = render(
            "operation", subquery=subquery, table=view.name,
            operations="; ".join(f"{k}: {v}" for k, v in ops.OPERATIONS.items()),
            hint=f"Hint: the sub-question looks like a {hint.replace('_', ' ')}." if hint else "",
        )
        # "Which department grew most?" is a ranking beyond doubt; a small model still reaches for a
        # lookup, so the schema leaves it only the ranking (or none).
        # Likewise "how much larger is A than B" is a difference, never the sum a small model may pick.
        allowed = [hint, "none"] if hint in ops.RANKINGS or (hint == "difference" and ops.asks_difference(subquery)) \
            else None
        schema = ops.operation_schema(view, rows, columns, allowed)
        repairs: list[str] = []
        outcome = SqlOutcome(view.info)
        for _attempt in range(1 + MAX_REPAIRS):
            raw: dict[str, Any] | str = ""
            try:
                raw = self._call(run, "\n\n".join([task, *repairs]), schema, max_tokens=160)
                choice = ops.parse_choice(view, raw, subquery)
                if choice.operation == "none":
                    return SqlOutcome(view.info, error="The model found no cells in the table for this.")
                sql = ops.compile_sql(view, choice)
                outcome.sql = sql
                result = self.sql_runner.run(sql)
                if ops.sql_is_empty(result.rows) and (total := ops.filled_total_choice(view, choice, subquery)):
                    # The column chosen is blank for a row and the question names none: use the rows'
                    # totals (the sentence names the column, so the substitution is visible).
                    choice, sql = total, ops.compile_sql(view, total)
                    outcome.sql = sql
                    result = self.sql_runner.run(sql)
                outcome.result = result
                answer = ops.describe_result(view, choice, result.columns, result.rows)
                if ops.sql_is_empty(result.rows) or not answer:
                    raise ops.InvalidChoice(f"the chosen cells are empty (no number there).{ops.filled_hint(view, choice)}")
            except (ModelOutputError, ValueError, UserError) as exc:
                outcome.error = str(exc)
                repairs.append(render("operation_repair", choice=json.dumps(raw) if raw else "(no valid JSON)",
                                      error=str(exc)))
                continue
            outcome.error = None
            return self._computed(run, outcome, view, choice, result, answer)
        return outcome

    def _computed(self, run: _Run, outcome: SqlOutcome, view: ops.TableView, choice: ops.OperationChoice,
                  result: SqlResult, answer: str) -> SqlOutcome:
        """A structured step's result made whole: its answer, the sentence saying it, the cells it read."""
        outcome.answer = answer
        outcome.words = ops.describe_in_words(view, choice, result.columns, result.rows, self._asked(run).wanted_scale)
        outcome.cells = cite.cells_for(self.library, view.info, ops.cells_used(choice, result.rows))
        return outcome

    def _free_sql(self, run: _Run, subquery: str) -> SqlOutcome:
        tables = [v.info for v in run.context.tables]
        schema = {"type": "object", "properties": {"sql": {"type": "string"}}, "required": ["sql"]}
        repairs: list[str] = []
        outcome = SqlOutcome()
        for _attempt in range(1 + MAX_REPAIRS):
            try:
                data = self._call(run, "\n\n".join([render("sql", subquery=subquery), *repairs]), schema, 200)
                sql = str(data.get("sql", "")).strip()
                outcome.sql = sql
                result = self.sql_runner.run(sql)
                outcome.result = result
                if ops.sql_is_empty(result.rows):
                    raise ValueError("The query returned no rows (or only NULLs).")
            except (ModelOutputError, ValueError, UserError) as exc:
                outcome.error = str(exc)
                repairs.append(render("sql_repair", sql=outcome.sql or "(none)", error=str(exc)))
                continue
            outcome.error = None
            # Any table of the library may be named (joins included); each one's cells are cited.
            stored = self.library.tables()
            read = cite.cells_read(self.library, self.sql_runner, result.sql, stored)
            named = cite.tables_named(result.sql, stored)
            outcome.table = named[0] if named else (tables[0] if tables else None)
            if outcome.table is not None:
                outcome.cells = next((cells for info, cells in read if info.id == outcome.table.id), [])
                outcome.joined = [(info, cells) for info, cells in read if info.id != outcome.table.id]
            outcome.answer = self._describe_free_result(result, outcome.table)
            outcome.words = self._free_words(run, outcome)
            return outcome
        return outcome

    def _free_words(self, run: _Run, outcome: SqlOutcome) -> str:
        """Free SQL in words: its aggregate over the cells it read, named by row label and column header
        ("Roads, 2019 and Parks, 2019 add up to 200.5 million"), else what it returned from which table."""
        if outcome.table is None or outcome.sql is None:
            return outcome.answer
        named = list(dict.fromkeys(self._cell_names(run, outcome).values()))
        aggregate = re.search(r"\b(SUM|AVG|MAX|MIN|COUNT)\s*\(", outcome.sql, re.IGNORECASE)
        single = outcome.result is not None and len(outcome.result.rows) == 1 and len(outcome.result.rows[0]) == 1
        if aggregate and single and 1 < len(named) <= ops.MAX_NAMED_ROWS:
            listed = ", ".join(named[:-1]) + " and " + named[-1]
            return {
                "SUM": f"{listed} add up to {outcome.answer}",
                "AVG": f"The average of {listed} is {outcome.answer}",
                "MAX": f"The largest of {listed} is {outcome.answer}",
                "MIN": f"The smallest of {listed} is {outcome.answer}",
                "COUNT": f"{outcome.answer} rows counted ({listed})",
            }[aggregate.group(1).upper()]
        title = (run.names or cite.SourceNames(self.library)).table(outcome.table)
        return f"SQL over {title} gives {outcome.answer}"

    @staticmethod
    def _describe_free_result(result: SqlResult, table: TableInfo | None) -> str:
        scale = ops.scale_of(table.unit) if table is not None else ""
        values = [v for row in result.rows[:10] for v in row if v is not None]
        numbers = [v for v in values if ops.is_number(v)]
        if len(values) == 1 and numbers:
            return ops.format_value(numbers[0], scale)
        return ops.join_values([ops.format_value(v, scale if isinstance(v, (int, float)) else "") for v in values])

    def _cross_check(self, run: _Run, subquery: str, outcome: SqlOutcome) -> tuple[str, str, bool, bool]:
        """The intermediate answer from a good SQL result, checked against the passages.

        Returns (answer, conflict, whether the text was what answered, whether the text states the
        figure SQL computed).
        """
        schema = {
            "type": "object",
            "properties": {
                "source": {"type": "string", "enum": ["sql", "text"]},
                "text_answer": {"type": "string"},
                "conflict": {"type": "boolean"},
            },
            "required": ["source", "text_answer", "conflict"],
        }
        task = render("intermediate", subquery=subquery, sql=outcome.sql, result=outcome.answer)
        try:
            data = self._call(run, task, schema, max_tokens=80)
        except (ModelOutputError, ValueError):
            return outcome.answer, "", False, False
        text_answer = " ".join(str(data.get("text_answer", "")).split())
        conflict = bool(data.get("conflict")) and bool(text_answer) and text_answer != outcome.answer
        confirmed = self._same_figures(text_answer, outcome.answer) and self._usable_text(run, text_answer)
        if confirmed:
            return outcome.answer, "", False, True
        if data.get("source") == "text" and text_answer and self._usable_text(run, text_answer):
            return text_answer, (f"SQL gave {outcome.answer}; the text says {text_answer}" if conflict else ""), True, False
        if conflict and not self._usable_text(run, text_answer):
            conflict = False  # the "text" the model quotes is in no passage: nothing disagrees
        return outcome.answer, (f"the text says {text_answer}; SQL gave {outcome.answer}" if conflict else ""), False, False

    def _same_figures(self, text: str, value: str) -> bool:
        """The text states the figure the SQL result holds (to the rounding reports use)."""
        figures = {self._figure(f) for f in _FIGURE.findall(text)} - {None}
        wanted = {self._figure(f) for f in _FIGURE.findall(value)} - {None}
        return bool(wanted) and all(any(abs(w - f) <= max(0.01, 0.005 * w) for f in figures if f is not None)
                                    for w in wanted if w is not None)

    def _text_answer(self, run: _Run, subquery: str, outcome: SqlOutcome) -> str:
        reason = f"SQL could not answer it ({outcome.error})." if outcome.error else "SQL could not answer it."
        schema = {"type": "object", "properties": {"answer": {"type": "string"}}, "required": ["answer"]}
        try:
            data = self._call(run, render("text_answer", subquery=subquery, reason=reason), schema, max_tokens=96)
        except (ModelOutputError, ValueError):
            return ""
        return " ".join(str(data.get("answer", "")).split())
