"""How people name the parts of financial reports, against how reports print them.

A question says "capex", "PP&E", "COGS", "cash flow statement" or "P&L"; a report prints "Purchases of
property, plant and equipment", "Cost of sales", "Consolidated Statements of Cash Flows", "Statements
of Earnings". These are the common names of statements and line items in financial reporting (IFRS and
US GAAP wording, and that of public budgets), not any one company's: table choice and row choice add
the report's words for the names a question uses.
"""

from __future__ import annotations

import re
from collections.abc import Callable

# Statement kinds: what a question may call it -> words its title uses.
STATEMENTS: dict[str, tuple[re.Pattern[str], re.Pattern[str]]] = {
    "cash_flows": (
        re.compile(r"cash[\s-]*flows?\s+statement|statements?\s+of\s+cash\s+flows?|cash\s+flow", re.IGNORECASE),
        re.compile(r"cash[\s_]*flow", re.IGNORECASE),
    ),
    "balance_sheet": (
        re.compile(r"balance\s+sheet|statements?\s+of\s+financial\s+position|financial\s+position", re.IGNORECASE),
        re.compile(r"balance[\s_]*shee|financial[\s_]+position", re.IGNORECASE),
    ),
    "income": (
        re.compile(r"income\s+statement|p\s*&\s*l\b|profit\s+and\s+loss|statements?\s+of\s+(?:income|operations|earnings)"
                   r"|statement\s+of\s+comprehensive\s+income", re.IGNORECASE),
        re.compile(r"statements?[\s_]+of[\s_]+(?:consolidated[\s_]+)?(?:income|operations|earnings)|income[\s_]+statement"
                   r"|profit[\s_]+and[\s_]+loss", re.IGNORECASE),
    ),
}

_CAPEX = re.compile(r"\bcap(?:ital)?\s*ex(?:penditures?)?\b|\bcapital\s+expenditures?\b", re.IGNORECASE)
_SHORT_TERM_DEBT = re.compile(r"\bshort[\s-]*term\s+(?:borrowings?|debt|loans?)\b|\bnotes\s+payable\b"
                              r"|\bcommercial\s+paper\b", re.IGNORECASE)
_DEPRECIATION = re.compile(r"\bd\s*&\s*a\b|\bdepreciation(?:,?\s+(?:depletion\s+)?(?:and|&)\s+amorti[sz]ation)?\b",
                           re.IGNORECASE)
_CASH_FROM_OPERATIONS = re.compile(r"\bcash(?:\s+flows?)?\s+(?:from|generated\s+(?:by|from)|provided\s+by)\s+"
                                   r"(?:operations|operating\s+activities)\b|\boperating\s+cash\s+flows?\b|\bcfo\b",
                                   re.IGNORECASE)
"""The cash operations brought in: "cash from operations", "cash flow from operations", "operating cash flow"."""
_WORKING_CAPITAL = re.compile(r"\bworking\s+capital\b|\bcurrent\s+ratio\b|\bquick\s+ratio\b", re.IGNORECASE)
_BUYBACK = re.compile(r"\b(?:share|stock)\s+(?:buy[\s-]?backs?|repurchases?)\b|\bbuy[\s-]?backs?\b", re.IGNORECASE)
_CURRENT_DEBT = re.compile(r"\bcurrent\s+(?:portion|maturities|maturity)\s+of\s+(?:long[\s-]*term\s+debt|ltd)\b"
                           r"|\bcurrent\s+ltd\b", re.IGNORECASE)

# Line items: a name people use -> the words reports print for it (added to the question's words). Only
# distinctive words: generic ones ("total", "net", "cash") would favour every table that has a total line.
TERMS: tuple[tuple[re.Pattern[str], str], ...] = (
    (_CAPEX, "purchases property plant equipment additions capital expenditures"),
    (re.compile(r"\bpp\s*&\s*e\b|\bppne\b|\bfixed\s+assets?\b", re.IGNORECASE), "property plant equipment"),
    (re.compile(r"\bcogs\b|\bcost\s+of\s+(?:goods\s+sold|sales|revenues?)\b", re.IGNORECASE), "cost sales goods sold"),
    (_DEPRECIATION, "depreciation amortization"),
    # many income statements print gross profit as "Gross margin" (an amount, in the currency)
    (re.compile(r"\bgross\s+profit\b", re.IGNORECASE), "gross profit margin"),
    (re.compile(r"\bsg\s*&\s*a\b|\bselling,?\s+general,?\s+(?:and|&)\s+administrative\b", re.IGNORECASE),
     "selling general administrative expenses"),
    (re.compile(r"\br\s*&\s*d\b", re.IGNORECASE), "research development"),
    (re.compile(r"\bs\s*&\s*m\b|\bsales\s+(?:and|&)\s+marketing\b", re.IGNORECASE), "sales marketing"),
    (re.compile(r"\bg\s*&\s*a\b|\bgeneral\s+(?:and|&)\s+administrative\b", re.IGNORECASE), "general administrative"),
    (re.compile(r"\bops\b", re.IGNORECASE), "operations"),
    # "sales" alone is revenue; "cost of sales", "sales and marketing" and "sales tax" are other lines
    (re.compile(r"\brevenues?\b|\btop\s*line\b|\bturnover\b|(?<!\bcost\sof\s)(?<!\bcosts\sof\s)\bsales\b"
                r"(?!\s+(?:and|&)\s+marketing|\s+tax)", re.IGNORECASE), "revenues revenue sales"),
    (re.compile(r"\bnet\s+(?:income|profit|earnings)\b|\bbottom\s+line\b", re.IGNORECASE), "earnings profit surplus"),
    (re.compile(r"\boperating\s+(?:income|profit)\b|\bebit\b", re.IGNORECASE), "operating income profit earnings surplus operations"),
    (_CASH_FROM_OPERATIONS, "operating activities"),
    # sibling lines that share a head word: interest expense is no operating expense, income tax no income
    (re.compile(r"\binterest\s+(?:expense|cost|charge)s?\b", re.IGNORECASE), "interest expense"),
    (re.compile(r"\boperating\s+(?:expenses|costs)\b|\bopex\b", re.IGNORECASE), "operating expenses"),
    (re.compile(r"\bincome\s+tax(?:es)?\b|\btax\s+expense\b|\bprovision\s+for\s+(?:income\s+)?taxes\b", re.IGNORECASE),
     "income taxes"),
    (re.compile(r"\b(?:income|earnings|profit)\s+before\s+(?:income\s+)?tax(?:es|ation)?\b|\bpre[\s-]?tax\s+(?:income|"
                r"earnings|profit)\b", re.IGNORECASE), "before taxes"),
    (re.compile(r"\binventor(?:y|ies)\b", re.IGNORECASE), "inventories inventory merchandise"),
    (re.compile(r"\b(?:(?:[Aa]ccounts|[Tt]rade)\s+)?receivables?\b|\bdso\b|\ba/r\b|\bAR\b"), "receivable receivables trade"),
    (re.compile(r"\bpayables?\b|\bdpo\b|\ba/?p\b", re.IGNORECASE), "payable payables"),
    (re.compile(r"\bdividends?\b", re.IGNORECASE), "dividends"),
    # a company buying its own shares back: "Purchases of treasury stock", "Repurchases of common stock"
    (_BUYBACK, "purchases repurchases treasury stock common shares"),
    (re.compile(r"\beps\b|\bearnings\s+per\s+(?:common\s+)?share\b", re.IGNORECASE), "earnings per share"),
    (_WORKING_CAPITAL, "current assets liabilities"),
    (_SHORT_TERM_DEBT, "notes payable commercial paper short term borrowings debt"),
    (_CURRENT_DEBT, "current portion maturities long term debt"),
    # the debt due after a year: never its current portion, a sibling line
    (re.compile(r"\blong[\s-]*term\s+(?:debt|borrowings?)\b|(?<!current\s)\bltd\b", re.IGNORECASE), "long term debt borrowings"),
    (re.compile(r"\bshare\s*holders'?\s+equity\b|\bstockholders'?\s+equity\b|\bbook\s+value\b", re.IGNORECASE),
     "equity shareholders stockholders"),
)


# Where a line item is reported: balances in the balance sheet, flows of the period in the income
# statement, cash movements in the cash-flow statement (which also lists changes in the balances).
HOME_STATEMENTS: tuple[tuple[re.Pattern[str], str], ...] = (
    (_CASH_FROM_OPERATIONS, "cash_flows"),
    (re.compile(r"\b(?:cash\s+from\s+operations|operating\s+cash\s+flow|operating\s+activities|investing|financing|"
                r"cap(?:ital)?\s*ex|capital\s+expenditures?|dividends?\s+paid|purchases?|repurchases?|buy[\s-]?backs?|proceeds)\b",
                re.IGNORECASE), "cash_flows"),
    (re.compile(r"\b(?:assets?|liabilit(?:y|ies)|inventor(?:y|ies)|receivables?|payables?|equity|pp\s*&\s*e|ppne|"
                r"property|goodwill|debt|borrowings|short[\s-]*term\s+investments|marketable\s+securities|"
                r"retained\s+earnings|accumulated\s+(?:deficit|losses|other\s+comprehensive)|"
                r"(?:deferred|unearned)\s+(?:revenues?|income))\b"
                r"|^\s*cash(?:\s+and\s+(?:cash\s+)?equivalents)?\s*$", re.IGNORECASE), "balance_sheet"),
    (re.compile(r"\b(?:revenues?|sales|cogs|cost\s+of|income|earnings|profit|expenses?|ebit|tax)\b", re.IGNORECASE),
     "income"),
)


# Line items a label names only with a word of each group (stemmed as ``binding.stems`` does): capital
# expenditure is a purchase or an addition OF property or equipment, so neither "Purchases of treasury stock"
# (the act without the object) nor the balance sheet's "Property, plant and equipment" (the object without the
# act) is capex, though each prints words of it.
NAMED_BY_PARTS: tuple[tuple[re.Pattern[str], tuple[frozenset[str], ...]], ...] = (
    (_CAPEX, (frozenset({"purchase", "addition", "payment", "acquisition", "expenditure", "investment", "spending",
                         "capex"}),
              frozenset({"property", "equipment", "pp&e", "fixed", "capital", "plant", "capex"}))),
    # borrowed for a short term: notes, commercial paper, overdrafts; never short-term investments or receivables
    (_SHORT_TERM_DEBT, (frozenset({"short", "note", "commercial", "overdraft"}),
                        frozenset({"borrowing", "debt", "payable", "paper", "loan", "overdraft"}))),
    # the cash operations brought in, in total: never "Other operating activities", one line among them
    (_CASH_FROM_OPERATIONS, (frozenset({"cash", "net", "provided", "generated", "total"}),
                             frozenset({"operating", "operation"}))),
    # a line printing working capital or the ratio itself; "Total current assets" is one of its parts only
    (_WORKING_CAPITAL, (frozenset({"working", "current", "quick"}), frozenset({"capital", "ratio"}))),
    # depreciation and amortization together: "Depreciation" alone leaves the amortization out
    (_DEPRECIATION, (frozenset({"depreciation", "d&a"}), frozenset({"amortization", "amortisation", "d&a"}))),
    # shares bought back: the act and the shares, never "Purchases of property" nor "Treasury stock" (a balance)
    (_BUYBACK, (frozenset({"purchase", "repurchase", "buyback", "buy", "acquired"}),
                frozenset({"treasury", "stock", "share", "common", "buyback"}))),
    # the part of long-term debt due within a year
    (_CURRENT_DEBT, (frozenset({"current"}), frozenset({"portion", "maturity"}), frozenset({"debt", "borrowing"}))),
)


def parts_naming(text: str) -> tuple[frozenset[str], ...]:
    """The word groups a label must each hold a word of to name the line item ``text`` names (() where any
    report word of it will do)."""
    return next((groups for pattern, groups in NAMED_BY_PARTS if pattern.search(text)), ())


def home_statement(item: str) -> str | None:
    """The statement a line item is normally reported in ("inventory": the balance sheet), or None."""
    return next((kind for pattern, kind in HOME_STATEMENTS if pattern.search(item)), None)


def statements_asked(question: str) -> set[str]:
    """The kinds of statement a question names ("cash_flows", "balance_sheet", "income")."""
    return {kind for kind, (asked, _) in STATEMENTS.items() if asked.search(question)}


def is_statement(kind: str, title: str) -> bool:
    """Whether a table's title (caption, heading or name) is a statement of ``kind``."""
    entry = STATEMENTS.get(kind)
    return entry is not None and any(not _REFERRED_TO.search(title[: found.start()])
                                     for found in entry[1].finditer(title))


_REFERRED_TO = re.compile(r"\b(?:in|on|to|from|of|within|into|with)\s+(?:our|the|its|their|these|those)\s+"
                          r"(?:(?:consolidated|condensed|combined|accompanying)\s+)*$", re.IGNORECASE)
"""A statement a sentence refers to ("... included in our Consolidated Balance Sheets were as follows") names no
statement the table is."""


def translations(text: str) -> list[tuple[str, str]]:
    """(the name as the text says it, the words reports print for it) for each line item the text names."""
    return [(match.group(0), words) for pattern, words in TERMS if (match := pattern.search(text)) is not None]


def same_item(one: str, other: str) -> bool:
    """Two names that are each, whole, a common name of one line item ("COGS" and "cost of goods sold")."""
    return any(pattern.fullmatch(one.strip()) and pattern.fullmatch(other.strip()) for pattern, _ in TERMS)


def names_another_item(quantity_words: str, label: str) -> bool:
    """The quantity is a line item with a common name, and the label is the common name of another one:
    "Cost of sales" is COGS, never revenue, though it prints "sales"; "Operating income" is not net income.
    A label that prints a common name of the quantity's own item names that item. A quantity no common name
    covers ("income") is not judged here."""
    found = [(pattern, match.span()) for pattern, _ in TERMS if (match := pattern.search(quantity_words))]
    # an item named inside another's name is no item of its own ("general and administrative" in SG&A's)
    named = [pattern for pattern, (start, end) in found
             if not any(s <= start and end <= e and (s, e) != (start, end) for _, (s, e) in found)]
    others = [match.span() for pattern, _ in TERMS if pattern not in named and (match := pattern.search(label))]
    if not named or not others:
        return False
    # "Earnings before income taxes" names pretax earnings, though "income taxes" inside it is another item's
    # name; "Cost of revenue" names COGS, though "revenue" inside it is revenue's
    return not any(not any(start <= own.start() and own.end() <= end for start, end in others)
                   for pattern in named if (own := pattern.search(label)))


def report_words(question: str, printed: Callable[[str], bool] | None = None) -> str:
    """The words reports print for the line items the question names, as one text ("" for none). With
    ``printed`` (does the report use this wording?), a name the report itself prints is not translated:
    a report that says "revenue" needs no "sales"."""
    found = []
    for pattern, words in TERMS:
        match = pattern.search(question)
        if match is not None and not (printed is not None and printed(match.group(0))):
            found.append(words)
    return " ".join(found)


_DENIED = re.compile(r"\bnot\s+([a-z]+)|\bnon[\s-]*([a-z]{3,})|\bun([a-z]{4,})", re.IGNORECASE)


def denied_words(text: str) -> list[str]:
    """The words a label or question denies: "Dividends declared and not paid" are no dividends paid,
    "Non-operating income" no operating income, "Unpaid" nothing paid."""
    return [word for found in _DENIED.findall(text) for word in found if word]


ENTITY_KINDS: tuple[frozenset[str], ...] = (
    frozenset({"company", "employer", "firm", "business", "organisation", "organization", "corporation", "enterprise",
               "filer", "establishment"}),
    frozenset({"city", "town", "municipality", "locality", "place"}),
    frozenset({"country", "nation", "member state"}),
    frozenset({"person", "individual", "respondent", "participant"}),
)
"""Nouns a question and a table's header use for the same kind of row ("which employers" over a Company column)."""


def singular(noun: str) -> str:
    """A plural noun said in the singular ("countries": "country", "notices": "notice"; "class" as it is)."""
    plain = noun.lower().strip()
    return re.sub(r"ies$", "y", plain) if plain.endswith("ies") else re.sub(r"(?<!s)s$", "", plain)


def same_kind_nouns(noun: str) -> list[str]:
    """The other nouns for the kind of row ``noun`` names (singular or plural), or []."""
    one = singular(noun)
    for kind in ENTITY_KINDS:
        if one in kind:
            return sorted(kind - {one})
    return []


# How people ask, by word class: the words that ask for a count, a total, a share, and the verbs that say which
# way a figure moved or where a part went. ``core.answering.reading`` retells a question said with any of them in
# the one wording its grammar reads, so a meaning is read whatever its words.
COUNT_ASKED = ("number of", "count of", "count", "tally of", "how many")
"""Words that ask how many rows or things there are ("what number of X", "count the X", "the number of X")."""
TOTAL_AFTER = ("altogether", "together", "in all", "combined", "all told", "in total", "summed")
"""Words said after what is counted or summed that ask for it in total ("how many X altogether")."""
TOTAL_ASKED = ("add up", "sum up", "sum", "total up", "tot up")
"""Imperatives that ask for a total ("add up the X of A, B and C")."""
SHARE_WORDS = ("share", "percentage", "percent", "proportion", "portion", "fraction", "part", "%")
"""Nouns that ask for a part of a whole."""
PART_OF_VERBS = ("account for", "make up", "represent", "come from", "contribute", "constitute")
"""Verbs a part's subject takes for its share of a whole ("A accounted for what % of X": A's share of X)."""
EXTREME_VERBS = {"peak": "highest", "top out": "highest", "max out": "highest", "crest": "highest", "bottom out": "lowest",
                 "trough": "lowest"}
"""Verbs that say a figure was at its highest or lowest ("X peaked in which year": when X was the highest)."""
OUTPUT_VERBS = {"produce": "production", "export": "exports", "import": "imports", "consume": "consumption",
                "emit": "emissions", "harvest": "harvest", "generate": "generation", "catch": "catch"}
"""Verbs of an output a statistics table prints as a noun ("how much barley did A produce": barley production in A)."""
SIZE_ASKED = ("big", "large", "high", "great", "low", "small", "sizable", "sizeable")
"""Adjectives of "how big was X", which asks for X's figure ("what was X")."""
RECEIVED_VERBS = ("receive", "get", "obtain", "take in", "be given", "be allotted")
"""Verbs a receiver takes for the part of a whole that went to it ("what % of X did A receive": A's share)."""


_EE_VERBS = ("agreed", "freed", "guaranteed", "refereed", "decreed")
"""Verbs in -ee said in the past: the rest of the words in -eed are no past ("speed", "proceed", "seed")."""


def verb_base(verb: str) -> str:
    """The base form of a regular verb said in the past ("affected": "affect", "received": "receive", "peaked":
    "peak", "dropped": "drop", "carried": "carry"); a verb not in the past is returned as it is."""
    low = verb.lower()
    if not low.endswith("ed") or len(low) < 5:
        return verb
    if low.endswith("eed"):  # "speed", "exceed", "seed" are no past; "agreed", "guaranteed" are, of a verb in -ee
        return low[:-1] if low.endswith(_EE_VERBS) else verb
    stem = low[:-2]
    if stem.endswith("i"):
        return stem[:-1] + "y"
    if len(stem) >= 3 and stem[-1] == stem[-2] and stem[-1] not in "aeiouls":
        return stem[:-1]
    if re.search(r"(?:[cgvsz]|[aeiou][^aeiou]?at|ut|ur|ir|or|[^aeiou][aeiou]l)$", stem) and not stem.endswith(("ss", "ai")):
        return stem + "e"
    return stem


LINKING_VERBS = ("file", "submit", "report", "record", "register", "produce", "grow", "sow", "plant", "harvest", "take",
                 "attend", "enrol", "enroll", "hold", "bring", "see", "saw", "seen", "say", "said", "use", "affect", "budget",
                 "allocate", "vote", "cast", "live", "work", "serve", "happen", "occur", "get", "got", "took", "taken",
                 "held", "brought", "sown", "grew", "grown", "came", "fell", "fall", "went", "spent", "made", "gave", "given",
                 "due", "payable", "owe", "part", "used", "handle", "carry",
                 "receive", "lead", "led", "result", "cause", "account", "need", "require")
"""Verbs that join what a table counts to its figure ("the notices X filed", "the maize a province produced", "the
students who took part"): the figure is read, the verb names nothing a plan must read. A verb said in the past
("budgeted", "enrolled") is one too (``verb_base``)."""
COUNTED_PEOPLE = ("people", "person", "persons", "participant", "student", "respondent", "individual", "pupil", "child",
                  "children", "adult", "member", "case", "patient", "voter", "elector", "household", "incident", "event")
"""Nouns for the people or cases a table's figures count ("how many students", "the share of respondents"): what
is counted, which a column of counts need not print."""
UNIT_NOUNS = ("point", "points", "euro", "euros", "dollar", "dollars", "rupee", "rupees", "pound", "pounds", "yen",
              "franc", "francs", "tonne", "tonnes", "ton", "tons", "hectare", "hectares", "kilogram", "kg", "head",
              "percentage", "percent", "per", "cent", "lakh", "lakhs", "crore", "crores", "thousand", "million", "billion",
              "degree", "degrees", "km", "kilometre", "kilometres", "kilometer", "kilometers", "mile", "miles", "metre",
              "metres", "meter", "meters", "cm", "mm", "minute", "minutes", "hour", "hours", "second", "seconds", "mph")
"""Units and scales a question may say its figure in ("by how many points", "10 million euros", "below -20 degrees",
"over 45 seconds")."""
AGE_WORDS = ("aged", "age", "ages", "old", "older", "younger", "youth", "young", "elderly", "over", "under")
"""Words that say an age band ("aged 18-19", "60 and over"), whose figures the band's row holds."""


SAME_MEANING: tuple[frozenset[str], ...] = (
    frozenset({"employee", "worker", "staff", "personnel", "workforce", "employed"}),
    frozenset({"outlay", "spending", "expenditure", "spend", "spent"}),
    frozenset({"pupil", "student", "learner"}),
    frozenset({"passenger", "traveller", "traveler", "rider"}),
    frozenset({"inhabitant", "resident", "population"}),
    frozenset({"speed", "velocity"}),
    frozenset({"household", "hh", "hhs"}),  # a survey's "No. of HHs"
)
"""Nouns a question and a column header use for the same thing counted or measured ("workers" over an "Employees
affected" column), compared by their stems (``core.answering.binding.stems``)."""


def same_meaning(stems: set[str] | frozenset[str]) -> set[str]:
    """The other words of the same meaning as any of ``stems`` (singular, lower case), or an empty set."""
    return {other for kind in SAME_MEANING if kind & stems for other in kind} - set(stems)
