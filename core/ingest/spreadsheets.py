"""Reading spreadsheets (.xlsx, .xlsm, .xls, .ods with python-calamine; .csv, .tsv with the stdlib csv
module and its Sniffer) into what ingestion stores for a PDF: per sheet, its text blocks and its tables.

Owns:
- the checks that turn a bad file into one clear message before anything is written: damaged, password
  protected, too large to read (measured from the file before anything is loaded, see
  ``core.ingest.sheet_limits``, so memory stays bounded), formulas saved without their results;
- decoding a CSV file's text: its encoding decided from the whole file (UTF-8, Windows-1252, or UTF-8 with some
  lines in Windows-1252, said in a note), bytes that are no character replaced and NUL bytes removed, each named
  by line in the document's note, never silently;
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

from core.ingest.file_names import display_name
from core.ingest.sheet_limits import (
    MAX_COLUMNS,
    MAX_ROWS,
    Budget,
    CorruptSpreadsheet,
    EncryptedSpreadsheet,
    SheetTooLarge,
    SpreadsheetError,
    UncalculatedFormulas,
    check_file,
    measure,
    too_many_columns,
    too_many_rows,
)
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

# Rows of a table that go into the retrieval index (Markdown chunks, in the full-text index); every row is in its
# SQL table whatever its size. Of those, the first ``MAX_EMBEDDED_ROWS`` are embedded too: a table chunk's vector
# is its title, columns and row labels, which the first thousand rows show as well as five thousand, and each
# chunk costs 20-30 ms to embed (5,000 rows: 417 chunks, ~14 s on a busy machine; 1,000: 84).
MAX_INDEXED_ROWS = 5_000
MAX_EMBEDDED_ROWS = 1_000
SNIFF_BYTES = 64 * 1024
MAX_LINE_BYTES = 16 * 1024 * 1024
"""A CSV line longer than this is no table row (and would be held whole to be decoded)."""
_OLE2 = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"


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
            return _csv_grid(self.path, check, max_rows, stop_after, self.notes if stop_after is None else None)
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
    # Measured before calamine opens it: opening loads the shared strings, reading a sheet loads it whole.
    check_file(name, measure(path, name))
    _open_calamine(book)
    if not book.sheet_names:
        raise CorruptSpreadsheet(f"{name} has no worksheets.")
    return book


def _open_calamine(book: Workbook) -> None:
    """Open the file with calamine and list its worksheets (not its chart sheets)."""
    try:
        from python_calamine import CalamineWorkbook

        workbook = CalamineWorkbook.from_path(str(book.path))
        book._book = workbook
        book.sheet_names = [
            m.name for m in workbook.sheets_metadata if str(getattr(m, "typ", "")).endswith("WorkSheet")
        ] or list(workbook.sheet_names)
    except Exception as exc:  # calamine raises its own error types (and ZipError, XmlError, ...)
        raise _calamine_error(book.name, exc) from exc


def _calamine_error(name: str, exc: Exception) -> SpreadsheetError:
    text = str(exc)
    if re.search(r"password|encrypt", text, re.IGNORECASE):
        return EncryptedSpreadsheet(f"{name} is password-protected. Folio cannot open protected spreadsheets: "
                                    "save a copy without the password and add that.")
    return CorruptSpreadsheet(f"{name} is damaged and cannot be read as a spreadsheet ({text.strip() or type(exc).__name__}).")


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
        raise too_many_rows(book.name, sheet, data.total_height, exact=True)
    if data.total_width > MAX_COLUMNS:
        raise too_many_columns(book.name, sheet, data.total_width)
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


def _csv_grid(path: Path, check: Callable[[], None], max_rows: int, stop_after: int | None = None,
              notes: list[str] | None = None) -> list[list[str]]:
    """The rows of a CSV or TSV file, its text decoded as ``CsvText`` decides; what a person should know about the
    decoding is added to ``notes``. The file is refused as soon as it passes a limit (``sheet_limits.Budget``)."""
    name = display_name(path)
    text = CsvText(path, name, check)
    try:
        dialect: type[csv.Dialect] | csv.Dialect = csv.Sniffer().sniff(text.sample, delimiters=",;\t|")
    except csv.Error:
        dialect = csv.excel_tab if path.suffix.lower() == ".tsv" else csv.excel
    budget = Budget(name, path.stem) if stop_after is None else None
    grid: list[list[str]] = []
    try:
        for index, row in enumerate(csv.reader(text.lines(), dialect)):
            if stop_after is not None and index >= stop_after:
                break
            if index % 5000 == 0:
                check()
            if index >= max_rows:
                raise too_many_rows(name, path.stem, index + 1, exact=False)
            if len(row) > MAX_COLUMNS:
                raise SheetTooLarge(f"{name}: row {index + 1} has {len(row):,} fields, more than Folio reads "
                                    f"({MAX_COLUMNS}). Is the delimiter right?")
            fields = [" ".join(field.split()) for field in row]
            if budget is not None:
                budget.add_row(fields)
            grid.append(fields)
    except csv.Error as exc:
        raise CorruptSpreadsheet(f"{name} cannot be read as CSV ({exc}).") from exc
    if budget is not None:
        budget.finish()
    if notes is not None:
        notes.extend(text.notes())
    return grid


_LINE_END = re.compile(rb"\r\n|\r|\n")
_LISTED_LINES = 10


class CsvText:
    """A CSV file's text, its encoding decided from the whole file before any of it is read as rows.

    A byte-order mark decides (UTF-8, UTF-16); else every line is looked at: a file all UTF-8 is UTF-8, a file
    with no UTF-8 but bytes above 127 is Windows-1252 (the legacy encoding of spreadsheets saved as CSV), and a
    file mixing both is read line by line, each line as what it is, with a note naming the Windows-1252 lines.
    Bytes that are no character in the encoding chosen are replaced by U+FFFD and NUL bytes removed, each named by
    line in a note. A file holding NUL bytes from its start (a binary file, or UTF-16 without a mark) is read as
    UTF-16 when it is that, else refused.
    """

    def __init__(self, path: Path, name: str, check: Callable[[], None] = lambda: None) -> None:
        self.path = path
        self.name = name
        self.encoding = "utf-8"
        self.legacy_lines: list[int] = []  # lines read as Windows-1252 in a file otherwise UTF-8
        self.replaced_lines: list[int] = []
        self.nul_lines: list[int] = []
        self.bom = b""
        with path.open("rb") as handle:
            head = handle.read(SNIFF_BYTES)
        if head.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
            self.encoding = "utf-16"
        elif b"\x00" in head and head.count(0) * 20 > len(head):
            self.encoding = _utf16_without_mark(head)
            if not self.encoding:
                raise CorruptSpreadsheet(f"{name} is not a text CSV file (it holds binary data).")
        else:
            if head.startswith(codecs.BOM_UTF8):
                self.bom = codecs.BOM_UTF8
            self._decide(check)
        self.sample = "".join(self._decoded(head_only=True))

    def _decide(self, check: Callable[[], None]) -> None:
        utf8 = legacy = 0
        for number, line in enumerate(self._raw_lines(), start=1):
            if number % 20_000 == 0:
                check()
            if line.isascii():
                continue
            try:
                line.decode("utf-8")
                utf8 += 1
            except UnicodeDecodeError:
                legacy += 1
        if not legacy:
            self.encoding = "utf-8"
        else:  # a file marked UTF-8 is never read whole as Windows-1252
            self.encoding = "cp1252" if not utf8 and not self.bom else "mixed"

    def _raw_lines(self, limit: int | None = None) -> Iterator[bytes]:
        """The file's lines as bytes, each with its line end ("\\n", "\\r\\n" or a lone "\\r"); with ``limit``,
        only the lines in about the first ``limit`` bytes."""
        with self.path.open("rb") as handle:
            rest = b""
            read = 0
            while block := handle.read(1 << 20):
                read += len(block)
                data = rest + block
                start = 0
                for match in _LINE_END.finditer(data):
                    if match.end() == len(data) and data.endswith(b"\r"):
                        break  # a "\r" at the end of the block may be the first half of "\r\n"
                    yield data[start : match.end()]
                    start = match.end()
                rest = data[start:]
                if len(rest) > MAX_LINE_BYTES:
                    raise CorruptSpreadsheet(f"{self.name} has a line longer than {MAX_LINE_BYTES // 2**20} MB; it "
                                             "is not a CSV file Folio can read.")
                if limit is not None and read >= limit:
                    return
            if rest:
                yield rest

    def _decoded(self, head_only: bool = False) -> Iterator[str]:
        if self.encoding.startswith("utf-16"):
            with self.path.open("r", encoding=self.encoding, errors="replace", newline="") as handle:
                read = 0
                for number, line in enumerate(handle, start=1):
                    if "\ufffd" in line:
                        self._note(self.replaced_lines, number)
                    yield self._without_nul(line, number)
                    read += len(line)
                    if head_only and read >= SNIFF_BYTES // 2:
                        return
            return
        for number, raw in enumerate(self._raw_lines(SNIFF_BYTES if head_only else None), start=1):
            line = raw.decode("ascii") if raw.isascii() else self._decode_line(raw, number)
            yield self._without_nul(line, number)

    def _decode_line(self, raw: bytes, number: int) -> str:
        if number == 1 and self.bom:
            raw = raw.removeprefix(self.bom)
        if self.encoding != "cp1252":
            try:
                return raw.decode("utf-8")
            except UnicodeDecodeError:
                if self.encoding != "mixed" or _holds_utf8(raw):  # UTF-8 with some bytes broken
                    self._note(self.replaced_lines, number)
                    return raw.decode("utf-8", errors="replace")
                self._note(self.legacy_lines, number)
        try:
            return raw.decode("cp1252")
        except UnicodeDecodeError:  # the five bytes Windows-1252 leaves undefined
            self._note(self.replaced_lines, number)
            return raw.decode("cp1252", errors="replace")

    def _without_nul(self, line: str, number: int) -> str:
        if "\x00" not in line:
            return line
        self._note(self.nul_lines, number)
        return line.replace("\x00", "")

    @staticmethod
    def _note(lines: list[int], number: int) -> None:
        if not lines or lines[-1] != number:
            lines.append(number)

    def lines(self) -> Iterator[str]:
        """The decoded lines, for ``csv.reader`` (which keeps a quoted field's line breaks)."""
        self.legacy_lines.clear()
        self.replaced_lines.clear()
        self.nul_lines.clear()
        yield from self._decoded()

    def notes(self) -> list[str]:
        """What the document's note says of the decoding: which lines were read otherwise, or changed."""
        out = []
        if self.legacy_lines:
            lines, one = _lines(self.legacy_lines)
            out.append(f"{lines} of {self.name} {'is' if one else 'are'} not UTF-8 like the rest of the file and "
                       f"{'was' if one else 'were'} read as Windows-1252")
        if self.replaced_lines:
            lines, one = _lines(self.replaced_lines)
            encoding = {"cp1252": "Windows-1252", "utf-8": "UTF-8"}.get(self.encoding, "UTF-8 or Windows-1252")
            encoding = "UTF-16" if self.encoding.startswith("utf-16") else encoding
            out.append(f"{lines} of {self.name} {'holds' if one else 'hold'} bytes that are no character in "
                       f"{encoding}; they were replaced by \ufffd")
        if self.nul_lines:
            out.append(f"NUL bytes were removed from {_lines(self.nul_lines)[0]} of {self.name}")
        return out


def _lines(numbers: Sequence[int]) -> tuple[str, bool]:
    """ "line 4", "lines 4, 9 and 12", "lines 4, 9, 12, ... (120 lines)", and whether it is one line."""
    if len(numbers) == 1:
        return f"line {numbers[0]}", True
    if len(numbers) <= _LISTED_LINES:
        return "lines " + ", ".join(str(n) for n in numbers[:-1]) + f" and {numbers[-1]}", False
    return "lines " + ", ".join(str(n) for n in numbers[:_LISTED_LINES]) + f", ... ({len(numbers):,} lines)", False


def _holds_utf8(raw: bytes) -> bool:
    """Whether a line that is not valid UTF-8 still holds UTF-8 characters (so it is UTF-8 with bytes broken, not
    a line in another encoding)."""
    return any(ord(c) > 127 and c != "\ufffd" for c in raw.decode("utf-8", errors="replace"))


def _utf16_without_mark(head: bytes) -> str:
    """ "utf-16-le" or "utf-16-be" when ``head`` is text in UTF-16 without a byte-order mark (mostly ASCII: every
    other byte NUL), else ""."""
    pairs = len(head) // 2
    if pairs < 2:
        return ""
    even_nul = head[0 : pairs * 2 : 2].count(0) / pairs
    odd_nul = head[1 : pairs * 2 : 2].count(0) / pairs
    if odd_nul > 0.9 and even_nul < 0.1:
        return "utf-16-le"
    if even_nul > 0.9 and odd_nul < 0.1:
        return "utf-16-be"
    return ""


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
    """Open an xlsx already in the library for display, measured as for ingestion (the file may have changed since)
    but not refused again for formulas."""
    book = Workbook(path)
    check_file(book.name, measure(path, book.name), formulas=False)
    _open_calamine(book)
    return book


__all__ = [
    "CELL_HEIGHT", "CELL_WIDTH", "MAX_EMBEDDED_ROWS", "MAX_INDEXED_ROWS", "MAX_ROWS", "SHEET_SUFFIXES", "CorruptSpreadsheet",
    "EncryptedSpreadsheet", "SheetContent", "SheetTooLarge", "SheetWindow", "SpreadsheetError",
    "UncalculatedFormulas", "Workbook", "box_cells", "cell_name", "cell_range", "cell_text", "find_regions",
    "is_spreadsheet", "open_workbook", "sheet_content", "sheet_window",
]
