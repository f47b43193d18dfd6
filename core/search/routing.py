"""Which documents a question is about, chosen before any table or passage is: routing.

In a library of many similar reports ("every 10-K of eight companies", "ten years of a council's
budgets"), every cash-flow statement has a "Purchases of property, plant and equipment" row, so
searching passages first finds the right line in the wrong filing. A question names its documents
by issuer ("3M", "Best Buy's") and period ("FY2018", "Q2 of FY2024", "second quarter of 2023"); the
documents' metadata (core.reports.document_metadata) says theirs. Routing keeps the documents of the issuer
named, then the one whose own period is the one asked, checked before trusted: a FY2019 filing's
comparative FY2018 column is used only when the library holds no FY2018 filing of that issuer (then
the nearest later filing, whose comparatives reach back two or three years). Among documents that
still tie, the question's words are matched against what each document is about. A question that names no
issuer is routed by what each document is about (core.search.subjects: BM25 over each document's title,
opening, tables' captions, headers and row labels, and pages): the best first, with the few close to it,
and the answer says which others might hold it; where its words fit many documents alike, or none, the whole
library is searched.

``route`` is pure (documents in, route out); ``route_question`` reads the library. The answer names
the document used when several matched and the question named none (``Route.note``).
"""

from __future__ import annotations

import hashlib
import re
import threading
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace

from core.library.facts import load_metadata
from core.library.store import Library
from core.reports.document_metadata import (
    CALENDAR_QUARTER,
    FISCAL_QUARTER,
    YEAR_SPAN,
    DocumentMetadata,
    quarter_number,
    span_end,
)
from core.reports.values import YEAR_DIGITS
from core.search.subjects import DocumentProfile, SubjectIndex, document_profiles, question_terms
from models.types import Alternative

COMPARATIVE_YEARS = 2
"""How many years back a filing's comparative columns reach (an income statement shows three years)."""
_LEGAL_WORDS = frozenset(
    ["inc", "incorporated", "corp", "corporation", "co", "company", "companies", "plc", "ltd", "limited", "llc", "lp", "ag", "sa", "nv", "se", "the", "of", "and", "for", "group", "holdings", "holding", "systems", "international", "technologies", "industries"]
)
_GENERIC_NAMES = frozenset(
    ["city", "council", "county", "borough", "district", "state", "national", "federal", "government", "ministry", "department", "office", "bureau", "authority", "agency", "board", "commission", "trust", "foundation", "charity", "society", "association", "university", "college", "hospital", "bank", "fund", "institute", "service", "services", "statistics", "public", "regional", "local", "municipal", "municipality"]
)
"""Words that say what kind of body an issuer is, not which one ("Springfield City Council" is named by Springfield)."""
MAX_ALTERNATIVES = 6
"""Other matching documents an answer offers to ask in, at most."""
_WORD = re.compile(r"[a-z0-9]+(?:&[a-z0-9]+)?")
_YEAR = re.compile(rf"(?<![\d.,$])(?:fy\s?'?|fiscal\s+(?:year\s+)?)?({YEAR_DIGITS})(?!\d|[.,]\d)", re.IGNORECASE)
_SHORT_FY = re.compile(r"\bfy\s?'?(\d\d)\b", re.IGNORECASE)
_BARE_QUARTER = re.compile(rf"\bq([1-4])\b|\b([1-4])q\b|\b{r'(first|second|third|fourth)'}\s+quarter\b", re.IGNORECASE)
_TYPE_WORDS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("10-K", re.compile(r"\b10-?k\b", re.IGNORECASE)),
    ("10-Q", re.compile(r"\b10-?q\b", re.IGNORECASE)),
    ("8-K", re.compile(r"\b8-?k\b", re.IGNORECASE)),
    ("earnings release", re.compile(r"\bearnings (?:release|report|call)\b|\bpress release\b", re.IGNORECASE)),
    ("budget", re.compile(r"\bbudget\b", re.IGNORECASE)),
    ("annual report", re.compile(r"\bannual report\b", re.IGNORECASE)),
    ("statistics release", re.compile(r"\bstatistic(?:s|al) (?:release|bulletin)\b", re.IGNORECASE)),
    ("interim report", re.compile(r"\b(?:interim|quarterly|half[- ]year(?:ly)?) report\b", re.IGNORECASE)),
)
_ANNUAL_TYPES = frozenset({"10-K", "20-F", "annual report", "budget", "financial statements"})


@dataclass(frozen=True)
class RoutedDocument:
    """A document as routing sees it."""

    id: int
    name: str
    metadata: DocumentMetadata
    profile: DocumentProfile = field(default_factory=DocumentProfile)
    """What the document is about, in its own words: its title, its tables' captions, column headers and row
    labels, its pages (``route_question`` reads them from the library; its metadata adds the rest)."""

    def subject(self) -> DocumentProfile:
        """The profile with what the document's name and metadata say: name, issuer and type in its title, the
        summary as its opening."""
        stem = re.sub(r"[_.\-]+", " ", self.name.rsplit(".", 1)[0])
        title = " ".join(p for p in (stem, self.profile.title, self.metadata.issuer, self.metadata.doc_type) if p)
        return replace(self.profile, title=title, opening=self.metadata.summary or self.profile.opening)


@dataclass(frozen=True)
class QuestionScope:
    """What a question names: its words, the years and quarter it asks about, document types."""

    words: frozenset[str]
    years: tuple[int, ...]
    quarter: int | None
    doc_types: tuple[str, ...]

    @property
    def year(self) -> int | None:
        """The period asked: the latest year named (a change "from FY2017 to FY2018" is read in FY2018's filing)."""
        return max(self.years) if self.years else None


@dataclass(frozen=True)
class Route:
    """The documents a question may be answered from (None: the whole library) and why."""

    document_ids: tuple[int, ...] | None
    reason: str
    matched: tuple[int, ...] = ()
    """Every document of the issuer named (or every document, when none is named), best first."""
    names: Mapping[int, str] | None = None
    decisive: bool = True
    """False when several documents fit equally and the answer should say which one it used."""
    by_subject: bool = False
    """Chosen by what the question is about, not by an issuer or period it names: a step that finds no row for a
    line in these documents may look in the whole library."""
    unknown: tuple[str, ...] = ()
    """The question's words that no document uses ("horsepower" over a table printing "hp"), where the document its
    other words chose uses them only in its pages' text ("cars" said once in a report on transport), in no title,
    caption, header or row label: what the question is about may be said in other words elsewhere."""

    def alternatives(self, cited: Iterable[int]) -> tuple[Alternative, ...]:
        """The documents ``note`` names as also matching, best first, to ask the question in instead."""
        if self.decisive or self.document_ids is None or len(self.matched) < 2 or self.names is None:
            return ()
        used = set(cited) & set(self.matched)
        if not used:
            return ()
        return tuple(Alternative(i, self.names[i]) for i in self.matched if i not in used)[:MAX_ALTERNATIVES]

    def note(self, cited: Iterable[int]) -> str:
        """"Answered from X (also in the library: Y, Z)." when the question did not single a document out."""
        if self.decisive or self.document_ids is None or len(self.matched) < 2 or self.names is None:
            return ""
        used = [i for i in dict.fromkeys(cited) if i in self.matched]
        if not used:
            return ""
        others = [self.names[i] for i in self.matched if i not in used][:4]
        rest = len(self.matched) - len(used) - len(others)
        also = "; ".join(others) + (f" and {rest} more" if rest > 0 else "")
        return (f"Answered from {'; '.join(self.names[i] for i in used)}"
                + (f" (also matching: {also})." if also else "."))


def words_of(text: str) -> set[str]:
    """Lower-case words, possessives folded ("3M's" -> "3m")."""
    return set(_WORD.findall(re.sub(r"['\u2019]s\b", "", text.lower())))


def issuer_key(issuer: str) -> frozenset[str]:
    """The words that name an issuer, without legal forms: "ADOBE SYSTEMS INCORPORATED" -> {adobe}."""
    named = frozenset(w for w in words_of(issuer.replace(".", "")) if w not in _LEGAL_WORDS)
    distinctive = named - _GENERIC_NAMES
    return distinctive or named or frozenset(words_of(issuer))


_COMMON_FIRST_WORDS = frozenset(
    ["general", "best", "first", "american", "united", "national", "international", "global", "new", "great", "central",
     "western", "eastern", "northern", "southern", "royal", "standard", "southwest", "pacific", "atlantic", "home",
     "big", "old", "city", "state", "county", "the"])
"""Words that open many names: a question saying only "General" does not name General Mills."""
_PLAIN_WORDS = frozenset(
    ["country", "countries", "region", "table", "figure", "chart", "note", "notes", "appendix", "annex", "chapter",
     "section", "part", "page", "information", "executive", "summary", "plan", "total", "item", "year", "write", "data",
     "results", "report", "statistics", "key", "heading"])
"""Words that open a page's first line or a table's header more often than a name ("Country heading ...", "Table 1
..."): an issuer read from such a line is not named by that word alone, which questions use for what it says."""


def issuer_names(issuer: str) -> list[str]:
    """How a question may name an issuer, longest first: "BEST BUY CO., INC." -> ["best buy"]; "LOCKHEED MARTIN
    CORPORATION" -> ["lockheed martin", "lockheed"]; "3M COMPANY" -> ["3m"]."""
    ordered = [w for w in _WORD.findall(re.sub(r"['\u2019]s\b", "", issuer.replace(".", "").replace(",", " ").lower()))
               if w not in _LEGAL_WORDS]
    if not ordered:
        return []
    names = [" ".join(ordered)]
    if len(ordered) > 1 and ordered[0] not in _COMMON_FIRST_WORDS and ordered[0] not in _GENERIC_NAMES \
            and ordered[0] not in _PLAIN_WORDS and len(ordered[0]) >= 4:
        names.append(ordered[0])
    return names


_NOT_TICKERS = frozenset({"EPS", "CEO", "CFO", "USD", "EUR", "GBP", "GAAP", "EBIT", "EBITDA", "FY", "IT", "ON", "OR",
                          "AND", "ALL", "US", "UK", "EU", "SG", "RD", "PP", "COGS", "SGA", "FCF", "ROE", "ROA", "DSO",
                          "DPO", "DIO", "CCC", "YOY", "QOQ", "NA", "TTM"})
"""Capitals questions use for other things than a company (a ticker that is also one of these is not read)."""


def with_issuer_names(question: str, metadata: Mapping[int, DocumentMetadata]) -> str:
    """The question with a trading symbol the library's filings register, written in capitals ("GIS's cash
    conversion cycle", "LMT 2021 capex"), replaced by its issuer's name ("General Mills"), so routing and the
    reading meet a name they know; the question as it is when it names no symbol."""
    names: dict[str, str] = {}
    for m in metadata.values():
        said = issuer_names(m.issuer) if m.issuer else []
        if len(m.ticker) >= 2 and m.ticker not in _NOT_TICKERS and said and m.ticker.lower() not in said[0].split():
            names.setdefault(m.ticker, " ".join(w.upper() if len(w) <= 3 and any(c.isdigit() for c in w) else
                                                w.capitalize() for w in said[0].split()))
    if not names:
        return question
    pattern = re.compile(r"(?<![\w$&.-])(" + "|".join(map(re.escape, sorted(names, key=len, reverse=True)))
                         + r")(?![\w&-]|\.\w)")
    return pattern.sub(lambda found: names[found.group(1)], question)


def question_scope(question: str) -> QuestionScope:
    """The years, quarter and document types a question names (FY2018, FY 2023, fiscal 2019, 2019-20, Q2 of FY2024)."""
    years: list[int] = []
    quarter: int | None = None
    for pattern in (*FISCAL_QUARTER, *CALENDAR_QUARTER):
        for m in pattern.finditer(question):
            a, b = m.group(1), m.group(2)
            q, y = (b, a) if a.isdigit() and len(a) == 4 else (a, b)
            year = int(y) + 2000 if len(y) == 2 else int(y)
            years.append(year)
            if quarter is None or year >= max(years):
                quarter = quarter_number(q)
    if quarter is None and (bare := _BARE_QUARTER.search(question)) is not None:
        quarter = quarter_number(next(g for g in bare.groups() if g))
    spans = [(m.start(), m.end()) for m in YEAR_SPAN.finditer(question)]
    for m in YEAR_SPAN.finditer(question):
        if 0 < span_end(m.group(1), m.group(2)) - int(m.group(1)) <= 1:
            years.append(span_end(m.group(1), m.group(2)))
    years += [int(m.group(1)) for m in _YEAR.finditer(question)
              if not any(a <= m.start(1) < b for a, b in spans)]
    years += [2000 + int(m.group(1)) for m in _SHORT_FY.finditer(question)]
    doc_types = tuple(name for name, pattern in _TYPE_WORDS if pattern.search(question))
    return QuestionScope(frozenset(words_of(question)), tuple(sorted(set(years))), quarter, doc_types)


def _issuer_names(document: RoutedDocument) -> frozenset[str]:
    return issuer_key(document.metadata.issuer) if document.metadata.issuer else frozenset()


def _proper_words(question: str) -> set[str]:
    """Words written as names (capitalised, not opening the question): "What was Cobalt's capex" -> {cobalt}. The
    capitalised head of a compound word ("Non-current", "Long-term") is no name; a name of two capitalised parts
    ("Rolls-Royce") is."""
    found = re.findall(r"(?<=\s)([A-Z0-9][\w&]*)(?![\w&]|-[a-z])", question)
    return {w.lower() for w in found if any(ch.isalpha() for ch in w)}


def _first_name_word(document: RoutedDocument) -> str:
    """The first distinctive word of a document's issuer ("cobalt" for "Cobalt Mining Corp")."""
    issuer = document.metadata.issuer
    if not issuer:
        return ""
    key = issuer_key(issuer)
    ordered = _WORD.findall(re.sub(r"['\u2019]s\b", "", issuer.replace(".", "").lower()))
    return next((w for w in ordered if w in key), "") if len(key) > 1 else ""


def subject_index(documents: Sequence[RoutedDocument]) -> SubjectIndex:
    """What ``documents`` are about, searchable (``route_question`` keeps one per library state)."""
    return SubjectIndex({d.id: d.subject() for d in documents})


def _subject_scores(scope: QuestionScope, index: SubjectIndex) -> dict[int, float]:
    """How well each document's profile matches the question's words (BM25; documents using none are left out)."""
    return index.scores(question_terms(scope.words, _QUESTION_WORDS))


def _period_rank(document: DocumentMetadata, scope: QuestionScope) -> int | None:
    """0 for the document of the very period asked, 1 + k for a later one whose comparatives reach back
    k years to it, None when the document cannot hold the period."""
    year = scope.year
    if year is None:
        return 0
    if document.fiscal_year is None:
        return None
    if scope.quarter is not None:
        if document.fiscal_year == year and document.quarter == scope.quarter:
            return 0
        # An annual report holds its fourth quarter; a later quarter's comparatives hold the same quarter a year before.
        if scope.quarter == 4 and document.fiscal_year == year and document.quarter is None:
            return 1
        if document.quarter == scope.quarter and 0 < document.fiscal_year - year <= 1:
            return 2
        return None
    if document.fiscal_year == year and document.quarter in (None, 4) and document.doc_type != "10-Q":
        return 0  # a fourth-quarter release reports the whole year too
    if document.fiscal_year == year:  # a quarterly report of the year asked: its annual one is better
        return 1
    gap = document.fiscal_year - year
    if 0 < gap <= COMPARATIVE_YEARS and document.quarter is None:
        return 1 + gap
    return None


def route(question: str, documents: Sequence[RoutedDocument], index: SubjectIndex | None = None) -> Route:
    """The documents ``question`` should be answered from, checked against their issuer and period; ``index`` is
    ``subject_index(documents)``, built here when not given."""
    if len(documents) < 2:
        return Route(None, "one document in the library" if documents else "no documents")
    if index is None:
        index = subject_index(documents)
    scope = question_scope(question)
    names = {d.id: d.metadata.describe() or d.name for d in documents}
    named = [d for d in documents if (key := _issuer_names(d)) and key <= scope.words]
    if not named:  # "Cobalt" for Cobalt Mining Corp: the issuer's first name word, written as a name
        proper = _proper_words(question)
        named = [d for d in documents if (first := _first_name_word(d)) and first in proper]
    if len({d.metadata.issuer for d in named}) > 1:  # "Calder Statistics Office" over "Calder City Council"
        said = {d.id: len(words_of(d.metadata.issuer) & scope.words) for d in named}
        named = [d for d in named if said[d.id] == max(said.values())]
    summary = _subject_scores(scope, index)
    if named and not _written_in_capitals(named, question) and _words_of_many(named, documents, index):
        named = []  # "education" in lower case, among reports on schooling, names no "Ministry of Education"
    share = NAMED_SHARE if _written_as_names(named, question) else ABOUT_SHARE
    if named and not _among_the_subjects_leaders(named, summary, share):
        # An issuer's words written in another sense ("tell us" and reports filed as "us-007.pdf", "education"
        # and a "Ministry of Education") name no document when what the question is about is elsewhere.
        named = []
    if named:  # of an issuer's many documents, those about what is asked ("eu-004.pdf" ... "eu-027.pdf")
        leading = max(summary.get(d.id, 0.0) for d in named)
        named = [d for d in named if summary.get(d.id, 0.0) >= ABOUT_SHARE * leading]
    pool = named or list(documents)
    if not named and scope.year is None:
        about = _by_subject(summary, names)
        terms = question_terms(scope.words, _QUESTION_WORDS)
        used_nowhere = tuple(t for t in terms if t not in _ASKING_WORDS and not index.documents_using([t]))
        if used_nowhere and about.document_ids and about.document_ids[0] not in index.documents_naming(terms):
            return replace(about, unknown=used_nowhere)
        return about
    organisations = {" ".join(sorted(words_of(d.metadata.issuer))) for d in documents}
    if not named and (len(organisations) != 1 or organisations == {""}):
        # A period alone singles out one organisation's report of that year only where the library is one
        # organisation's series; among several organisations' reports (or reports whose issuer could not be
        # read) every one of them may hold that year, and a misread period would rule the right one out. What
        # the question is about may still single out a document (a register's year is a column, not its period).
        about = _by_subject(summary, names)
        if about.document_ids is not None:
            return about
        return Route(None, "the question names a period but no issuer, and the library holds several "
                           "organisations' reports: the whole library is searched")
    if scope.doc_types:
        typed = [d for d in pool if d.metadata.doc_type in scope.doc_types]
        pool = typed or pool
    ranked = [(rank, d) for d in pool if (rank := _period_rank(d.metadata, scope)) is not None]
    if not ranked:
        reason = (f"no document of {'/'.join(sorted({names[d.id] for d in named}))[:80] if named else 'the library'} "
                  f"covers {_period_words(scope)}")
        return Route(tuple(d.id for d in pool) if named else None, reason, tuple(d.id for d in pool), names,
                     decisive=not named)
    best = min(rank for rank, _ in ranked)
    chosen = [d for rank, d in ranked if rank == best]
    answering = chosen
    if scope.year is None and len(chosen) > 1:
        # No period asked: the issuer's documents all fit; annual reports first, the latest first. Each issuer's
        # first answers (tables of several years would mix their figures); the others are offered instead.
        chosen.sort(key=lambda d: (d.metadata.doc_type not in _ANNUAL_TYPES, -(d.metadata.fiscal_year or 0),
                                   -summary.get(d.id, 0.0)))
        answering = list({frozenset(_issuer_names(d)): d for d in reversed(chosen)}.values())[::-1]
    else:  # the annual filing of the period is its authoritative account
        chosen.sort(key=lambda d: (d.metadata.doc_type not in _ANNUAL_TYPES, -summary.get(d.id, 0.0)))
    issuers = {frozenset(_issuer_names(d)) for d in chosen}
    decisive = len(chosen) == 1 or (bool(named) and len(issuers) == len(chosen))
    matched = tuple(d.id for d in chosen) + tuple(d.id for _, d in sorted(ranked, key=lambda r: r[0])
                                                  if d not in chosen)
    reason = (f"{', '.join(names[d.id] for d in answering[:3])}" + (" and more" if len(answering) > 3 else "")
              + f": {'issuer and ' if named else ''}{_period_words(scope)}"
              + (" (the filing of that period is not in the library: a later one's comparatives)" if best > 1 else ""))
    # A year asked that the chosen filings' comparatives do not reach ("from FY2015 to FY2022") brings its own.
    earlier = _earlier_years(scope, pool, answering, summary)
    if earlier:
        reason += "; " + ", ".join(names[d.id] for d in earlier) + " for the earlier years"
    # A document whose period could not be read cannot be ruled out: it stays, after the ones that fit.
    unknown = tuple(d.id for d in pool if d.metadata.fiscal_year is None and scope.year is not None)
    ids = tuple(d.id for d in [*answering, *earlier])
    return Route(ids + unknown, reason, tuple(dict.fromkeys(ids + matched + unknown)), names, decisive and not unknown)


PASSAGE_VOTES = 5
"""How many passages nearest the question in meaning vote for a document when its words route it nowhere."""
PASSAGE_MAJORITY = 3
"""The votes a document needs to be routed to first."""


def needs_meaning(route: Route) -> bool:
    """Whether the passages nearest the question in meaning should have their say: its words route it nowhere, or
    routed it by subject with some of its words used by no document."""
    return route.document_ids is None or (route.by_subject and bool(route.unknown))


def route_by_passages(route: Route, nearest_documents: Sequence[int], names: Mapping[int, str]) -> Route:
    """A route for a question whose words fit no document's subject more than the others' ("which boats have more than
    40 knots of speed" over a table printing "kn" and boat names), or fit one by some of its words while others are
    used by no document (``Route.unknown``: "cars" printed once in a report on transport): the document of most of
    the ``PASSAGE_VOTES`` passages nearest it in meaning (``nearest_documents``, the passages' documents best first),
    when one holds ``PASSAGE_MAJORITY`` of them, first, the documents the words chose after it. Not decisive (the
    answer says which document it used), and chosen by subject, so a step that finds nothing there may look in the
    whole library."""
    if not needs_meaning(route) or not nearest_documents:
        return route
    votes = Counter(nearest_documents[:PASSAGE_VOTES])
    best, count = votes.most_common(1)[0]
    if count < PASSAGE_MAJORITY or (route.document_ids and route.document_ids[0] == best):
        return route
    chosen = (best, *(d for d in route.document_ids or () if d != best))
    others = tuple(d for d in dict.fromkeys((*chosen, *nearest_documents)) if d not in chosen)
    return Route(chosen, f"{names.get(best, best)}: most of the passages nearest the question in meaning",
                 (*chosen, *others), names, decisive=False, by_subject=True)


ABOUT_SHARE = 0.5
"""A document whose profile scores at least this share of the best one's may hold the answer too."""
MAX_ABOUT = 3
"""Routing by subject narrows the search to at most this many documents, the best first."""
NAMED_SHARE = 0.1
"""An issuer written as a name ("US", "Adobe") names its documents unless they score under this share of the
best document for what the question is about (words that are no name must reach ``ABOUT_SHARE``)."""
COMMON_NAME_DOCUMENTS = 3
"""An issuer's name that this many documents of other issuers use is a plain word unless written as a name."""
ALIKE_SHARE = 0.8
"""When more than ``MAX_ABOUT`` documents score this share of the best one's or more, the question's subject fits
them alike: the whole library is searched rather than an arbitrary few of them."""


def _written_as_names(named: Sequence[RoutedDocument], question: str) -> bool:
    """Whether the question writes the words of an issuer it names as a name ("US", "Education", "3M"); a question
    written all in lower case may mean any word as a name."""
    tokens = re.findall(r"[\w&]+", question)
    return all(t == t.lower() for t in tokens[1:]) or _written_in_capitals(named, question)


def _written_in_capitals(named: Sequence[RoutedDocument], question: str) -> bool:
    """Whether the question writes every word of one of the issuers named with a capital or a digit ("Education")."""
    written = set().union(*(words_of(t) for t in re.findall(r"[\w&]+", question)
                            if t != t.lower() or any(ch.isdigit() for ch in t)))
    return any(_issuer_names(d) <= written for d in named)


def _words_of_many(named: Sequence[RoutedDocument], documents: Sequence[RoutedDocument], index: SubjectIndex) -> bool:
    """Whether the words of the issuers named are plain words many other issuers' documents use too ("education"
    for a "Ministry of Education" among reports on schooling): written in lower case, they name no one."""
    issuers = {d.metadata.issuer for d in named}
    others = {d.id for d in documents if d.metadata.issuer not in issuers}
    return all(len(index.documents_using(_issuer_names(d)) & others) >= COMMON_NAME_DOCUMENTS for d in named)


def _among_the_subjects_leaders(named: Sequence[RoutedDocument], scores: Mapping[int, float], share: float) -> bool:
    """Whether one of the documents of the issuer named scores at least ``share`` of the best document's score
    for what the question is about (a document an issuer's name names also uses that name)."""
    best = max(scores.values(), default=0.0)
    return best <= 0 or max(scores.get(d.id, 0.0) for d in named) >= share * best


def _by_subject(scores: Mapping[int, float], names: Mapping[int, str]) -> Route:
    """A question that names no issuer (and no period, or a period several organisations' reports may hold),
    routed by what each document is about (``scores``: BM25 of its profile for the question's words). The best
    and those within reach of it (at most ``MAX_ABOUT``) are searched, the best first, and the answer says which
    others might hold it; where the question's words fit many documents alike, or none, the whole library."""
    best = max(scores.values(), default=0.0)
    if best <= 0:
        return Route(None, "the question names no issuer or period, and no document's subject: the whole library "
                           "is searched")
    ranked = sorted(scores, key=lambda i: (-scores[i], i))
    if sum(scores[i] >= ALIKE_SHARE * best for i in ranked) > MAX_ABOUT:
        return Route(None, "the question names no issuer or period, and its subject fits many documents alike: the "
                           "whole library is searched")
    close = tuple(i for i in ranked if scores[i] >= ABOUT_SHARE * best)[:MAX_ABOUT]
    reason = f"{'; '.join(names[i] for i in close)}: what the question is about"
    return Route(close, reason, close, names, decisive=len(close) == 1, by_subject=True)


_QUESTION_WORDS = frozenset(
    ["what", "which", "how", "many", "much", "is", "was", "were", "are", "the", "of", "in", "for", "to", "a", "an",
     "and", "or", "did", "does", "do", "total", "number", "by", "on", "at", "with", "from", "that", "this", "there",
     "have", "has", "had", "its", "their", "it", "be", "as", "per", "most", "least", "highest", "lowest", "year",
     "years", "value", "amount"])


_ASKING_WORDS = frozenset(["than", "more", "less", "fewer", "over", "under", "above", "below", "least", "all", "each",
                           "every", "altogether", "combined", "list", "name", "show", "give", "tell", "me", "please"])
"""Words a question asks with, whatever it is about: no document need use them."""


def _earlier_years(scope: QuestionScope, pool: Sequence[RoutedDocument], chosen: Sequence[RoutedDocument],
                   summary: Mapping[int, float]) -> list[RoutedDocument]:
    """For each year asked that no chosen filing covers (its own year or its comparatives), the filing of it."""
    added: list[RoutedDocument] = []
    for year in sorted(set(scope.years) - {scope.year}, reverse=True):
        covered = [*chosen, *added]
        if any(d.metadata.fiscal_year is not None and 0 <= d.metadata.fiscal_year - year <= COMPARATIVE_YEARS
               for d in covered):
            continue
        alone = QuestionScope(scope.words, (year,), None, scope.doc_types)
        ranked = [(rank, d) for d in pool if d not in covered and (rank := _period_rank(d.metadata, alone)) is not None]
        if ranked:
            added.append(min(ranked, key=lambda r: (r[0], r[1].metadata.doc_type not in _ANNUAL_TYPES,
                                                    -summary.get(r[1].id, 0.0)))[1])
    return added


def _period_words(scope: QuestionScope) -> str:
    if scope.year is None:
        return "any period"
    return f"Q{scope.quarter} FY{scope.year}" if scope.quarter else f"FY{scope.year}"


def routed_documents(conn_documents: Iterable[tuple[int, str]], metadata: Mapping[int, DocumentMetadata],
                     profiles: Mapping[int, DocumentProfile] | None = None) -> list[RoutedDocument]:
    return [RoutedDocument(i, name, metadata.get(i, DocumentMetadata()), (profiles or {}).get(i, DocumentProfile()))
            for i, name in conn_documents]


_INDEXES: dict[str, tuple[dict[int, str], SubjectIndex]] = {}
"""Per library file: what each document's profile was indexed from (see ``_indexed_as``), and the index."""
_INDEXES_LOCK = threading.Lock()


def _indexed_as(document_id: int, name: str, sha: str, metadata: DocumentMetadata | None) -> str:
    """What changes when a document is replaced or its metadata corrected (its tables and pages, once it is in,
    do not): the index updates the documents whose digest changed."""
    return hashlib.sha256(f"{document_id}\0{name}\0{sha}\0{metadata!r}".encode()).hexdigest()


def library_documents(library: Library) -> tuple[list[RoutedDocument], SubjectIndex]:
    """The library's documents as routing sees them (their profiles are in the index), with their subject index.
    The index is kept per library file and updated with the documents added, replaced, corrected or removed
    since, so a question costs one full-text query over the profiles."""
    rows = library.conn.execute(
        "SELECT id, file_name, sha256 FROM documents WHERE status != 'ingesting' ORDER BY id").fetchall()
    metadata = load_metadata(library.conn)
    documents = routed_documents([(i, name) for i, name, _ in rows], metadata)
    states = {i: _indexed_as(i, name, sha, metadata.get(i)) for i, name, sha in rows}
    with _INDEXES_LOCK:
        indexed, index = _INDEXES.get(str(library.path), ({}, None))
        if index is None:
            index = SubjectIndex({})
        changed = {i for i, state in states.items() if indexed.get(i) != state}
        gone = [i for i in indexed if i not in states]
        if changed or gone:
            profiles = document_profiles(library, changed if indexed else None)
            index.update({d.id: replace(d, profile=profiles.get(d.id, DocumentProfile())).subject()
                          for d in documents if d.id in changed}, gone)
        _INDEXES[str(library.path)] = (states, index)
    return documents, index


def route_question(question: str, library: Library) -> Route:
    """Route ``question`` over a library's documents."""
    return route(question, *library_documents(library))


def allowed_documents(question: str, library: Library) -> list[int] | None:
    """The ids of the documents ``question`` may be answered from, or None for the whole library."""
    ids = route_question(question, library).document_ids
    return list(ids) if ids is not None else None
