"""Tables of one layout printed one after another, each under a title naming its own unit, read as one table.

A vote tally printed once per polling station ("Polling station 3: Eastgate School" over the same Option /
Votes / Share table on every page), a statistics table repeated for each region, a schedule per ballot
question: each table's rows say nothing of the unit, only its title does. Joined as a continuation, the
tables would lose it (three "Yes" rows, no station); kept apart, "which station had the most yes votes" and
"the total yes votes" would need every table at once. A family is joined into one table with one more
column, the key, holding each member's title for its rows; the key's header is what the titles share
("Polling station"). Every cell keeps its page, so an answer still cites the page it read.

``family_of`` says whether titles are one family's: after their numbering ("Table 4:") and "(continued)"
are set aside, they are distinct, they share words at their start or end (at least one word of three
letters), and what differs is at most ``MAX_KEY_WORDS`` words (a unit's name or a ballot question, not a
page of text). Titles that share nothing ("Greenhouse gases", "Heavy metals") are no family, and page numbers
("page 4", "page 5") are no unit.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace

from models.types import CellRef, ExtractedTable

MAX_KEY_WORDS = 24
"""Words a member's own part of the title may have (a station's or a region's name, a ballot question)."""
SHORT_TITLE_WORDS = 8
"""A title this short is the key whole ("Polling station 3: Eastgate School"); a longer one gives the part that
differs."""
MAX_CAPTION_KEYS = 12
"""Members named in the family's caption; more are counted."""
_NUMBERING = re.compile(r"^\s*(?:table|tab\.|exhibit|schedule|annex)\s+[A-Z]?\d+(?:[.\-]\d+)*[A-Za-z]?\s*[:.\-\u2013\u2014]?\s*",
                        re.IGNORECASE)
_CONTINUED = re.compile(r"[(\[]?\s*\b(?:continued|cont'?d)\b\.?\s*[)\]]?", re.IGNORECASE)
_EDGE = ":;,.-\u2013\u2014()[]|/"
_PAGE_WORDS = frozenset({"page", "p", "pp"})
_JOINING_WORDS = frozenset({"of", "at", "in", "for", "by", "on", "the", "and", "to", "from"})


def clean_title(title: str) -> str:
    """A table's title without its numbering and its "(continued)": the words that name what it holds."""
    text = _CONTINUED.sub(" ", _NUMBERING.sub("", title or ""))
    return " ".join(text.split()).strip(_EDGE + " ")


def _word(token: str) -> str:
    return token.strip(_EDGE).lower()


@dataclass(frozen=True)
class Family:
    """What the titles of a family share and what names each member."""

    header: str
    """The key column's header: the words the titles share ("Polling station")."""
    keys: tuple[str, ...]
    """Each member's key, in order: its title when short, else the part that differs."""
    caption: str
    """The joined table's title ("Polling station 1: Eastgate School, 2: Northfield Library")."""


def family_of(titles: Sequence[str], pages: Sequence[int] = ()) -> Family | None:
    """The family ``titles`` (each member's, in order) make, or None when they are no family's."""
    cleaned = [clean_title(t) for t in titles]
    if len(cleaned) < 2 or not all(cleaned) or len({c.lower() for c in cleaned}) < len(cleaned):
        return None
    tokens = [c.split() for c in cleaned]
    words = [[_word(t) for t in ts] for ts in tokens]
    shortest = min(len(w) for w in words)
    prefix = 0
    while prefix < shortest and len({w[prefix] for w in words}) == 1:
        prefix += 1
    suffix = 0
    while suffix < shortest - prefix and len({w[len(w) - 1 - suffix] for w in words}) == 1:
        suffix += 1
    middles = [ts[prefix:len(ts) - suffix] for ts in tokens]
    if not all(middles) or any(len(m) > MAX_KEY_WORDS for m in middles):
        return None
    shared = words[0][:prefix] + words[0][len(words[0]) - suffix:]
    if not any(re.fullmatch(r"[a-z]{3,}", w) for w in shared) or _PAGE_WORDS & set(shared):
        return None
    if pages and all(" ".join(m).strip(_EDGE) == str(p) for m, p in zip(middles, pages, strict=False)):
        return None  # a running header that counts the pages
    head = _edge_words(tokens[0][:prefix]) or _edge_words(tokens[0][len(tokens[0]) - suffix:])
    keys = tuple(c if len(ts) <= SHORT_TITLE_WORDS else " ".join(m).strip(_EDGE + " ")
                 for c, ts, m in zip(cleaned, tokens, middles, strict=True))
    named = [" ".join(m).strip(_EDGE + " ") for m in middles]
    listed = ", ".join(named[:MAX_CAPTION_KEYS]) + (f" and {len(named) - MAX_CAPTION_KEYS} more"
                                                    if len(named) > MAX_CAPTION_KEYS else "")
    before = " ".join(tokens[0][:prefix])
    after = " ".join(tokens[0][len(tokens[0]) - suffix:])
    caption = " ".join(filter(None, [before, listed, after]))
    return Family(head or "Table", keys, caption)


def _edge_words(tokens: Sequence[str]) -> str:
    """Shared words as a header: without the punctuation and joining words at their ends ("Results at polling
    station:" -> "Results at polling station")."""
    words = [t.strip(_EDGE) for t in tokens]
    words = [w for w in words if w]
    while words and words[0].lower() in _JOINING_WORDS:
        words.pop(0)
    while words and words[-1].lower() in _JOINING_WORDS:
        words.pop()
    return " ".join(words)


def join_family(members: Sequence[ExtractedTable], family: Family) -> ExtractedTable:
    """The members as one table: the first one's header with the key's header over a last column, then every
    member's body rows with its key. The key's cells have no place on the page (they come from a title)."""
    first = members[0]
    width = max(m.n_cols for m in members)
    rows: list[tuple[str, ...]] = []
    cells: list[tuple[CellRef | None, ...]] = []

    def add(row: Sequence[str], refs: Sequence[CellRef | None], key: str) -> None:
        padded = tuple(row) + ("",) * (width - len(row))
        placed = tuple(replace(ref, row=len(rows)) if ref is not None else None for ref in refs)
        rows.append((*padded, key))
        cells.append(placed + (None,) * (width + 1 - len(placed)))

    for r in range(first.header_rows):
        add(first.rows[r], first.cells[r] if r < len(first.cells) else (), family.header)
    for member, key in zip(members, family.keys, strict=True):
        for r in range(member.header_rows, member.n_rows):
            add(member.rows[r], member.cells[r] if r < len(member.cells) else (), key)
    pages = sorted({p for m in members for p in (m.pages or (m.page,))})
    extractors: list[str] = []
    for member in members:
        for part in member.extractor.split("+"):
            if part and part not in extractors:
                extractors.append(part)
    return replace(first, rows=tuple(rows), cells=tuple(cells), caption=family.caption, pages=tuple(pages),
                   extractor="+".join(extractors), score=min(m.score for m in members))
