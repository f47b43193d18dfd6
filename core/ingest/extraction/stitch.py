"""Joining a table that continues on the next page under a repeated header.

Two tables are one when the second starts on the next page, has the same number of columns, and its
header rows repeat the first table's header text (and its title is not another unit's of one pattern: then the
two are a family, ``families``). The continuation's rows are appended without its
repeated header; every cell keeps the page it was found on, and ``pages`` lists them all.

Statements read by the ledger reader (``extraction.ledger``) continue as real filings print them: the
period headers repeat over the figure columns, while the units over the labels ("(In millions)") may
not, and a page without section headings has no ``Section`` column. Their header is compared over the
figure columns only, the two are given the same columns, and the lines at the top of the continuation,
before its first heading, stand in the section open at the foot of the previous page (up to the total
that closes it).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import replace

from core.ingest.extraction.cleanup import TABLE_LABEL
from core.ingest.extraction.families import clean_title, family_of, join_family
from core.ingest.extraction.ledger import SECTION_HEADER
from core.reports.table_facts import is_closing_label
from core.reports.table_naming import statement_title
from models.types import CellRef, ExtractedTable

_CONTINUED = re.compile(r"\bcontinued\b|\bcont'd\b", re.IGNORECASE)


def _norm(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip().lower()


def _header(table: ExtractedTable) -> tuple[tuple[str, ...], ...]:
    return tuple(tuple(_norm(c) for c in row) for row in table.rows[: table.header_rows])


def _has_sections(table: ExtractedTable) -> bool:
    return (table.extractor == "ledger" and table.header_rows > 0
            and table.rows[table.header_rows - 1][-1] == SECTION_HEADER)


def _figure_header(table: ExtractedTable) -> tuple[tuple[str, ...], ...]:
    """A statement's header over its figure columns (not over its labels or its section column)."""
    end = table.n_cols - 1 if _has_sections(table) else table.n_cols
    header = tuple(row[1:end] for row in _header(table))
    return tuple(row for row in header if any(row))


def _continues(first: ExtractedTable, second: ExtractedTable) -> bool:
    if first.header_rows == 0 or second.header_rows == 0:
        return False
    last_page = max(first.pages or (first.page,))
    if second.page != last_page + 1:
        return False
    titles = statement_title(first.caption), statement_title(second.caption)
    if all(titles) and _norm(titles[0]) != _norm(titles[1]):
        return False  # the next statement under the same periods ("Statements of Comprehensive Income")
    if first.extractor == second.extractor == "ledger":
        # A statement goes on under its own title, said to be continued, or under none; a title of its own
        # is another statement over the same periods (the comprehensive income statement after income).
        if second.caption and not _CONTINUED.search(second.caption) and not (
                titles[1] and _norm(titles[0]) == _norm(titles[1])):
            return False
        head_a, head_b = _figure_header(first), _figure_header(second)
        return bool(head_a and head_b and len(head_a[-1]) == len(head_b[-1]) and head_a[-1] == head_b[-1])
    if first.n_cols != second.n_cols:
        return False
    head_a, head_b = _header(first), _header(second)
    if head_a == head_b:
        return True
    # A continuation may repeat only the last (most specific) header row, or add "(continued)"; a header as deep as
    # the first one's that names other things over the same columns ("Power (%)" where "Error (%)" was) heads
    # another table of one layout.
    if len(head_a) == len(head_b) and any(
            _CONTINUED.sub("", a).strip(" ()") != _CONTINUED.sub("", b).strip(" ()")
            for row_a, row_b in zip(head_a[:-1], head_b[:-1], strict=True) for a, b in zip(row_a, row_b, strict=True)
            if a and b):
        return False
    return bool(head_a and head_b and head_a[-1] == head_b[-1] and any(any(c) for c in head_b[-1]))


def _with_section_column(table: ExtractedTable) -> ExtractedTable:
    """A statement given an empty ``Section`` column, so it can be joined to one that has it."""
    rows = [(*row, SECTION_HEADER if r == table.header_rows - 1 else "") for r, row in enumerate(table.rows)]
    cells = [(*row, None) for row in table.cells] if table.cells else []
    return replace(table, rows=tuple(rows), cells=tuple(cells))


def _carry_section(first: ExtractedTable, second: ExtractedTable) -> ExtractedTable:
    """The continuation's lines before its first heading, in the section open at the foot of the first part: up
    to and including the total that closes it, and only if the first part did not end with that total."""
    body = first.rows[first.header_rows:]
    if not body:
        return second
    last = body[-1]
    section = last[-1]
    if not section or is_closing_label(last[0]):
        return second
    rows = list(second.rows)
    for r in range(second.header_rows, len(rows)):
        row = rows[r]
        if not any(row[1:-1]) or row[-1]:  # a heading of its own, or a line already placed under one
            break
        rows[r] = (*row[:-1], section)
        if is_closing_label(row[0]):
            break
    return replace(second, rows=tuple(rows))


def _join(first: ExtractedTable, second: ExtractedTable) -> ExtractedTable:
    if _has_sections(first) or _has_sections(second):
        first = first if _has_sections(first) else _with_section_column(first)
        second = _carry_section(first, second if _has_sections(second) else _with_section_column(second))
    skip = second.header_rows
    body = second.rows[skip:]
    cells: list[tuple[CellRef | None, ...]] = list(first.cells) if first.cells else [(None,) * first.n_cols] * first.n_rows
    for r, row in enumerate(second.cells[skip:] if second.cells else [(None,) * second.n_cols] * len(body)):
        cells.append(tuple(replace(ref, row=first.n_rows + r) if ref is not None else None for ref in row))
    pages = tuple(sorted(set(first.pages or (first.page,)) | set(second.pages or (second.page,))))
    extractors = []
    for name in (first.extractor, second.extractor):
        for part in name.split("+"):
            if part and part not in extractors:
                extractors.append(part)
    return replace(
        first,
        rows=first.rows + body,
        cells=tuple(cells),
        pages=pages,
        extractor="+".join(extractors),
        score=min(first.score, second.score),
    )


def stitch_tables(tables: Sequence[ExtractedTable],
                  title_of: Callable[[ExtractedTable], str] | None = None) -> list[ExtractedTable]:
    """Join tables continued on the next page; return all tables in reading order (page, then top to bottom).

    ``title_of`` gives a table's title (its caption, else the line above it; the caption when not given). A
    table under the same layout whose title names another unit of one pattern ("Polling station 2: ..." after
    "Polling station 1: ...") is no continuation but the next member of a family (``families``): the members
    are joined with a key column holding each one's title."""
    title = title_of or (lambda table: table.caption)
    ordered = sorted(tables, key=lambda t: (t.page, t.bbox[1], t.bbox[0]))
    out: list[ExtractedTable] = []
    members: list[list[tuple[ExtractedTable, str]]] = []
    """Per table of ``out``: its family's members and their titles (one member where there is no family)."""
    for table in ordered:
        previous = _last_table_before(out, table.page)
        if previous is not None and _continues(members[previous][-1][0], table) \
                and _is_last_on_its_page(out, previous) and _is_first_on_page(ordered, table):
            group = members[previous]
            said = title(table)
            titles, pages = [t for _, t in group], [m.page for m, _ in group]
            family = family_of([*titles, said], [*pages, table.page]) if said and \
                not _continued_title(said, titles[-1]) and \
                clean_title(said).lower() != clean_title(titles[-1]).lower() else None
            if family is not None:
                group.append((table, said))
                out[previous] = join_family([m for m, _ in group], family)
            elif _numbered_apart(said, titles[-1]):
                # "Table 18.2" after "Table 18.1", of one layout but no family: the next table, not the rest of it
                out.append(table)
                members.append([(table, said)])
            else:
                group[-1] = (_join(group[-1][0], table), group[-1][1])
                found = family_of(titles, pages) if len(group) > 1 else None
                out[previous] = join_family([m for m, _ in group], found) if found is not None else group[0][0]
        else:
            out.append(table)
            members.append([(table, title(table))])
    return out


_TABLE_NUMBER = re.compile(rf"^\s*{TABLE_LABEL}\b")


def _label(title: str) -> str:
    """The table's label a title starts with ("2.3" of "Table 2.3: ..."), lower case; "" where it starts with none."""
    number = _TABLE_NUMBER.match(title)
    return number.group("label").lower() if number else ""


def _numbered_apart(title: str, before: str) -> bool:
    """Both titles number their tables, and not alike ("Table 18.2: ..." after "Table 18.1: ...")."""
    label, label_before = _label(title), _label(before)
    return bool(label and label_before and label != label_before)


def _continued_title(title: str, before: str) -> bool:
    """``title`` says it continues the table titled ``before``: "Table 2.3: ... (continued)" under "Table 2.3: ...",
    or the same title with "(continued)" (not a section said continued over another table of it)."""
    if not _CONTINUED.search(title):
        return False
    label, label_before = _label(title), _label(before)
    if label and label_before:
        return label == label_before
    plain = _CONTINUED.sub("", title).replace("()", "")
    return clean_title(plain).lower() == clean_title(before).lower()


def _last_table_before(done: Sequence[ExtractedTable], page: int) -> int | None:
    for index in range(len(done) - 1, -1, -1):
        if max(done[index].pages or (done[index].page,)) < page:
            return index
    return None


def _is_last_on_its_page(done: Sequence[ExtractedTable], index: int) -> bool:
    return index == len(done) - 1


def _is_first_on_page(ordered: Sequence[ExtractedTable], table: ExtractedTable) -> bool:
    same_page = [t for t in ordered if t.page == table.page]
    return bool(same_page) and same_page[0] is table
