"""The TableRAG answering loop: plan, run steps, assemble the answer with its evidence.

The question is routed to its documents (``core.search.routing``), searched, and read once
(``core.answering.reading``: the kind of answer wanted, the measure as a tree, periods, unit and scale). The planner (``core.answering.planner``) then decides what runs:
first the computations that may answer outright (a formula the question gives, bound to cells of the
connected tables by code, ``formula_step``; a formula the model composes over cells it picks; an answer
composed to its type, ``compose``), then at most five iterations of ask / answer / stop. Each sub-question
is a step over a table (``table_step``): hybrid retrieval adds passages and tables to the shared context;
for small models (``sql_style "structured"``) the model only chooses an operation and cells by their real
labels, which is compiled to SQL, stronger models write free SQL; an error or an empty result goes back to
the model at most twice (one repair loop for every step, ``run_state``), every failure recorded on the
step; the result is cross-checked against the text, and the text answers where SQL could not.

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
from typing import Any

from core.answering import answer_types, compose, model_query, table_query, text_facts
from core.answering import citations as cite
from core.answering import operations as ops
from core.answering import planner as planning
from core.answering.formula_step import FormulaSteps
from core.answering.metrics import plans_of
from core.answering.naive import naive_answer
from core.answering.prompts import Context, render
from core.answering.query_step import answer_by_query, distinct_values, in_the_unit_asked, step_of
from core.answering.reading import (
    MODEL_TASK,
    QuestionReading,
    better,
    from_model,
    model_schema,
    read,
    topic_of,
)
from core.answering.run_state import CLOSEST_TEXTS, EMPTY_LIBRARY, REFUSAL, Deadline, Finding, OutOfTime, Run
from core.answering.table_choice import label_words
from core.answering.table_step import TableSteps
from core.answering.turns import answer_turn
from core.errors import UserError
from core.jobs import JobContext
from core.library.reembedding import reembed
from core.library.store import TableInfo, load_chunks
from core.search.routing import (
    PASSAGE_VOTES,
    Route,
    issuer_names,
    needs_meaning,
    route_by_passages,
    route_question,
    with_issuer_names,
)
from models.types import Answer, Chunk, Citation, ColumnSchema, ProgressEvent, Step, Usage

QUERY_PLAN_TOKENS = 160
"""Enough for a plan with three filters and a threshold (a cut-off reply is no JSON)."""
QUERY_PLAN_REPAIRS = 0
"""A query plan that fails its checks is not sent back: over the table benchmark's tune and probe runs, 28 plans
failed; repaired, 18 came back word for word and none of the others gave a right answer, each at a model call's
time. The loop's steps answer instead."""
PLANNED_TABLES = 2
"""The likeliest tables a model's query plan may be over: the second where the first has nothing to plan by or
names nothing asked."""
_BARE_FIGURE = re.compile(r"^\s*\(?-?\$?\s?\d{1,3}(?:,?\d{3})*(?:\.\d+)?\)?\s*$")
"""A model's answer that is a figure and nothing else ("433", "2,154", "(12.5)")."""


class Answerer(TableSteps, FormulaSteps):
    """Answers questions over a library, TableRAG-style or NaiveRAG-style, with cited evidence. The steps
    it runs are ``TableSteps`` (SQL over a table) and ``FormulaSteps`` (a formula over connected tables);
    what runs next is ``planner``'s decision; this class runs them under the limit and assembles the answer."""

    def answer(self, question: str, ctx: JobContext | None = None, on_token: Callable[[str], None] | None = None,
               on_step: Callable[[Step], None] | None = None, documents: Sequence[int] | None = None,
               earlier: Sequence[str] = ()) -> Answer:
        question = " ".join(question.split())
        if not question:
            raise UserError("The question is empty.")
        reembed(self.library, self.retriever.embedder, ctx)  # vectors another embedder made, made again (once)
        named = with_issuer_names(question, self.library.document_metadata())
        if named != question:  # "GIS's capex": the issuer a filing registers that symbol for, by name
            answer = self.answer(named, ctx, on_token, on_step, documents, earlier)
            return dataclasses.replace(answer, question=question, read_as=answer.read_as or named)
        ctx = ctx or JobContext()
        # A follow-up of ``earlier`` (the conversation's questions) or a comparison: core.answering.turns
        if (turn := answer_turn(self, question, earlier, ctx, on_token, on_step, documents)) is not None:
            return turn
        # The documents first (core.search.routing), then tables and passages; or the documents the person chose.
        route = route_question(question, self.library) if documents is None else \
            Route(tuple(documents), "asked in the documents chosen")
        if needs_meaning(route) and documents is None:
            route = self._route_by_meaning(question, route)
        self.retriever.limit_to(route.document_ids, widens=route.by_subject)
        if not self._has_documents():  # nothing to answer from: no search, no model call
            return self._deliver(ctx, Answer(question, EMPTY_LIBRARY, mode=self.mode, model=self.chat.name,
                                             status="refused"), on_token)
        if self.mode == "naive":
            return naive_answer(question, self.retriever, self.chat, ctx=ctx, on_token=on_token, on_step=on_step,
                                table_names=self._table_name)
        started = time.perf_counter()
        self.sql_runner.allow_only(self.library.table_names())  # the model's SQL reads data, not the library's own tables
        reading = read(question, self._issuers())
        run = Run(question, Context(question, with_types=self.sql_style == "free"), ctx=ctx,
                  names=cite.SourceNames(self.library), asked=reading, plans=plans_of(reading),
                  deadline=Deadline.for_question(self.time_budget),
                  first_document=route.document_ids[0] if route.by_subject and route.document_ids else None)
        chosen: int | None = None
        composed: compose.Composed | None = None
        final: str | None = None
        try:
            chosen, composed, final = self._explore(run, on_step)
        except OutOfTime as stopped:  # the time is up: the answer is the best evidence found so far
            run.stopped = stopped.stage
            run.failures.append(f"Time: stopped at the {self.time_budget:.0f}-second limit during {stopped.stage}")
        ctx.check()
        self._stage(run, "writing", "Writing the answer")
        text, value, status = self._final_words(run, final, chosen)
        if run.query_parts and chosen is not None:
            parts = run.query_parts
        elif run.answer_type is not None and run.answer_type.decided_by != "formula":
            text, value, status, parts = self._to_type(run, text, value, status, chosen, composed)  # issue 13
        else:
            parts = ()
        if run.stopped:
            text = f"{text} (Stopped at the {self.time_budget:.0f}-second limit during {run.stopped.lower()}.)"
        text = " ".join(filter(None, [text, route.note(c.document_id for c in run.citations)]))
        usage = Usage(run.usage.calls, run.usage.prompt_tokens, run.usage.completion_tokens,
                      time.perf_counter() - started, reused_tokens=run.usage.reused_tokens)
        kind = run.answer_type.kind if run.answer_type else ""
        finding = run.findings[chosen] if chosen is not None else self._best_finding(run)
        if kind == answer_types.LOOKUP and final is None and finding is not None and finding.computed:
            kind = answer_types.COMPUTED  # "the total budget for parks and roads": SQL added two cells
        if run.failures and run.steps:  # a call after the last step failed (the final planning): shown on it
            run.steps[-1] = dataclasses.replace(run.steps[-1], failures=run.steps[-1].failures + run.take_failures())
        elif run.failures:  # no step was taken (nothing relevant was found): what was tried is still shown
            run.tried.append(Step(subquery=question, failures=run.take_failures()))
        steps = tuple(dataclasses.replace(s, answer_type=kind) for s in (*run.tried, *run.steps))  # issue 13
        return self._deliver(ctx, Answer(question, text, cite.dedupe(run.citations), steps, usage,
                                         mode="tablerag", model=self.chat.name, status=status, value=value,
                                         answer_type=kind, parts=parts,
                                         alternatives=route.alternatives(c.document_id for c in run.citations),
                                         task_usage=tuple((k, c, t) for k, (c, t) in run.task_usage.items())),
                             on_token)

    def _explore(self, run: Run, on_step: Callable[[Step], None] | None
                 ) -> tuple[int | None, compose.Composed | None, str | None]:
        """Search, compute what code can, then ask / answer / stop: the index of the step that answered, the
        composed answer, and the model's final text, each None where there is none."""
        question, ctx = run.question, run.ctx
        self._stage(run, "searching", "Searching the library")
        retrieved = self._retrieve(question)
        self._add_to_context(run, question, retrieved)
        chosen, composed = self._compute_first(run, retrieved, on_step)
        relevant = self._is_relevant(question, retrieved) and chosen is None and \
            not planning.gives_up(run.plans, run.missing)
        planner = planning.Planner(self._asked(run), self.max_iterations if relevant else 0,
                                   lambda must_ask: self._decompose(run, must_ask, planner.iterations),
                                   from_text=(run.answer_type is not None and run.answer_type.kind == answer_types.TEXT)
                                   or run.unplanned_table is not None)
        while True:
            ctx.check()
            decision = planner.next(len(run.steps), bool(run.context.tables))
            if decision.action == planning.STOP:
                break
            if decision.action == planning.ANSWER:
                if not run.steps:
                    run.citations.extend(self._context_citations(run, f"{question} {decision.text}"))
                return chosen, composed, decision.text
            subquery = decision.text
            ctx.check()
            ctx.report(ProgressEvent("step", subquery, planner.iterations - 1, self.max_iterations))
            step, step_citations, finding = self._run_step(run, subquery)
            run.steps.append(step)
            run.findings.append(finding)
            run.citations.extend(step_citations)
            if on_step is not None:
                on_step(step)
            if planner.done_after(subquery, finding is not None or bool(step.intermediate_answer)):
                # The question itself was tried: its answer is final, or neither SQL nor the text has one.
                return (len(run.steps) - 1 if finding is not None else None), composed, None
        return chosen, composed, None

    def _compute_first(self, run: Run, retrieved: Sequence[Chunk],
                       on_step: Callable[[Step], None] | None) -> tuple[int | None, compose.Composed | None]:
        """The planner's computations (``planner.computations``) tried in order until one answers: the
        index of the step that answered (None: the loop's steps go on), and the composed answer if any."""
        found = self._computations(run, retrieved, on_step)
        if found[0] is None and not self._asked(run).complete and not run.read_by_model and self._read_by_model(run):
            # The grammar left words it could not read and nothing it planned answered: the model read the question
            # (one short call, schema-constrained, checked against the question), and the better reading is tried.
            found = self._computations(run, retrieved, on_step)
        if found[0] is None and planning.QUERY in planning.computations(self._asked(run), run.plans) and \
                not run.model_planned and self._model_query_step(run, retrieved, on_step):
            # a question over a table's rows that code could not plan: the model filled the plan, code checked it
            return len(run.steps) - 1, None
        return found

    def _read_by_model(self, run: Run) -> bool:
        """Ask the model to read the question; True when its reading accounts for more of it than the grammar's."""
        run.read_by_model = True
        self._stage(run, "planning", "Reading the question")
        task = f"{MODEL_TASK}\nQUESTION: {run.question}"
        data = self._ask_model(run, "Reading", task, model_schema(), 96, alone=True)
        model = from_model(data, run.question, self._issuers()) if data is not None else None
        asked = self._asked(run)
        if model is None:
            run.failures.append("Reading: the model's reading names words or periods the question does not")
            return False
        if better(asked, model) is not model:
            return False
        run.asked, run.plans = model, plans_of(model)
        return True

    def _computations(self, run: Run, retrieved: Sequence[Chunk],
                      on_step: Callable[[Step], None] | None) -> tuple[int | None, compose.Composed | None]:
        asked = self._asked(run)
        for computation_kind in planning.computations(asked, run.plans):
            if computation_kind == planning.FORMULA and run.plans:
                done = self._formula_steps(run, run.plans, retrieved, on_step)
            elif computation_kind == planning.QUERY:
                if self._query_step(run, retrieved, on_step):
                    run.answer_type = answer_types.of_reading(asked, [label_words(v) for v in run.context.tables])
                    return len(run.steps) - 1, None
                if asked.query is not None and asked.query.operation == "top" and not run.model_planned and \
                        self._model_query_step(run, retrieved, on_step):
                    # a ranking code could not plan: a list of the table's labels would not rank, so the model
                    # plans it before any answer is composed
                    return len(run.steps) - 1, None
                continue
            elif computation_kind == planning.MATURITY:
                if self._maturity_step(run, retrieved, on_step):
                    several = len(run.query_parts) > 1
                    run.answer_type = answer_types.AnswerType(
                        answer_types.FIGURES if several else answer_types.COMPUTED, "formula")
                    return len(run.steps) - 1, None
                continue
            elif computation_kind == planning.MODEL_FORMULA:
                # A measure the report prints ("Gross margin (%)") is its own figure: looked up, not recomposed.
                done = not run.measure_printed and self._model_formula_step(run, retrieved, on_step)
            else:
                # answer types (issue 13): the type is decided once; headers, several figures, labels, counts and
                # titles are composed from the table, and then the loop has nothing left to do.
                run.answer_type = answer_types.of_reading(asked, [label_words(v) for v in run.context.tables])
                composed = self._compose_to_type(run, retrieved)
                if composed is not None:
                    return len(run.steps) - 1, composed
                continue
            if done:
                looked_up = all(plan.source == "lookup" for plan in run.plans) and computation_kind == planning.FORMULA
                kind = answer_types.LOOKUP if looked_up else answer_types.COMPUTED
                if len(run.plans) > 1 and looked_up:  # "the respective X in 2018 and 2019": a figure a period
                    kind = answer_types.FIGURES
                run.answer_type = answer_types.AnswerType(kind, "formula")
                return len(run.steps) - 1, None
        return None, None

    def _query_step(self, run: Run, retrieved: Sequence[Chunk], on_step: Callable[[Step], None] | None) -> bool:
        """A question over a table's rows, answered by a query plan over the likeliest tables; True when one did."""
        asked = self._asked(run)
        if asked.query is not None:  # a question over rows in so many words: say so before reading them
            self._stage(run, "computing", "Reading the table's rows")
        names = run.names or cite.SourceNames(self.library)
        # the two likeliest tables (``Run.likeliest``), whatever room the model's prompt has for them: planned over the
        # next ones the search ranked too, code answered two probe questions wrongly from a table of another document
        # or of shares for counts, and gained none
        found = answer_by_query(asked, run.likeliest or run.context.tables, self.library, self.sql_runner.run, names,
                                [c.id for c in retrieved], run.failures)
        if found is None:
            return False
        if asked.query is None:  # a line no statement prints, found as a row's cell or a share of rows
            self._stage(run, "computing", "Read the table's rows")
        self._record_query(run, found, on_step)
        return True

    def _record_query(self, run: Run, found: tuple[Step, Citation, table_query.QueryAnswer],
                      on_step: Callable[[Step], None] | None) -> None:
        step, citation, answered = found
        step = dataclasses.replace(step, failures=run.take_failures())
        run.steps.append(step)
        source = f"; source: {cite.short_label(citation.label)}" if citation.label else ""
        run.findings.append(Finding(f"{answered.sentence[0].upper()}{answered.sentence[1:]}{source}.", answered.value,
                                    "unchecked", True, answered.plan.operation not in ("top", "list")))
        run.citations.append(citation)
        run.query_parts = answered.parts
        if on_step is not None:
            on_step(step)

    def _model_query_step(self, run: Run, retrieved: Sequence[Chunk], on_step: Callable[[Step], None] | None) -> bool:
        """The model's query plan (``_model_query``) tried once a question; True when it answered."""
        run.model_planned = True
        planned = self._model_query(run, retrieved, run.names or cite.SourceNames(self.library))
        if planned is None:
            return False
        self._record_query(run, planned, on_step)
        run.answer_type = answer_types.of_reading(self._asked(run), [label_words(v) for v in run.context.tables])
        return True

    def _model_query(self, run: Run, retrieved: Sequence[Chunk], names: cite.SourceNames
                     ) -> tuple[Step, Citation, table_query.QueryAnswer] | None:
        """Where code planned no query over the likeliest table and it is no statement (a register, a statistics
        table), the small model fills the plan under a schema of the table's real columns (``model_query``);
        code checks it, compiles and runs it. Served models write their SQL freely in the loop instead."""
        asked = self._asked(run)
        if self.sql_style == "free" or not (run.likeliest or run.context.tables):
            return None
        if table_query.asks_difference(asked):
            return None  # "how many more A than B": no operation of the plan subtracts (a sum, a count is no answer)
        chosen = self._plannable_table(run, asked)
        if chosen is None:
            return None
        view, distinct = chosen
        self._stage(run, "computing", "Planning a query over the table's rows")

        replied: list[dict[str, Any]] = []

        def attempt(data: dict[str, Any]) -> table_query.QueryAnswer:
            replied.append(data)
            planned = model_query.from_model(data, view, asked, distinct, names.document(view.info.document_id))
            return in_the_unit_asked(table_query.execute(planned, asked, self.sql_runner.run), asked)

        def repair(data: dict[str, Any] | None, exc: Exception) -> str:
            return f"Your plan {json.dumps(data) if data else '(no JSON)'} cannot be used: {exc} Plan again."
        # the plan's task describes the one table it is over (columns, real values): the retrieved tables and
        # passages would only lengthen the prompt (a third of the tokens) and slow the call
        answered, error = self._with_repairs(run, "Query plan", model_query.task(view, run.question, distinct),
                                              model_query.schema(view, distinct, asked), QUERY_PLAN_TOKENS, attempt, repair,
                                              alone=True, repairs_allowed=QUERY_PLAN_REPAIRS)
        if answered is None:
            if replied:  # a plan came back and failed its checks (not a call that failed: no model, no JSON)
                run.unplanned_table, run.unplanned_why = view.info.id, error
            return None
        step, citation = step_of(asked, answered, self.library, names, [c.id for c in retrieved])
        return step, citation, answered

    def _plannable_table(self, run: Run, asked: QuestionReading
                         ) -> tuple[ops.TableView, Callable[[ColumnSchema], list[Any]]] | None:
        """The likeliest table a query plan can be filled over (``model_query.plannable_table``), with its reader of
        distinct values (of the tables ``model_query.offered_tables`` offers), those of the document routed first
        (``Run.first_document``) before the others."""
        tables = sorted(run.likeliest or run.context.tables,  # stable: the first document's tables, in rank order
                        key=lambda view: view.info.document_id != run.first_document)[:PLANNED_TABLES]
        metadata = self.library.document_metadata(sorted({v.info.document_id for v in tables}))
        views = model_query.offered_tables(tables, asked, {d: m.doc_type for d, m in metadata.items()})
        return model_query.plannable_table(views, run.question, lambda v: distinct_values(self.sql_runner.run, v))

    @staticmethod
    def _deliver(ctx: JobContext, answer: Answer, on_token: Callable[[str], None] | None) -> Answer:
        """Stream the final sentence (word by word, so a window shows it being written) and report the end."""
        if on_token is not None:
            for piece in re.findall(r"\S+\s*", answer.text):
                ctx.check()
                on_token(piece)
        ctx.report(ProgressEvent("done", "Answered" if answer.status != "refused" else "No answer found"))
        return answer

    def _issuers(self) -> list[str]:
        """The issuers the library's documents name, as a question would say them ("3M", "Best Buy")."""
        return [name for m in self.library.document_metadata().values() if m.issuer for name in issuer_names(m.issuer)]

    def _route_by_meaning(self, question: str, route: Route) -> Route:
        """Where the question's words route it nowhere, or by some of them while others are used by no document, the
        document most of its nearest passages in meaning are from first (core.search.routing.route_by_passages)."""
        documents = {d.id: d.file_name for d in self.library.documents()}
        if len(documents) < 2:
            return route
        self.retriever.limit_to(None)
        nearest = load_chunks(self.library.conn, [c.chunk_id for c in self.retriever.vector(question, k=PASSAGE_VOTES)])
        return route_by_passages(route, [c.document_id for c in nearest], documents)

    def _has_documents(self) -> bool:
        return bool(self.library.conn.execute("SELECT EXISTS (SELECT 1 FROM documents)").fetchone()[0])

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


    def _final_words(self, run: Run, model_text: str | None, chosen: int | None) -> tuple[str, str, str]:
        """The answer text, its bare value and its status (``models.types.ANSWER_STATUSES``)."""
        found = [f for f in run.findings if f is not None]
        if model_text and self._usable_text(run, model_text):
            # The model answered from the steps or the passages; every figure it wrote was read somewhere.
            sql = [f for f in found if f.from_sql]
            status = "conflict" if any(f.status == "conflict" for f in found) else ("unchecked" if sql else "text")
            stated = self._with_unit(run, model_text)
            return stated, stated, status
        finding = run.findings[chosen] if chosen is not None else self._best_finding(run)
        if finding is not None:
            return finding.sentence, finding.value, finding.status
        return self._refusal(run), "", "refused"

    @staticmethod
    def _with_unit(run: Run, model_text: str) -> str:
        """A bare figure the model read off a table ("433") with the unit its cell is in ("€433 million"), when
        every cell of the tables read that holds the figure is in one unit; otherwise the text as written."""
        if not _BARE_FIGURE.match(model_text) or ops.YEAR_WORD.fullmatch(model_text.strip()):
            return model_text
        figure = float(model_text.strip().strip("$").replace(",", "").replace("(", "-").rstrip(")"))
        units: set[tuple[str, str]] = set()
        for view in run.context.tables:
            for row, values in view.values.items():
                for position, value in enumerate(values):
                    if ops.is_number(value) and abs(float(value) - figure) < 1e-9:
                        units.add((view.cell_scale(row, view.info.schema.columns[position].name), view.currency))
        if len(units) != 1:
            return model_text
        scale, _currency = next(iter(units))
        view = next(v for v in run.context.tables if v.currency == _currency)
        return ops.amount(view, figure, scale)

    def _best_finding(self, run: Run) -> Finding | None:
        """When the loop stops without a final answer: the finding of the step that asked most nearly the
        user's question (a later step wins a tie), not simply the last one, which may have been a side
        question such as a difference taken on the way."""
        asked = ops.words(run.question)
        found = [(len(asked & ops.words(s.subquery)), i, f) for i, (s, f) in enumerate(zip(run.steps, run.findings))
                 if f is not None]
        return max(found, key=lambda item: (item[0], item[1]))[2] if found else None

    def _refusal(self, run: Run) -> str:
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
        missing = f" I could not compute {run.missing.rstrip('.')}." if run.missing else ""
        unplanned = next((v.info for v in run.context.tables if v.info.id == run.unplanned_table), None)
        if unplanned is not None:  # what was tried: the query over the rows, and why it was no answer
            why = f" ({run.unplanned_why.rstrip('.')})" if run.unplanned_why else ""
            missing += f" A query over the rows of {names.table(unplanned)} was tried; no plan passed its checks{why}."
        if not closest:
            return REFUSAL + missing
        documents = {document_id for document_id, _, _ in closest}
        if len(documents) == 1:
            return (f"{REFUSAL}{missing} The closest I found, in {closest[0][1]}: " + "; ".join(c for _, _, c in closest)
                    + ".")
        return f"{REFUSAL}{missing} The closest I found: " + "; ".join(f"{d}, {c}" for _, d, c in closest) + "."

    def likely_tables(self, question: str) -> list[TableInfo]:
        """The tables the library's search links to ``question``, likeliest first (no model call)."""
        run = Run(question, Context(question))
        return [view.info for view in self._add_to_context(run, question, self._retrieve(question))]

    def _decompose(self, run: Run, must_ask: bool, iteration: int) -> tuple[str, str]:
        """The model's next move (the planner's ``decompose``): ask a sub-question, or answer (not when
        ``must_ask``: SQL has to come first)."""
        self._stage(run, "planning", "Working out what to look up" if iteration == 1 else f"Planning step {iteration}",
                    iteration - 1)
        actions = ["ask"] if must_ask else ["ask", "answer"]
        schema = {
            "type": "object",
            "properties": {"action": {"type": "string", "enum": actions}, "text": {"type": "string"}},
            "required": ["action", "text"],
        }
        data = self._ask_model(run, "Planning", render("decompose"), schema, 80)
        if data is None:
            return "ask", run.question
        action = str(data.get("action", "ask"))
        text = " ".join(str(data.get("text", "")).split())
        if action == "answer" and text and not must_ask:
            return "answer", text
        return "ask", text or run.question


    def _compose_to_type(self, run: Run, retrieved: Sequence[Chunk]) -> compose.Composed | None:
        """A header, several figures, labels, a count or a title composed from the likeliest table, added
        to the run as its one step; None when the answer type is left to the loop or no table fits."""
        kind = run.answer_type
        if kind is None or not run.context.tables:
            return None
        try:
            composed = compose.compose(run.context.tables, self._asked(run), kind, self.sql_runner.run,
                                       self._model_for(run, "Composing the answer", 120))
        except (UserError, ValueError):  # the statement failed: the loop answers as it would without a type
            return None
        if composed is None:
            return None
        step, citations, sentence = compose.as_step(composed, run.question, [c.id for c in retrieved], self.library,
                                                    run.names or cite.SourceNames(self.library))
        run.steps.append(dataclasses.replace(step, failures=run.take_failures()))
        run.findings.append(Finding(sentence, composed.value, "unchecked", True))
        run.citations.extend(citations)
        return composed

    def _to_type(self, run: Run, text: str, value: str, status: str, chosen: int | None,
                 composed: compose.Composed | None) -> tuple[str, str, str, tuple[str, ...]]:
        """The final answer made to fit its type: a composed answer's parts; a ranking's label; a figure a
        passage states outright for the question's subject, cited, and flagged where the table disagrees."""
        kind = run.answer_type
        if kind is None:
            return text, value, status, ()
        if kind.kind == answer_types.TEXT and value and status != "refused":  # in the passage's own words
            return text, text_facts.quoted_span(run.question, value, run.context.texts), status, ()
        if composed is not None and kind.kind == answer_types.FIGURES:  # a passage may state them "respectively"
            fixed = text_facts.reconcile(run.question, kind.kind, text, composed.value, status, composed.sentence,
                                         run.context.texts)
            if fixed is None:
                return text, composed.value, status, composed.parts
        elif composed is not None:
            return text, composed.value, status, composed.parts
        elif kind.kind == answer_types.ROW_LABELS and not kind.several and value:
            return text, compose.label_of_ranking(value), status, ()
        else:
            finding = run.findings[chosen] if chosen is not None else self._best_finding(run)
            # (``stated_figure`` reads the passages among them)
            retrieved = self.library.chunks(run.chunk_ids) if status == "text" else []
            fixed = text_facts.reconcile(run.question, kind.kind, text, value, status,
                                         finding.sentence if finding is not None else text, run.context.texts,
                                         retrieved)
        if fixed is None:
            return text, value, status, ()
        chunk, names = fixed.stated.chunk, run.names or cite.SourceNames(self.library)
        run.citations.append(self._narrowed(cite.chunk_citation(
            chunk, label=names.label(chunk.document_id, chunk.page, fallback=chunk.document)), chunk, fixed.stated.clause))
        return fixed.text, fixed.value, fixed.status, fixed.parts
