"""Measures as trees, and the textbook measures of financial analysis they can name.

A question asks for a measure built from parts: "EBITDA % margin" is EBITDA as a share of revenue, "the 3-year
average capex as a % of revenue" is an average over three periods of a share, "net debt to EBITDA" is a ratio
of two measures each defined in its own right. ``Measure`` is one node of that tree: a line a report prints
(``LINE``, in the question's own words), a measure this module defines (``NAMED``) or the question defines
(``DEFINED``), or an operation over its parts (a share, a ratio, a change over periods, an average...).

``CATALOGUE`` holds the common definitions of financial analysis as textbooks state them, in the words a
definition uses; one definition may name another ("free cash flow conversion" names free cash flow). A measure
is found here only by its whole name (``named``), never by a part of a phrase that happens to match first, so
"EBITDA % margin" is never read as EBITDA. Nothing here reads a question (``core.answering.reading`` does) or
looks a value up (``core.answering.binding`` does).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

LINE = "line"
"""A line a report prints, named in the question's words (``words``): bound only to a label naming it whole."""
NAMED = "named"
"""A measure of ``CATALOGUE`` (``words`` is its name there)."""
DEFINED = "defined"
"""A measure the question defines itself (``words`` is its name, ``body`` the definition in words)."""
SUM = "sum"
DIFFERENCE = "difference"
"""The first part less the others ("X less Y")."""
RATIO = "ratio"
"""The first part over the second ("X to Y", "X divided by Y")."""
SHARE = "share"
"""The first part as a percentage of the second ("X as a % of Y", "X margin")."""
CHANGE = "change"
"""One part's change between two periods, newer less older."""
PERCENT_CHANGE = "percent_change"
"""One part's change between two periods, in percent of the older."""
GAP = "gap"
"""How far apart one part's figures of two periods are, without a direction ("the difference in X between A and B")."""
AVERAGE = "average"
"""One part's average over periods."""
TOTAL = "total"
"""One part summed over periods ("the total X in 2018 and 2019")."""
CAGR = "cagr"
"""One part's compound annual growth rate between two periods, in percent."""
DAYS = "days"
"""A turnover ratio said in days: 365 over the ratio ("inventory turnover in days")."""

OVER_PERIODS = frozenset({CHANGE, PERCENT_CHANGE, GAP, AVERAGE, TOTAL, CAGR})
"""Operations over one part across periods: their ``periods`` say which, or the tables say (the printed ones)."""
BINARY = frozenset({RATIO, SHARE})
OPERATIONS = (LINE, NAMED, DEFINED, SUM, DIFFERENCE, RATIO, SHARE, CHANGE, PERCENT_CHANGE, GAP, AVERAGE, TOTAL, CAGR,
              DAYS)


@dataclass(frozen=True)
class Measure:
    """One node of a measure tree."""

    op: str
    words: str = ""
    """For a LINE, the line in the question's words; for NAMED and DEFINED, the measure's name."""
    parts: tuple[Measure, ...] = ()
    periods: tuple[int, ...] = ()
    """Fiscal years this node is asked over, when the question ties them to it ("the change in X from 2018 to
    2019": 2018 and 2019; "the 3-year average": filled in from the year asked); empty: the question's year."""
    span: int = 0
    """For an average or a growth "over N years" with no years given: N."""
    said: str = ""
    """The whole phrase the question used for this node ("EBITDA % margin"): a report may print it as a line."""
    body: str = ""
    """For DEFINED: the definition the question gives, in words."""
    own: bool = True
    """For a LINE: named in the question's own words (bound only to a label naming it whole); False where a
    definition supplies the words ("revenue" in a margin), which bind as a definition's do."""

    def describe(self) -> str:
        """The tree in words, for the steps and the "read as" line: "share(named(EBITDA), line(revenue))"."""
        if self.op in (LINE, NAMED, DEFINED):
            return f"{self.op}({self.words}{' ' + '-'.join(map(str, self.periods)) if self.periods else ''})"
        inner = ", ".join(p.describe() for p in self.parts)
        years = (f" {'-'.join(map(str, self.periods))}" if self.periods else "") + \
            (f" over {self.span} years" if self.span > 0 else "")
        return f"{self.op}({inner}){years}"

    def leaves(self) -> list[Measure]:
        """The LINE, NAMED and DEFINED nodes under this one, left to right."""
        if self.op in (LINE, NAMED, DEFINED):
            return [self]
        return [leaf for part in self.parts for leaf in part.leaves()]

    @property
    def name(self) -> str:
        """What a person calls this measure: the question's phrase for it, else its parts in words."""
        if self.said:
            return self.said
        if self.op in (LINE, NAMED, DEFINED):
            return self.words
        names = [p.name for p in self.parts]
        joined = {SUM: " plus ", DIFFERENCE: " less ", RATIO: " to "}.get(self.op)
        if joined:
            return joined.join(names)
        if self.op == SHARE:
            return f"{names[0]} as a % of {names[1]}"
        return f"{self.op.replace('_', ' ')} in {names[0]}" if names else self.op

    def with_periods(self, periods: tuple[int, ...]) -> Measure:
        return replace(self, periods=periods)


def line(words: str, said: str = "", own: bool = True) -> Measure:
    return Measure(LINE, " ".join(words.split()), said=said, own=own)


# The common definitions of financial analysis, as textbooks state them, in the words a definition uses ({y} is
# the year asked, {p} the year before). A name may be written several ways; the first is the one answers use.
# Each body is a formula in the grammar of ``core.answering.formula`` over line names and other measures' names.
_DEFINITIONS: tuple[tuple[tuple[str, ...], str], ...] = (
    (("free cash flow", "fcf", "free cash flows"), "cash from operations - capital expenditure"),
    (("working capital", "net working capital"), "total current assets - total current liabilities"),
    (("current ratio", "working capital ratio"), "total current assets / total current liabilities"),
    (("quick ratio", "acid test ratio", "acid-test ratio"),
     "(total current assets - inventories) / total current liabilities"),
    (("cash ratio",), "cash and cash equivalents / total current liabilities"),
    (("operating cash flow ratio",), "cash from operations / total current liabilities"),
    (("asset turnover", "total asset turnover", "asset turnover ratio", "total asset turnover ratio"),
     "revenue / (average total assets between FY{p} and FY{y})"),
    (("fixed asset turnover", "fixed asset turnover ratio"),
     "revenue / (average property plant and equipment net between FY{p} and FY{y})"),
    (("inventory turnover", "inventory turnover ratio"),
     "cost of goods sold / (average inventories between FY{p} and FY{y})"),
    (("receivables turnover", "accounts receivable turnover", "receivable turnover"),
     "revenue / (average accounts receivable between FY{p} and FY{y})"),
    (("payables turnover", "accounts payable turnover", "payable turnover"),
     "cost of goods sold / (average accounts payable between FY{p} and FY{y})"),
    (("retention ratio", "plowback ratio"), "(net income - dividends paid) / net income"),
    (("payout ratio", "dividend payout ratio", "dividend payout", "payout"), "dividends paid / net income * 100"),
    (("ebitda", "unadjusted ebitda"), "operating income + depreciation and amortization"),
    (("ebit",), "operating income"),
    (("return on assets", "roa", "return on total assets"),
     "net income / (average total assets between FY{p} and FY{y}) * 100"),
    (("return on equity", "roe", "return on shareholders equity", "return on stockholders equity"),
     "net income / (average total equity between FY{p} and FY{y}) * 100"),
    (("effective tax rate", "effective income tax rate"), "income tax expense / income before income taxes * 100"),
    (("equity multiplier", "financial leverage ratio"), "total assets / total equity"),
    (("interest coverage", "interest coverage ratio", "times interest earned"), "operating income / interest expense"),
    (("debt to equity", "debt to equity ratio", "debt-to-equity", "debt-to-equity ratio"),
     "total liabilities / total equity"),
    (("days inventory outstanding", "dio", "days in inventory", "days sales in inventory", "days sales of inventory",
      "inventory days", "days of inventory", "days inventory", "days of inventory on hand", "days inventory on hand",
      "inventory days on hand"), "365 * (average inventories between FY{p} and FY{y}) / cost of goods sold"),
    (("days sales outstanding", "dso", "receivable days", "days receivables", "days of receivables",
      "days receivable outstanding", "receivables days", "days receivable", "days sales in receivables"),
     "365 * (average accounts receivable between FY{p} and FY{y}) / revenue"),
    (("days payable outstanding", "dpo", "days payables outstanding", "payable days", "days of payables",
      "payables days", "days payables", "days payable"),
     "365 * (average accounts payable between FY{p} and FY{y}) / cost of goods sold"),
    (("cash conversion cycle", "ccc"),
     "days inventory outstanding + days sales outstanding - days payable outstanding"),
    (("free cash flow conversion", "fcf conversion", "cash conversion"), "free cash flow / net income"),
    (("gross profit",), "revenue - cost of goods sold"),
    # many balance sheets print no total of liabilities: it is what the total of liabilities and equity leaves
    (("total liabilities",), "total liabilities and equity - total equity"),
    (("total debt", "gross debt"),
     "[short-term borrowings] + [current portion of long-term debt] + long-term debt"),
    (("selling general and administrative expenses", "sg&a", "sga", "sg&a expenses", "selling general and administrative"),
     "sales and marketing expenses + general and administrative expenses"),
    (("r&d intensity", "research and development intensity", "r&d as a percentage of revenue"),
     "research and development expense / revenue * 100"),
    (("capex intensity", "capital intensity"), "capital expenditure / revenue * 100"),
    (("net debt",), "total debt - cash and cash equivalents"),
    (("capital employed",), "total assets - total current liabilities"),
    (("return on capital employed", "roce"), "operating income / capital employed * 100"),
    (("debt to capital", "debt-to-capital", "debt to capital ratio", "debt-to-capital ratio"),
     "total debt / (total debt + total equity)"),
    (("gearing", "net gearing"), "net debt / total equity"),
)
_ALIASES: dict[str, str] = {alias: names[0] for names, _ in _DEFINITIONS for alias in names}
CATALOGUE: dict[str, str] = {names[0]: body for names, body in _DEFINITIONS}
"""A measure's name -> its definition in the formula grammar."""

SAID_IN_PERCENT = frozenset({"payout ratio", "return on assets", "return on equity", "return on capital employed",
                             "effective tax rate", "r&d intensity", "capex intensity"})
"""Measures said in percent, whoever defines them ("a payout ratio of 67.6%"): a definition the question gives
of one ("dividends per share / diluted EPS") is said in percent too."""

NOT_COMPUTED = frozenset({"ebit"})
"""Names that are only another name of a line ("EBIT" is operating income): looked up, not computed."""
PRINTED_FIRST = frozenset({"gross profit", "ebit", "working capital", "free cash flow", "total liabilities",
                           "selling general and administrative expenses"})
"""Measures reports usually print as a line of their own: the printed line is read before the definition."""

# What a margin is a margin of: "operating margin" is operating income over revenue.
_MARGIN_OF = {"operating": "operating income", "net": "net income", "net profit": "net income",
              "profit": "net income", "gross": "gross profit", "pretax": "income before income taxes",
              "pre-tax": "income before income taxes", "ebit": "operating income", "net income": "net income"}


def _key(phrase: str) -> str:
    return " ".join(re.findall(r"[a-z0-9&]+", phrase.lower().replace("'s", "").replace("\u2019s", "")))


def named(phrase: str) -> str | None:
    """The catalogue's name for a measure named by the whole ``phrase`` ("FCF" -> "free cash flow"), else None."""
    return _ALIASES.get(_key(phrase))


def named_at_end(phrase: str) -> str | None:
    """The catalogue's name for a measure a phrase ends with, its whole name or a name after words about whose it is
    ("acme dividend payout ratio" -> "payout ratio"), else None."""
    words = _key(phrase).split()
    return next((_ALIASES[key] for start in range(len(words)) if (key := " ".join(words[start:])) in _ALIASES), None)


PART_WORDS = r"(?:(?:operating|reportable|business)\s+)?(?:segment|division|business|unit|region|brand)s?"
"""The words that say a name is a part of the company ("the Pet segment", "the Europe region")."""


def part_name(part: str) -> str:
    """The name a part is printed by in a report's tables: "the Pet segment" -> "Pet" (rows say "Pet" under
    "Net sales" or "Operating profit")."""
    return re.sub(rf"^(?:the|its|their)\s+|\s+{PART_WORDS}$", "", part.strip(), flags=re.IGNORECASE) or part


_OPERATOR_WORDS = (
    (re.compile(r"\bdivided\s+by\b", re.IGNORECASE), " / "),
    (re.compile(r"\b(?:multiplied\s+by|times|x)\b|\u00d7", re.IGNORECASE), " * "),
    (re.compile(r"\b(?:less|minus)\b", re.IGNORECASE), " - "),
    (re.compile(r"\bplus\b|\badjusted\s+for\b", re.IGNORECASE), " + "),
    (re.compile(r"\bover\b(?!\s+(?:the|a)\s+(?:year|period))", re.IGNORECASE), " / "),
)


def with_symbols(text: str) -> str:
    """A definition's operators said in words ("A divided by B times 365") written as symbols."""
    for pattern, symbol in _OPERATOR_WORDS:
        text = pattern.sub(symbol, text)
    return text


_NAMES_A_PART = re.compile(r"^(?:(?:what|how\s+much)\s+(?:is|was|are|were)\s+)?(?P<part>(?:the\s+)?.+?\s(?:(?:operating|reportable|business)\s+)?(?:segment|division|region)s?)"
                           r"(?:'s)?\s+\S", re.IGNORECASE)


def part_said(name: str) -> str | None:
    """The part of the company a measure's name says it is of ("the Space segment DSO": "the Space segment")."""
    said = _NAMES_A_PART.match(name)
    return said.group("part") if said is not None else None


def of_part(part: str, name: str, body: str | None = None) -> Measure:
    """A measure of a part of the company ("Pet segment", "the Europe region"): a catalogue measure's definition
    (or ``body``, the question's own) with every line of it taken for that part ("Pet operating income + Pet
    depreciation and amortization"), each bound only where a label (with its section) names it whole; a line of
    the part otherwise ("Pet net sales")."""
    key = part_name(part)
    body = CATALOGUE.get(name) if body is None else with_symbols(body)
    if body is None:
        return line(f"{key} {name}")

    def of_the_part(piece: str) -> str:
        if re.fullmatch(r"\s[-+*/]\s|[()]|,|\s*\d+(?:\.\d+)?\s*|\s*", piece):
            return piece
        average, rest, span = re.fullmatch(r"\s*(average\s+)?(.*?)(\s+between\s+FY\S+\s+and\s+FY\S+)?\s*", piece,
                                           re.DOTALL).groups()  # type: ignore[union-attr]
        return f"{average or ''}<{key} {rest}>{span or ''}"  # "average X between ...": the part after "average"

    return Measure(DEFINED, f"{part} {name}", body="".join(of_the_part(p) for p in re.split(r"(\s[-+*/]\s|[()]|,)", body)))


def margin_subject(phrase: str) -> str:
    """What a margin is taken of: "operating" -> "operating income", "net profit" -> "net income"; a named
    measure or line as said otherwise ("EBITDA")."""
    key = _key(phrase)
    return _MARGIN_OF.get(key, key)
