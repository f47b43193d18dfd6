"""Binding a plan's quantities to cells: the connected tables of one document, searched together (ARM).

A computed measure reads several statements at once ("revenue" in the income statement, "total assets"
in the balance sheet, "capex" in the cash-flow statement). For each quantity the candidates are the rows
of the connected tables: the document's statements (income, balance sheet, cash flows) plus the tables
that hybrid search finds for the quantity's own words, all in the documents the question's search
reached. A row fits a quantity by its label, in the question's words or in the words reports print for
them (``vocabulary.TERMS``: "COGS" is "Cost of sales"), with a preference for a statement the question
names; the period selects the column ("FY2019" finds "2019", "May 31, 2019", "fy2019"). A quantity asked
for several years binds to one row of one table that has all of them, so an average or a growth compares
like with like. When two rows fit almost equally, the caller's chooser (the model, constrained to the
candidates) decides. Nothing is computed here.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache

from core.answering.formula import BoundCell
from core.answering.metrics import Plan, Quantity
from core.answering.operations import TableView, column_title, header_words, is_number
from core.answering.vocabulary import (
    STATEMENTS,
    denied_words,
    home_statement,
    is_statement,
    names_another_item,
    parts_naming,
    same_item,
    statements_asked,
    translations,
)
from core.reports.values import SCALE_FACTORS, find_periods, is_nil_text
from core.reports.words import content_words

MIN_FIT = 0.34
"""The least label fit (Dice overlap of stemmed words) a row needs to stand for a quantity."""
CLOSE_FIT = 0.08
"""Two candidates closer than this are ambiguous: the chooser decides between them."""
NAMED_STATEMENT_BONUS = 0.12
"""A row in a statement the question names ("... shown in the balance sheet")."""
STATEMENT_BONUS = 0.05
"""A row in any primary statement (against notes and summaries repeating it)."""
HOME_BONUS = 0.1
"""A row in the statement the item is reported in (a balance in the balance sheet, not its change in the
cash-flow statement)."""
SIZE_BONUS = 0.03
"""At most this for a long table: a whole statement rather than a summary repeating some of its lines."""
TOTAL_BONUS = 0.02
"""A total line, where the question asks for "the total X"."""
MAX_OPTIONS = 5
BARE_TOTAL_FIT = 0.5
"""The fit of a line labelled only "Total" whose section or table title names the line asked for."""
_BARE_TOTAL = re.compile(r"^\s*total\s*:?\s*$", re.IGNORECASE)
QUALIFIED_PENALTY = 0.05
"""A label that names a line only with its section's heading or its columns' group fits this much less."""
OPENING_FACTOR = 0.8
"""An opening balance ("beginning of the year") for a line asked at a date: its closing balance is meant."""
_OPENING = re.compile(r"\b(?:beginning|opening|start)\b", re.IGNORECASE)
PERCENT_FIGURES_FACTOR = 0.5
"""A row whose figures in the periods asked are all printed in per cent, for a quantity that is no percentage (an
amount's line in a table of shares of revenue)."""
RANK_OVER_FIT = 0.2
"""A line named whole in a table search ranked higher wins over one fitting better by less than this."""
_STEM_STOP = {"the", "of", "and", "in", "for", "to", "on", "at", "by", "a", "an", "total", "from", "as"}
_OUTFLOW = re.compile(r"\b(purchases?|payments?|paid|repurchases?|repayments?|dividends?|additions?|capital\s+"
                      r"expenditures?|acquisitions?|used\s+(?:in|for))\b", re.IGNORECASE)
_EXPENSE = re.compile(r"\b(?:costs?|expenses?|expenditures?|provision\s+for|taxes)\b", re.IGNORECASE)
_EITHER_WAY = re.compile(r"\bincome\s*(?:/|\(|and|or)\s*\(?(?:expense|loss)|\(income\)|\bgains?\b|\bbenefits?\b|\bcredits?\b"
                         r"|\bbefore\b", re.IGNORECASE)
"""A label of a line that may be either sign ("Other income (expense), net", "Income tax (benefit) expense", "Income
before income taxes")."""
_TOTAL = re.compile(r"\s*total\b", re.IGNORECASE)
_DEDUCTION = re.compile(r"^\W*(?:less|deduct|minus)\b\s*[:\-\u2014]?\s", re.IGNORECASE)
"""A line printed as a deduction from the lines above it ("Less: Accumulated depreciation"), with its sign."""
_NET_SUFFIX = re.compile(r",\s*net\s*$|,?\s+\(?net\s+of\b", re.IGNORECASE)
"""A label naming the net amount: "X, net", "X, net of accumulated depreciation"."""
_BASIS_SUFFIX = re.compile(r",\s*(?P<basis>net|gross)\s*$", re.IGNORECASE)
"""A label naming the net or the gross amount of an item: "Land and buildings, gross"."""


def _suffix_words(quantity_words: str, label: str) -> set[str]:
    """The words a label's suffix says in a quantity's terms: "X, net" is net X; "X, gross" (or ", net") is the gross
    (net) cost, value or amount of X, the noun being the one the quantity names after "gross" ("the gross cost of X")."""
    said = {"net"} if _NET_SUFFIX.search(label) else set()
    basis = _BASIS_SUFFIX.search(label)
    if basis is not None and (noun := re.search(rf"\b{basis.group('basis')}\s+(?P<n>cost|value|amount|balance)\s+of\b",
                                                quantity_words, re.IGNORECASE)) is not None:
        said |= stems(noun.group("n"))
    return said
_CHANGE_LABEL = re.compile(r"^\W*(?:net\s+)?(?:\(?(?:increase|decrease)s?\)?\s*(?:/|and|or)?\s*)+\s*in\b"
                           r"|^\W*(?:net\s+)?(?:changes?|movements?)\s+in\b|\bchanges?\b", re.IGNORECASE)
"""A label or quantity of a movement over the year ("Changes in working capital", "(Increase) decrease in
inventories"), not of a balance."""
_PERCENT_LABEL = re.compile(r"%|\bpercent(?:age)?\b|\bas\s+a\s+share\b", re.IGNORECASE)
PERCENT_MEASURE = re.compile(r"%|\bpercent(?:age)?\b|\bmargin|\bratio|\brate\b|\bshare\b|\byield|\bgrowth",
                              re.IGNORECASE)
"""Words of a quantity that is itself a percentage (a margin, a rate), which a label in % may print."""
_BEFORE_TAX = re.compile(r"\bpre[\s-]?tax\b|\bbefore\s+(?:income\s+)?tax(?:es|ation)?\b", re.IGNORECASE)
_AFTER_TAX = re.compile(r"\bafter[\s-]?(?:income\s+)?tax(?:es|ation)?\b|\bnet\s+of\s+(?:income\s+)?tax(?:es)?\b", re.IGNORECASE)
"""An amount before tax and one after it: "After-tax earnings from joint ventures" is no pretax earnings."""
_PER_SHARE = re.compile(r"\bper\s+(?:common\s+)?share\b|\bshares?\b|\beps\b|\bdps\b", re.IGNORECASE)
_PER_SHARE_FIGURE = re.compile(r"\bper\s+(?:[a-z]+\s+)?share\b|\beps\b|\bdps\b", re.IGNORECASE)
_SHARE_COUNT = re.compile(r"\bshares\b|\bshare\s+count\b", re.IGNORECASE)
"""A figure per share ("Diluted earnings per common share"), and a number of shares ("weighted average diluted
shares")."""


def stems(text: str) -> set[str]:
    """Words folded so that "inventories" meets "inventory" and "liabilities" meets "liability"."""
    return content_words(text, _STEM_STOP)


def fit(quantity_words: str, label: str) -> float:
    """How well a row label names a quantity, from 0 to 1: the F-score of the label's stemmed words against
    the quantity's. A word of the quantity is covered when the label has it, or when the label prints a
    word reports use for the line item it is part of ("COGS" is covered by "Cost of sales"); the label's
    own words count as relevant when they are the quantity's or such report words."""
    asked, _names, relevant = _wanted(quantity_words)
    plain = _plain_label(label)
    have = stems(plain) | (_suffix_words(quantity_words, label) & asked)  # "X, net": net X
    if not have or not asked:
        return 0.0
    covered = _covered(quantity_words, have) & asked
    if asked - _GENERIC and not covered - _GENERIC:
        return 0.0  # "Interest expense" shares only "expense" with general and administrative expenses
    recall = len(covered) / len(asked)
    precision = len(have & relevant) / len(have)
    score = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    if _PER_SHARE.search(label) and not _PER_SHARE.search(quantity_words):
        score *= 0.5  # "Net income per share" is not net income
    elif _PER_SHARE.search(quantity_words) and not _PER_SHARE.search(label) \
            and not re.fullmatch(r"\W*(?:basic|diluted)\W*", plain, re.IGNORECASE):
        score *= 0.5  # "Earnings before interest and taxes" is no EPS (a "Diluted" row under EPS may be)
    if _SHARE_COUNT.search(quantity_words) and not _PER_SHARE_FIGURE.search(quantity_words) \
            and _PER_SHARE_FIGURE.search(label):
        score *= 0.25  # "Diluted earnings per share" is no number of diluted shares
    if asked & (denied(label) - denied(quantity_words)):
        score *= 0.25  # the label says it is not what the quantity is: "Dividends declared and not paid"
    if _another_kind(plain, relevant):
        score *= 0.5  # "Research and development tax credit" is no R&D expense: what the label ends in, it is
    if _BEFORE_TAX.search(quantity_words) and _AFTER_TAX.search(label) and not _BEFORE_TAX.search(label):
        score *= 0.5  # "After-tax earnings from joint ventures" is no pretax earnings
    if _CHANGE_LABEL.search(label) and not _CHANGE_LABEL.search(quantity_words):
        score *= 0.5  # "Changes in working capital" is the year's movement, not the working capital
    if _PERCENT_LABEL.search(label) and not PERCENT_MEASURE.search(quantity_words):
        score *= 0.5  # "Gross margin (%)" is no amount of gross profit
    if _part_of_a_name(quantity_words, have) or _misses_the_item(quantity_words, have):
        score *= 0.5  # "Depreciation" for depreciation and amortization, "Other expense (income)" for income tax
    if names_another_item(quantity_words, plain) and not _named_by_parts(quantity_words, have):
        score *= 0.5  # "Cost of sales" prints "sales" but is not revenue
    if _reported_elsewhere(quantity_words, plain) and not _named_by_parts(quantity_words, have):
        score *= 0.5  # "Retained earnings" (a balance) is no net income, "Income taxes payable" no income tax expense
    if _TOTAL.match(quantity_words) and _not_that_total(label, have, relevant):
        score *= 0.5  # "Accrued liabilities", "Total liabilities and equity" are not total liabilities
    return score


_GENERIC = frozenset(stems("total net other expense expenses cost costs income amount amounts"))
"""Words many lines print: a label sharing only these with a quantity does not name it."""
_ANOTHER_KIND = frozenset(stems("credit credits benefit benefits allowance allowances reserve reserves rate rates "
                                "impairment impairments gain gains loss losses provision provisions deduction deductions "
                                "carryforward carryforwards"))
"""Nouns a label ends in that make it another kind of amount than the item its first words name."""


def _another_kind(plain: str, relevant: frozenset[str]) -> bool:
    """The label (as ``_plain_label`` leaves it) ends in a noun of another kind of amount (a credit, a reserve, a
    gain) the quantity does not name."""
    ending = re.sub(r"\([^)]*\)|\W+$", " ", plain).split()  # "Net income (loss)" ends in income
    head = stems(ending[-1]) if ending else set()
    return bool(head & _ANOTHER_KIND) and not head & relevant


def _reported_elsewhere(quantity_words: str, label: str) -> bool:
    """The quantity and the label name items reported in two different statements (a flow of the year in the
    income statement, a balance in the balance sheet, a movement of cash in the cash flows)."""
    own, theirs = home_statement(quantity_words), home_statement(label)
    return own is not None and theirs is not None and own != theirs


def denied(text: str) -> set[str]:
    """The words a text denies, stemmed: "not paid", "Non-operating", "unpaid" deny paid and operating."""
    return stems(" ".join(denied_words(text)))


def _not_that_total(label: str, have: set[str], relevant: frozenset[str]) -> bool:
    """For a quantity asked as a total ("total liabilities"): a label that is no total and names more than the
    quantity ("Accrued liabilities"), or a total of the quantity and something else ("Total liabilities and
    equity" for total liabilities, or for total equity)."""
    if not _TOTAL.search(label):
        return not have <= relevant
    if (have - relevant) & _NARROWER:
        return True  # "Total current liabilities" is a part of total liabilities
    joined = re.split(r"\s+(?:and|&)\s+", _plain_label(label), maxsplit=1)
    return len(joined) == 2 and any(not (stems(part) - {"total"}) & relevant for part in joined)


_NARROWER = frozenset(stems("current noncurrent non-current long-term short-term other"))
"""Words of a subtotal: "Total current liabilities", "Total other assets" are parts of the total asked."""


def covers(quantity_words: str, label: str) -> bool:
    """Every word of the quantity is in the label (or its report wording is): "other assets" is not "Other",
    "interest income" is not "Interest cost". Required of a line the question names in its own words
    (a shape plan), where no textbook definition vouches for the name. "Total X" is a line labelled a total,
    or one that names X and nothing else ("Revenues" for "total revenue")."""
    asked, _names, relevant = _wanted(quantity_words)
    have = stems(_plain_label(label)) | _suffix_words(quantity_words, label)  # "X, net" is net X
    if not asked or not asked <= _covered(quantity_words, have):
        return False
    if _TOTAL.match(quantity_words) and not re.search(r"\btotal\b", label, re.IGNORECASE):
        return have <= relevant  # "total costs" is not "Patent costs": a part of the total names more than it
    return True


def _covered(quantity_words: str, have: set[str]) -> frozenset[str]:
    """The quantity's words a label's stemmed words ``have`` cover: its own, or a line-item name in it whose
    report wording the label prints."""
    asked, names, _relevant = _wanted(quantity_words)
    covered = set(asked & have)
    for named, report, parts in names:
        # a name whose report wording is its own words ("income taxes") is covered by all of them, not by one
        # (a word many lines print, "expenses", is no report wording of any one item)
        if named <= have or (all(have & part for part in parts) if parts
                             else (have & report) - _GENERIC and not report <= named):
            covered |= named
    if any(named <= covered and not report & _NOT_SPENT for named, report, _parts in names):
        # "R&D expense", "capex spend": the item named by its common name; the noun after it says what kind of
        # amount it is, which its label need not print ("Research and development")
        covered |= (asked & _AMOUNT_NOUNS) - {word for named, _report, _parts in names for word in named}
    return frozenset(covered)


_AMOUNT_NOUNS = frozenset(stems("expense spend spending outlay"))
_NOT_SPENT = frozenset(stems("revenue earnings profit surplus assets equity liabilities receivables inventories"))
"""Report words of items that are not spent: "revenue spending" names no line."""


def _part_of_a_name(quantity_words: str, label_words: set[str]) -> bool:
    """The label holds words of a line item the quantity names by parts, but not a word of each part (nor the
    name itself): "Depreciation" for "depreciation and amortization"."""
    return any(parts and named & label_words and not named <= label_words
               and not all(label_words & part for part in parts)
               for named, _report, parts in _wanted(quantity_words)[1])


def _misses_the_item(quantity_words: str, label_words: set[str]) -> bool:
    """The quantity names a line item with a common name ("income tax" in "income tax expense") that the label
    does not name, though it shares a word with it: "Other expense (income), net" is no income tax."""
    return any(not named <= label_words and label_words & named and not (label_words & (report - named))
               and not (parts and all(label_words & part for part in parts))
               for named, report, parts in _wanted(quantity_words)[1])


def _named_by_parts(quantity_words: str, label_words: set[str]) -> bool:
    """The label holds a word of each part of a line item the quantity names ("Purchases of property and
    equipment" for capex): it names that item, whatever other item's common name it also prints."""
    return any(parts and all(label_words & part for part in parts) for _named, _report, parts in _wanted(quantity_words)[1])


Naming = tuple[frozenset[str], frozenset[str], tuple[frozenset[str], ...]]
"""A line-item name in a quantity: its stemmed words, the words reports print for it, the parts a label needs."""


@lru_cache(maxsize=256)
def _wanted(quantity_words: str) -> tuple[frozenset[str], tuple[Naming, ...], frozenset[str]]:
    """A quantity's stemmed words, each line-item name in it with the words reports print for it (and the
    parts a label must each name, where it has them), and all the words a label may relevantly hold; read once
    per quantity, not once per row scored."""
    asked = frozenset(stems(quantity_words))
    names = tuple((frozenset(stems(said)), frozenset(stems(printed)), parts_naming(said))
                  for said, printed in translations(quantity_words))
    return asked, names, asked.union(*(report for _, report, _parts in names))



_GLUED_NOTE = re.compile(r"(?<=\s[a-z]{3})\d$|(?<=\s[a-z]{4})\d$|(?<=[a-z]{5})\d$")
"""A footnote's number printed flat on a label's last word ("Incentive schemes1", "Other benefits2")."""


def _plain_label(label: str) -> str:
    """A label without what does not name the item: the "[section]" a repeated label carries, note
    references ("(Note 6)", a footnote's number glued to the last word), a trailing ", net" and whose share it is
    ("attributable to ...")."""
    plain = re.sub(r"\s*\[[^\]]*\]$", "", label)
    plain = re.sub(r"\s*\(#\d+\)$", "", plain)
    plain = re.sub(r"\s*\((?:notes?|see)\b[^)]*\)|\s*\(\d+\)|\s*\([a-z]\)", "", plain, flags=re.IGNORECASE)
    plain = re.sub(r",\s*net\s*$", "", plain, flags=re.IGNORECASE)
    plain = _GLUED_NOTE.sub("", plain)
    # "Trade receivables, net of allowances for doubtful accounts of $9 and $8, respectively": what is deducted
    plain = re.sub(r",?\s+\(?net\s+of\b.*$", "", plain, flags=re.IGNORECASE) or plain
    # "attributable to the company's shareholders" names the owners' share, the line a ratio uses; the
    # share of noncontrolling (minority) interests is another line and keeps its words.
    # What follows a dash after it says which figure of the line it is ("... shareholders — diluted") and stays.
    return re.sub(r"\s+attributable\s+to\b(?![^—–]*\b(?:non-?controlling|minority|redeemable)\b)"
                  r"[^—–]*?(?=\s*[—–]|$)", "", plain, flags=re.IGNORECASE)


def year_column(view: TableView, year: int, question: str = "") -> str | None:
    """The value column for a fiscal year: one whose period (stored at ingestion) is that fiscal year, else
    one whose name or header holds the year and is not a change or a percent. Where the year has several
    columns ("2019 Number" and "2019 $M"), the one whose header the question names ("in terms of $M"),
    else the first."""
    found = _year_candidates(view, year, question)
    return found[0] if found else None


def year_columns(view: TableView, years: Sequence[int], question: str = "") -> list[str | None]:
    """The value columns for several fiscal years of one line, from one group of columns: where a table
    prints the year's balance and, beside it, the year's "Net additions" (or "Actual" and "Budget"), and the
    first column found for each year is not of one group, the columns of the group every year has (the
    question's, or the first year's first such)."""
    found = [_year_candidates(view, year, question) for year in years]
    firsts = [columns[0] if columns else None for columns in found]
    if len(years) < 2 or not all(found) or len({_column_group(view, c) for c in firsts if c}) < 2:
        return firsts
    groups = [{_column_group(view, c): c for c in reversed(columns)} for columns in found]
    common = set(groups[0]).intersection(*groups[1:])
    key = next((_column_group(view, c) for c in found[0] if _column_group(view, c) in common), None)
    return [g[key] for g in groups] if key is not None else firsts


_PERIOD_WORDS = re.compile(r"\b(?:19|20)\d\d\b|\b\d{1,2}\b|\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\b"
                           r"|\((?:\d+|[a-z])\)", re.IGNORECASE)


def _column_group(view: TableView, column: str) -> frozenset[str]:
    """A column's header without its period and note marks: the group it belongs to ("net additions losses")."""
    header = next((c.header for c in view.data_columns if c.name == column), column)
    return frozenset(header_words(_PERIOD_WORDS.sub(" ", header)))


_PERCENT_COLUMN = re.compile(r"%|percent|pct|\bshare\b|of\s+total|of\s+(?:net\s+)?(?:sales|revenues?)", re.IGNORECASE)


_EXCEPT = re.compile(r"\bexcept\b[^)]*", re.IGNORECASE)
"""What a scale note leaves out ("(In thousands, except percentages)"): words about other columns, not this one."""


_MONTHS = r"(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?"
_DAY_SAID = re.compile(rf"\b{_MONTHS}\s+(\d{{1,2}}),?\s+((?:19|20)\d\d)\b|\b(\d{{1,2}})\s+{_MONTHS},?\s+((?:19|20)\d\d)\b",
                       re.IGNORECASE)


def _days_said(text: str) -> list[tuple[str, int, int]]:
    """The dates a text names to the day ("January 26, 2019", "31 December 2019"): (month, day, year)."""
    return [(m.group(1).lower()[:3], int(m.group(2)), int(m.group(3))) if m.group(1) else
            (m.group(5).lower()[:3], int(m.group(4)), int(m.group(6))) for m in _DAY_SAID.finditer(text)]


def _days_asked(question: str, year: int) -> list[tuple[str, int]]:
    """The days of ``year`` a question names: (month, day)."""
    return [(month, day) for month, day, said in _days_said(question) if said == year]


def _names_day(header: str, year: int, month: str, day: int) -> bool:
    """A column's name and header name that day of ``year``."""
    return (month, day, year) in _days_said(header)


@lru_cache(maxsize=64)
def _quarters_asked(question: str, year: int) -> frozenset[int]:
    """The quarters of ``year`` a question names ("the second quarter of fiscal 2019", "Q3 2019")."""
    return frozenset(m.quarter for m in find_periods(question) if m.quarter and m.year == year)


def _year_candidates(view: TableView, year: int, question: str) -> list[str]:
    quarters = _quarters_asked(question, year)
    if quarters:
        # a quarter asked is read in that quarter's column, never in the year's (nor another quarter's)
        columns = {c.name for c in view.data_columns}
        return [p.column for p in view.info.periods
                if p.period.fiscal_year == year and p.period.quarter in quarters and p.column in columns]
    # a quarter's or a half-year's column holds part of a year: never the year's figure
    part = {p.column for p in view.info.periods if p.period.quarter or 0 < p.period.months < 12}
    data = {c.name for c in view.data_columns} - part
    found = [p.column for p in view.info.periods if p.period.fiscal_year == year and p.column in data]
    if not found:
        digits = re.compile(rf"{year}|\bFY?\s?'?{year % 100:02d}\b", re.IGNORECASE)  # "2019", "F19", "FY'19"
        dated = [c for c in view.data_columns if digits.search(f"{c.name} {c.header}") and c.name in data
                 and not re.search(r"change|vs\.?|variance|growth", f"{c.name} {c.header}", re.IGNORECASE)]
        found = [c.name for c in dated if not re.search(r"%|percent", _EXCEPT.sub(" ", c.header or c.name), re.IGNORECASE)]
        if not found and len(dated) == 1:  # a table of rates: the year's one column is headed "2019 %"
            found = [dated[0].name]
    on_days = [c.name for c in view.data_columns if any(_names_day(f"{c.name} {c.header}", year, month, day)
                                                        for month, day in _days_asked(question, year))]
    if on_days:  # "the quarter ended January 26, 2019": that date's column, not the fiscal year's closing one
        return on_days + [c for c in found if c not in on_days]
    if len(found) > 1 and question:
        asked = header_words(question)
        headers = {c.name: c.header for c in view.data_columns}
        named = [c for c in found if (header_words(headers.get(c, "")) - {str(year)}) & asked]
        found = named + [c for c in found if c not in named]
        if not re.search(r"percent|%|proportion|share\s+of|margin", question, re.IGNORECASE):
            # a year printed as an amount and its percent of a total: the amount, unless a percent is asked
            amounts = [c for c in found if not _PERCENT_COLUMN.search(f"{c} {headers.get(c, '')}")]
            found = amounts + [c for c in found if c not in amounts]
    return found


@dataclass(frozen=True)
class Candidate:
    """A row that may stand for a quantity: its table, row, label and fit."""

    view: TableView
    row: int
    label: str
    score: float
    column: str | None = None
    """For a quantity asked without a year: the column that names it ("Budget"), else None (the years')."""
    parts: tuple[int, ...] = ()
    """The rows that make up a line printed as its parts (a heading with no figure over them), else ()."""
    exact: bool = False
    """The label (with its section's heading, where that names the line) holds the quantity's words and no other."""

    @property
    def key(self) -> str:
        column = f", {column_title(self.view, self.column)}" if self.column else ""
        return f"{self.label}{column} \u2014 {self.view.info.caption or self.view.info.heading or self.view.name}"


Chooser = Callable[[dict[str, list[str]]], dict[str, str]]
"""Given quantity words -> option keys, returns quantity words -> the chosen key (may leave some out)."""


def candidates(words: str, years: Sequence[int], views: Sequence[TableView], question: str,
               whole: bool = False) -> list[Candidate]:
    """Rows that may stand for ``words`` in every one of ``years``, best first. Without years, a cell is
    named by its row label and column header together ("Housing budget": row Housing, column Budget).
    ``whole``: only rows whose label holds every word of ``words`` (``covers``)."""
    named = statements_asked(question)
    home = home_statement(words)
    found: list[Candidate] = []
    for view in views:
        columns = year_columns(view, years, question)
        if any(c is None for c in columns):
            continue
        sections = view.headings if whole else {}
        group = " ".join(sorted(set().union(*(_column_group(view, c) for c in columns if c)))) if whole else ""
        positions = [view.column_position(c) for c in columns if c is not None]
        title = view.info.title
        primary = _is_primary(view)  # (a statement's title names what all its lines are; a note's, what its rows share)
        bonus = NAMED_STATEMENT_BONUS if any(is_statement(k, title) for k in named) else (
            STATEMENT_BONUS if primary else 0.0)
        bonus += HOME_BONUS if home is not None and is_statement(home, title) else 0.0
        bonus += SIZE_BONUS * min(1.0, len(view.rows) / 40)
        for choice in view.rows:
            values = view.values.get(choice.row, ())
            if not years:
                for column in view.data_columns:
                    position = view.column_position(column.name)
                    if position < len(values) and is_number(values[position]):
                        score = fit(words, f"{choice.label} {column_title(view, column.name)}")
                        if score >= MIN_FIT:
                            found.append(Candidate(view, choice.row, choice.label, score + bonus, column.name))
                continue
            if not _has_figures(view, choice.row, positions):
                parts = _printed_as_parts(view, choice.row, positions)
                # a heading over a few lines is no statement's total ("Liabilities" over three of them)
                if parts and covers(words, choice.label) and not (home is not None and _TOTAL.match(words)):
                    found.append(Candidate(view, choice.row, choice.label, fit(words, choice.label) + bonus, parts=parts))
                continue
            score = fit(words, choice.label)
            if whole and _BARE_TOTAL.match(choice.label):
                score = _total_of_table(words, view, choice.row, sections.get(choice.row, ""))
            elif whole and not covers(words, choice.label):
                # the label with its section's heading, else with what the table's title says too ("individual
                # income tax receipts in the baseline": "Individual income taxes" under "Receipts" in a table
                # titled "Adjusted Baseline by Category")
                section = f"{sections.get(choice.row, '')} {group}"
                titles = [_measured(view)] + ([] if primary else [title])
                score = _qualified_fit(words, choice.label, section) or \
                    max(_qualified_fit(words, choice.label, context) for said in titles
                        for context in (said, f"{section} {said}")) - TITLE_PENALTY
            elif whole and _OPENING.search(choice.label) and not _OPENING.search(words):
                score *= OPENING_FACTOR  # "Goodwill, beginning of the year": the balance at the date is the closing one
            if score >= MIN_FIT:
                if not PERCENT_MEASURE.search(words) and columns and \
                        all(view.cell_scale(choice.row, c) == "%" for c in columns if c is not None):
                    # "Cost of revenue 43%" in a table of shares of revenue is no amount: any row printing one goes
                    # first (a ratio named by its own name, "ROFE", still binds where no other row fits)
                    score *= PERCENT_FIGURES_FACTOR
                if whole and _TOTAL.match(words) and _TOTAL.match(choice.label):
                    score += TOTAL_BONUS  # "the total X": the total line where a table prints X and its total
                exact = whole and _names_exactly(words, choice.label, sections.get(choice.row, ""))
                found.append(Candidate(view, choice.row, choice.label, score + bonus, exact=exact))
    # Where the document has primary statements that print the item, they are its source: a note or a
    # hedging table repeating a fragment of it ("in earnings") is not.
    # Another document's statement is no reason to pass over this document's note.
    with_statements = {c.view.info.document_id for c in found if _is_primary(c.view)}
    if home is not None and _TOTAL.match(words):
        # A statement's total ("total liabilities") is printed in its statement or not at all: a note's heading
        # summed over a few of its lines is no such total (the measure's definition may compute it instead).
        with_statements |= {v.info.document_id for v in views if is_statement(home, v.info.title)}
    found = [c for c in found if _is_primary(c.view) or c.view.info.document_id not in with_statements]
    # Of one row's columns, those whose header the question names go first ("DLHS-3 rural" over "DLHS-4 total"): the
    # line's words fit each alike, and a header's own words only lower the fit of the columns they name.
    row_best: dict[tuple[int, int], float] = {}
    for c in found:
        row_best[c.view.info.id, c.row] = max(c.score, row_best.get((c.view.info.id, c.row), c.score))
    said = set(_HEADER_WORD.findall(question.lower()))
    # A line in the question's own words (``whole``) is looked for first in the tables search ranked first
    # for the question; a defined measure's lines, in the statements, by page.
    if whole and found:
        # Every candidate names the line whole; among those that name it about as well as the best, the table
        # search ranked higher for the question is the one it asks about (another report may print the
        # same line).
        rank = {view.info.id: i for i, view in enumerate(views)}
        best = max(c.score for c in found)
        # Among those, a label naming the line exactly ("Other" under "Deferred tax assets" for "other deferred
        # tax assets") goes before one that names more ("Accrued expenses and other"), whatever the table's rank.
        later = _later_statements(views)
        # A document's first statement of a kind is its own; one printed again later (a guarantor group's, a
        # parent company's condensed statements in the notes) goes after it, whatever search ranked first.
        found.sort(key=lambda c: (c.score < best - RANK_OVER_FIT, c.view.info.id in later, not c.exact,
                                  rank.get(c.view.info.id, 0), -row_best[c.view.info.id, c.row],
                                  -_column_said(c, said), -c.score, c.view.info.page, c.row))
    else:
        found.sort(key=lambda c: (-row_best[c.view.info.id, c.row], -_column_said(c, said), -c.score,
                                  c.view.info.page, c.row))
    return found


_HEADER_WORD = re.compile(r"\w+(?:[-/.]\w+)*")


def _column_said(candidate: Candidate, said: set[str]) -> int:
    """How many words of the candidate's column header the question ``said`` (its ``_HEADER_WORD`` words, codes
    whole: "DLHS-3", "Q4-2019"): of a row's columns, each as good a fit for the line, the one the question names
    ("DLHS-3 rural" over "DLHS-4 total")."""
    if candidate.column is None:
        return 0
    return len(set(_HEADER_WORD.findall(column_title(candidate.view, candidate.column).lower())) & said)


def _later_statements(views: Sequence[TableView]) -> set[int]:
    """The ids of statements printed after their document's first statement of the same kind."""
    first: dict[tuple[int, str], int] = {}
    later: set[int] = set()
    for view in sorted(views, key=lambda v: (v.info.page, v.info.id)):
        kind = next((k for k in STATEMENTS if is_statement(k, view.info.title)), None)
        if kind is None:
            continue
        key = (view.info.document_id, kind)
        if key in first and view.info.page > first[key] + 1:  # a statement continued on the next page is the same
            later.add(view.info.id)
        first.setdefault(key, view.info.page)
    return later


def _names_exactly(words: str, label: str, section: str) -> bool:
    """The label, alone or read with its section's heading, holds every word of the quantity and no other ("the
    total X": a label that says total)."""
    asked = stems(words)
    label_words = stems(_plain_label(label))
    if _TOTAL.match(words) and not re.search(r"\btotal\b", label, re.IGNORECASE):
        return False
    if _TOTAL.match(label) and not _TOTAL.match(words):
        return False  # X asked alone is named exactly by "X", not by "Total X" (which another table may print)
    return bool(asked) and (label_words == asked or bool(label_words) and label_words | stems(section) == asked)


def _has_figures(view: TableView, row: int, positions: Sequence[int]) -> bool:
    """Whether a row holds a figure in every column (by position) asked. Over two periods or more, a cell printing a
    dash is a nil amount, zero, where another period holds a figure ("Acquisition-related charges (228) —" rose from
    nothing); a blank or "n/a" is no figure."""
    values = view.values.get(row, ())
    figures = [p < len(values) and is_number(values[p]) for p in positions]
    if len(positions) < 2 or not any(figures):
        return all(figures)
    return all(found or _nil(view, row, p) for found, p in zip(figures, positions))


def _nil(view: TableView, row: int, position: int) -> bool:
    """The cell prints a dash, a nil amount."""
    return is_nil_text(view.printed.get((row, position), ""))


def _printed_as_parts(view: TableView, row: int, positions: Sequence[int]) -> tuple[int, ...]:
    """The rows a heading with no figures stands over, where they are the line's parts: two or more lines, each with
    a figure in every column asked, none a total (a heading closed by its own total is read from that total)."""
    facts = view.info.row_facts
    if not positions or not any(f.row == row for f in facts):
        return ()
    under = [f for f in facts if f.parent_row == row]
    if len(under) < 2 or any(f.is_total for f in under):
        return ()
    for f in under:
        label = view.labels.get(f.row, "")
        if not _has_figures(view, f.row, positions) or _PERCENT_LABEL.search(label) or _PER_SHARE.search(label):
            return ()  # a share or a per-share figure beside the amounts: no parts of one amount
    names = [c.name for c in view.info.schema.columns]
    scales = {view.cell_scale(f.row, names[p]) for f in under for p in positions}
    return tuple(f.row for f in under) if len(scales) <= 1 else ()


TITLE_PENALTY = 0.05
"""A label that names a line only with its table's title ("Schools" in "Spending by department" for "school
spending") fits a little less than one named with its section heading."""


def _measured(view: TableView) -> str:
    """What a table's title says its figures measure ("Spending" in "Spending by department", "Revenue" in "Revenue
    by segment"): the words before "by", "per" or "for", else the whole title."""
    title = view.info.caption or view.info.heading
    return re.split(r"\s+(?:by|per|for|of\s+each)\s+", title, maxsplit=1, flags=re.IGNORECASE)[0] if title else ""


def _qualified_fit(words: str, label: str, context: str) -> float:
    """The fit of a label read with the heading of its section and the group of its columns ("Operating
    activities" under "Net cash (used in) provided by:", "Additions" under "Financial assets", "Diluted"
    under "Weighted-average common shares outstanding:"), where together they name the line whole and the
    label itself names part of it; 0 otherwise. A little less than a label naming it alone."""
    plain = _plain_label(label)
    own = stems(plain)
    if not context.strip() or not own & _wanted(words)[0] or not covers(words, f"{label} {context}"):
        return 0.0
    if own - _wanted(words)[2] - stems(context) - _GENERIC:
        return 0.0  # the label names what neither the quantity nor its heading does ("investing" under operations)
    score = fit(words, f"{label} {context}") - QUALIFIED_PENALTY
    return score * 0.5 if _another_kind(plain, _wanted(words)[2]) else score


def _total_of_table(words: str, view: TableView, row: int, section: str) -> float:
    """A line labelled only "Total" is the total of what its section heading, else its table's title, names
    ("Total" under "... components of income from continuing operations before income taxes" is the total
    income from continuing operations): BARE_TOTAL_FIT where that names the line whole, else 0. Only the last
    bare total of the table stands for the table's title."""
    if section.strip() and covers(words, f"total {section}") and not names_another_item(words, section):
        return BARE_TOTAL_FIT
    last = max(r.row for r in view.rows if _BARE_TOTAL.match(r.label))
    title = f"{view.info.caption} {view.info.heading}"
    # The total of a "Cost of revenue" table is no total revenue, though its title prints "revenue".
    return BARE_TOTAL_FIT if row == last and title.strip() and covers(words, f"total {title}") \
        and not names_another_item(words, title) else 0.0


def _same_line(label: str) -> str:
    return " ".join(sorted(stems(_plain_label(label))))


def _is_primary(view: TableView) -> bool:
    return any(is_statement(kind, view.info.title) for kind in STATEMENTS)


def bind(plan: Plan, views: Sequence[TableView], question: str, choose: Chooser | None = None,
         exclude: frozenset[tuple[int, int]] = frozenset()) -> dict[str, BoundCell]:
    """Each quantity of the plan bound to a cell, never to a row of ``exclude`` ((table id, row) a check turned
    down); raises LookupError naming a quantity no row fits."""
    groups: dict[str, list[Quantity]] = {}
    for quantity in plan.quantities:
        groups.setdefault(quantity.words.lower(), []).append(quantity)
    chosen: dict[str, Candidate] = {}
    listed: dict[str, list[Candidate]] = {}
    ambiguous: dict[str, list[Candidate]] = {}
    for words, quantities in groups.items():
        years = sorted({q.year for q in quantities if q.year is not None})
        whole = plan.in_own_words or any(q.whole for q in quantities)
        found = [c for c in candidates(words, years, views, question, whole=whole)
                 if (c.view.info.id, c.row) not in exclude]
        if all(q.optional for q in quantities):  # named by its own label, never by a note's heading around it
            found = [c for c in found if covers(words, c.label)]
            if not found:
                continue  # a line a definition adds only where the report prints it
        if not found:
            found = _printed_apart(words, years, views, question, exclude)
        if not found:
            raise LookupError(f"No table row for \u201c{quantities[0].words}\u201d in {', '.join(map(str, years))}.")
        distinct = list({c.key: c for c in found}.values())
        listed[words] = distinct
        chosen[words] = distinct[0]
        # Two lines that fit almost equally are a question for the model; the same line printed in two
        # tables is not: the order above (the statement it lives in, the whole statement) decides.
        rivals = [c for c in distinct[1:MAX_OPTIONS] if distinct[0].score - c.score < CLOSE_FIT
                  and _same_line(c.label) != _same_line(distinct[0].label)]
        if rivals:
            ambiguous[words] = [distinct[0], *rivals]
    if ambiguous and choose is not None:
        picks = choose({words: [c.key for c in options] for words, options in ambiguous.items()})
        for words, key in picks.items():
            match = next((c for c in ambiguous.get(words, []) if c.key == key), None)
            if match is not None:
                chosen[words] = match
    _apart(chosen, listed, frozenset(w for w, qs in groups.items() if all(q.optional for q in qs)))
    common = common_scale(list(chosen.values()))
    bound: dict[str, BoundCell] = {}
    for words, quantities in groups.items():
        if words not in chosen:
            continue
        pick = chosen[words]
        years = sorted({q.year for q in quantities if q.year is not None})
        by_year = dict(zip(years, year_columns(pick.view, years, question)))
        for quantity in quantities:
            column = by_year.get(quantity.year) if quantity.year is not None else pick.column
            if column is None:
                raise LookupError(f"No column for {quantity.year or quantity.words} in {pick.view.name}.")
            bound[quantity.name] = cell_of(quantity.name, pick, column, common, as_printed=plan.source == "line")
    return bound


def loosely_named(plan: Plan, bound: dict[str, BoundCell], views: Sequence[TableView]) -> list[str]:
    """The lines in the question's own words, asked for a year, bound to a row whose label (with its section's
    heading) does not name them exactly ("Other current assets" for "other assets"); a bare "Total" stands for what
    its section or title names and is not counted."""
    by_id = {view.info.id: view for view in views}
    loose = []
    for quantity in plan.quantities:
        cell = bound.get(quantity.name)
        view = by_id.get(cell.table_id) if cell is not None else None
        if cell is None or view is None or quantity.year is None or not (plan.in_own_words or quantity.whole) \
                or _BARE_TOTAL.match(cell.label):
            continue
        if not _names_exactly(quantity.words.lower(), cell.label, view.headings.get(cell.row, "")):
            loose.append(quantity.words.lower())
    return list(dict.fromkeys(loose))


def printing_exactly(plan: Plan, lines: Sequence[str], views: Sequence[TableView], question: str) -> dict[int, list[TableView]]:
    """Document id -> its tables among ``views`` that print each of ``lines`` (quantity words of ``plan``) exactly,
    for every year asked; only documents that print them all."""
    found: dict[int, list[TableView]] = {}
    for index, words in enumerate(lines):
        years = sorted({q.year for q in plan.quantities if q.words.lower() == words and q.year is not None})
        exact = [c.view for c in candidates(words, years, views, question, whole=True) if c.exact]
        documents: dict[int, list[TableView]] = {}
        for view in exact:
            documents.setdefault(view.info.document_id, []).append(view)
        found = documents if index == 0 else {d: [*found[d], *documents[d]] for d in found if d in documents}
    return {d: list({v.info.id: v for v in tables}.values()) for d, tables in found.items()}


def _printed_apart(words: str, years: Sequence[int], views: Sequence[TableView], question: str,
                   exclude: frozenset[tuple[int, int]]) -> list[Candidate]:
    """A line named "A and B" that no row prints whole, printed as two lines of one table ("Depreciation" and
    "Amortization of purchased intangibles" for depreciation and amortization): their sum, as one candidate."""
    halves = re.split(r"\s+(?:and|&)\s+", words.strip(), flags=re.IGNORECASE)
    said = translations(words)
    if len(halves) != 2 and len(said) == 1 and len(said[0][1].split()) == 2 and len(parts_naming(words)) == 2:
        halves = said[0][1].split()  # "D&A": the depreciation and the amortization reports print for it
    if len(halves) != 2 or not all(1 <= len(h.split()) <= 3 for h in halves) or not years:
        return []
    found: list[Candidate] = []
    for view in views:
        picks = []
        for half, other in (halves, halves[::-1]):
            # each half a line of its own: not one that lists more items ("Amortization, impairment and other")
            rows = [c for c in candidates(half, years, [view], question)
                    if (view.info.id, c.row) not in exclude and not c.parts and not stems(other) & stems(c.label)
                    and not re.search(r",|\band\b|&", _plain_label(c.label))]
            if not rows:
                break
            picks.append(rows[0])
        if len(picks) == 2 and picks[0].row != picks[1].row:
            first, second = sorted(picks, key=lambda c: c.row)
            found.append(Candidate(view, first.row, f"{first.label} + {second.label}",
                                   min(c.score for c in picks), parts=(first.row, second.row)))
    return sorted(found, key=lambda c: -c.score)


def printed_years(words: str, views: Sequence[TableView], question: str) -> list[int]:
    """The fiscal years the table printing a line prints it for, newest first: the line named whole by a
    label (``covers``), in the first table (in the order given) that holds it with figures in at least two
    years. For a change or an average asked with no period ("What was the change in closing cash?")."""
    for view in views:
        years = sorted({p.period.fiscal_year for p in view.info.periods
                        if p.period.fiscal_year and not p.period.quarter}, reverse=True)
        if len(years) < 2:
            continue
        sections = view.headings
        # "Other for deferred tax assets": a label named exactly with its section's heading ("Other" under "Deferred
        # tax assets") is the line too, after labels that name it alone
        named = [(fit(words, r.label), r) for r in view.rows if covers(words, r.label)]
        named += [(fit(words, f"{r.label} {sections.get(r.row, '')}"), r) for r in view.rows
                  if not covers(words, r.label) and sections.get(r.row) and _names_exactly(words, r.label, sections[r.row])]
        rows = [r for _score, r in sorted(named, key=lambda item: -item[0])]
        for row in rows:
            values = view.values.get(row.row, ())
            printed = [y for y in years if (c := year_column(view, y, question)) is not None
                       and view.column_position(c) < len(values) and is_number(values[view.column_position(c)])]
            if len(printed) >= 2:
                return printed
    return []


def _apart(chosen: dict[str, Candidate], listed: dict[str, list[Candidate]],
           optional: frozenset[str] = frozenset()) -> None:
    """Two quantities the question names differently are two lines: where both took the same row ("cost of
    revenue" and "revenue" both on "Revenue"), the one that fits it less takes its next row, or the binding
    fails (a line as a share of itself is no answer). A line added only where printed (``optional``) that took
    another's row is left out: the report prints the two as one line ("Short-term borrowings and current
    portion of long-term debt")."""
    for words, pick in list(chosen.items()):
        for other, taken in list(chosen.items()):
            if words not in chosen or other not in chosen:
                continue
            if other == words or (taken.view.info.id, taken.row) != (pick.view.info.id, pick.row):
                continue
            if _said_alike(words, other) or same_item(words, other):
                continue  # "inventories" and "inventory", "COGS" and "cost of goods sold": one line said two ways
            if words in optional or other in optional:
                del chosen[words if words in optional else other]
                continue
            loser = words if fit(words, pick.label) < fit(other, pick.label) else other
            held = {(c.view.info.id, c.row) for w, c in chosen.items() if w != loser}
            moved = next((c for c in listed[loser] if (c.view.info.id, c.row) not in held), None)
            if moved is None:
                raise LookupError(f"\u201c{words}\u201d and \u201c{other}\u201d both fit only {pick.label}.")
            chosen[loser] = moved


def _said_alike(one: str, other: str) -> bool:
    """The same words, plurals folded; a number told apart ("Scope 1" and "Scope 2" are two lines)."""
    return content_words(one, _STEM_STOP, single_digits=True) == content_words(other, _STEM_STOP, single_digits=True)


def common_scale(chosen: Sequence[Candidate]) -> str:
    """The scale most of the chosen rows are stated in ("million"), "" when none states one."""
    scales = [scale for c in chosen if (scale := _money_scale(c))]
    return max(sorted(set(scales)), key=scales.count) if scales else ""


def _bracketed_cost(pick: Candidate) -> bool:
    """A row whose label names a cost or an expense (never a line of either sign, "Other income (expense)") and
    whose period figures are all printed below zero: the brackets print the cost, not a negative amount."""
    if pick.parts or not _EXPENSE.search(pick.label) or _EITHER_WAY.search(pick.label):
        return False
    view = pick.view
    values = view.values.get(pick.row, ())
    periods = [view.column_position(p.column) for p in view.info.periods]
    figures = [float(values[i]) for i in periods if i < len(values) and is_number(values[i])]
    return len(figures) >= 2 and all(f < 0 for f in figures)


def cell_of(name: str, pick: Candidate, column: str, common: str, as_printed: bool = False) -> BoundCell:
    """The bound cell for a chosen row and column, restated in the ``common`` scale. ``as_printed``: with
    its printed sign even where it is money paid out (a change in a line, not a measure using the amount)."""
    view = pick.view
    position = view.column_position(column)
    nil = not pick.parts and not is_number(view.values[pick.row][position]) and _nil(view, pick.row, position)
    value = sum(float(view.values[row][position]) for row in pick.parts) if pick.parts else \
        0.0 if nil else float(view.values[pick.row][position])
    # A cash-flow statement prints money paid out in brackets; "capex" or "dividends paid" in a formula
    # means the amount paid, so the figure is read without its sign (and the answer says so). So does an
    # income statement that brackets its costs and expenses: "cost of sales" in a formula is the amount.
    # A cost printed in brackets in every period of its row is the amount of the cost whatever the table, in a
    # change of the line too: "Voyage expenses (21,387) (28,237)" fell by 6,850.
    title = view.info.title
    outflow = value < 0 and (_bracketed_cost(pick) or not as_printed and (
        bool(_DEDUCTION.match(pick.label))  # "Less: Accumulated depreciation (16,135)": the amount deducted
        or is_statement("cash_flows", title) and bool(_OUTFLOW.search(pick.label))
        or is_statement("income", title) and bool(_EXPENSE.search(pick.label)) and not _EITHER_WAY.search(pick.label)))
    scale = view.cell_scale(pick.parts[0] if pick.parts else pick.row, column)
    # Figures of tables in different scales (thousands here, millions there) are put in one scale.
    factor = SCALE_FACTORS[scale] / SCALE_FACTORS[common] if common and scale and scale in SCALE_FACTORS \
        and scale != common else 1.0
    value = (abs(value) if outflow else value) * factor
    label = pick.label
    if pick.parts and pick.row not in pick.parts:  # a heading said with its parts, as the page prints them under it
        label = f"{pick.label.rstrip(':')} ({' + '.join(view.labels.get(row, str(row)) for row in pick.parts)})"
    return BoundCell(name, view.name, view.info.id, pick.row, column, value, label, column_title(view, column),
                     common if factor != 1.0 else scale, absolute=outflow, factor=factor, parts=pick.parts, nil=nil)


MAX_OFFERED_ROWS = 14


def offered(question: str, years: Sequence[int], views: Sequence[TableView],
            limit: int = MAX_OFFERED_ROWS) -> dict[str, tuple[Candidate, str]]:
    """Cells a model may compose a formula from: option text -> (row, column). The rows are those whose
    labels the question's words (or the words reports print for them) cover best, statements first; the
    columns those of the years asked, else each table's first (newest) value column."""
    asked = stems(question)
    for _said, printed in translations(question):
        asked |= stems(printed)
    rows: list[Candidate] = []
    for view in views:
        bonus = STATEMENT_BONUS if _is_primary(view) else 0.0
        for choice in view.rows:
            have = stems(_plain_label(choice.label))
            if have and (share := len(have & asked) / len(have)) >= 0.5:
                rows.append(Candidate(view, choice.row, choice.label, share + bonus))
    rows.sort(key=lambda c: (-c.score, c.view.info.page, c.row))
    out: dict[str, tuple[Candidate, str]] = {}
    for candidate in rows[:limit]:
        view = candidate.view
        columns = [c for y in years if (c := year_column(view, y, question)) is not None] or \
            [c.name for c in view.data_columns[:1]]
        for column in columns:
            value = view.values.get(candidate.row, ())[view.column_position(column)]
            if is_number(value):
                title = view.info.caption or view.info.heading or view.name
                out[f"{candidate.label}, {column_title(view, column)} \u2014 {' '.join(title.split())[:60]}"] = \
                    (candidate, column)
    return out


def _money_scale(candidate: Candidate) -> str:
    """The thousand/million/billion scale of a candidate row's figures, or "" (none stated, a percent)."""
    view = candidate.view
    scale = view.cell_scale(candidate.row, view.data_columns[0].name) if view.data_columns else ""
    return scale if scale and scale in SCALE_FACTORS else ""
