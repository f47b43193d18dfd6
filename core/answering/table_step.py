"""One step over a table for a sub-question: SQL (an operation the model chooses among the table's real
labels, compiled to SQL; or free SQL for models that write it), its result in words with the cells it read,
checked against the passages; where SQL cannot answer, the passages answer.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any, cast

from core.answering import (
    answer_types,
    checks,
    table_query,
)
from core.answering import citations as cite
from core.answering import operations as ops
from core.answering.prompts import render
from core.answering.reading import asks_fall, read
from core.answering.run_state import (
    FIGURE,
    AnswererBase,
    Finding,
    Run,
)
from core.errors import UserError
from core.library.store import TableInfo
from core.reports.values import YEAR_WORD
from core.sql.runner import SqlResult
from models.types import Citation, Step


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
    operation: str = ""
    """The structured operation that computed the result (``operations.OPERATIONS``), "" for free SQL."""

    @property
    def ok(self) -> bool:
        return self.result is not None and self.error is None and bool(self.answer)


class TableSteps(AnswererBase):
    """Steps that answer a sub-question from one table (or a join), cross-checked with the text."""


    def _run_step(self, run: Run, subquery: str) -> tuple[Step, list[Citation], Finding | None]:
        if run.steps:
            self._stage(run, "searching", f"Searching for: {subquery}", len(run.steps))
        retrieved = self._retrieve(subquery)
        ranked = self._add_to_context(run, subquery, retrieved)
        view = self._pick_table(run, ranked, subquery)
        names = run.names or cite.SourceNames(self.library)
        sub = self._asked(run) if subquery == run.question else read(subquery)
        if sub.explains or (self._asked(run).explains and sub.operation not in ops.COMPUTING):
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
        if outcome.ok and self._text_could_disagree(run, outcome):
            self._stage(run, "checking", "Checking the figure against the text", len(run.steps))
            answer, conflict, used_text, confirmed = self._cross_check(run, subquery, outcome)
        elif outcome.ok:  # no passage read states a figure about these rows: nothing to check against
            answer, conflict, used_text, confirmed = outcome.answer, "", False, False
        else:
            self._stage(run, "reading", "Reading the passages", len(run.steps))
            answer, conflict, used_text = self._text_answer(run, subquery, outcome), "", True
        step = Step(
            subquery=subquery, chunk_ids=chunk_ids, sql=outcome.sql,
            sql_columns=result.columns if result else (), sql_result=result.rows if result else (),
            sql_error=outcome.error, intermediate_answer=answer, conflict=conflict, failures=run.take_failures(),
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
        finding: Finding | None = None
        if not used_text and outcome.ok:
            words = outcome.words or outcome.answer
            source = f"; source: {cite.short_label(sql_cited.label)}" if sql_cited is not None and sql_cited.label else ""
            status = "conflict" if conflict else ("checked" if confirmed else "unchecked")
            finding = Finding(f"{words[0].upper()}{words[1:]}{source}.", outcome.answer, status, True,
                              outcome.operation in ops.NEW_FIGURES)
        elif self._usable_text(run, answer):
            finding = Finding(answer, answer, "conflict" if conflict else "text", False)
        return step, found, finding

    def _cell_names(self, run: Run, outcome: SqlOutcome) -> dict[tuple[int, str], str]:
        """(``_row``, column) -> "row label, column header" for the cells a result read."""
        if outcome.table is None:
            return {}
        view = self._view(run, outcome.table.id)
        if view is None:
            return {}
        labels = {r.row: r.label for r in view.rows}
        return {(c.row, c.column): f"{labels.get(c.row, f'the row {c.row}')}, {ops.column_title(view, c.column)}"
                for c in outcome.cells if view.label_column is None or c.column != view.label_column.name}

    def _structured_sql(self, run: Run, subquery: str, view: ops.TableView) -> SqlOutcome:
        # Rows holding no figure ("Current assets:", a section heading) can answer nothing: not offered.
        rows = [r for r in view.row_choices(f"{subquery} {run.question}")
                if any(ops.is_number(v) for v in view.values.get(r.row, ()))]
        columns = view.column_choices(f"{subquery} {run.question}")
        if not rows or not columns:
            return SqlOutcome(view.info, error=f"Table {view.name} has no rows or value columns to choose from.")
        sub = self._asked(run) if subquery == run.question else read(subquery)
        decided = ops.decided_lookup(view, sub) if subquery == run.question else None
        if decided is not None:  # one year, one clearly named row: no model call needed
            try:
                sql = ops.compile_sql(view, decided)
                result = self.sql_runner.run(sql)
                answer = ops.describe_result(view, decided, result.columns, result.rows, asks_fall(sub))
            except (ValueError, UserError):
                answer = ""  # the model chooses instead
            if answer and not ops.sql_is_empty(result.rows):
                return self._computed(run, SqlOutcome(view.info, sql=sql, result=result), view, decided, result, answer)
        if view.info.id == run.unplanned_table:
            return SqlOutcome(view.info, error=f"No query over the rows of {view.name} passed its checks, and a cell "
                                               "chosen from it would not answer for its rows.")
        hint = sub.operation
        task = render(
            "operation", subquery=subquery, table=view.name,
            operations="; ".join(f"{k}: {v.meaning}" for k, v in ops.OPERATIONS.items()),
            hint=f"Hint: the sub-question looks like a {hint.replace('_', ' ')}." if hint else "",
        )
        # "Which department grew most?" is a ranking beyond doubt; a small model still reaches for a
        # lookup, so the schema leaves it only the ranking (or none).
        # Likewise "how much larger is A than B" is a difference, never the sum a small model may pick.
        allowed = [hint, "none"] if hint in ops.RANKINGS or (hint == "difference" and sub.compares) else None
        schema = ops.operation_schema(view, rows, columns, allowed)
        tried = SqlOutcome(view.info)  # the last statement tried, kept when every attempt fails
        asks_share = sub.measure is not None and checks.is_share(sub.measure)  # "what share of X was Y": 0 to 100
        percent = table_query.percent_asked(sub)

        def attempt(raw: dict[str, Any]) -> SqlOutcome:
            choice = ops.parse_choice(view, raw, subquery, sub.percent)
            if choice.operation == "none":
                return SqlOutcome(view.info, error="The model found no cells in the table for this.")
            if percent and choice.operation not in ops.RANKINGS and ops.OPERATIONS[choice.operation].scale != "%" and \
                    not all(table_query.percent_cell(view, c.row, c.column) for c in choice.cells):
                # the plan's own check (table_query._in_the_unit_asked): a percentage answered with an amount, a
                # ratio or a count of cells ("6,028" for a share of a turnover) is no percentage
                raise ops.InvalidChoice("a percentage is asked, and this gives none: choose a cell printed in %, or "
                                        "percentage with the part first and the whole second")
            tried.sql = ops.compile_sql(view, choice)
            result = tried.result = self.sql_runner.run(tried.sql)
            if ops.sql_is_empty(result.rows) and (total := ops.filled_total_choice(view, choice, subquery)):
                # The column chosen is blank for a row and the question names none: use the rows'
                # totals (the sentence names the column, so the substitution is visible).
                choice, tried.sql = total, ops.compile_sql(view, total)
                result = tried.result = self.sql_runner.run(tried.sql)
            answer = ops.describe_result(view, choice, result.columns, result.rows, asks_fall(sub))
            if ops.sql_is_empty(result.rows) or not answer:
                raise ops.InvalidChoice(f"the chosen cells are empty (no number there).{ops.filled_hint(view, choice)}")
            first = result.rows[0][0] if result.rows and result.rows[0] else None
            figure = float(cast(float, first)) if ops.is_number(first) else None
            if asks_share and figure is not None and not 0 <= figure <= 100:
                raise ops.InvalidChoice(f"a share of a whole cannot be {figure:,.2f}%: choose the part's cell "
                                        "and the whole's cell, the part first")
            return self._computed(run, SqlOutcome(view.info, sql=tried.sql, result=result), view, choice, result, answer)

        outcome, error = self._with_repairs(
            run, "Operation choice", task, schema, 160, attempt,
            lambda raw, exc: render("operation_repair", choice=json.dumps(raw) if raw else "(no valid JSON)", error=str(exc)))
        if outcome is None:
            tried.error = error
            return tried
        return outcome

    def _computed(self, run: Run, outcome: SqlOutcome, view: ops.TableView, choice: ops.OperationChoice,
                  result: SqlResult, answer: str) -> SqlOutcome:
        """A structured step's result made whole: its answer, the sentence saying it, the cells it read."""
        outcome.answer = answer
        outcome.operation = choice.operation
        outcome.words = ops.describe_in_words(view, choice, result.columns, result.rows, self._asked(run).scale)
        outcome.cells = cite.cells_for(self.library, view.info, ops.cells_used(choice, result.rows))
        return outcome

    def _free_sql(self, run: Run, subquery: str) -> SqlOutcome:
        tables = [v.info for v in run.context.tables]
        schema = {"type": "object", "properties": {"sql": {"type": "string"}}, "required": ["sql"]}
        tried = SqlOutcome()

        def attempt(data: dict[str, Any]) -> SqlOutcome:
            tried.sql = str(data.get("sql", "")).strip()
            result = tried.result = self.sql_runner.run(tried.sql)
            if ops.sql_is_empty(result.rows):
                raise ValueError("The query returned no rows (or only NULLs).")
            outcome = SqlOutcome(sql=tried.sql, result=result)
            # Any table of the library may be named (joins included); each one's cells are cited.
            stored = self.library.tables()
            read = cite.cells_read(self.library, self.sql_runner, result.sql, stored)
            named = cite.tables_named(result.sql, stored)
            outcome.table = named[0] if named else (tables[0] if tables else None)
            if outcome.table is not None:
                outcome.cells = next((cells for info, cells in read if info.id == outcome.table.id), [])
                outcome.joined = [(info, cells) for info, cells in read if info.id != outcome.table.id]
            outcome.answer = self._describe_free_result(result, outcome.table)
            aggregate = re.search(r"\b(SUM|AVG)\s*\(", tried.sql, re.IGNORECASE)
            outcome.operation = {"SUM": "sum", "AVG": "average"}[aggregate.group(1).upper()] if aggregate else ""
            outcome.words = self._free_words(run, outcome)
            return outcome

        outcome, error = self._with_repairs(
            run, "SQL", render("sql", subquery=subquery), schema, 200, attempt,
            lambda _data, exc: render("sql_repair", sql=tried.sql or "(none)", error=str(exc)))
        if outcome is None:
            tried.error = error
            return tried
        return outcome

    def _free_words(self, run: Run, outcome: SqlOutcome) -> str:
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

    def _text_could_disagree(self, run: Run, outcome: SqlOutcome) -> bool:
        """Whether a passage in the context could confirm or contradict the SQL result: one that names the rows
        read (half the words of a row's label or more) and states a figure. Where none does, checking the result
        against the text is a model call that can only say "the text does not say"."""
        labels = [ops.words(name.split(", ")[0]) for name in self._cell_names(run, outcome).values()]
        labels = [words for words in labels if words]
        if not labels:
            return bool(run.context.texts)
        for chunk in run.context.texts:
            said = ops.words(chunk.text)
            figures = [f for f in FIGURE.findall(chunk.text) if not YEAR_WORD.fullmatch(f.replace(",", ""))]
            if figures and any(2 * len(words & said) >= len(words) for words in labels):
                return True
        return False

    def _cross_check(self, run: Run, subquery: str, outcome: SqlOutcome) -> tuple[str, str, bool, bool]:
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
        data = self._ask_model(run, "Check against the text", task, schema, 80)
        if data is None:
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
        figures = {self._figure(f) for f in FIGURE.findall(text)} - {None}
        wanted = {self._figure(f) for f in FIGURE.findall(value)} - {None}
        return bool(wanted) and all(any(abs(w - f) <= max(0.01, 0.005 * w) for f in figures if f is not None)
                                    for w in wanted if w is not None)

    def _text_answer(self, run: Run, subquery: str, outcome: SqlOutcome) -> str:
        reason = f"SQL could not answer it ({outcome.error})." if outcome.error else "SQL could not answer it."
        schema = {"type": "object", "properties": {"answer": {"type": "string"}}, "required": ["answer"]}
        data = self._ask_model(run, "Answer from the text", render("text_answer", subquery=subquery, reason=reason),
                               schema, 96)
        if data is None:
            return ""
        return " ".join(str(data.get("answer", "")).split())
