"""A question's measure compiled into a formula over named quantities (the values a report prints).

``core.answering.reading`` reads a question's measure as a tree ("EBITDA % margin": a share of EBITDA in
revenue; "the 3-year average capex as a % of revenue": an average over three years of a share). This module
compiles that tree, for the periods asked, into a ``Plan``: quantities (what to look up, in the question's or a
definition's words, and for which year) and a formula over their names in the grammar of
``core.answering.formula``. A measure of the catalogue (``core.answering.measures``) or one the question defines
is expanded from its definition in words ("365 * (average inventory between FY2021 and FY2022) / cost of sales");
a line in the question's own words is a quantity bound only to a label naming it whole. It looks nothing up:
binding each quantity to a cell is ``core.answering.binding``'s job.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, replace

from core.answering import formula
from core.answering import measures as m
from core.answering.measures import Measure
from core.answering.reading import QuestionReading, asks_fall, read
from core.reports.values import YEAR_DIGITS

_YEAR = rf"(?:FY\s?'?|fiscal\s+(?:year\s+)?)?({YEAR_DIGITS})"


@dataclass(frozen=True)
class Quantity:
    """A value to look up: what it is called, the fiscal year (None: the question's year), and whether it is a
    line in the question's own words (``whole``: bound only to a label naming every word of it)."""

    name: str
    words: str
    year: int | None
    whole: bool = False
    optional: bool = False
    """A line a definition adds only where the report prints it ("[short-term borrowings]"): left out, not
    looked for elsewhere, where no label names it whole."""


@dataclass(frozen=True)
class Plan:
    """How to compute what a question asks: the measure's name, a formula, the quantities it names."""

    measure: str
    formula: str
    quantities: tuple[Quantity, ...]
    percent: bool
    decimals: int | None = None
    """Decimal places the question asks for ("round to one decimal place"), if any."""
    source: str = "defined"
    """Where the formula came from: "defined" (the question defines it), "named" (a common measure the question
    names: a report may print it as a line of its own), "growth" (a CAGR), "line" (a change, an average or a total
    of one line the question names in its own words), "share" (lines in the question's own words combined: a
    share, a ratio, a difference), "composed" (a measure built from named measures and lines), "lookup" (one line
    in one period, read as printed), "model" (the model's own formula)."""
    subject: str = ""
    """The measure's own name ("free cash flow" in "percent change in free cash flow")."""
    periods_open: str = ""
    """"change", "difference" (unsigned), "average" or "sum" over periods the question does not name: the
    periods are those the line's table prints, read once the line is found (``over_periods``); the formula and
    quantities are empty until then."""
    alternatives: tuple[Plan, ...] = ()
    """The same measure read another way, tried in order when this plan's quantities bind to no rows: a part
    read as a sum of lines ("accrued rent and deferred income over total liabilities", where no label
    names the whole phrase, which one may: "Accounts payable and accrued liabilities"); a measure reports usually
    print ("gross profit") computed from its definition where the report does not print it."""
    tree: Measure | None = None
    """The measure as read, compiled again when the periods are left open."""
    printed: tuple[str, ...] = ()
    """Names under which a report may print the measure itself as a line ("gross margin", "free cash flow"): such
    a line is the answer, never recomposed from other cells."""
    scale: str = ""
    """The scale the question wants the answer in ("billion"), or ""."""
    counted: bool = False
    """A number of things is asked ("how many stores were sold"): the figure is said as the count printed,
    never as an amount of the money its table is stated in ("$135 thousand")."""

    @property
    def in_own_words(self) -> bool:
        """Every quantity is a line named in the question's own words, with no definition vouching for the names:
        each binds only to a label that names it whole, and a miss leaves the question to the loop."""
        return self.source in ("line", "share", "lookup")


class _NoPlan(ValueError):
    """The tree cannot be compiled for the periods asked."""


def plan_for(question: str) -> Plan | None:
    """The formula a question asks to compute (its reading compiled), or None."""
    return plan_of(read(question))


def plan_of(reading: QuestionReading) -> Plan | None:
    """The plan of a reading's measure, for its periods; None for a plain lookup of a line, an explanation, a
    count of rows or labels, several figures (``plans_of`` gives one plan a figure), or a tree that cannot be
    compiled."""
    plans = plans_of(reading)
    return plans[0] if len(plans) == 1 else None


def plans_of(reading: QuestionReading) -> list[Plan]:
    """One plan for each figure the reading asks to compute: one, or one a period for several figures of a
    computed measure ("the respective shares in 2017 and 2018")."""
    measure = reading.measure
    if measure is None or reading.explains or reading.query is not None and reading.kind not in ("computed", "lookup"):
        return []
    if measure.op == m.LINE and reading.kind == "figures" and measure.words not in reading.doubts:
        # "the respective X in 2017 and 2018": the line looked up in each period, in the order asked
        years = tuple(dict.fromkeys(measure.periods or reading.years))
        if not 2 <= len(years) <= 4:
            return []
        name = _clean_name(measure.said or measure.words)
        return [Plan(name, (quantity := _quantity(measure.words, year, whole=True)).name, (quantity,), False,
                     reading.decimals, "lookup", measure.words, tree=measure, scale=reading.scale,
                     counted=reading.counts_things) for year in years]
    if measure.op == m.LINE:
        # a line in one period: looked up by code where a label names it whole (the loop's steps otherwise)
        year = max(measure.periods) if measure.periods else reading.year
        if reading.kind != "lookup" or year is None or len(set(measure.periods or reading.years)) > 1 \
                or measure.words in reading.doubts:
            return []
        quantity = _quantity(measure.words, year, whole=True)
        return [Plan(_clean_name(measure.said or measure.words), quantity.name, (quantity,), False, reading.decimals,
                     "lookup", measure.words, tree=measure, scale=reading.scale, counted=reading.counts_things)]
    if measure.op == m.NAMED and measure.words in m.NOT_COMPUTED:
        return []
    if measure.op not in m.OVER_PERIODS and len(measure.periods) > 1 and reading.kind != "figures":
        return []  # one measure asked for several periods, neither as figures nor as a change or a total
    if reading.kind == "figures":
        years = measure.periods or tuple(reading.years)
        if len(years) < 2 or measure.op in m.OVER_PERIODS:
            return []
        plans = [_compile(reading, _at(measure, (y,)), y) for y in years]
        return [p for p in plans if p is not None]
    plan = _compile(reading, measure, None)
    if plan is None and measure.op == m.DEFINED and (catalogued := m.named(measure.words)) is not None:
        # a definition in words the grammar cannot compile, of a measure the catalogue defines: the catalogue's
        plan = _compile(reading, replace(measure, op=m.NAMED, words=catalogued, body=""), None)
        if plan is not None and _adds_terms(reading, plan):
            plan = None  # the question's definition adds or adjusts by a line the usual one has not: not that measure
        if plan is not None:  # said in the answer, so no one takes it for the definition given
            plan = replace(plan, measure=f"{plan.measure} (by its usual definition: the one asked could not be read)")
    return [plan] if plan is not None else []


_ADDED = re.compile(r"\s[-+]\s|\b(?:plus|minus|less|excluding|adjusted\s+for|net\s+of|change\s+in|changes?)\b",
                    re.IGNORECASE)
"""A term added to, taken from or adjusting a definition's lines ("receivables over sales less the change in allowances")."""


def _adds_terms(reading: QuestionReading, plan: Plan) -> bool:
    """The definitions the question gives add, take away or adjust by more terms than the catalogue's formula of
    the measure has: the question defines another measure under the usual name."""
    said = sum(len(_ADDED.findall(body)) for _, body in reading.definitions)
    return said > len(_ADDED.findall(plan.formula))


def _at(measure: Measure, years: tuple[int, ...]) -> Measure:
    """The measure with its own periods (and its parts') replaced by ``years``."""
    if measure.op in m.OVER_PERIODS:
        return measure
    return replace(measure, periods=years, parts=tuple(_at(p, years) for p in measure.parts))


def _compile(reading: QuestionReading, measure: Measure, year: int | None) -> Plan | None:
    definitions = dict(reading.definitions)
    main = year if year is not None else _main_year(reading, measure)
    name = _display_name(reading, measure)
    try:
        if main is None and not _has_own_years(measure) and measure.op not in (m.DEFINED, m.NAMED):
            if measure.op in m.OVER_PERIODS:
                kind = {m.CHANGE: "change", m.PERCENT_CHANGE: "change", m.GAP: "difference", m.AVERAGE: "average",
                        m.TOTAL: "sum"}.get(measure.op)
                if kind is None:
                    return None
                subject = measure.parts[0].words if measure.parts and measure.parts[0].op == m.LINE else ""
                if not subject:
                    return None
                return Plan("", "", (), measure.op == m.PERCENT_CHANGE, reading.decimals, "line", subject, kind,
                            tree=measure, scale=reading.scale)
            return None  # no period named: which column is meant is the tables' to say, in the loop's steps
        nested = measure.leaves() if measure.parts else []  # a measure named alone: printed_measure sees to it
        printed_first = any(leaf.op == m.NAMED and leaf.words in m.PRINTED_FIRST for leaf in nested)
        if measure.op == m.DEFINED:  # "opex (SG&A plus R&D)": a printed measure its definition names, as printed
            printed_first = _tree(measure, main, definitions, True)[0] != _tree(measure, main, definitions)[0]
        expression, quantities = _tree(measure, main, definitions, printed_first, down=asks_fall(reading))
        expression, tree = _said_as_asked(reading, measure, _bare(expression))
    except (formula.FormulaError, ValueError, RecursionError):
        return None
    unique = tuple({q.name: q for q in quantities}.values())
    if not unique:
        return None
    source = _source(measure)
    subject = measure.words if measure.op in (m.NAMED, m.DEFINED) else (measure.parts[0].words if source == "line"
                                                                       else name)
    in_bps = reading.basis_points and measure.op in (m.CHANGE, m.GAP) and _is_percent_change(measure)
    plan = Plan(f"{name} in basis points" if in_bps else name, expression, unique,
                formula.is_percent(tree) and not in_bps, reading.decimals, source, subject, tree=measure,
                printed=_printed(measure), scale=reading.scale)
    alternatives = [_split(plan, measure, main, definitions)]
    if printed_first:  # the printed line first; where the report prints none, the measure's definition
        defined, defined_quantities = _tree(measure, main, definitions)
        alternatives.append(replace(plan, formula=_said_as_asked(reading, measure, _bare(defined))[0],
                                    quantities=tuple({q.name: q for q in defined_quantities}.values())))
    return replace(plan, alternatives=tuple(a for a in alternatives if a is not None))


def _said_as_asked(reading: QuestionReading, measure: Measure, expression: str) -> tuple[str, ast.expr]:
    """The formula in the unit asked, and its tree: a ratio of two amounts asked "in %" ("debt to capital, in %")
    or a measure said in percent whoever defines it, times 100; a margin's change asked in basis points, its
    points times 100."""
    tree = formula.parse(expression)
    if (reading.percent or measure.op == m.DEFINED and (m.named_at_end(measure.words) in m.SAID_IN_PERCENT
                                                        or re.search(r"\bmargins?$|\breturn\s+on\b", measure.words, re.IGNORECASE))) \
            and isinstance(tree, ast.BinOp) and isinstance(tree.op, ast.Div) and measure.op in (m.RATIO, m.NAMED, m.DEFINED):
        expression = f"({expression}) * 100"
    if reading.basis_points and measure.op in (m.CHANGE, m.GAP) and _is_percent_change(measure):
        expression = f"({expression}) * 100"
    return expression, formula.parse(expression)


def _is_percent_change(measure: Measure) -> bool:
    """A change of a percentage (a margin, a share): its points, not a change of an amount."""
    return bool(measure.parts) and measure.parts[0].op == m.SHARE


def printed_plan(plan: Plan) -> Plan | None:
    """The plan of looking the measure up where the report prints it as a line ("Free cash flow"), for the year the
    plan computes it for, with the measure's definition as the reading to try where no line prints it for that year;
    None where it names no printed name or no year."""
    years = [q.year for q in plan.quantities if q.year is not None]
    if not plan.printed or not years:
        return None
    quantity = _quantity(plan.printed[0], max(years), whole=True)
    # said in the unit its line is printed in: "Gross margin" may be an amount, "Gross margin (%)" a percentage
    return Plan(plan.printed[0], quantity.name, (quantity,), False, plan.decimals, "lookup", plan.printed[0],
                scale=plan.scale, alternatives=(plan,))


def _bare(expression: str) -> str:
    """An expression without the one pair of brackets around all of it."""
    while expression.startswith("(") and expression.endswith(")"):
        depth = 0
        for index, char in enumerate(expression):
            depth += {"(": 1, ")": -1}.get(char, 0)
            if depth == 0 and index < len(expression) - 1:
                return expression
        expression = expression[1:-1]
    return expression


def over_periods(plan: Plan, years: list[int]) -> Plan | None:
    """A plan whose periods were left open, compiled for ``years`` (a change: the newest against the oldest; the
    latest: the newest alone); None when the years cannot make one."""
    years = sorted(set(years))
    measure = plan.tree
    if measure is None or not years:
        return None
    if len(years) < 2:
        return None
    measure = replace(measure, periods=tuple(years))
    try:
        expression, quantities = _tree(measure, years[-1], {})
        expression = _bare(expression)
        tree = formula.parse(expression)
    except (formula.FormulaError, ValueError, RecursionError):
        return None
    unique = tuple({q.name: q for q in quantities}.values())
    name = plan.measure or _display_name(None, measure)
    return Plan(name, expression, unique, formula.is_percent(tree), plan.decimals, plan.source, plan.subject,
                tree=measure, printed=plan.printed, scale=plan.scale)


def _main_year(reading: QuestionReading, measure: Measure) -> int | None:
    if measure.periods:
        return max(measure.periods)
    return reading.year


def _has_own_years(measure: Measure) -> bool:
    return bool(measure.periods) or any(_has_own_years(p) for p in measure.parts)


def _source(measure: Measure) -> str:
    leaves = measure.leaves()
    if measure.op == m.DEFINED:
        return "defined"
    if measure.op == m.NAMED:
        return "named"
    if measure.op == m.CAGR:
        return "growth"
    if all(leaf.op == m.LINE and leaf.own for leaf in leaves):
        return "line" if measure.op in m.OVER_PERIODS else "share"
    return "composed"


def _printed(measure: Measure) -> tuple[str, ...]:
    """The names a report may print this measure under as a line of its own."""
    names: list[str] = []
    if measure.op == m.NAMED:
        names.append(measure.words)
    if measure.said and measure.op not in (m.LINE, m.DEFINED):  # a measure the question defines is computed as defined
        names.append(measure.said)
    return tuple(dict.fromkeys(n for n in names if n))


_PRONOUNS = frozenset({"it", "this", "that", "the ratio", "the measure", "the metric", "this ratio"})


def _display_name(reading: QuestionReading | None, measure: Measure) -> str:
    if measure.op in (m.NAMED, m.DEFINED) and measure.words not in _PRONOUNS:
        return measure.words
    if measure.op == m.DEFINED and reading is not None and reading.subject:  # "Use <formula>" for what is asked
        return _clean_name(reading.subject)
    if measure.said:
        return _clean_name(measure.said)
    if measure.op == m.CHANGE and reading is not None and asks_fall(reading):
        return _clean_name(re.sub(r"^change\b", "fall", measure.name))  # the amount it fell by (``_tree``'s down)
    return _clean_name(measure.name)


def _clean_name(text: str) -> str:
    """A measure's name without the periods it was asked for: what follows the first year is cut ("net income
    in 2019 and 2018"), unless the years stand before the line ("the firm's 2020 and 2021 freight cost"):
    then only the years and the words joining them go."""
    cut = " ".join(re.sub(rf"\s*\b(?:in|for|from|between|of|as\s+of|at)?\s*(?:the\s+)?{_YEAR}\b.*$", "", text,
                          flags=re.IGNORECASE).split()).strip(" ,")
    if len(cut.split()) >= 2 and not re.search(r"(?:'s|\u2019s|\bthe|\bin|\bof)$", cut, re.IGNORECASE):
        return cut
    text = re.sub(rf"(?:\b(?:and|to|&|vs\.?)\s+)?{_YEAR}\b", " ", text, flags=re.IGNORECASE)
    return " ".join(text.split()).strip(" ,")


def _years_for(measure: Measure, main: int | None) -> list[int]:
    """The years an operation over periods spans."""
    years = list(measure.periods)
    if measure.op == m.CAGR:
        if len(years) >= 2:
            return [min(years), max(years)]
        if measure.span and main is not None:
            return [main - measure.span, main]
        raise _NoPlan("a growth rate needs two years")
    if len(years) >= 2:
        # a change spans its first and last years ("fell between 2003 and 2008"): the years between need no column
        return [min(years), max(years)] if measure.op in (m.CHANGE, m.PERCENT_CHANGE, m.GAP) else years
    if measure.span > 0 and main is not None:
        return list(range(main - measure.span + 1, main + 1))
    if main is not None:
        if measure.op in (m.CHANGE, m.PERCENT_CHANGE, m.GAP, m.AVERAGE):
            return [main - 1, main]  # a change "in 2019" is from the year before; "the 2019 average" over the year
        raise _NoPlan("a total over one year")
    raise _NoPlan("no period")


def _tree(measure: Measure, year: int | None, definitions: dict[str, str],
          printed_first: bool = False, down: bool = False) -> tuple[str, list[Quantity]]:
    """The formula of a measure tree for ``year`` (a node's own periods win), and its quantities. With
    ``printed_first``, a measure reports usually print as a line ("gross profit") is that line; with ``down``, a
    change the question says was a fall ("by how much did X fall") is the amount it fell by (old minus new)."""
    own = max(measure.periods) if measure.periods and measure.op not in m.OVER_PERIODS else year
    op = measure.op
    if op == m.LINE:
        quantity = _quantity(measure.words, own, whole=measure.own)
        return quantity.name, [quantity]
    if op == m.NAMED and printed_first and measure.words in m.PRINTED_FIRST:
        quantity = _quantity(measure.words, own, whole=True)  # printed whole, or computed from its definition
        return quantity.name, [quantity]
    if op == m.NAMED:
        body = _defined_as(measure.words, definitions) or m.CATALOGUE[measure.words]
        expression, found = _expression(body, own, definitions)
        return f"({expression})", found
    if op == m.DEFINED:
        body = measure.body
        if (whose := m.part_said(measure.words)) is not None and "<" not in body:
            body = m.of_part(whose, measure.words, body).body  # "the Space segment's DSO (A / B)": the segment's A and B
        expression, found = _expression(body, own, definitions, printed_first=printed_first)
        return f"({expression})", found
    if op == m.PERCENT_CHANGE and len(measure.parts) == 2:  # "the percentage difference between X and Y"
        (first, first_q), (second, second_q) = (_tree(p, own, definitions, printed_first) for p in measure.parts)
        return f"growth({first}, {second})", [*first_q, *second_q]
    if op in m.OVER_PERIODS:
        part = measure.parts[0]
        if len(measure.parts) == 2 and all(p.op == m.LINE and len(p.periods) == 1 for p in measure.parts) \
                and part.words.lower() == measure.parts[1].words.lower() and part.periods != measure.parts[1].periods:
            # "how much more was X in 2019 than X in 2018": one line over the two years each part names
            measure = measure.with_periods((*part.periods, *measure.parts[1].periods))
            part = part.with_periods(())
        if not measure.periods and len(part.periods) >= 2 and part.op not in m.OVER_PERIODS:
            # "the change in the 2018 and 2019 revenue": the years said with the line are the ones the change spans
            measure, part = measure.with_periods(part.periods), part.with_periods(())
        years = _years_for(measure, own)
        parts = [_tree(part, y, definitions, printed_first) for y in years]
        quantities = [q for _, qs in parts for q in qs]
        expressions = [e for e, _ in parts]
        if op == m.CAGR:
            return f"cagr({expressions[-1]}, {expressions[0]}, {years[-1] - years[0]})", quantities
        if op in (m.CHANGE, m.GAP, m.PERCENT_CHANGE):
            new, old = expressions[-1], expressions[0]
            if op == m.PERCENT_CHANGE:
                return f"growth({new}, {old})", quantities
            difference = f"({old}) - ({new})" if down and op == m.CHANGE else f"({new}) - ({old})"
            return (f"abs({difference})" if op == m.GAP else difference), quantities
        function = "avg" if op == m.AVERAGE else "sum"
        return f"{function}(" + ", ".join(expressions) + ")", quantities
    parts = [_tree(p, own, definitions, printed_first) for p in measure.parts]
    quantities = [q for _, qs in parts for q in qs]
    expressions = [e for e, _ in parts]
    if op == m.SUM:
        return "(" + " + ".join(expressions) + ")", quantities
    if op == m.DIFFERENCE:
        return "(" + " - ".join(expressions) + ")", quantities
    if op == m.RATIO:
        return f"{expressions[0]} / {expressions[1]}", quantities
    if op == m.SHARE:
        return f"{expressions[0]} / {expressions[1]} * 100", quantities
    if op == m.DAYS:
        return f"365 / ({expressions[0]})", quantities
    raise _NoPlan(f"unknown operation {op}")


_SUM_PART = re.compile(r"^[a-z][a-z&'-]*(?:\s+[a-z&'-]+)+$", re.IGNORECASE)
"""A line's name of two words or more, without commas or figures: one term of a sum said with "and"."""


def _split(plan: Plan, measure: Measure, year: int | None, definitions: dict[str, str]) -> Plan | None:
    """"X and Y over Z" as (X + Y) / Z, where X and Y are each two words or more ("deferred revenue and accrued
    warranty"); None where the first part is no such list ("research and development" is one line)."""
    if measure.op not in (m.SHARE, m.RATIO) or measure.parts[0].op != m.LINE:
        return None
    first = measure.parts[0]
    terms = [t.strip() for t in re.split(r"\s+and\s+", first.words, flags=re.IGNORECASE)]
    if len(terms) < 2 or not all(_SUM_PART.match(t) and len(t.split()) <= 6 for t in terms):
        return None
    summed = Measure(m.SUM, parts=tuple(replace(first, words=t, said="") for t in terms), periods=first.periods)
    try:
        expression, quantities = _tree(replace(measure, parts=(summed, *measure.parts[1:])), year, definitions)
        tree = formula.parse(expression)
    except (formula.FormulaError, ValueError, RecursionError):
        return None
    unique = tuple({q.name: q for q in quantities}.values())
    return Plan(plan.measure, expression, unique, formula.is_percent(tree), plan.decimals, plan.source, plan.subject,
                tree=measure, scale=plan.scale)


# -- a definition in words -> a formula ---------------------------------------------------------------

_FUNCTION_CALL = re.compile(r"^(avg|sum|min|max|abs|round|growth|cagr)\($", re.IGNORECASE)
_AVERAGE_OF = re.compile(rf"^(?:the\s+)?average\s+(?:of\s+)?(?:the\s+)?(.+?)\s+(?:between|from|for)\s+{_YEAR}\s+(?:and|to|&)\s+{_YEAR}$",
                         re.IGNORECASE)
_AVERAGE_YEARS_FIRST = re.compile(rf"^(?:the\s+)?(?:average|avg\.?)\s+(?:of\s+)?(?:the\s+)?(?:FY\s?'?)?(?P<a>{YEAR_DIGITS})"
                                  rf"\s*(?:and|&|,)\s*(?:FY\s?'?)?(?P<b>{YEAR_DIGITS})\s+(?:year[\s-]end\s+)?(?P<x>.+)$",
                                  re.IGNORECASE)
_AVERAGE_YEARS_AFTER = re.compile(rf"^(?:the\s+)?(?:average|avg\.?)\s+(?:of\s+)?(?:the\s+)?(?P<x>.+?)\s*\(\s*(?:FY\s?'?)?"
                                  rf"(?P<a>{YEAR_DIGITS})\s*(?:,|and|&|-)\s*(?:FY\s?'?)?(?P<b>{YEAR_DIGITS})\s*\)$", re.IGNORECASE)
_AVERAGE_OF_TWO = re.compile(r"^(?:the\s+)?average\s+of\s+(?:the\s+)?(?:two|both|opening\s+and\s+closing)\s+"
                             r"(?:year[\s-]+end\s+)?(?P<x>.+?)(?:\s+balances?)?$", re.IGNORECASE)
_AVERAGE_ALONE = re.compile(r"^(?:the\s+)?(?:average|avg\.?)\s+(?:of\s+)?(?:the\s+)?([a-z][\w&' -]*?)$", re.IGNORECASE)
_CHANGE_SPAN = re.compile(rf"^(?:the\s+)?(.+?)\s+change\s+(?:from\s+|between\s+)?{_YEAR}\s+(?:to|and|-)\s+{_YEAR}$", re.IGNORECASE)
_PERCENT_CHANGE_IN = re.compile(rf"^(?:the\s+)?(?:%|percent(?:age)?|relative)\s+(?:change|growth|increase)\s+in\s+"
                                rf"(?:the\s+)?(.+?)(?:\s+(?:vs\.?|versus|against|over|from)\s+{_YEAR})?$", re.IGNORECASE)
_CHANGE_ALONE = re.compile(r"^(?:the\s+)?(?:change|increase|decrease)\s+in\s+(?:the\s+)?(.+?)$(?<!\d)", re.IGNORECASE)
_CHANGE_OF = re.compile(rf"^(?:the\s+)?(?:change|increase|decrease)\s+in\s+(.+?)\s+(?:between|from)\s+{_YEAR}\s+(?:and|to)\s+{_YEAR}$",
                        re.IGNORECASE)
_LEADING_YEAR = re.compile(rf"^(?:the\s+)?{_YEAR}\s+(.+)$", re.IGNORECASE)
_TRAILING_YEAR = re.compile(rf"^(.+?)\s+(?:in|for|of|at)?\s*{_YEAR}$", re.IGNORECASE)
_SKIP_PHRASE = re.compile(r"^(?:the|a|an|and|of|ratio|here)$", re.IGNORECASE)


def _expression(body: str, year: int | None, definitions: dict[str, str], depth: int = 0,
                printed_first: bool = False) -> tuple[str, list[Quantity]]:
    """A definition in words as a formula over quantity names, for ``year`` (None: each quantity's own). With
    ``printed_first``, a measure the definition names that reports usually print ("SG&A") is that line."""
    if depth > 4:
        raise ValueError("definitions name each other in a circle")
    if year is not None:
        body = body.replace("{y}", str(year)).replace("{p}", str(year - 1))
    elif "{y}" in body or "{p}" in body:
        raise ValueError("a year is needed")
    body = re.sub(r"(?<=[A-Za-z])\s+\((?![^()]*[-+*/])[^()]*\)", "", body)  # "EBIT (operating income)": a gloss
    text = _AVERAGE_IN_BRACKETS.sub(lambda g: f"average {g.group('x')} between FY{g.group('a')} and FY{g.group('b')}",
                                    _over_the_rest(body))
    # "long-term debt, net / total equity": the line as its label prints it, whose ", net" is no operand
    text = re.sub(r",\s+net(?=\s*(?:[-+*/)]|\b(?:divided|over|plus|minus|less|times)\b|$))", "", text, flags=re.IGNORECASE)
    text = re.sub(r",\s*(?=(?:divided\s+by|times|plus|minus|less|over|multiplied|adjusted\s+for)\b|[/*+])", " ", text,
                  flags=re.IGNORECASE)  # "A times 365, divided by B": the comma only pauses
    # "current assets excluding cash": that line less another, before any operator said around it
    text = re.sub(r"(?<![\w-])(?!(?:divided|times|multiplied|less|minus|plus|over)\b)(?P<x>[A-Za-z][^()+*/,]*?)\s+(?:excluding|excl\.?|ex\.?)\s+(?P<y>[A-Za-z][^()+*/,]*?)"
                  r"(?=\s*(?:$|\)|\s[-+*/]\s|\b(?:divided|times|multiplied|less|minus|plus|over)\b))",
                  lambda g: f"({g.group('x')} - {g.group('y')})", text, flags=re.IGNORECASE)
    text = m.with_symbols(text)
    share = re.search(r"\bas\s+an?\s+(?:%|percent(?:age)?|share|proportion)\s+of\b", text, re.IGNORECASE)
    if share is not None:  # "A plus B as a share of C": the whole said before is the part, the whole after the base
        text = f"(({text[:share.start()]}) / ({text[share.end():]})) * 100"
    out: list[str] = []
    quantities: list[Quantity] = []
    for token in _tokens(text):
        if token in "()+-*/," or _FUNCTION_CALL.match(token) or re.fullmatch(r"\d+(?:\.\d+)?", token):
            out.append(token.lower() if _FUNCTION_CALL.match(token) else token)
            continue
        if _SKIP_PHRASE.match(token):
            continue
        expression, found = _phrase(token, year, definitions, depth, printed_first)
        out.append(expression)
        quantities.extend(found)
    if out and out[0] in "+-*/,":
        raise ValueError("a definition that begins with an operator has lost what comes before it")
    return " ".join(out).replace("( ", "(").replace(" )", ")").replace(" ,", ","), quantities


_AVERAGE_IN_BRACKETS = re.compile(rf"\b(?:average|avg\.?)\s+(?P<x>[a-z][\w&' -]*?)\s*\(\s*(?:FY\s?'?)?(?P<a>{YEAR_DIGITS})\s*"
                                  rf"(?:,|and|&|-)\s*(?:FY\s?'?)?(?P<b>{YEAR_DIGITS})"
                                  rf"(?:\s+(?:fiscal\s+)?(?:year[\s-]*ends?|balances|year[\s-]*end\s+balances))?\s*\)", re.IGNORECASE)
""""avg AP (FY2019, FY2020)": the average of a line over two years, written with the years in brackets."""
_SAID_OVER = re.compile(r"\s+(?:over|divided\s+by)\s+(?!\s*\()(?!(?:the|a)\s+(?:year|period))", re.IGNORECASE)


def _over_the_rest(body: str) -> str:
    """"A over B plus C" said in words means A / (B + C): what follows "over" (or "divided by") is the divisor
    whole, where it is said once and not bracketed already."""
    parts = _SAID_OVER.split(body)
    if len(parts) != 2 or not re.search(r"\s(?:plus|minus|less|adjusted\s+for|\+|-)\s", parts[1], re.IGNORECASE):
        return body
    return f"{parts[0]} / ({parts[1].strip()})"


def _tokens(text: str) -> list[str]:
    """Operators, parentheses, commas, numbers, function calls ("cagr(") and the phrases between them.
    A hyphen is an operator only between spaces ("year-over-year" stays a word)."""
    merged: list[str] = []
    for piece in re.split(r"(\(|\)|\s[+*/-]\s|^-\s|,)", f" {text} "):
        token = piece.strip()
        if not token:
            continue
        if token == "(" and merged and merged[-1].lower() in formula.FUNCTIONS:
            merged[-1] = merged[-1].lower() + "("
            continue
        merged.append(token)
    return merged


def _phrase(phrase: str, year: int | None, definitions: dict[str, str], depth: int,
            printed_first: bool = False) -> tuple[str, list[Quantity]]:
    """One phrase between operators: a quantity (maybe with its year), an average or change over two
    years, or the name of another definition (expanded in place)."""
    phrase = phrase.strip().strip(".").strip()
    if marked := re.fullmatch(r"\[(.+)\]|<(.+)>", phrase):
        # "[short-term borrowings]": a line added where printed; "<Pet operating income>": a part's line; both named whole
        quantity = replace(_quantity(marked.group(1) or marked.group(2), year, whole=True),
                           optional=marked.group(1) is not None)
        return quantity.name, [quantity]
    lowered = phrase.lower()
    if printed_first and depth == 0 and lowered not in definitions and (catalogued := m.named(lowered)) in m.PRINTED_FIRST:
        quantity = _quantity(catalogued, year, whole=True)  # "SG&A" in a question's own definition: the printed line
        return quantity.name, [quantity]
    nested = definitions.get(lowered) or _defined_as(lowered, definitions) or _catalog_body(lowered)
    if nested is not None and nested.lower() != lowered:
        expression, found = _expression(nested, year, definitions, depth + 1)
        return f"({expression})", found
    match = _AVERAGE_YEARS_FIRST.match(phrase) or _AVERAGE_YEARS_AFTER.match(phrase)
    if match:  # "the average of 2019 and 2020 accounts payable", "average accounts payable (FY2019, FY2020)"
        groups = match.groupdict()
        subject, a, b = groups["x"], int(groups["a"]), int(groups["b"])
        qa, qb = _quantity(subject, a), _quantity(subject, b)
        return f"avg({qa.name}, {qb.name})", [qa, qb]
    match = _AVERAGE_OF.match(phrase)
    if match:
        subject, a, b = match.group(1), int(match.group(2)), int(match.group(3))
        qa, qb = _quantity(subject, a), _quantity(subject, b)
        return f"avg({qa.name}, {qb.name})", [qa, qb]
    match = _AVERAGE_OF_TWO.match(phrase) or _AVERAGE_ALONE.match(phrase)
    if match and year is not None:  # "avg payables", in a definition for a year: over its opening and closing
        qp, qy = _quantity(match.group(1), year - 1), _quantity(match.group(1), year)
        return f"avg({qp.name}, {qy.name})", [qp, qy]
    match = _PERCENT_CHANGE_IN.match(phrase)
    if match and (year is not None or match.group(2)):  # "% change in operating profit (vs FY2019)"
        newer = year if year is not None else int(match.group(2)) + 1
        older = int(match.group(2)) if match.group(2) else newer - 1
        qn, qo = _quantity(match.group(1), newer), _quantity(match.group(1), older)
        return f"growth({qn.name}, {qo.name})", [qn, qo]
    match = _CHANGE_SPAN.match(phrase)
    if match:  # "inventory change FY2018 to FY2019"
        older, newer = sorted((int(match.group(2)), int(match.group(3))))
        qn, qo = _quantity(match.group(1), newer), _quantity(match.group(1), older)
        return f"({qn.name} - {qo.name})", [qn, qo]
    match = _CHANGE_ALONE.match(phrase)
    if match and year is not None:  # "the change in inventory", in a definition for a year: from the year before
        qn, qo = _quantity(match.group(1), year), _quantity(match.group(1), year - 1)
        return f"({qn.name} - {qo.name})", [qn, qo]
    match = _CHANGE_OF.match(phrase)
    if match:
        subject, a, b = match.group(1), int(match.group(2)), int(match.group(3))
        older, newer = (a, b) if a < b else (b, a)
        qo, qn = _quantity(subject, older), _quantity(subject, newer)
        return f"({qn.name} - {qo.name})", [qn, qo]
    match = _LEADING_YEAR.match(phrase)
    if match:
        quantity = _quantity(match.group(2), int(match.group(1)))
        return quantity.name, [quantity]
    match = _TRAILING_YEAR.match(phrase)
    if match and not re.search(r"\b(?:between|from)\b", phrase, re.IGNORECASE):
        quantity = _quantity(match.group(1), int(match.group(2)))
        return quantity.name, [quantity]
    quantity = _quantity(phrase, year)
    return quantity.name, [quantity]


def _defined_as(phrase: str, definitions: dict[str, str]) -> str | None:
    """The question's own definition of a catalogue measure it names another way ("DPO = ..." for "days payable
    outstanding" in the cash conversion cycle's definition)."""
    name = m.named(phrase)
    if name is None:
        return None
    body = next((body for key, body in definitions.items() if m.named(key) == name), None)
    if body is not None and "365" in m.CATALOGUE.get(name, "") and not re.search(r"\b36[05]\b", body):
        body = f"365 * ({body})"  # "where DPO divides payables by COGS": a measure in days, the ratio's share of a year
    return body


def _catalog_body(phrase: str) -> str | None:
    """A common measure's definition when a definition names it as a whole ("DIO + DSO - DPO")."""
    name = m.named(phrase)
    return m.CATALOGUE[name] if name is not None else None


def _quantity(words: str, year: int | None, whole: bool = False) -> Quantity:
    if (marked := re.fullmatch(r"\s*<(.+)>\s*", words)) is not None:  # a part's line inside "average <...> between"
        words, whole = marked.group(1), True
    cleaned = " ".join(re.sub(r"^(?:the|total cash|cash)?\s*", lambda m: m.group(0) if "cash" in m.group(0).lower() else "",
                              words.strip(), flags=re.IGNORECASE).split())
    cleaned = re.sub(r"^(?:the|a|an)\s+", "", cleaned, flags=re.IGNORECASE)
    slug = "_".join(re.findall(r"[a-z0-9]+", cleaned.lower()))[:40].strip("_") or "value"
    if slug[0].isdigit():
        slug = f"v_{slug}"
    return Quantity(f"{slug}_{year}" if year is not None else slug, cleaned, year, whole)
