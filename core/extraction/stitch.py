"""Joining a table that continues on the next page under a repeated header.

Two tables are one when the second starts on a later page (the next one, or a few pages on if the
pages between hold no table), has the same number of columns, and its header rows repeat the first
table's header text, unless both carry titles and they differ (a balance sheet is not continued by
the cash-flow statement on the next page, although both head their columns with the same years). The continuation's rows are appended without its repeated header; every cell
keeps the page it was found on, and ``pages`` lists them all.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace

from models.types import CellRef, ExtractedTable


def _norm(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip().lower()


def _header(table: ExtractedTable) -> tuple[tuple[str, ...], ...]:
    return tuple(tuple(_norm(c) for c in row) for row in table.rows[: table.header_rows])


def _continues(first: ExtractedTable, second: ExtractedTable) -> bool:
    if first.n_cols != second.n_cols or first.header_rows == 0 or second.header_rows == 0:
        return False
    last_page = max(first.pages or (first.page,))
    if second.page != last_page + 1:
        return False
    if _titled(first) and _titled(second) and _titled(first) != _titled(second):
        return False  # another statement under its own title, not a continuation
    head_a, head_b = _header(first), _header(second)
    if head_a == head_b:
        return True
    # A continuation may repeat only the last (most specific) header row, or add "(continued)".
    return bool(head_a and head_b and head_a[-1] == head_b[-1] and any(any(c) for c in head_b[-1]))


def _titled(table: ExtractedTable) -> str:
    """A table's caption without "(continued)" and its scale in brackets, for comparing titles."""
    return _norm(re.sub(r"\((?:continued|cont'?d\.?|in [^)]*)\)", "", table.caption, flags=re.IGNORECASE))


def _join(first: ExtractedTable, second: ExtractedTable) -> ExtractedTable:
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


def stitch_tables(tables: Sequence[ExtractedTable]) -> list[ExtractedTable]:
    """Join tables continued on the next page; return all tables in reading order (page, then top to bottom)."""
    ordered = sorted(tables, key=lambda t: (t.page, t.bbox[1], t.bbox[0]))
    out: list[ExtractedTable] = []
    for table in ordered:
        previous = _last_table_before(out, table.page)
        if previous is not None and _continues(out[previous], table) and _is_last_on_its_page(out, previous) \
                and _is_first_on_page(ordered, table):
            out[previous] = _join(out[previous], table)
        else:
            out.append(table)
    return out


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
