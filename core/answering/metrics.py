"""A question's formula in words, read into a formula over named quantities (the values a report prints).

People ask for measures that no table prints: "the FY2020 working capital ratio, defined as total current
assets divided by total current liabilities", "the 3 year average net profit margin", "the 2 year revenue
CAGR from FY2020 to FY2022", "DPO = 365 * (average accounts payable between FY2019 and FY2020) / (FY2020
COGS + change in inventory between FY2019 and FY2020)". This module reads such a question into a
``Plan``: quantities (what to look up, in the question's words, and for which year) and a formula over
their names in the grammar of ``core.answering.formula``. It does not look anything up: binding each
quantity to a cell is ``core.answering.binding``'s job.

Where the formula comes from, in order:
1. A definition the question gives ("X is defined as: ...", "Define X as ...", "X here is defined as ...");
   definitions may name each other (CCC = DIO + DSO - DPO, each defined after it).
2. The common definitions of financial analysis (``DEFINITIONS``: margins, turnover ratios, working
   capital, free cash flow, EBITDA, retention and payout ratios, days outstanding), as textbooks state them.
3. Shapes of the question itself: "X as a % of Y", "N year average of M from FY A to FY B", "CAGR of X
   from A to B", "year-over-year change in X from A to B", and for any line a report prints, "the
   (percentage) change in X from A to B" (or "in B", or with no period: the newest two its table prints),
   "the average X for A and B", "the total X in A and B" (``source`` "line": code binds X to a row when
   one clearly fits, else the loop's own steps answer), and "X as a percentage of Y in A", "the
   percentage of X in total Y", "the ratio of X to Y" (``source`` "share", bound the same way).
A question none of these fits gets no plan, and the loop's other steps answer it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from core.answering import formula
from core.reports.values import YEAR_DIGITS

_YEAR = rf"(?:FY\s?'?|fiscal\s+(?:year\s+)?)?({YEAR_DIGITS})"
_YEAR_RE = re.compile(rf"\b(?:FY\s?|fiscal\s+(?:year\s+)?)?({YEAR_DIGITS})\b", re.IGNORECASE)
_RANGE = re.compile(rf"(?:from\s+|between\s+)?{_YEAR}\s*(?:-|\u2013|to|and|through)\s*{_YEAR}", re.IGNORECASE)


@dataclass(frozen=True)
class Quantity:
    """A value to look up: what the question calls it, and the fiscal year (None: the question's year)."""

    name: str
    words: str
    year: int | None


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
    """Where the formula came from: "defined" (the question defines it), "named" (a common measure the
    question names: a report may print it as a line of its own), "growth" (CAGR or year-over-year), "shape"
    (an average of a share: "3 year average of X as a % of Y"), "line" (a change or an average of any line the
    question names in its own words: bound only to a label that names it whole), "share" (one line as a
    percentage of, or in a ratio to, another, both in the question's own words and bound the same way)."""
    subject: str = ""
    """The measure's own name ("free cash flow" in "percent change in free cash flow")."""
    periods_open: str = ""
    """"change", "difference" (unsigned) or "average" of a line; asked with no period ("What was the change in
    closing cash?"), the periods are those the line's table prints (its newest two for a change), read once the
    line is found (``over_periods``); the formula and quantities are empty until then."""
    split: Plan | None = None
    """The same measure with a part read as a sum of lines ("deferred revenue and accrued warranty over
    gross deferred tax assets"), tried when no line is named by the whole phrase (which a label may be:
    "Accounts payable and accrued liabilities")."""

    @property
    def in_own_words(self) -> bool:
        """The quantities are lines named in the question's own words, with no definition vouching for the
        names: each binds only to a label that names it whole, and a miss leaves the question to the loop."""
        return self.source in ("line", "share")


# The common definitions of financial analysis, in the words a definition in a question uses. {y} is the
# year asked, {p} the year before. Each is a textbook definition, not any one company's.
DEFINITIONS: tuple[tuple[re.Pattern[str], str], ...] = tuple((re.compile(p, re.IGNORECASE), body) for p, body in (
    (r"\bfree cash flows?\b|\bfcf\b", "cash from operations - capital expenditure"),
    (r"\bnet working capital\b|\bworking capital(?! ratio)\b", "total current assets - total current liabilities"),
    (r"\bworking capital ratio\b|\bcurrent ratio\b", "total current assets / total current liabilities"),
    (r"\bquick ratio\b", "(total current assets - inventories) / total current liabilities"),
    (r"\boperating cash flow ratio\b", "cash from operations / total current liabilities"),
    (r"\b(?:total )?asset turnover(?: ratio)?\b", "revenue / (average total assets between FY{p} and FY{y})"),
    (r"\bfixed asset turnover(?: ratio)?\b",
     "revenue / (average property plant and equipment net between FY{p} and FY{y})"),
    (r"\binventory turnover(?: ratio)?\b", "cost of goods sold / (average inventories between FY{p} and FY{y})"),
    (r"\bretention ratio\b", "(net income - dividends paid) / net income"),
    (r"\b(?:dividend )?payout ratio\b", "dividends paid / net income"),
    (r"\bunadjusted ebitda\b|\bebitda\b(?! margin)", "operating income + depreciation and amortization"),
    (r"\breturn on (?:total )?assets\b|\broa\b", "net income / (average total assets between FY{p} and FY{y})"),
    (r"\breturn on (?:shareholders'? |stockholders'? )?equity\b|\broe\b",
     "net income / (average total equity between FY{p} and FY{y})"),
    (r"\beffective tax rate\b", "income tax expense / income before income taxes * 100"),
    (r"\binterest coverage(?: ratio)?\b", "operating income / interest expense"),
    (r"\bdebt[- ]to[- ]equity(?: ratio)?\b", "total liabilities / total equity"),
    (r"\bdays inventory outstanding\b|\bdio\b",
     "365 * (average inventories between FY{p} and FY{y}) / cost of goods sold"),
    (r"\bdays sales outstanding\b|\bdso\b",
     "365 * (average accounts receivable between FY{p} and FY{y}) / revenue"),
    (r"\bdays payables? outstanding\b|\bdpo\b",
     "365 * (average accounts payable between FY{p} and FY{y}) / cost of goods sold"),
    (r"\bcash conversion cycle\b|\bccc\b", "days inventory outstanding + days sales outstanding - days payable outstanding"),
))
_MARGIN = re.compile(r"((?:[a-z&]+\s+){1,3}?)(?:%\s+)?margin\b", re.IGNORECASE)
_MARGIN_NOISE = re.compile(r"\b(unadjusted|adjusted|average|year|the|a|an|of|%|percent|fy\d*)\b", re.IGNORECASE)
_AS_SHARE = re.compile(r"(?:of\s+)?((?:[a-z&'()-]+\s+){1,6}?)as\s+a\s+(?:%|percent(?:age)?)\s+of\s+((?:total\s+)?[a-z&'-]+(?:\s+[a-z&'-]+){0,4}?)"
                       r"(?=\s+(?:from|for|between|in|over|during|\(|,|\?|$)|[?,.(]|$)", re.IGNORECASE)
_AVERAGE_ASKED = re.compile(r"\baverage\b|\bmean\b", re.IGNORECASE)
_CHANGE_ASKED = re.compile(r"\b(?:change[sd]?|increase[sd]?|decrease[sd]?|difference|growth|grew|rose|fell)\b",
                           re.IGNORECASE)
_COMPANY_DEFINED = re.compile(r"\b(?:adjusted|non[- ]?gaap|underlying|organic|core|normali[sz]ed)\b", re.IGNORECASE)
"""Words for a measure a company defines its own way: the textbook formula does not compute it."""
_PERCENT = re.compile(r"percent|%", re.IGNORECASE)
_EXPLAINING = re.compile(r"\bwhy\b|^\s*(?:how (?:is|are|was|were|did|does|do)\b(?! much| many))|\bwhat (?:impacted|drove|caused|"
                         r"affected)\b|\bdriven by\b|\breasons?\b|\bdue to what\b", re.IGNORECASE)
_PRONOUNS = frozenset({"it", "this", "that", "the ratio", "the measure", "the metric"})
_ASKED_NAME = re.compile(rf"\b(?:what|how much)\s+(?:is|was|were|are)\s+(?:the\s+)?(?:{_YEAR}\s+)?(?P<name>.+?)"
                         rf"(?:\s+(?:for|in|of|at|during)\s+(?:the\s+)?(?:year\s+)?{_YEAR}|\?|$)", re.IGNORECASE)
_DATE = r"(?:(?:[a-z]+\s+\d{1,2}|\d{1,2}\s+[a-z]+),?\s+)?"
"""A day before a year ("December 31, 2019", "31 March 2020")."""
_PERIOD = rf"{_DATE}{_YEAR}(?:\s+year[\s-]+end)?"
_PERIOD_LEAD = (r"(?:(?:from|between|for|in|across|over|during|as\s+(?:of|at)|at|on)\s*,?\s+)?(?:both\s+)?(?:the\s+)?"
                r"(?:(?:period|(?:fiscal\s+)?years?)\s+(?:ended\s+)?)?")
_PERIODS = (rf"(?P<tail>{_PERIOD_LEAD}{_PERIOD}(?:\s*,\s*{_PERIOD})?\s*,?\s*(?P<joint>and\b|to\b|through\b|&|-|\u2013)\s*"
            rf"(?:(?:fiscal\s+)?(?:year\s+)?)?{_PERIOD})")
"""Two or three periods after a line's name: "from 2018 to 2019 year end", "for December 31, 2018 and 2019",
"between 2017-2019", "in fiscal 2018 and fiscal 2017", "for 2017, 2018 and 2019"."""
_SHAPE_END = r"(?:\s+(?:in\s+terms\s+of\s+\S+|altogether|combined|in\s+total))?\s*\??$"
_CHANGE_SHAPE = re.compile(
    rf"\b(?P<percent>percent(?:age)?\s+|%\s+)?(?P<verb>change|increase|decrease|growth|difference|decline)"
    rf"(?:\s*/\s*\(?(?:increase|decrease)\)?)?\s+(?P<link>in|of|for|between)\s+(?:the\s+)?(?P<x>[^?]+?)\s*,?\s+"
    rf"(?:{_PERIODS}|(?P<tail2>(?:in|for)\s+{_YEAR}\s+(?:from|compared\s+(?:to|with))\s+{_YEAR})"
    rf"|(?P<single>(?:in|for|during)\s+(?:the\s+)?(?:(?:fiscal\s+)?year\s+)?{_YEAR})){_SHAPE_END}", re.IGNORECASE)
_CHANGE_LEAD_SHAPE = re.compile(
    rf"\b(?P<percent>percent(?:age)?\s+|%\s+)?(?P<verb>change|difference)\s+between\s+(?P<tail>{_PERIOD}\s+(?P<joint>and)\s+{_PERIOD})"
    rf"\s+(?:(?:in|of)\s+)?(?:the\s+)?(?P<x>[^?]+?){_SHAPE_END}", re.IGNORECASE)
""""The change between 2018 and 2019 currency translation differences": the periods before the line."""
_SHORT_FISCAL_YEAR = re.compile(r"\bFY?\s?'?(\d{2})\b(?!\s*(?:%|percent|months?|days?|weeks?))", re.IGNORECASE)
"""A fiscal year in two digits ("F19", "FY18", "FY '17"), read as 2019, 2018, 2017."""
_AVERAGE_SHAPE = re.compile(
    rf"\b(?:average|mean)\s+(?:of\s+|value\s+(?:of|for)\s+)?(?:the\s+)?(?P<x>[^?]+?)\s*,?\s+{_PERIODS}{_SHAPE_END}",
    re.IGNORECASE)
_YEAR_AVERAGE_SHAPE = re.compile(
    rf"^(?:what|how\s+much)\s+(?:is|was|were|are)\s+(?:the\s+)?(?:(?P<lead>{_YEAR})\s+average\s+(?:of\s+)?(?:the\s+)?(?P<x>[^?]+?)"
    rf"|average\s+(?:of\s+)?(?:the\s+)?(?P<x2>[^?]+?)\s+(?:in|for|during)\s+(?:(?:fiscal\s+)?year\s+)?(?P<trail>{_YEAR})){_SHAPE_END}",
    re.IGNORECASE)
""""The 2019 average X", "the average X in 2019": over the year, that is between its opening and its closing
balance (the figures printed for 2018 and 2019)."""
_SUM_SHAPE = re.compile(
    rf"^(?:what|how\s+much)\s+(?:is|was|were|are)\s+(?:the\s+)?(?:[\w.&-]+['\u2019]s\s+)?(?:total|sum|combined)\s+"
    rf"(?:(?:value|amount)\s+)?(?:of\s+)?(?:the\s+)?(?P<x>[^?]+?)\s*,?\s+{_PERIODS}{_SHAPE_END}", re.IGNORECASE)
_OPEN_CHANGE = re.compile(
    r"^(?:what|how\s+much)\s+(?:is|was|were|are)\s+(?:the\s+)?(?:nominal\s+|net\s+)?(?P<percent>percent(?:age)?\s+|%\s+)?(?:change|increase|decrease|growth|decline)(?:\s*/\s*\(?(?:increase|decrease)\)?)?"
    r"\s+(?:in|of)\s+(?:the\s+)?(?P<x>[^?]+?)\s*\??$", re.IGNORECASE)
_OPEN_AVERAGE = re.compile(r"^(?:what|how\s+much)\s+(?:is|was|were|are)\s+(?:the\s+)?(?:average|mean)\s+(?:of\s+|value\s+(?:of|for)\s+)?"
                           r"(?:the\s+)?(?P<x>[^?]+?)\s*\??$", re.IGNORECASE)
_AT_END_OF = re.compile(r"\s+(?:at|as\s+of)\s+(?:the\s+)?end\s+of(?:\s+(?:the\s+)?(?:period|year))?$", re.IGNORECASE)
_RESPECTIVE = re.compile(r"\brespective(?:ly)?\b", re.IGNORECASE)
_CAGR = re.compile(r"\bcagr\b|compound(?:ed)? annual growth", re.IGNORECASE)
_YOY = re.compile(r"year[\s-]+over[\s-]+year\s+(?:change|growth)\s+in\s+(.+?)\s+(?:from|between)\s", re.IGNORECASE)
_CAGR_OF = re.compile(r"(?:\d+\s+year\s+)?(?:total\s+)?([a-z][a-z &'-]*?)\s+cagr\b|cagr\s+(?:of|in|for)\s+([a-z][a-z &'-]*?)\s+"
                      r"(?:from|between)\b", re.IGNORECASE)
_DECIMALS = re.compile(r"round(?:ed)?\s+(?:your answer\s+)?to\s+(one|two|three|zero|no|\d)\s+decimal", re.IGNORECASE)
_NUMBER_WORDS = {"zero": 0, "no": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5}
_DEFINED = re.compile(
    r"(?:^|[.?:;]\s+|\b)(?:define\s+(?P<a>[^.?]{2,60}?)\s+as:?\s+(?P<abody>.+?)"
    r"|(?P<b>[A-Za-z][\w&'() -]{1,60}?)\s+(?:here\s+)?(?:is|are)\s+(?:defined|calculated|computed)\s+as:?\s*(?P<bbody>.+?)"
    r"|(?P<c>[A-Za-z][\w&'() -]{1,80}?),\s+(?:which\s+is\s+)?(?:defined|calculated|computed)\s+as:?\s*(?P<cbody>.+?))"
    r"(?=\.\s+[A-Z]|\.\s*$|\?\s|\?$|$)",
    re.IGNORECASE)


def plan_for(question: str) -> Plan | None:
    """The formula a question asks to compute, or None when it asks for no computed measure this
    module knows how to read (a lookup, a plain change, a share within one table, an explanation, or
    figures asked "respectively")."""
    text = _SHORT_FISCAL_YEAR.sub(lambda m: f"FY20{m.group(1)}", " ".join(question.split()))
    asked = _asked_part(text)
    if _EXPLAINING.search(text) or _RESPECTIVE.search(text):
        return None
    definitions = _definitions(text)
    for defined in definitions.values():  # "average" inside a definition is the definition's own
        asked = asked.replace(defined, " ")
    year = _main_year(text)
    years = _range(text)
    try:
        measure, body, source = _measure(text, definitions)
        if body is None:
            return _share_plan(text, asked) or _line_plan(text, asked)
        subject = measure
        if source == "named" and _COMPANY_DEFINED.search(asked):
            return None  # "Adjusted EBITDA" is the company's figure, found in its text or tables, not ours
        if _AVERAGE_ASKED.search(asked) and years and source != "growth":
            parts = [_expression(body, y, definitions) for y in range(years[0], years[1] + 1)]
            expression = "avg(" + ", ".join(e for e, _ in parts) + ")"
            quantities = [q for _, qs in parts for q in qs]
        elif source == "shape":
            return _share_plan(text, asked)  # "X as a % of Y" of one year: two lines the question names
        elif years and source != "growth" and _CHANGE_ASKED.search(asked):
            (old, old_quantities), (new, new_quantities) = (_expression(body, y, definitions) for y in years)
            percent = _PERCENT.search(asked) is not None
            expression = f"growth({new}, {old})" if percent else f"({new}) - ({old})"
            quantities = [*new_quantities, *old_quantities]
            measure = f"{'percent ' if percent else ''}change in {measure}"
        else:
            expression, quantities = _expression(body, year if year is not None or not years else years[1],
                                                 definitions)
        tree = formula.parse(expression)
    except (formula.FormulaError, ValueError, RecursionError):
        return None
    unique = tuple({q.name: q for q in quantities}.values())
    if not unique:
        return None
    return Plan(measure, expression, unique, formula.is_percent(tree), decimals_asked(text), source, subject)


def _measure(text: str, definitions: dict[str, str]) -> tuple[str, str | None, str]:
    """The measure asked for and its definition in words (None when there is none)."""
    asked = _asked_part(text)
    years = _range(text)
    if _CAGR.search(asked) and years:
        match = _CAGR_OF.search(asked)
        subject = next((g for g in (match.groups() if match else ()) if g), "revenue")
        subject = _clean_subject(subject) or "revenue"
        first, last = years
        return (f"{subject} CAGR", f"cagr(FY{last} {subject}, FY{first} {subject}, {last - first})", "growth")
    yoy = _YOY.search(asked)
    if yoy and years:
        subject = _clean_subject(yoy.group(1))
        first, last = years
        if re.search(r"percent|%", text, re.IGNORECASE):
            return (f"change in {subject}", f"growth(FY{last} {subject}, FY{first} {subject})", "growth")
        return (f"change in {subject}", f"FY{last} {subject} - FY{first} {subject}", "growth")
    for name, body in definitions.items():  # the question's own definitions come first
        if re.search(rf"\b{re.escape(name)}\b", asked, re.IGNORECASE):
            return name, body, "defined"
    if definitions:  # a definition given for a measure the question names only by its abbreviation, or "it"
        name, body = next(iter(definitions.items()))
        if name in _PRONOUNS:
            named = _ASKED_NAME.search(asked)
            name = " ".join(named.group("name").split()) if named else "the result"
        return name, body, "defined"
    share = _AS_SHARE.search(asked)
    if share:
        part, whole = _plain_subject(share.group(1)), _plain_subject(share.group(2))
        if part and whole:
            return (f"{part} as a % of {whole}", f"{part} / {whole} * 100", "shape")
    for pattern, body in DEFINITIONS:
        match = pattern.search(asked)
        if match:
            return match.group(0), body, "named"
    margin = _MARGIN.search(asked)
    if margin:
        subject = _clean_subject(_MARGIN_NOISE.sub(" ", margin.group(1)))
        if subject:
            subject = {"net profit": "net income", "profit": "net income", "gross": "gross profit",
                       "operating": "operating income", "net": "net income"}.get(subject, subject)
            return (f"{subject} margin", f"{subject} / revenue * 100", "named")
    return "", None, ""


def _line_plan(text: str, asked: str) -> Plan | None:
    """"the (percentage) change in X from A to B", "the average X for A and B", "the total X in A and B": X is
    any line a report prints ("Appliances", "net cash provided by financing activities"), found only by
    binding it to a row. Asked with no period at all ("What was the change in closing cash?"), the periods
    are left open for the line's table to give."""
    for kind, pattern in (("change", _CHANGE_SHAPE), ("change", _CHANGE_LEAD_SHAPE), ("average", _AVERAGE_SHAPE),
                          ("sum", _SUM_SHAPE)):
        match = pattern.search(asked)
        if match is None:
            continue
        if (match.groupdict().get("link") or "").lower() == "between" and re.search(r"\band\b", match.group("x"),
                                                                                   re.IGNORECASE):
            return None  # "the difference between X and Y": two lines, not one line's change
        subject = _line_subject(match.group("x"), kind)
        tail = match.group("tail") or match.groupdict().get("tail2") or ""
        years = sorted({int(y) for y in _YEAR_RE.findall(tail)})
        if match.groupdict().get("single"):  # "the change in X in 2019": from the year before
            year = int(_YEAR_RE.findall(match.group("single"))[0])
            years = [year - 1, year]
        if not subject or len(years) < 2 or (kind == "change" and len(years) != 2):
            return None
        if len(years) == 2 and ((match.groupdict().get("joint") or "").lower() not in ("and", "&")
                                or re.search(r"\bbetween\b", tail, re.IGNORECASE)):
            years = list(range(years[0], years[1] + 1))  # "from 2017 to 2019": every year of the span
        percent = kind == "change" and (bool(match.group("percent")) or _PERCENT.search(asked) is not None)
        if kind == "change" and _is_unsigned_difference(match, asked) and not percent:
            kind = "difference"
        return over_periods(Plan("", "", (), percent, decimals_asked(text), "line", subject, kind), years)
    match = _YEAR_AVERAGE_SHAPE.search(asked)
    if match is not None and len(years_asked(text)) == 1:
        subject = _line_subject(match.group("x") or match.group("x2"), "average")
        year = int(_YEAR_RE.findall(match.group("lead") or match.group("trail"))[0])
        plan = Plan("", "", (), False, decimals_asked(text), "line", subject, "average")
        return over_periods(plan, [year - 1, year]) if subject else None
    if years_asked(text):
        return None
    for kind, pattern in (("change", _OPEN_CHANGE), ("average", _OPEN_AVERAGE)):
        match = pattern.search(asked)
        subject = _line_subject(match.group("x"), kind) if match else ""
        if match and subject:
            percent = kind == "change" and (bool(match.groupdict().get("percent")) or _PERCENT.search(asked) is not None)
            return Plan("", "", (), percent, decimals_asked(text), "line", subject, kind)
    return None


MAX_LINE_WORDS = 12
"""Words a line's name may have ("State and local income tax rate, net of federal tax benefits": 11)."""


def _line_subject(said: str, kind: str) -> str:
    """The line a shape names, in plain words ("total inventories" from "the value of Total inventories")."""
    said = _POSSESSIVE.sub("", _AT_END_OF.sub("", said))  # "Autodesk's goodwill" is the report's goodwill
    subject = _clean_subject(said)
    if subject and kind != "sum" and re.match(r"(?:the\s+)?(?:(?:value|amount)\s+of\s+(?:the\s+)?)?total\b", said,
                                              re.IGNORECASE):
        subject = f"total {subject}"  # "the Total net deferred tax assets": the total line, where both print
    return subject if len(subject.split()) <= MAX_LINE_WORDS else ""


def _is_unsigned_difference(match: re.Match[str], asked: str) -> bool:
    """"The difference in X between 2018 and 2019" asks how far apart two figures are, a size without a
    direction (the sentence shows both figures with their periods); "the change", "the increase", "the net
    difference" and a difference "from 2018 to 2019" keep their sign. (TAT-QA dev: 39 of 46 differences asked
    are positive, where changes are negative 63 times in 158.)"""
    return ((match.groupdict().get("verb") or "").lower() == "difference"
            and (match.groupdict().get("joint") or "").lower() not in ("to", "through")
            and not re.search(r"\bnet\s+difference\b|\bfrom\b[^?]*\bto\b", asked, re.IGNORECASE))


def over_periods(plan: Plan, years: list[int]) -> Plan | None:
    """A line shape ("change", "average" or "sum" in ``plan.periods_open``) as a formula over its line in
    ``years`` (a change: the newest against the oldest); None when the years cannot make one."""
    kind, subject = plan.periods_open, plan.subject
    years = sorted(set(years))
    if len(years) < 2:
        return None
    try:
        if kind in ("average", "sum"):
            parts = [_expression(subject, y, {}) for y in years]
            expression = f"{'avg' if kind == 'average' else 'sum'}(" + ", ".join(e for e, _ in parts) + ")"
            measure = f"{'average' if kind == 'average' else 'total'} {subject}"
        else:
            parts = [_expression(subject, y, {}) for y in (years[-1], years[0])]
            new, old = parts[0][0], parts[1][0]
            if kind == "difference":
                expression, measure = f"abs(({new}) - ({old}))", f"difference in {subject}"
            else:
                expression = f"growth({new}, {old})" if plan.percent else f"({new}) - ({old})"
                measure = f"{'percent ' if plan.percent else ''}change in {subject}"
        tree = formula.parse(expression)
    except (formula.FormulaError, ValueError, RecursionError):
        return None
    quantities = tuple({q.name: q for _, qs in parts for q in qs}.values())
    return Plan(measure, expression, quantities, formula.is_percent(tree), plan.decimals, "line", subject)


_SHARE_END = (rf"(?:\s*,?\s+(?:in|for|at|as\s+(?:of|at)|during|of)\s+(?:the\s+)?(?:(?:fiscal\s+)?years?\s+(?:ended\s+)?)?"
              rf"(?:[a-z]+\s+\d{{1,2}},?\s+)?{_YEAR})?\s*\??$")
_SHARE_SHAPES: tuple[tuple[re.Pattern[str], bool], ...] = tuple((re.compile(p, re.IGNORECASE), percent) for p, percent in (
    # "X (expressed) as a percentage of Y", "X as a proportion of Y"
    (rf"^(?P<x>.+?)\s+(?:expressed\s+)?as\s+a\s+(?:%|percent(?:age)?|proportion|share)\s+of\s+(?:the\s+)?(?P<y>.+?){_SHARE_END}",
     True),
    # "the percentage (constitution) of X in / among / out of (the) total Y"
    ((rf"^(?:percent(?:age)?|proportion|share)\s+(?:(?:of\s+)?constitution\s+)?of\s+(?:the\s+)?(?P<x>.+?)\s+(?:in|among|out\s+of|within)"
     rf"\s+(?:the\s+)?(?P<y>total\s+.+?){_SHARE_END}"), True),
    # "the proportion of X over Y"
    (rf"^(?:percent(?:age)?|proportion|share)\s+of\s+(?:the\s+)?(?P<x>.+?)\s+over\s+(?:the\s+)?(?P<y>.+?){_SHARE_END}", True),
    # "what percentage of (the) total Y is made up of / comes from X"
    ((rf"^(?:percent(?:age)?|proportion|share)\s+of\s+(?:the\s+)?(?P<y>total\s+.+?)\s+(?:is|was|are|were)\s+(?:made\s+up\s+of|"
     rf"generated\s+from|from|accounted\s+for\s+by)\s+(?:the\s+)?(?P<x>.+?){_SHARE_END}"), True),
    # "the ratio of X to Y"
    (rf"^ratio\s+of\s+(?:the\s+)?(?P<x>.+?)\s+to\s+(?:the\s+)?(?P<y>.+?){_SHARE_END}", False),
))
_SHARE_ASKING = re.compile(r"^(?:what|how\s+much)\s+(?:(?:is|was|were|are)\s+)?(?:the\s+)?(?:value\s+of\s+(?:the\s+)?)?",
                           re.IGNORECASE)
_IN_PERCENT = re.compile(r"\b(proportion|share|ratio)\s*,?\s*(?:in|as\s+a)\s+(?:%|percent(?:age)?)\s*,?\s*(?=of\b)",
                         re.IGNORECASE)
_POSSESSIVE = re.compile(r"\b[\w.&-]+['\u2019]s\b\s*", re.IGNORECASE)


def _share_plan(text: str, asked: str) -> Plan | None:
    """"X as a percentage of Y in A", "the percentage of X in total Y", "what percentage of total Y is made
    up of X", "the ratio of X to Y": two lines the question names in its own words, each of one year (the
    year the question names, or the one a part names itself: "2019 X as a percentage of 2018 X")."""
    body = _SHARE_ASKING.sub("", asked.strip()).strip()
    body = re.sub(r"^(?:(?:total\s+)?(?:percent(?:age)?|proportion)\s+of\s+)(?=.+\bas\s+a\s+)", "", body, flags=re.IGNORECASE)
    body = _IN_PERCENT.sub(r"\1 ", body)  # "the proportion, in percentage, of X over Y" is the proportion of X over Y
    for pattern, percent in _SHARE_SHAPES:
        match = pattern.search(body)
        if match is None:
            continue
        year_groups = [g for g in match.groups()[2:] if g]
        year = int(year_groups[0]) if year_groups else _main_year(text)
        parts = []
        for group in ("x", "y"):
            words = _POSSESSIVE.sub("", match.group(group)).strip()
            if not words or len(words.split()) > 9 or re.search(r"\b(?:between|from|change|difference)\b|[%()]", words,
                                                                re.IGNORECASE):
                return None
            try:
                parts.append(_phrase(words, year, {}, 0))
            except (ValueError, RecursionError):
                return None
        quantities = tuple({q.name: q for _, qs in parts for q in qs}.values())
        if len(quantities) != 2 or any(q.year is None or _YEAR_RE.search(q.words) for q in quantities):
            return None  # a share of one line in itself, or no year to read it for: the loop's steps answer
        expression = f"{parts[0][0]} / {parts[1][0]}" + (" * 100" if percent else "")
        try:
            tree = formula.parse(expression)
        except formula.FormulaError:
            return None
        x, y = (_clean_subject(q.words) or q.words for q in quantities)
        measure = f"{x} as a % of {y}" if percent else f"ratio of {x} to {y}"
        return Plan(measure, expression, quantities, formula.is_percent(tree), decimals_asked(text), "share", measure,
                    split=_summed_share(match.group("x"), parts[1], year, percent, measure, text))
    return None


_SUM_PART = re.compile(r"^[a-z][a-z&'-]*(?:\s+[a-z&'-]+)+$", re.IGNORECASE)
"""A line's name of two words or more, without commas or figures: one term of a sum said with "and"."""


def _summed_share(said: str, whole: tuple[str, list[Quantity]], year: int | None, percent: bool, measure: str,
                  text: str) -> Plan | None:
    """"X and Y over Z" as (X + Y) / Z, where X and Y are each two words or more ("deferred revenue and accrued
    warranty"); None where the part is no such list ("research and development" is one line)."""
    terms = [t.strip() for t in re.split(r"\s+and\s+", _POSSESSIVE.sub("", said).strip(), flags=re.IGNORECASE)]
    if len(terms) < 2 or not all(_SUM_PART.match(t) and len(t.split()) <= 6 for t in terms):
        return None
    try:
        summed = [_phrase(t, year, {}, 0) for t in terms]
    except (ValueError, RecursionError):
        return None
    quantities = tuple({q.name: q for _, qs in [*summed, whole] for q in qs}.values())
    if len(quantities) != len(terms) + 1 or any(q.year is None for q in quantities):
        return None
    expression = "(" + " + ".join(e for e, _ in summed) + f") / {whole[0]}" + (" * 100" if percent else "")
    try:
        tree = formula.parse(expression)
    except formula.FormulaError:
        return None
    return Plan(measure, expression, quantities, formula.is_percent(tree), decimals_asked(text), "share", measure)


def _asked_part(text: str) -> str:
    """The part of a question that asks (without the definitions and instructions that follow it)."""
    match = re.search(r"\b(what|how much|calculate|compute)\b[^?]*\??", text, re.IGNORECASE)
    return match.group(0) if match else text


_SUBJECT_NOISE = frozenset({"the", "a", "an", "of", "in", "for", "s", "company's", "total", "unadjusted", "adjusted",
                            "year", "average", "what", "is", "was", "proportion", "value", "percentage", "expressed",
                            "respective", "amount", "number"})


def _clean_subject(text: str) -> str:
    words = [w for w in re.findall(r"[a-z&'-]+", text.lower()) if w not in _SUBJECT_NOISE]
    return " ".join(words).strip()


def _plain_subject(text: str) -> str:
    """A line's name without the asking words around it, its inner "of" kept ("cost of revenue", not
    "cost revenue", which reads as revenue)."""
    kept = [w for w in re.findall(r"[a-z&'-]+", text.lower()) if w == "of" or w not in _SUBJECT_NOISE]
    kept = [w for i, w in enumerate(kept) if w != "of" or 0 < i < len(kept) - 1 and kept[i - 1] != "of"]
    return " ".join(kept).strip()


def _definitions(text: str) -> dict[str, str]:
    """name (lower case, with its abbreviation as a second key) -> definition body, as the question gives them."""
    found: dict[str, str] = {}
    for match in _DEFINED.finditer(text):
        name = (match.group("a") or match.group("b") or match.group("c") or "").strip()
        body = (match.group("abody") or match.group("bbody") or match.group("cbody") or "").strip().rstrip(".")
        # "What was the asset turnover ratio in 2020, defined as ...": the name without the asking words.
        name = re.sub(r"^(?:what\s+(?:is|was|were|are)\s+)?(?:and|the|here|where|with)?\s*", "", name, flags=re.IGNORECASE)
        name = re.sub(rf"\s+(?:in|for|of)\s+{_YEAR}$|\s+{_YEAR}$|^{_YEAR}\s+", "", name, flags=re.IGNORECASE)
        if not name or not body:
            continue
        for key in _names_of(name):
            found.setdefault(key, body)
    return found


def _names_of(name: str) -> list[str]:
    """"Days payable outstanding (DPO)" -> ["days payable outstanding (dpo)", "days payable outstanding", "dpo"]."""
    lowered = name.lower().strip()
    out = [lowered]
    abbreviation = re.search(r"\(([a-z&]{2,8})\)", lowered)
    if abbreviation:
        out.append(re.sub(r"\s*\([^)]*\)", "", lowered).strip())
        out.append(abbreviation.group(1))
    if lowered.endswith(" here"):  # "FCF here is defined as"
        out.append(lowered[: -len(" here")])
    return [o for o in out if o]


def _main_year(text: str) -> int | None:
    """The year the question asks about: the first fiscal year named in its asking part."""
    asked = _asked_part(text)
    match = _YEAR_RE.search(asked) or _YEAR_RE.search(text)
    return int(match.group(1)) if match else None


def _range(text: str) -> tuple[int, int] | None:
    match = _RANGE.search(text)
    if match is None:
        return None
    first, last = sorted((int(match.group(1)), int(match.group(2))))
    return (first, last) if first < last else None


def asked_name(text: str) -> str:
    """What a question asks for, by name ("operating cash flow ratio" in "What is the FY2020 operating
    cash flow ratio for X?"), or ""."""
    named = _ASKED_NAME.search(_asked_part(text))
    return " ".join(named.group("name").split()) if named else ""


def years_asked(text: str) -> list[int]:
    """The fiscal years a question names, in order ("FY2019", "fiscal 2020", "2018")."""
    return list(dict.fromkeys(int(m.group(1)) for m in _YEAR_RE.finditer(text)))


def decimals_asked(text: str) -> int | None:
    """Decimal places a question asks for ("round to one decimal place"), or None."""
    match = _DECIMALS.search(text)
    if match is None:
        return None
    word = match.group(1).lower()
    return int(word) if word.isdigit() else _NUMBER_WORDS.get(word)


# -- a definition in words -> a formula ---------------------------------------------------------------

_OPERATOR_WORDS = (
    (re.compile(r"\bdivided\s+by\b", re.IGNORECASE), " / "),
    (re.compile(r"\b(?:multiplied\s+by|times)\b", re.IGNORECASE), " * "),
    (re.compile(r"\b(?:less|minus)\b", re.IGNORECASE), " - "),
    (re.compile(r"\bplus\b", re.IGNORECASE), " + "),
    (re.compile(r"\bover\b(?!\s+(?:the|a)\s+(?:year|period))", re.IGNORECASE), " / "),
)
_FUNCTION_CALL = re.compile(r"^(avg|sum|min|max|abs|round|growth|cagr)\($", re.IGNORECASE)
_AVERAGE_OF = re.compile(rf"^(?:the\s+)?average\s+(?:of\s+)?(?:the\s+)?(.+?)\s+(?:between|from|for)\s+{_YEAR}\s+(?:and|to|&)\s+{_YEAR}$",
                         re.IGNORECASE)
_CHANGE_OF = re.compile(rf"^(?:the\s+)?(?:change|increase|decrease)\s+in\s+(.+?)\s+(?:between|from)\s+{_YEAR}\s+(?:and|to)\s+{_YEAR}$",
                        re.IGNORECASE)
_LEADING_YEAR = re.compile(rf"^(?:the\s+)?{_YEAR}\s+(.+)$", re.IGNORECASE)
_TRAILING_YEAR = re.compile(rf"^(.+?)\s+(?:in|for|of|at)?\s*{_YEAR}$", re.IGNORECASE)
_SKIP_PHRASE = re.compile(r"^(?:the|a|an|and|of|ratio|here)$", re.IGNORECASE)


def _expression(body: str, year: int | None, definitions: dict[str, str], depth: int = 0) -> tuple[str, list[Quantity]]:
    """A definition in words as a formula over quantity names, for ``year`` (None: each quantity's own)."""
    if depth > 4:
        raise ValueError("definitions name each other in a circle")
    if year is not None:
        body = body.replace("{y}", str(year)).replace("{p}", str(year - 1))
    elif "{y}" in body or "{p}" in body:
        raise ValueError("a year is needed")
    text = body
    for pattern, symbol in _OPERATOR_WORDS:
        text = pattern.sub(symbol, text)
    text = re.sub(r"\bas\s+a\s+(?:%|percent(?:age)?)\s+of\b", " / ", text, flags=re.IGNORECASE)
    out: list[str] = []
    quantities: list[Quantity] = []
    for token in _tokens(text):
        if token in "()+-*/," or _FUNCTION_CALL.match(token) or re.fullmatch(r"\d+(?:\.\d+)?", token):
            out.append(token.lower() if _FUNCTION_CALL.match(token) else token)
            continue
        if _SKIP_PHRASE.match(token):
            continue
        expression, found = _phrase(token, year, definitions, depth)
        out.append(expression)
        quantities.extend(found)
    return " ".join(out).replace("( ", "(").replace(" )", ")").replace(" ,", ","), quantities


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


def _phrase(phrase: str, year: int | None, definitions: dict[str, str], depth: int) -> tuple[str, list[Quantity]]:
    """One phrase between operators: a quantity (maybe with its year), an average or change over two
    years, or the name of another definition (expanded in place)."""
    phrase = phrase.strip().strip(".").strip()
    lowered = phrase.lower()
    nested = definitions.get(lowered) or _catalog_body(lowered)
    if nested is not None and nested.lower() != lowered:
        expression, found = _expression(nested, year, definitions, depth + 1)
        return f"({expression})", found
    match = _AVERAGE_OF.match(phrase)
    if match:
        subject, a, b = match.group(1), int(match.group(2)), int(match.group(3))
        qa, qb = _quantity(subject, a), _quantity(subject, b)
        return f"avg({qa.name}, {qb.name})", [qa, qb]
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


def _catalog_body(phrase: str) -> str | None:
    """A common measure's definition when a definition names it as a whole ("DIO + DSO - DPO")."""
    for pattern, body in DEFINITIONS:
        match = pattern.fullmatch(phrase.strip())
        if match:
            return body
    return None


def _quantity(words: str, year: int | None) -> Quantity:
    cleaned = " ".join(re.sub(r"^(?:the|total cash|cash)?\s*", lambda m: m.group(0) if "cash" in m.group(0) else "",
                              words.strip(), flags=re.IGNORECASE).split())
    cleaned = re.sub(r"^(?:the|a|an)\s+", "", cleaned, flags=re.IGNORECASE)
    slug = "_".join(re.findall(r"[a-z0-9]+", cleaned.lower()))[:40].strip("_") or "value"
    if slug[0].isdigit():
        slug = f"v_{slug}"
    return Quantity(f"{slug}_{year}" if year is not None else slug, cleaned, year)
