"""The TableRAG answering loop: decompose, retrieve, SQL, intermediate answer; at most five times.

Each iteration: (1) the model, shown the tables behind the retrieved chunks and the passages, gives
ONE sub-question or the final answer; (2) hybrid retrieval for the sub-question adds passages and
tables to the context; (3) SQL over the most likely table: for small models (``sql_style
"structured"``) the model only chooses an operation and cells by their real labels, which is
compiled to SQL; stronger models write free SQL (``"free"``); either way an error or an empty
result goes back to the model at most twice; (4) the intermediate answer cross-checks the SQL
result against the text, falls back to the text when SQL failed, and records conflicts.

Numbers in answers come from SQL results formatted in code, never from the model copying them;
citations come from the chunks and cells actually used (``core.answering.citations``).
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from core.answering import citations as cite
from core.answering import operations as ops
from core.answering.naive import naive_answer
from core.answering.prompts import CONTEXT_TOKEN_BUDGET, Context, messages, render, token_counter
from core.answering.table_choice import label_words, question_words, rank_tables
from core.errors import UserError
from core.jobs import JobContext
from core.library import Library, TableInfo
from core.retrieval import Retriever
from core.sql_runner import SqlResult, SqlRunner
from models.errors import ModelOutputError
from models.protocols import ChatModel
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
NO_ANSWER = "I could not find the answer in the library."


def default_sql_style(chat: ChatModel) -> str:
    """Free SQL for models served by Ollama (usually larger), structured operations otherwise."""
    return "free" if type(chat).__name__.startswith("Ollama") else "structured"


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
               on_step: Callable[[Step], None] | None = None) -> Answer:
        question = " ".join(question.split())
        if not question:
            raise UserError("The question is empty.")
        ctx = ctx or JobContext()
        if self.mode == "naive":
            return naive_answer(question, self.retriever, self.chat, ctx=ctx, on_token=on_token, on_step=on_step,
                                table_names=self._table_name)
        started = time.perf_counter()
        self.sql_runner.allow_only(self.library.table_names())  # the model's SQL reads data, not the library's own tables
        run = _Run(question, Context(question, with_types=self.sql_style == "free"))
        ctx.report(ProgressEvent("retrieving", "Searching the library"))
        self._add_to_context(run, question, self._retrieve(question))
        final: str | None = None
        asked: set[str] = set()
        for iteration in range(1, self.max_iterations + 1):
            ctx.check()
            ctx.report(ProgressEvent("decomposing", f"Step {iteration}", iteration - 1, self.max_iterations))
            if iteration == 1 and self._needs_table_arithmetic(run):
                # The only sub-question a forced first step can usefully ask is the question itself;
                # a small model rewording it loses the years or the rows, so it is not asked to.
                action, text = "ask", question
            else:
                action, text = self._decompose(run)
            if action == "answer":
                final = text
                if not run.steps:
                    run.citations.extend(self._context_citations(run))
                break
            subquery = text or question
            key = " ".join(sorted(ops.words(subquery)))
            if key in asked and run.steps:  # the model is going round in circles: stop with what we have
                break
            asked.add(key)
            ctx.check()
            ctx.report(ProgressEvent("step", subquery, iteration - 1, self.max_iterations))
            step, step_citations = self._run_step(run, subquery)
            run.steps.append(step)
            run.citations.extend(step_citations)
            if on_step is not None:
                on_step(step)
            if step.intermediate_answer and self._covers_question(subquery, question):
                final = step.intermediate_answer
                break
        if not final:
            final = self._best_step_answer(run)
        if on_token is not None:
            on_token(final)
        usage = Usage(run.usage.calls, run.usage.prompt_tokens, run.usage.completion_tokens,
                      time.perf_counter() - started)
        ctx.report(ProgressEvent("done", "Answered"))
        return Answer(question, final, cite.dedupe(run.citations), tuple(run.steps), usage, mode="tablerag",
                      model=self.chat.name)

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

    def _context_citations(self, run: _Run) -> list[Citation]:
        out = [cite.chunk_citation(c) for c in run.context.texts]
        for view in run.context.tables:
            chunk = run.table_chunks.get(view.info.id)
            if chunk is not None:
                out.append(cite.chunk_citation(chunk, table=view.name))
        return out

    @staticmethod
    def _best_step_answer(run: _Run) -> str:
        """When the loop stops without a final answer: the answer of the step that asked most nearly
        the user's question (a later step wins a tie), not simply the last one, which may have been a
        side question such as a difference taken on the way."""
        asked = ops.words(run.question)
        answered = [(len(asked & ops.words(s.subquery)), i, s) for i, s in enumerate(run.steps) if s.intermediate_answer]
        if not answered:
            return NO_ANSWER
        return max(answered, key=lambda item: (item[0], item[1]))[2].intermediate_answer

    @staticmethod
    def _covers_question(subquery: str, question: str) -> bool:
        """The sub-question is the question itself (near enough), so its answer is the final one."""
        asked, sub = ops.words(question), ops.words(subquery)
        return bool(asked) and len(asked & sub) >= 0.8 * len(asked)

    # -- model calls ---------------------------------------------------------------------------------

    def _call(self, run: _Run, task: str, schema: dict[str, Any], max_tokens: int,
              extra: Sequence[ChatMessage] = ()) -> dict[str, Any]:
        prompt = messages(run.context, run.steps, task)
        reply = self.chat.chat([*prompt, *extra], schema=schema, max_tokens=max_tokens)
        run.usage = run.usage + Usage(1, reply.usage.prompt_tokens, reply.usage.completion_tokens, reply.usage.seconds)
        return parse_json_object(reply.text)

    def _needs_table_arithmetic(self, run: _Run) -> bool:
        """Arithmetic over a table (by the question's wording) with no step taken yet: SQL must come first."""
        return (not run.steps and bool(run.context.tables) and not ops.asks_for_explanation(run.question)
                and ops.operation_hint(run.question) in _ARITHMETIC)

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

    # -- one step ------------------------------------------------------------------------------------

    def _run_step(self, run: _Run, subquery: str) -> tuple[Step, list[Citation]]:
        retrieved = self._retrieve(subquery)
        ranked = self._add_to_context(run, subquery, retrieved)
        view = self._pick_table(run, ranked, subquery)
        if ops.asks_for_explanation(subquery) or (ops.asks_for_explanation(run.question)
                                                  and ops.operation_hint(subquery) not in _ARITHMETIC):
            outcome = SqlOutcome(error="The question asks for an explanation, which the text gives, not a figure.")
        elif view is None:
            outcome = SqlOutcome(error="No retrieved table names what the sub-question asks about.")
        elif self.sql_style == "structured":
            outcome = self._structured_sql(run, subquery, view)
        else:
            outcome = self._free_sql(run, subquery)
        chunk_ids = tuple(c.id for c in retrieved)
        result = outcome.result
        if outcome.ok:
            answer, conflict, used_text = self._cross_check(run, subquery, outcome)
        else:
            answer, conflict, used_text = self._text_answer(run, subquery, outcome), "", True
        step = Step(
            subquery=subquery, chunk_ids=chunk_ids, sql=outcome.sql,
            sql_columns=result.columns if result else (), sql_result=result.rows if result else (),
            sql_error=outcome.error, intermediate_answer=answer, conflict=conflict,
        )
        found: list[Citation] = []
        if outcome.ok and outcome.table is not None and result is not None and (not used_text or conflict):
            found.append(cite.sql_citation(outcome.table, result.sql, result.columns, result.rows, outcome.cells))
        if used_text or conflict:
            found.extend(self._context_citations(run))
        return step, found

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
        hint = ops.operation_hint(subquery, [r.label for r in rows])
        task = render(
            "operation", subquery=subquery, table=view.name,
            operations="; ".join(f"{k}: {v}" for k, v in ops.OPERATIONS.items()),
            hint=f"Hint: the sub-question looks like a {hint.replace('_', ' ')}." if hint else "",
        )
        # "Which department grew most?" is a ranking beyond doubt; a small model still reaches for a
        # lookup, so the schema leaves it only the ranking (or none).
        allowed = [hint, "none"] if hint in ops.RANKINGS else None
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
                outcome.result = result
                answer = ops.describe_result(view, choice, result.columns, result.rows)
                if ops.sql_is_empty(result.rows) or not answer:
                    raise ops.InvalidChoice("the chosen cells are empty (no number there).")
            except (ModelOutputError, ValueError, UserError) as exc:
                outcome.error = str(exc)
                repairs.append(render("operation_repair", choice=json.dumps(raw) if raw else "(no valid JSON)",
                                      error=str(exc)))
                continue
            outcome.error = None
            outcome.answer = answer
            outcome.cells = cite.cells_for(self.library, view.info, ops.cells_used(choice, result.rows))
            return outcome
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
            named = cite.tables_named(result.sql, tables)
            outcome.table = named[0] if named else (tables[0] if tables else None)
            if outcome.table is not None:
                outcome.cells = cite.free_sql_cells(self.library, self.sql_runner, result.sql, outcome.table)
            outcome.answer = self._describe_free_result(result, outcome.table)
            return outcome
        return outcome

    @staticmethod
    def _describe_free_result(result: SqlResult, table: TableInfo | None) -> str:
        scale = ops.scale_of(table.unit) if table is not None else ""
        values = [v for row in result.rows[:10] for v in row if v is not None]
        numbers = [v for v in values if ops.is_number(v)]
        if len(values) == 1 and numbers:
            return ops.format_value(numbers[0], scale)
        return ops.join_values([ops.format_value(v, scale if isinstance(v, (int, float)) else "") for v in values])

    def _cross_check(self, run: _Run, subquery: str, outcome: SqlOutcome) -> tuple[str, str, bool]:
        """The intermediate answer from a good SQL result, checked against the passages.

        Returns (answer, conflict, whether the text was what answered).
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
            return outcome.answer, "", False
        text_answer = " ".join(str(data.get("text_answer", "")).split())
        conflict = bool(data.get("conflict")) and bool(text_answer) and text_answer != outcome.answer
        if data.get("source") == "text" and text_answer:
            return text_answer, (f"SQL gave {outcome.answer}; the text says {text_answer}" if conflict else ""), True
        return outcome.answer, (f"the text says {text_answer}; SQL gave {outcome.answer}" if conflict else ""), False

    def _text_answer(self, run: _Run, subquery: str, outcome: SqlOutcome) -> str:
        reason = f"SQL could not answer it ({outcome.error})." if outcome.error else "SQL could not answer it."
        schema = {"type": "object", "properties": {"answer": {"type": "string"}}, "required": ["answer"]}
        try:
            data = self._call(run, render("text_answer", subquery=subquery, reason=reason), schema, max_tokens=96)
        except (ModelOutputError, ValueError):
            return ""
        return " ".join(str(data.get("answer", "")).split())
