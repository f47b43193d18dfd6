"""What each document is about, searchable: a BM25 index over one profile per document, field by field.

A document's profile is what it says about itself, in its own words: its title and opening, its tables'
captions and headings, their column headers, the values its tables' text columns hold (the row labels
people ask by: station names, regions, products, company names) and its pages' text. SQLite's FTS5 ranks
documents for a question's words with BM25, each field weighted apart: a word of a title or caption says
more about what a document is about than one of its pages, and a word few documents use more than a
common one. The index is held in memory (one per library state, rebuilt when a document or its metadata
changes), so ranking a library's documents costs one full-text query.

Used by ``core.search.routing``; ``document_profiles`` reads the profiles from a library.
"""

from __future__ import annotations

import re
import sqlite3
import threading
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from core.library.store import Library

FIELDS: tuple[tuple[str, float], ...] = (
    ("title", 3.0),
    ("opening", 2.0),
    ("captions", 2.0),
    ("headers", 1.0),
    ("labels", 1.0),
    ("text", 0.5),
)
"""The profile's fields and their BM25 weights: what names the document weighs most, its pages least."""
TEXT_CHARS = 20_000
"""A document's pages are indexed up to this many characters (its first pages: what it is about, not all it says;
its tables' captions, headers and labels come from every page)."""
LABEL_CHARS = 50_000
"""Its tables' text values likewise."""
_TERM = re.compile(r"[^\W_]+", re.UNICODE)
_YEAR = re.compile(r"(?:1[89]|2[01])\d\d")


@dataclass(frozen=True)
class DocumentProfile:
    """What a document is about, in its own words, field by field (``FIELDS`` says how each one weighs)."""

    title: str = ""
    """File name, title, issuer and type."""
    opening: str = ""
    """The title and opening words the metadata keeps as the document's summary."""
    captions: str = ""
    headers: str = ""
    labels: str = ""
    """The distinct values of its tables' text columns."""
    text: str = ""


def question_terms(words: Iterable[str], ignored: frozenset[str]) -> list[str]:
    """The words of a question that say what it is about: not ``ignored`` question words, not lone letters, and
    of the numbers only years (a year is matched against the years a document covers; other figures are
    what is asked, not what names a document)."""
    terms: list[str] = []
    for word in words:
        for term in _TERM.findall(word.lower()):
            if term in ignored or len(term) < 2 or (term.isdigit() and not _YEAR.fullmatch(term)):
                continue
            terms.append(term)
    return list(dict.fromkeys(terms))


class SubjectIndex:
    """Documents ranked by BM25 over their profiles (an in-memory FTS5 table)."""

    def __init__(self, profiles: Mapping[int, DocumentProfile]) -> None:
        self._lock = threading.Lock()
        self._conn = sqlite3.connect(":memory:", check_same_thread=False)
        self._conn.execute(f"CREATE VIRTUAL TABLE profile USING fts5({', '.join(name for name, _ in FIELDS)}, "
                           "tokenize='porter unicode61 remove_diacritics 2')")
        self.update(profiles)

    def update(self, profiles: Mapping[int, DocumentProfile], removed: Iterable[int] = ()) -> None:
        """Index ``profiles`` (replacing a document's former one) and forget the ``removed`` documents."""
        names = [name for name, _ in FIELDS]
        with self._lock, self._conn:
            self._conn.executemany("DELETE FROM profile WHERE rowid = ?", [(i,) for i in (*profiles, *removed)])
            self._conn.executemany(
                f"INSERT INTO profile(rowid, {', '.join(names)}) VALUES (?, {', '.join('?' * len(names))})",
                [(i, *(getattr(p, name) for name in names)) for i, p in profiles.items()])

    def scores(self, terms: Iterable[str]) -> dict[int, float]:
        """Each document that uses any of ``terms``, with its BM25 score (higher is better)."""
        query = _match(terms, "OR")
        if not query:
            return {}
        weights = ", ".join(str(w) for _, w in FIELDS)
        with self._lock:
            rows = self._conn.execute(f"SELECT rowid, -bm25(profile, {weights}) FROM profile WHERE profile MATCH ?",
                                      (query,)).fetchall()
        return {int(i): float(s) for i, s in rows if s > 0}

    def documents_naming(self, terms: Iterable[str]) -> set[int]:
        """The documents whose profile uses any of ``terms`` in what names the document (its title, opening, tables'
        captions, headers or row labels), not only in its pages' text."""
        query = _match(terms, "OR")
        naming = " ".join(name for name, _ in FIELDS if name != "text")
        return self._documents(f"{{{naming}}} : ({query})") if query else set()

    def documents_using(self, terms: Iterable[str]) -> set[int]:
        """The documents whose profile uses every one of ``terms``."""
        query = _match(terms, "AND")
        return self._documents(query) if query else set()

    def _documents(self, query: str) -> set[int]:
        with self._lock:
            return {int(i) for (i,) in self._conn.execute("SELECT rowid FROM profile WHERE profile MATCH ?", (query,))}


def _match(terms: Iterable[str], joiner: str) -> str:
    """An FTS5 query for ``terms`` (each quoted, once) joined by OR or AND; "" when none is a word."""
    return f" {joiner} ".join(f'"{t}"' for t in dict.fromkeys(terms) if _TERM.fullmatch(t))


def document_profiles(library: Library, ids: Collection[int] | None = None) -> dict[int, DocumentProfile]:
    """The profiles of the documents ``ids`` (None: all) but what their metadata says (``core.search.routing``
    adds the file name, issuer, type and summary)."""
    if ids is not None and not ids:
        return {}
    chosen = sorted(ids) if ids is not None else []
    parts: dict[int, dict[str, list[str]]] = {}

    def rows(sql: str, column: str) -> Iterable[tuple[Any, ...]]:
        where = f"{column} IN ({', '.join('?' * len(chosen))})" if ids is not None else "1"
        return library.conn.execute(sql.format(where=where), chosen)

    def add(document_id: int, field: str, text: str | None, cap: int = 0) -> None:
        found = parts.setdefault(document_id, {name: [] for name, _ in FIELDS})[field]
        if text and (not cap or sum(len(t) + 1 for t in found) < cap):
            found.append(text)

    for document_id, title in rows("SELECT id, title FROM documents WHERE {where}", "id"):
        add(document_id, "title", title)
    for document_id, caption, heading in rows(
            "SELECT document_id, caption, heading FROM extracted_tables WHERE {where}", "document_id"):
        add(document_id, "captions", caption)
        if heading != caption:
            add(document_id, "captions", heading)
    for document_id, header in rows("SELECT DISTINCT t.document_id, c.header FROM table_columns c "
                                    "JOIN extracted_tables t ON t.id = c.table_id WHERE {where}", "t.document_id"):
        add(document_id, "headers", header)
    for document_id, value in rows(
            "SELECT DISTINCT t.document_id, v.text FROM table_cells v JOIN extracted_tables t ON t.id = v.table_id "
            "JOIN table_columns c ON c.table_id = v.table_id AND c.position = v.col "
            "WHERE v.is_header = 0 AND c.type = 'TEXT' AND {where}", "t.document_id"):
        add(document_id, "labels", value, LABEL_CHARS)
    for document_id, text in rows("SELECT document_id, text FROM pages WHERE {where} ORDER BY document_id, number",
                                  "document_id"):
        add(document_id, "text", text, TEXT_CHARS)
    return {i: DocumentProfile(**{field: " ".join(texts) for field, texts in fields.items()})
            for i, fields in parts.items()}
