"""Names a person reads and SQLite accepts: tables named by document, page and caption (a statement's title
when it has one), snake_case identifiers, the names the library keeps for itself."""

from __future__ import annotations

import re
import unicodedata

from core.reports.values import strip_units

INTERNAL_TABLES = frozenset({
    "documents", "pages", "text_blocks", "chunks", "chunks_fts", "embeddings", "embedding_vectors",
    "extracted_tables", "table_columns", "table_cells", "conversations", "messages", "library_counters",
    "table_row_facts", "table_periods",
})
"""Tables of the library schema; an extracted table is never given one of these names."""

_INTERNAL_PREFIXES = ("sqlite_", "chunks_fts_", "embedding_vectors_")  # SQLite, FTS5 and vec0 shadow tables

SECTION_COLUMN = "section"
"""The column in which a statement's rows record the section heading they stand under (see extraction.ledger)."""
PARENT_COLUMN = "parent"
"""The column naming the line a row stands under, where that is not its section heading (see core.reports.table_facts)."""
RESERVED_COLUMNS = frozenset({"_row", "rowid", "oid", "_rowid_"})
"""Names the storage layer uses (``_row``) or SQLite resolves to the row id."""

# SQLite keywords a column name must not be, or every query naming it would need quoting.
_SQL_KEYWORD_TEXT = """
abort action add after all alter always analyze and as asc attach autoincrement before begin between by
cascade case cast check collate column commit conflict constraint create cross current current_date
current_time current_timestamp database default deferrable deferred delete desc detach distinct do drop
each else end escape except exclude exclusive exists explain fail filter first following for foreign
from full generated glob group groups having if ignore immediate in index indexed initially inner insert
instead intersect into is isnull join key last left like limit match materialized natural no not nothing
notnull null nulls of offset on or order others outer over partition plan pragma preceding primary query
raise range recursive references regexp reindex release rename replace restrict returning right rollback
row rows savepoint select set table temp temporary then ties to transaction trigger unbounded union unique
update using vacuum values view virtual when where window with without
"""
SQL_KEYWORDS = frozenset(_SQL_KEYWORD_TEXT.split())

MAX_TABLE_NAME = 48
MAX_COLUMN_NAME = 32

# --------------------------------------------------------------------------------------------------
# Names
# --------------------------------------------------------------------------------------------------


def snake_case(text: str, *, digit_prefix: str = "n_", fallback: str = "field") -> str:
    """A lower-case ASCII SQLite identifier: "Revenue by Segment (€)" -> "revenue_by_segment".

    Accents are folded ("Région" -> "region"), "%" reads as "pct", "&" as "and"; a name that would start
    with a digit gets ``digit_prefix``; a text with no letters or digits gives ``fallback``.
    """
    text = text.replace("%", " pct ").replace("&", " and ").replace("#", " number ")
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    name = re.sub(r"[^a-z0-9]+", "_", ascii_text.lower()).strip("_")
    if not name:
        return fallback
    if name[0].isdigit():
        name = f"{digit_prefix}{name}"
    return name


def shorten(name: str, limit: int) -> str:
    """Cut a snake_case name at a word boundary so it fits ``limit`` characters."""
    if len(name) <= limit:
        return name
    cut = name[:limit]
    if "_" in cut and name[limit] != "_":
        cut = cut[: cut.rindex("_")]
    return cut.rstrip("_")


_STATEMENT = re.compile(
    r"\b(?:statements?\s+of\s+(?:consolidated\s+)?(?:cash\s*flow\s?s?|income|earnings|operations|financial\s+position|"
    r"comprehensive\s+(?:income|loss|earnings)(?:\s*\(loss\))?|(?:changes\s+in\s+)?(?:stockholders|shareholders)\W{0,2}\s*equity|"
    r"(?:changes\s+in\s+)?equity|activities|(?:changes\s+in\s+)?net\s+assets|revenues?\s+and\s+expenditures?)|"
    r"balance\s*shee\s?ts?|income\s+statements?|cash\s*flow\s+statements?)",
    re.IGNORECASE,
)


def statement_title(caption: str) -> str:
    """The financial statement a caption names ("Statement of Cash Flows", "Balance Sheets"), or ""."""
    # Words some PDFs split before their last letter ("Statement of Incom e", "Equit y"); "a" and "I" are words.
    caption = re.sub(r"\b([A-Za-z]{3,}) ([b-hj-zB-HJ-Z])\b", r"\1\2", caption)
    found = _STATEMENT.search(caption)
    if found is None:
        return ""
    text = " ".join(found.group(0).split())
    text = re.sub(r"(?i)\bflow s\b", "Flows", re.sub(r"(?i)\bshee ts?\b", "Sheets", text))
    return text[0].upper() + text[1:]


_FILING_FORM = re.compile(r",\s*Form\s+\S+", re.IGNORECASE)
_FILLER_WORDS = frozenset(["a", "an", "and", "at", "by", "for", "in", "of", "on", "the", "to"])
_GENERIC_WORDS = frozenset(["consolidated", "condensed", "combined", "statement", "statements", "table"])


_DESIGNATORS = frozenset(["co", "company", "corp", "corporation", "inc", "incorporated", "llc", "lp", "ltd", "limited",
                          "plc", "sa", "nv", "ag"])


def _without_designators(document: str) -> str:
    """A company's name without "inc", "corporation" and the like, when words of its own are left."""
    words = [w for w in document.split("_") if w not in _DESIGNATORS]
    return "_".join(words) if words and words != ["doc"] and not re.fullmatch(r"doc_\w{1,3}", "_".join(words)) else document


def _fit(subject: str, room: int, *, statement: bool = False, named: frozenset[str] = frozenset()) -> str:
    """A snake_case subject in ``room`` characters, keeping its distinctive words: filler words go first, then
    words every statement has ("consolidated", "statement"), then words the document's part of the name
    says already (``named``), then it is cut at a word boundary ("statement_of_cash_flows" in 20:
    "statement_cash_flows"). A statement's title is cut from the front, where its words are the least
    telling ("changes_shareholders_equity" in 20: "shareholders_equity")."""
    words = subject.split("_")
    for dropped in (_FILLER_WORDS, _GENERIC_WORDS, named):
        if len("_".join(words)) <= room:
            break
        words = [w for w in words if w not in dropped] or words
    while statement and len(words) > 1 and len("_".join(words)) > room:
        words = words[1:]
    return shorten("_".join(words), room)


_TABLE_LABEL = re.compile(r"^\s*(?:table|tab\.|exhibit|schedule|figure)\s*[\w.\-]*\s*[:.\-\u2013\u2014]?\s*", re.IGNORECASE)


_LABEL = r"(?P<label>[A-Z]{0,2}[-.]?\d+(?:\.\d+)*[a-z]?|[IVXL]+)"
_CAPTION_LABEL = re.compile(rf"^\s*(?:table|tab\.)\s*{_LABEL}\b", re.IGNORECASE)
_LABEL_SAID = re.compile(rf"\btables?\s+{_LABEL}\b", re.IGNORECASE)


def table_label(caption: str) -> str:
    """The label a caption numbers its table by ("Table 4: ..." -> "4", "TABLE IV." -> "IV", "Table A-2" -> "A-2");
    empty where it numbers none."""
    found = _CAPTION_LABEL.match(caption)
    return found.group("label").upper() if found else ""


def tables_said(text: str) -> set[str]:
    """The labels of the tables a question names by number ("in Table 4" -> {"4"})."""
    return {found.group("label").upper() for found in _LABEL_SAID.finditer(text)}


def table_name(document_title: str, caption: str, page: int, index_on_page: int, taken: set[str]) -> str:
    """A stable, readable, unique SQL name for an extracted table: "annual_report_p3_revenue_by_segment".

    Built from the document title (its first words), the page and the caption (without "Table 3:" and
    unit wording), or ``table_<n>`` (``index_on_page`` counts from 0) when there is no caption. At most
    48 characters, never one of the library's own tables, never in ``taken`` (compared without case;
    ``_2``, ``_3``... are appended). ``taken`` is not modified.
    """
    # A filing's title ("3M COMPANY, Form 10-K, fiscal year ended ...", see core.reports.document_title): its registrant.
    document_title = _FILING_FORM.split(document_title, maxsplit=1)[0]
    document = shorten(snake_case(document_title, digit_prefix="doc_", fallback="doc"), 20)
    caption_text = statement_title(caption) or strip_units(
        _TABLE_LABEL.sub("", re.sub(r"\(continued\)", "", caption, flags=re.IGNORECASE)))
    subject = snake_case(caption_text, digit_prefix="t_", fallback="") if caption_text else ""
    subject = re.sub(r"^(?:the|a|an)_", "", subject)
    if not subject:
        subject = f"table_{index_on_page + 1}"
    distinctive = set(subject.split("_")) - _FILLER_WORDS - _GENERIC_WORDS
    # The company's "Inc."/"Corporation" gives way before the statement's own words do.
    for part in dict.fromkeys([document, _without_designators(document)]):
        middle = f"{part}_p{page}"
        room = MAX_TABLE_NAME - len(middle) - 1 - 3  # keep room for a "_NN" suffix
        fitted = _fit(subject, max(room, 6), statement=bool(statement_title(caption)),
                      named=frozenset(part.split("_")))
        if distinctive <= set(fitted.split("_")):
            break
    base = shorten(f"{middle}_{fitted}", MAX_TABLE_NAME - 3)
    taken_lower = {name.lower() for name in taken}

    def free(name: str) -> bool:
        lower = name.lower()
        return (lower not in taken_lower and lower not in INTERNAL_TABLES
                and not lower.startswith(_INTERNAL_PREFIXES))

    if free(base):
        return base
    number = 2
    while not free(f"{base}_{number}"):
        number += 1
    return f"{base}_{number}"
