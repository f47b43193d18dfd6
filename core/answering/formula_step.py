"""A computed measure as one step: the formula the question gives, bound by code to cells of the
connected tables (``metrics``, ``binding``), or composed by the model over cells it picks from a list;
either way run as one read-only SQL statement, each table's cells cited.
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Callable, Sequence
from typing import Any

from core.answering import (
    binding,
    checks,
    computation,
    formula,
    maturity_step,
    metrics,
)
from core.answering import citations as cite
from core.answering import operations as ops
from core.answering.prompts import render
from core.answering.run_state import (
    RECALL,
    AnswererBase,
    Finding,
    Run,
)
from core.errors import UserError
from models.types import Chunk, Step

MAX_RECHECKS = 2
"""Times a computation a check turned down is tried again with the next candidate rows."""


class FormulaSteps(AnswererBase):
    """Steps that compute a measure over cells of the connected tables."""

    def _formula_steps(self, run: Run, plans: Sequence[metrics.Plan], retrieved: Sequence[Chunk],
                       on_step: Callable[[Step], None] | None) -> bool:
        """Compute each plan (one, or one a figure asked: "the respective shares in 2017 and 2018"); True when
        every one was computed. Several figures become one finding, each figure with its period."""
        if len(plans) == 1:
            return self._formula_step(run, plans[0], retrieved, on_step)
        before = len(run.steps)
        if not all(self._formula_step(run, plan, retrieved, on_step) for plan in plans):
            del run.steps[before:], run.findings[before:]
            return False
        found = [f for f in run.findings[before:] if f is not None]
        sentence = " ".join(f.sentence for f in found)
        run.findings[-1] = Finding(sentence, ops.join_values([f.value for f in found]), "unchecked", True, True)
        run.query_parts = tuple(f.value for f in found)
        return True


    def _formula_step(self, run: Run, plan: metrics.Plan, retrieved: Sequence[Chunk],
                      on_step: Callable[[Step], None] | None) -> bool:
        """Compute the measure the question defines or names, over cells bound in the connected tables;
        True when it was computed (the step and its finding are recorded), else the failure is recorded
        in ``run.tried`` and the loop's own steps go on."""
        self._stage(run, "reading", f"Finding the values for {plan.measure or 'the formula'}")
        views = computation.connected_views(
            [q.words for q in plan.quantities] or [plan.subject], retrieved, self.library,
            lambda query, documents: self.retriever.search(query, k=RECALL, recall=RECALL, document_ids=documents),
            lambda table_id: self._view(run, table_id))
        if plan.in_own_words:  # lines in the question's own words: first in the tables ranked for the question
            ranked = list(run.context.tables)
            views = [*ranked, *(v for v in views if all(v.info.id != r.info.id for r in ranked))]
        if plan.periods_open:  # "the change in closing cash": the periods its table prints (the newest two)
            years = binding.printed_years(plan.subject, views, run.question)
            concrete = metrics.over_periods(plan, years[:2] if plan.periods_open == "change" else years)
            if concrete is None:
                shape = "The change in" if plan.periods_open == "change" else "The average of"
                run.failures.append(f"{shape} {plan.subject}: no table prints it for two periods.")
                return False
            plan = concrete
        if computation.printed_measure(plan, views):
            # the report prints the measure itself ("Free cash flow"): its own line is the answer, looked up
            printed = metrics.printed_plan(plan)
            if printed is None:
                run.measure_printed = True
                return False
            plan = printed
        printed_lookup = plan if plan.source == "lookup" and plan.alternatives else None
        self._stage(run, "computing", f"Computing {plan.measure or 'the formula'}")
        subquery = f"{plan.measure or 'Formula'}: {plan.formula}"
        def compute(tried: metrics.Plan) -> computation.Computation:
            """Bind and compute; a figure a check turns down (a share above 100%, a line read from the wrong
            statement) is recorded and its rows set aside for the next candidates, at most twice."""
            exclude: frozenset[tuple[int, int]] = frozenset()
            for _attempt in range(1 + MAX_RECHECKS):
                done = computation.compute(tried, views, run.question, self.sql_runner,
                                           choose=lambda options: self._choose_rows(run, tried, options),
                                           exclude=exclude)
                if tried is printed_lookup and not computation.prints_the_measure(tried, done):
                    raise LookupError(f"No line prints {tried.measure} itself, in its unit, for the period asked.")
                found = checks.problems(done, views)
                if not found:
                    return done
                run.failures.append(f"Check: {'; '.join(p.said for p in found)}")
                exclude = exclude.union(*(p.rows for p in found))
            raise LookupError(f"No rows pass the checks for {tried.measure or 'the formula'}.")

        readings = (plan, *plan.alternatives)

        def first_that_binds() -> computation.Computation:
            """The first reading of the measure that binds; where none does, the last one's failure."""
            nonlocal plan, subquery
            for index, tried in enumerate(readings):
                plan, subquery = tried, f"{tried.measure or 'Formula'}: {tried.formula}"
                try:
                    return compute(tried)
                except LookupError:
                    if index == len(readings) - 1:
                        raise
            raise AssertionError("a measure has at least one reading")

        try:
            try:
                done = first_that_binds()
            except LookupError:  # then again with the tables search finds in every document the question may be from
                views.extend(computation.tables_beyond(
                    [q.words for q in plan.quantities] or [plan.subject], views,
                    lambda query: self.retriever.search(query, k=RECALL, recall=RECALL, wide=True),
                    lambda table_id: self._view(run, table_id)))
                done = first_that_binds()
            loose = binding.loosely_named(done.plan, done.cells, views)
            if loose:
                # "other assets" bound to "Other current assets": where another report's table prints the line
                # exactly, that table is the one meant; where several reports do, the question does not say which
                beyond = computation.tables_beyond(
                    loose, views, lambda query: self.retriever.search(query, k=RECALL, recall=RECALL, wide=True),
                    lambda table_id: self._view(run, table_id))
                printing = binding.printing_exactly(done.plan, loose, beyond, run.question)
                if len(printing) > 1:
                    raise LookupError(f"“{loose[0]}” is printed exactly in tables of {len(printing)} reports, and "
                                      "the question does not say which")
                if printing:
                    views[:0] = next(iter(printing.values()))
                    done = first_that_binds()
        except (LookupError, formula.FormulaError, UserError) as exc:
            if isinstance(exc, LookupError) and not run.missing:
                run.missing = f"{plan.measure or 'the measure asked'} ({exc})"
            if plan.in_own_words:  # a line in the question's own words that no label names whole:
                run.failures.append(f"{subquery}: {exc}")  # the loop's steps look for it, noting this
            else:
                run.tried.append(Step(subquery=subquery, sql_error=str(exc), failures=run.take_failures()))
            return False
        self._record_computation(run, done, retrieved, subquery, on_step)
        return True

    def _maturity_step(self, run: Run, retrieved: Sequence[Chunk], on_step: Callable[[Step], None] | None) -> bool:
        """Figures of a maturity table for the ranges of time the question asks ("due within 3 years": the ranges
        up to five years added up), each computed and cited like a formula's; True when every one was. Several
        figures become one finding."""
        asked = self._asked(run)
        within = asked.within
        if within is None or within.measure is None:
            return False
        words = [leaf.words for leaf in within.measure.leaves()]
        views = computation.connected_views(
            words, retrieved, self.library,
            lambda query, documents: self.retriever.search(query, k=RECALL, recall=RECALL, document_ids=documents),
            lambda table_id: self._view(run, table_id))
        ranked = list(run.context.tables)
        views = [*ranked, *(v for v in views if all(v.info.id != r.info.id for r in ranked))]
        found = maturity_step.figures(asked, views)
        if found is None:  # then again with the tables search finds in every document the question may be from
            views.extend(computation.tables_beyond(
                words, views, lambda query: self.retriever.search(query, k=RECALL, recall=RECALL, wide=True),
                lambda table_id: self._view(run, table_id)))
            found = maturity_step.figures(asked, views)
        if found is None:
            run.failures.append("Maturity: no table's columns make up the range of time asked for that line")
            return False
        parts, share = found
        # "the proportion of X due within a year" is a fraction of the row's total; "the percentage", a percent
        percent = share and bool(re.search(r"percent|%|\bshare\b", asked.text, re.IGNORECASE))
        before = len(run.steps)
        for part in parts:
            names = [c.name for c in part.cells]
            total = " + ".join(names) or "0"
            if share and part.total is not None:
                text = f"({total}) / total * 100" if percent else f"({total}) / total"
            else:
                text = total
            cells = {c.name: c for c in (*part.cells, *((part.total,) if share and part.total else ()))}
            measure = part.name if len(parts) > 1 else (asked.subject or part.name)
            plan = metrics.Plan(measure, text, (), percent, asked.decimals, "maturity",
                                scale=asked.scale)
            try:
                done = computation.evaluate(plan, cells, views, run.question, self.sql_runner)
            except (formula.FormulaError, UserError) as exc:
                run.failures.append(f"Maturity: {exc}")
                del run.steps[before:], run.findings[before:]
                return False
            self._record_computation(run, done, retrieved, f"{measure}: {text}", on_step)
        if len(parts) > 1:
            found_now = [f for f in run.findings[before:] if f is not None]
            run.findings[-1] = Finding(" ".join(f.sentence for f in found_now),
                                       ops.join_values([f.value for f in found_now]), "unchecked", True, True)
            run.query_parts = tuple(f.value for f in found_now)
        return True

    def _record_computation(self, run: Run, done: computation.Computation, retrieved: Sequence[Chunk],
                            subquery: str, on_step: Callable[[Step], None] | None) -> None:
        """A computed measure as a step and a finding, each table's cells cited beside the one SQL statement."""
        names = run.names or cite.SourceNames(self.library)
        for table_id, view in done.views.items():
            bound = [c for c in done.cells.values() if c.table_id == table_id]
            cells = cite.cells_for(self.library, view.info, [(row, c.column) for c in bound for row in c.rows])
            cell_names = {(row, c.column): f"{c.label}, {c.period}" for c in bound for row in c.rows}
            run.citations.append(cite.sql_citation(view.info, done.sql, done.result.columns, done.result.rows, cells,
                                                   names, cell_names))
        step = Step(subquery=subquery, chunk_ids=tuple(c.id for c in retrieved), sql=done.sql,
                    sql_columns=done.result.columns, sql_result=done.result.rows,
                    intermediate_answer=f"{done.shown} (used: {done.read})", failures=run.take_failures())
        run.steps.append(step)
        run.findings.append(Finding(done.sentence + ".", done.shown, "unchecked", True))
        if on_step is not None:
            on_step(step)

    def _model_formula_step(self, run: Run, retrieved: Sequence[Chunk], on_step: Callable[[Step], None] | None) -> bool:
        """The model composes the computation: it names values by choosing cells from a list of the
        connected tables' rows (an enum: nothing else can be named) and writes a formula over the names
        in the formula grammar. A formula that fails (outside the grammar, a name not chosen, no number)
        goes back with the error, at most twice. True when a figure was computed."""
        question = run.question
        asked = self._asked(run)
        plan = metrics.Plan("", "", (), False, asked.decimals, "model", "", scale=asked.scale)
        views = computation.connected_views(
            [question], retrieved, self.library,
            lambda query, documents: self.retriever.search(query, k=RECALL, recall=RECALL, document_ids=documents),
            lambda table_id: self._view(run, table_id))
        options = binding.offered(question, asked.years, views)
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

        def attempt(data: dict[str, Any]) -> computation.Computation:
            picks = {str(v.get("name")): options[str(v.get("cell"))] for v in data.get("values", [])
                     if isinstance(v, dict) and str(v.get("cell")) in options}
            if not picks:
                raise formula.FormulaError("No value was chosen from the list.")
            common = binding.common_scale([c for c, _ in picks.values()])
            cells = {name: binding.cell_of(name, candidate, column, common) for name, (candidate, column) in picks.items()}
            tree = formula.parse(str(data.get("formula", "")), list(cells))
            composed = dataclasses.replace(plan, formula=str(data.get("formula", "")), percent=formula.is_percent(tree),
                                           measure=asked.subject or "The result")
            return computation.evaluate(composed, cells, views, question, self.sql_runner)

        done, error = self._with_repairs(
            run, "Formula", task, schema, 220, attempt,
            lambda data, exc: render("formula_repair", formula=json.dumps((data or {}).get("formula", "")),
                                     values=json.dumps((data or {}).get("values", [])), error=str(exc)))
        if done is None:
            run.tried.append(Step(subquery="Formula composed from the connected tables' cells", sql_error=error,
                                  failures=run.take_failures()))
            return False
        self._record_computation(run, done, retrieved, f"Formula: {done.plan.formula}", on_step)
        return True

    def _choose_rows(self, run: Run, plan: metrics.Plan, options: dict[str, list[str]]) -> dict[str, str]:
        """The model's pick among close candidate rows for each value, constrained to the candidates."""
        keys = {f"v{i}": words for i, words in enumerate(options)}
        schema = {"type": "object", "properties": {k: {"type": "string", "enum": options[w]} for k, w in keys.items()},
                  "required": list(keys)}
        listing = "\n".join(f"{k} = {w}: " + " | ".join(options[w]) for k, w in keys.items())
        task = render("choose_rows", quantities=", ".join(dict.fromkeys(q.words for q in plan.quantities))) \
            + "\n" + listing
        data = self._ask_model(run, "Row choice", task, schema, 40 * len(keys))
        if data is None:
            return {}
        return {w: str(data[k]) for k, w in keys.items() if k in data}
