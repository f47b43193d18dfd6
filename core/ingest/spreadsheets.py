"""Reading spreadsheets (.xlsx, .xlsm, .xls, .ods with python-calamine; .csv, .tsv with the stdlib csv
module and its Sniffer) into what ingestion stores for a PDF: per sheet, its text blocks and its tables.

Owns:
- the checks that turn a bad file into one clear message before anything is written: damaged, password
  protected, a sheet too large to read (more than ``MAX_ROWS`` rows, found from the file before the sheet
  is loaded, so memory stays bounded), formulas saved without their results;
- finding the table regions of a sheet (blocks of filled cells between empty rows and columns; a title
  line above a block is its caption) and turning each into an ``ExtractedTable`` whose cell map says
  where each cell is on the sheet;
- the sheet geometry: a sheet is a "page" whose cell (row r, column c), 0-based, covers the box
  ``(c * CELL_WIDTH, r * CELL_HEIGHT, (c + 1) * CELL_WIDTH, (r + 1) * CELL_HEIGHT)``, so chunks, cell
  maps and citations carry sheet positions in the fields that carry page boxes for a PDF, and
  ``cell_range`` turns boxes back into "B3:D7".
"""

from __future__ import annotations

import codecs
import csv
import datetime as dt
import math
import re
import zipfile
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

from core.errors import UserError
from core.library.sheet_cells import (
    CELL_HEIGHT,
    CELL_WIDTH,
    box_cells,
    cell_box,
    cell_name,
    cell_range,
    column_letters,
)
from models.types import BBox, CellRef, ExtractedTable, TextBlock

CALAMINE_SUFFIXES = frozenset({".xlsx", ".xlsm", ".xls", ".ods"})
CSV_SUFFIXES = frozenset({".csv", ".tsv"})
SHEET_SUFFIXES = CALAMINE_SUFFIXES | CSV_SUFFIXES

# A sheet with more rows than this is refused: typing, the cell map and the index grow with the rows
# (100,000 rows x 8 columns: see tests/bench/bench_sheets.py for time and memory).
MAX_ROWS = 250_000
MAX_COLUMNS = 500
# Rows of a table that go into the retrieval index (Markdown chunks, embedded); every row is in its SQL
# table whatever its size. Embedding costs ~17 ms a chunk of 12 rows, so 100,000 rows would take minutes.
MAX_INDEXED_ROWS = 5_000
SNIFF_BYTES = 64 * 1024
_OLE2 = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"


class SpreadsheetError(UserError):
    """A spreadsheet cannot be read (the message says why and what to do)."""


class CorruptSpreadsheet(SpreadsheetError):
    pass


class EncryptedSpreadsheet(SpreadsheetError):
    pass


class SheetTooLarge(SpreadsheetError):
    pass


class UncalculatedFormulas(SpreadsheetError):
    """Formulas saved without their results (files written by libraries, never opened in a spreadsheet app)."""


# ----------------------------------------------------------------------------------- values
def cell_text(value: object) -> str:
    """A cell's value as the text a report would print: whole numbers without ".0", dates in ISO form."""
    if value is None or value == "":
        return ""
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, float):
        if not math.isfinite(value):
            return ""
        if value.is_integer() and abs(value) < 1e15:
            return str(int(value))
        return format(value, ".15g")
    if isinstance(value, int):
        return str(value)
    if isinstance(value, dt.datetime):
        return value.isoformat(sep=" ", timespec="seconds").removesuffix(" 00:00:00")
    if isinstance(value, (dt.date, dt.time)):
        return value.isoformat()
    if isinstance(value, dt.timedelta):
        return str(value)
    return " ".join(str(value).split())


# ------------------------------------------------------------------------------------ sheets
@dataclass(frozen=True)
class SheetContent:
    """One sheet as ingestion stores it: a "page" numbered ``number`` labelled with the sheet's name."""

    number: int
    name: str
    rows: int
    columns: int
    blocks: tuple[TextBlock, ...]
    tables: tuple[ExtractedTable, ...]

    @property
    def text(self) -> str:
        return "\n".join(b.text for b in self.blocks)


class Workbook:
    """An opened spreadsheet file. ``sheets()`` yields each sheet's content, one at a time."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self.kind = "csv" if self.path.suffix.lower() in CSV_SUFFIXES else "calamine"
        self._book: object | None = None
        self.sheet_names: list[str] = []
        self.notes: list[str] = []
        """What a person should know about how the file was read (rows whose bytes were replaced, ...)."""

    @property
    def name(self) -> str:
        return self.path.name

    def sheets(self, check: Callable[[], None] = lambda: None) -> Iterator[SheetContent]:
        for number, sheet in enumerate(self.sheet_names, start=1):
            check()
            yield self.read_sheet(number, sheet, check)

    def read_sheet(self, number: int, sheet: str, check: Callable[[], None] = lambda: None) -> SheetContent:
        grid = self.grid(sheet, check)
        return sheet_content(number, sheet, grid, "csv" if self.kind == "csv" else "sheet")

    def grid(self, sheet: str, check: Callable[[], None] = lambda: None, max_rows: int = MAX_ROWS,
             stop_after: int | None = None) -> list[list[str]]:
        """The sheet's cells as text from A1 (empty cells as ""); a sheet of more than ``max_rows`` rows is
        refused; with ``stop_after``, only that many rows are read (for display)."""
        if self.kind == "csv":
            return _csv_grid(self.path, check, max_rows, stop_after)
        return _calamine_grid(self, sheet, check, max_rows, stop_after)

    def close(self) -> None:
        book, self._book = self._book, None
        close = getattr(book, "close", None)
        if close is not None:
            close()


def is_spreadsheet(path: Path) -> bool:
    return Path(path).suffix.lower() in SHEET_SUFFIXES


def open_workbook(path: Path) -> Workbook:
    """Open ``path`` and check it, or raise a ``SpreadsheetError`` that says what is wrong with it."""
    path = Path(path)
    name = path.name
    try:
        with path.open("rb") as handle:
            head = handle.read(8)
    except OSError as exc:
        raise CorruptSpreadsheet(f"{name}: cannot be read ({exc.strerror or exc}).") from exc
    book = Workbook(path)
    suffix = path.suffix.lower()
    if suffix in CSV_SUFFIXES:
        book.sheet_names = [path.stem]
        return book
    if head.startswith(_OLE2) and suffix != ".xls":
        # An Office file saved with a password is an encrypted package inside an OLE2 container.
        raise EncryptedSpreadsheet(f"{name} is password-protected. Folio cannot open protected spreadsheets: "
                                   "save a copy without the password and add that.")
    if suffix in (".xlsx", ".xlsm", ".ods") and not zipfile.is_zipfile(path):
        raise CorruptSpreadsheet(f"{name} is damaged: it is not a readable {suffix[1:]} file (the zip container is broken).")
    try:
        from python_calamine import CalamineWorkbook

        workbook = CalamineWorkbook.from_path(str(path))
        book._book = workbook
        book.sheet_names = [
            m.name for m in workbook.sheets_metadata if str(getattr(m, "typ", "")).endswith("WorkSheet")
        ] or list(workbook.sheet_names)
    except SpreadsheetError:
        raise
    except Exception as exc:  # calamine raises its own error types (and ZipError, XmlError, ...)
        raise _calamine_error(name, exc) from exc
    if not book.sheet_names:
        raise CorruptSpreadsheet(f"{name} has no worksheets.")
    if suffix in (".xlsx", ".xlsm"):
        _check_xlsx(path, book.sheet_names)
    return book


def _calamine_error(name: str, exc: Exception) -> SpreadsheetError:
    text = str(exc)
    if re.search(r"password|encrypt", text, re.IGNORECASE):
        return EncryptedSpreadsheet(f"{name} is password-protected. Folio cannot open protected spreadsheets: "
                                    "save a copy without the password and add that.")
    return CorruptSpreadsheet(f"{name} is damaged and cannot be read as a spreadsheet ({text.strip() or type(exc).__name__}).")


# A cell holding a formula but no saved result: <c r="B5"><f>SUM(B2:B4)</f><v/></c> (or no <v> at all).
_BARE_FORMULA = re.compile(rb'<c\b[^>]*\br="([A-Z]+[0-9]+)"[^>]*>\s*<f\b[^>]*(?:/>|>[^<]*</f>)\s*(?:<v\s*/>|<v>\s*</v>)?\s*</c>')
_ROW_TAG = re.compile(rb"<row\b")
_CHUNK = 1 << 20


def _xlsx_sheet_parts(archive: zipfile.ZipFile) -> dict[str, str]:
    """Sheet name -> the zip member holding its cells."""
    ns = {"m": "http://schemas.openxmlformats.org/spreadsheetml/2006/main",
          "r": "http://schemas.openxmlformats.org/officeDocument/2006/relationships",
          "rel": "http://schemas.openxmlformats.org/package/2006/relationships"}
    workbook = ElementTree.fromstring(archive.read("xl/workbook.xml"))
    rels = ElementTree.fromstring(archive.read("xl/_rels/workbook.xml.rels"))
    targets = {rel.get("Id"): rel.get("Target", "") for rel in rels.findall("rel:Relationship", ns)}
    parts = {}
    for sheet in workbook.findall("m:sheets/m:sheet", ns):
        target = targets.get(sheet.get(f"{{{ns['r']}}}id"), "")
        member = target.lstrip("/") if target.startswith("/") else f"xl/{target}"
        parts[sheet.get("name", "")] = member
    return parts


def _check_xlsx(path: Path, sheets: Sequence[str]) -> None:
    """Before any sheet is loaded: refuse sheets with too many rows, and formulas without saved results.
    Reads each sheet's XML as a stream, a megabyte at a time."""
    try:
        with zipfile.ZipFile(path) as archive:
            parts = _xlsx_sheet_parts(archive)
            for sheet in sheets:
                member = parts.get(sheet)
                if not member or member not in archive.namelist():
                    continue
                rows, bare = 0, list[str]()
                tail = b""
                with archive.open(member) as stream:
                    while block := stream.read(_CHUNK):
                        data = tail + block
                        # Keep an unfinished element for the next round, so no tag is cut in two.
                        cut = data.rfind(b"<c ")
                        cut = max(cut, data.rfind(b"<row"))
                        head, tail = (data[:cut], data[cut:]) if cut > 0 else (data, b"")
                        rows += len(_ROW_TAG.findall(head))
                        if len(bare) < 10:
                            bare += [m.group(1).decode() for m in _BARE_FORMULA.finditer(head)]
                        if rows > MAX_ROWS:
                            raise _too_large(path.name, sheet, rows, exact=False)
                rows += len(_ROW_TAG.findall(tail))
                bare += [m.group(1).decode() for m in _BARE_FORMULA.finditer(tail)]
                if rows > MAX_ROWS:
                    raise _too_large(path.name, sheet, rows, exact=True)
                if bare:
                    listed = ", ".join(bare[:5]) + (" ..." if len(bare) > 5 else "")
                    raise UncalculatedFormulas(
                        f"{path.name}, sheet '{sheet}': formulas were saved without their results ({listed}). "
                        "Open the file in Excel or LibreOffice and save it, so the values are stored, then add it again."
                    )
    except (zipfile.BadZipFile, KeyError, ElementTree.ParseError) as exc:
        raise CorruptSpreadsheet(f"{path.name} is damaged and cannot be read as a spreadsheet ({exc}).") from exc


def _too_large(name: str, sheet: str, rows: int, *, exact: bool) -> SheetTooLarge:
    count = f"{rows:,}" if exact else f"more than {MAX_ROWS:,}"
    return SheetTooLarge(f"{name}, sheet '{sheet}' has {count} rows; Folio reads at most {MAX_ROWS:,} rows from one "
                         "sheet. Split the sheet or keep only the rows you need, then add it again.")


def _calamine_grid(book: Workbook, sheet: str, check: Callable[[], None], max_rows: int,
                   stop_after: int | None = None) -> list[list[str]]:
    workbook = book._book
    if workbook is None:
        raise CorruptSpreadsheet(f"{book.name} is closed.")
    try:
        data = workbook.get_sheet_by_name(sheet)  # type: ignore[attr-defined]
    except Exception as exc:
        raise _calamine_error(book.name, exc) from exc
    if data.total_height > max_rows:
        raise _too_large(book.name, sheet, data.total_height, exact=True)
    if data.total_width > MAX_COLUMNS:
        raise SheetTooLarge(f"{book.name}, sheet '{sheet}': {data.total_width:,} columns is more than Folio reads "
                            f"from one sheet ({MAX_COLUMNS}).")
    grid: list[list[str]] = []
    start_row, start_col = data.start if data.start else (0, 0)
    grid.extend([] for _ in range(start_row))
    for index, row in enumerate(data.iter_rows()):
        if stop_after is not None and len(grid) >= stop_after:
            break
        if index % 2000 == 0:
            check()
        grid.append([""] * start_col + [cell_text(v) for v in row])
    return grid


def _csv_grid(path: Path, check: Callable[[], None], max_rows: int, stop_after: int | None = None) -> list[list[str]]:
    with path.open("rb") as handle:
        sample = handle.read(SNIFF_BYTES)
        # Line breaks bound the rows from above: count them first (a megabyte at a time), so a file that is
        # surely too long is refused before any row is kept.
        handle.seek(0)
        breaks = 0
        while block := handle.read(_CHUNK):
            breaks += block.count(b"\n")
            if breaks > 4 * max_rows:
                break
            check()
    encoding = _csv_encoding(sample)
    text_sample = sample.decode(encoding, errors="replace")
    if "\x00" in text_sample:
        raise CorruptSpreadsheet(f"{path.name} is not a text CSV file (it holds binary data).")
    try:
        dialect: type[csv.Dialect] | csv.Dialect = csv.Sniffer().sniff(text_sample, delimiters=",;\t|")
    except csv.Error:
        dialect = csv.excel_tab if path.suffix.lower() == ".tsv" else csv.excel
    grid: list[list[str]] = []
    try:
        if breaks > max_rows and stop_after is None:  # quoted fields may hold line breaks: count the real rows, keeping none
            with path.open("r", encoding=encoding, errors="replace", newline="") as handle:
                for index, _row in enumerate(csv.reader(handle, dialect)):
                    if index >= max_rows:
                        raise _too_large(path.name, path.stem, index + 1, exact=False)
                    if index % 5000 == 0:
                        check()
        with path.open("r", encoding=encoding, errors="replace", newline="") as handle:
            for index, row in enumerate(csv.reader(handle, dialect)):
                if stop_after is not None and index >= stop_after:
                    break
                if index % 5000 == 0:
                    check()
                if index >= max_rows:
                    raise _too_large(path.name, path.stem, index + 1, exact=False)
                if len(row) > MAX_COLUMNS:
                    raise SheetTooLarge(f"{path.name}: row {index + 1} has {len(row):,} fields, more than Folio reads "
                                        f"({MAX_COLUMNS}). Is the delimiter right?")
                grid.append([" ".join(field.split()) for field in row])
    except csv.Error as exc:
        raise CorruptSpreadsheet(f"{path.name} cannot be read as CSV ({exc}).") from exc
    return grid


def _csv_encoding(sample: bytes) -> str:
    if sample.startswith(codecs.BOM_UTF8):
        return "utf-8-sig"
    if sample.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return "utf-16"
    try:
        sample.decode("utf-8")
    except UnicodeDecodeError as exc:
        if exc.start < len(sample) - 4:  # not merely a character cut at the end of the sample
            return "cp1252"
    return "utf-8"


# ----------------------------------------------------------------------------------- regions
Region = tuple[int, int, int, int]
"""first row, first column, end row, end column (ends exclusive)."""


def _filled(grid: Sequence[Sequence[str]], row: int, col: int) -> bool:
    line = grid[row]
    return col < len(line) and bool(line[col])


def _split_rows(grid: Sequence[Sequence[str]], region: Region) -> list[Region]:
    r0, c0, r1, c1 = region
    out, start = [], None
    for r in range(r0, r1):
        if any(_filled(grid, r, c) for c in range(c0, min(c1, len(grid[r])))):
            start = r if start is None else start
        elif start is not None:
            out.append((start, c0, r, c1))
            start = None
    if start is not None:
        out.append((start, c0, r1, c1))
    return out


def _split_columns(grid: Sequence[Sequence[str]], region: Region) -> list[Region]:
    r0, c0, r1, c1 = region
    used = [False] * (c1 - c0)
    for r in range(r0, r1):
        line = grid[r]
        for c in range(c0, min(c1, len(line))):
            if line[c]:
                used[c - c0] = True
    out, start = [], None
    for offset, filled in enumerate(used):
        if filled:
            start = offset if start is None else start
        elif start is not None:
            out.append((r0, c0 + start, r1, c0 + offset))
            start = None
    if start is not None:
        out.append((r0, c0 + start, r1, c1))
    return out


def find_regions(grid: Sequence[Sequence[str]]) -> list[Region]:
    """Blocks of filled cells separated by empty rows and columns, top to bottom, left to right."""
    width = max((len(r) for r in grid), default=0)
    pending = [(0, 0, len(grid), width)]
    done: list[Region] = []
    for _ in range(4):  # splitting rows, then columns, then rows again settles real sheets
        next_round: list[Region] = []
        for region in pending:
            for band in _split_rows(grid, region):
                parts = _split_columns(grid, band)
                next_round.extend(parts)
        if next_round == pending:
            break
        pending = next_round
    done = sorted(pending, key=lambda r: (r[0], r[1]))
    return done


def _row_count(grid: Sequence[Sequence[str]], region: Region, row: int) -> int:
    return sum(1 for c in range(region[1], region[3]) if _filled(grid, row, c))


def _peel(grid: Sequence[Sequence[str]], region: Region) -> tuple[list[int], Region, list[int]]:
    """Title lines at the top and note lines at the bottom (one filled cell in a wider block) set apart
    from the table between them."""
    r0, c0, r1, c1 = region
    top: list[int] = []
    bottom: list[int] = []
    while r1 - r0 > 2 and _row_count(grid, region, r0) == 1 and _row_count(grid, region, r0 + 1) >= 2:
        top.append(r0)
        r0 += 1
    while r1 - r0 > 2 and _row_count(grid, region, r1 - 1) == 1 and c1 - c0 > 1 and not _filled(grid, r1 - 1, c0 + 1) \
            and _row_count(grid, region, r1 - 2) >= 2 and len(grid[r1 - 1][c0] if c0 < len(grid[r1 - 1]) else "") > 40:
        bottom.insert(0, r1 - 1)
        r1 -= 1
    return top, (r0, c0, r1, c1), bottom


def _line_block(grid: Sequence[Sequence[str]], number: int, row: int, c0: int, c1: int) -> TextBlock | None:
    cells = [(c, grid[row][c]) for c in range(c0, min(c1, len(grid[row]))) if grid[row][c]]
    if not cells:
        return None
    first, last = cells[0][0], cells[-1][0]
    return TextBlock(number, cell_box(row, first, 1, last - first + 1), " ".join(text for _, text in cells))


_GENERIC_SHEET = re.compile(r"^(?:sheet|feuil|tabelle|hoja|foglio|blad)\s*\d*$", re.IGNORECASE)


def sheet_content(number: int, name: str, grid: list[list[str]], extractor: str = "sheet") -> SheetContent:
    """The text blocks and tables of one sheet's grid."""
    blocks: list[TextBlock] = []
    tables: list[ExtractedTable] = []
    for region in find_regions(grid):
        r0, c0, r1, c1 = region
        filled_cols = sum(1 for c in range(c0, c1) if any(_filled(grid, r, c) for r in range(r0, r1)))
        if r1 - r0 < 2 or filled_cols < 2:
            blocks.extend(b for r in range(r0, r1) if (b := _line_block(grid, number, r, c0, c1)) is not None)
            continue
        top, body, bottom = _peel(grid, region)
        title_blocks = [b for r in top if (b := _line_block(grid, number, r, c0, c1)) is not None]
        blocks.extend(title_blocks)
        caption = " ".join(b.text for b in title_blocks)
        if not caption:
            caption = _caption_above(blocks, body)
        if not caption and not _GENERIC_SHEET.match(name.strip()):
            caption = name.strip()
        tables.append(_table(grid, number, body, caption, extractor))
        blocks.extend(b for r in bottom if (b := _line_block(grid, number, r, c0, c1)) is not None)
    width = max((len(r) for r in grid), default=0)
    return SheetContent(number, name, len(grid), width, tuple(blocks), tuple(tables))


def _caption_above(blocks: Sequence[TextBlock], region: Region) -> str:
    """A short line ending within two rows above the table, over its columns."""
    r0, c0, _r1, c1 = region
    top = r0 * CELL_HEIGHT
    for block in sorted(blocks, key=lambda b: -b.bbox[3]):
        x0, _y0, x1, y1 = block.bbox
        if top - 2 * CELL_HEIGHT <= y1 <= top and x0 < c1 * CELL_WIDTH and x1 > c0 * CELL_WIDTH:
            return block.text if len(block.text.split()) <= 20 else ""
    return ""


class _SheetCells(Sequence[tuple[CellRef, ...]]):
    """A table's cell map computed row by row when asked (the last row kept), not held whole: a
    100,000-row sheet would otherwise hold a CellRef per cell."""

    def __init__(self, number: int, region: Region) -> None:
        self.number = number
        self.region = region
        self._last: tuple[int, tuple[CellRef, ...]] | None = None

    def __len__(self) -> int:
        return self.region[2] - self.region[0]

    def __getitem__(self, index):  # type: ignore[no-untyped-def, override]
        if isinstance(index, slice):
            return tuple(self[i] for i in range(*index.indices(len(self))))
        if index < 0:
            index += len(self)
        if not 0 <= index < len(self):
            raise IndexError(index)
        if self._last is None or self._last[0] != index:
            r0, c0, _r1, c1 = self.region
            row = r0 + index
            self._last = (index, tuple(CellRef(index, c - c0, self.number, cell_box(row, c)) for c in range(c0, c1)))
        return self._last[1]


def _table(grid: Sequence[Sequence[str]], number: int, region: Region, caption: str, extractor: str) -> ExtractedTable:
    r0, c0, r1, c1 = region
    rows = tuple(tuple(grid[r][c] if c < len(grid[r]) else "" for c in range(c0, c1)) for r in range(r0, r1))
    cells: Any = _SheetCells(number, region)  # stands in for ExtractedTable's tuple of rows
    return ExtractedTable(
        page=number, bbox=cell_box(r0, c0, r1 - r0, c1 - c0), rows=rows, header_rows=_header_rows(rows),
        cells=cells, caption=caption, extractor=extractor, pages=(number,),
    )


_NUMBER = re.compile(r"^[\s$€£¥(+\-−.,%0-9)]*\d[\s$€£¥(+\-−.,%0-9)]*$")


def _header_rows(rows: Sequence[Sequence[str]]) -> int:
    """1 when the first row is all words over a column of numbers (a spreadsheet's usual header); else 0,
    and core.reports.table_typing decides from the text as for a PDF table."""
    if len(rows) < 2:
        return 0
    first, second = rows[0], rows[1]
    words = [bool(t) and not _NUMBER.match(t) for t in first]
    if not all(words[i] or not first[i] for i in range(len(first))) or sum(words) < 2:
        return 0
    return 1 if any(_NUMBER.match(t) for t in second if t) else 0


# ------------------------------------------------------------------------------- the evidence grid
@dataclass(frozen=True)
class SheetWindow:
    """A part of a sheet for display: its cells' text, where it sits on the sheet, the cells to highlight."""

    sheet: str
    first_row: int
    first_col: int
    cells: tuple[tuple[str, ...], ...]
    highlights: tuple[tuple[int, int], ...] = ()
    """(row, column) within ``cells`` of every cited cell that shows."""
    sheets: tuple[str, ...] = ()
    """Every sheet of the file, in order (the window's sheet is number ``sheets.index(sheet) + 1``)."""

    @property
    def column_labels(self) -> list[str]:
        width = max((len(r) for r in self.cells), default=0)
        return [column_letters(self.first_col + c) for c in range(width)]

    @property
    def row_labels(self) -> list[str]:
        return [str(self.first_row + r + 1) for r in range(len(self.cells))]


def sheet_window(path: Path, sheet: str, around: Sequence[BBox] = (), max_rows: int = 400,
                 max_cols: int = 40) -> SheetWindow:
    """Up to ``max_rows`` x ``max_cols`` cells of ``sheet``, from A1 or, when the cells ``around`` lie
    further down or right, placed so that they show."""
    path = Path(path)
    if not path.is_file():
        raise SpreadsheetError(f"{path.name} is no longer at {path}. Move it back or add it again.")
    spans = [box_cells(b) for b in around]
    first_row = max(0, min((s[0] for s in spans), default=0) - 5)
    first_col = max(0, min((s[1] for s in spans), default=0) - 2)
    if spans and max(s[2] for s in spans) < max_rows:
        first_row = 0
    if spans and max(s[3] for s in spans) < max_cols:
        first_col = 0
    book = open_workbook(path) if path.suffix.lower() not in (".xlsx", ".xlsm") else _open_for_view(path)
    try:
        if sheet not in book.sheet_names:
            raise SpreadsheetError(f"{path.name} has no sheet named '{sheet}' any more (it was changed after it was added).")
        grid = book.grid(sheet, max_rows=10 * MAX_ROWS, stop_after=first_row + max_rows)
        sheets = tuple(book.sheet_names)
    finally:
        book.close()
    cells = tuple(tuple(row[first_col:first_col + max_cols]) for row in grid[first_row:first_row + max_rows])
    width = max((len(r) for r in cells), default=0)
    cells = tuple(row + ("",) * (width - len(row)) for row in cells)
    shown = set()
    for r0, c0, r1, c1 in spans:
        for r in range(max(r0, first_row), min(r1, first_row + len(cells) - 1) + 1):
            for c in range(max(c0, first_col), min(c1, first_col + width - 1) + 1):
                shown.add((r - first_row, c - first_col))
    return SheetWindow(sheet, first_row, first_col, cells, tuple(sorted(shown)), sheets)


def _open_for_view(path: Path) -> Workbook:
    """Open an xlsx already in the library for display, without refusing it again for formulas."""
    from python_calamine import CalamineWorkbook

    book = Workbook(path)
    try:
        book._book = CalamineWorkbook.from_path(str(path))
        book.sheet_names = list(book._book.sheet_names)
    except Exception as exc:
        raise _calamine_error(path.name, exc) from exc
    return book


__all__ = [
    "CELL_HEIGHT", "CELL_WIDTH", "MAX_INDEXED_ROWS", "MAX_ROWS", "SHEET_SUFFIXES", "CorruptSpreadsheet",
    "EncryptedSpreadsheet", "SheetContent", "SheetTooLarge", "SheetWindow", "SpreadsheetError",
    "UncalculatedFormulas", "Workbook", "box_cells", "cell_name", "cell_range", "cell_text", "find_regions",
    "is_spreadsheet", "open_workbook", "sheet_content", "sheet_window",
]
