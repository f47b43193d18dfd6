"""What a spreadsheet will cost to read, measured from the file before anything of it is loaded, and the limits
that keep every accepted file within Folio's memory.

python-calamine loads a sheet whole, as a dense grid from A1 to its last used cell, and copies a shared string
into every cell that uses it; a file of a few megabytes can ask for gigabytes that way (rows written with a
namespace prefix, ``<x:row>``; one long shared string used by a million cells; a row repeated a million times in
an OpenDocument file). So each format is read here as a stream, by a real parser (XML with its namespaces for
xlsx and ods, the BIFF records inside the OLE2 container for xls), counting what calamine and ingestion will hold:

- per sheet, the used rows and columns (the dense grid), the cells holding a value and the characters of their text
  (shared strings counted where they are used);
- per file, the shared strings calamine loads when the file is opened.

A sheet of more than ``MAX_ROWS`` rows or ``MAX_COLUMNS`` columns is refused, and so is a file whose sheets would
take more than ``MEMORY_BUDGET`` bytes to read (``FileSize.cost``; the weights are measured by
``tests/bench/bench_sheets.py --bombs``). CSV files are measured as they are read (``Budget``), since reading
them is itself a stream. Each measure stops as soon as a limit is passed, so measuring never costs more than the
limits allow.
"""

from __future__ import annotations

import re
import struct
import zipfile
from array import array
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any
from xml.etree import ElementTree
from xml.parsers import expat

from core.errors import UserError

MAX_ROWS = 250_000
MAX_COLUMNS = 500
MEMORY_BUDGET = 600 * 1024 * 1024
"""Bytes the sheets of one file may take while they are read, typed and written, beside Folio's own ~350 MB (the
embedder loaded), so that ingesting any accepted file stays under 1 GB."""
GRID_CELL_BYTES = 40
"""A position of the dense grid: calamine's cell (32 bytes) and the grid's reference to it (8) and more."""
VALUE_CELL_BYTES = 190
"""A cell holding a value: its text in the grid, its typed value, its row in the typed table, its SQL writes."""
TEXT_BYTES = 5
"""A character of cell text, held by calamine, the grid, the typed table, and read back for the table's facts."""
SHARED_STRING_BYTES = 64
"""A shared string in calamine's table (its text apart)."""
_STREAM_BLOCK = 1 << 16


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


@dataclass
class SheetSize:
    """What one sheet holds: ``rows`` x ``columns`` is its grid from A1 to its last value."""

    name: str
    rows: int = 0
    columns: int = 0
    cells: int = 0
    text: int = 0
    bare_formulas: list[str] = field(default_factory=list)
    """Cells holding a formula saved without its result (the first few)."""

    @property
    def cost(self) -> int:
        return self.rows * self.columns * GRID_CELL_BYTES + self.cells * VALUE_CELL_BYTES + self.text * TEXT_BYTES


@dataclass
class FileSize:
    sheets: list[SheetSize] = field(default_factory=list)
    shared_strings: int = 0
    shared_text: int = 0

    @property
    def cost(self) -> int:
        return (sum(s.cost for s in self.sheets) + self.shared_strings * SHARED_STRING_BYTES
                + self.shared_text * TEXT_BYTES)


def too_many_rows(name: str, sheet: str, rows: int, *, exact: bool) -> SheetTooLarge:
    count = f"{rows:,}" if exact else f"more than {MAX_ROWS:,}"
    return SheetTooLarge(f"{name}, sheet '{sheet}' has {count} rows; Folio reads at most {MAX_ROWS:,} rows from one "
                         "sheet. Split the sheet or keep only the rows you need, then add it again.")


def too_many_columns(name: str, sheet: str, columns: int) -> SheetTooLarge:
    return SheetTooLarge(f"{name}, sheet '{sheet}': {columns:,} columns is more than Folio reads from one sheet "
                         f"({MAX_COLUMNS}).")


def too_costly(name: str, size: FileSize) -> SheetTooLarge:
    cost = size.cost
    cells = sum(s.cells for s in size.sheets) + size.shared_strings
    text = sum(s.text for s in size.sheets) + size.shared_text
    widest = max(size.sheets, key=lambda s: s.rows * s.columns, default=None)
    grid = (f" in a grid of {widest.rows:,} rows x {widest.columns:,} columns"
            if widest is not None and widest.rows * widest.columns * GRID_CELL_BYTES > cost // 2 else "")
    # Measuring stops as soon as the limit is passed: the counts are what was read by then.
    return SheetTooLarge(
        f"{name} is too large to read: at least {cells:,} cells{grid} holding {text / 1e6:,.1f} million characters "
        f"of text, which would take more than {cost // 2**20:,} MB of memory; Folio reads files needing at most "
        f"{MEMORY_BUDGET // 2**20:,} MB. Split it or keep only the sheets and rows you need, then add it again.")


class _Meter:
    """Adds up a file's size as it is measured, and stops the measuring as soon as a limit is passed."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.size = FileSize()

    def sheet(self, sheet: str) -> SheetSize:
        size = SheetSize(sheet)
        self.size.sheets.append(size)
        return size

    def check(self, sheet: SheetSize | None = None) -> None:
        if sheet is not None:
            if sheet.rows > MAX_ROWS:
                raise too_many_rows(self.name, sheet.name, sheet.rows, exact=False)
            if sheet.columns > MAX_COLUMNS:
                raise too_many_columns(self.name, sheet.name, sheet.columns)
        if self.size.cost > MEMORY_BUDGET:
            raise too_costly(self.name, self.size)


def check_file(name: str, size: FileSize, *, formulas: bool = True) -> None:
    """Refuse a measured file that passes a limit, or (with ``formulas``) holds formulas without their results."""
    meter = _Meter(name)
    meter.size = size
    for sheet in size.sheets:
        if sheet.rows > MAX_ROWS:
            raise too_many_rows(name, sheet.name, sheet.rows, exact=True)
        meter.check(sheet)
    meter.check()
    for sheet in size.sheets if formulas else ():
        if sheet.bare_formulas:
            listed = ", ".join(sheet.bare_formulas[:5]) + (" ..." if len(sheet.bare_formulas) > 5 else "")
            raise UncalculatedFormulas(
                f"{name}, sheet '{sheet.name}': formulas were saved without their results ({listed}). "
                "Open the file in Excel or LibreOffice and save it, so the values are stored, then add it again.")


def measure(path: Path, name: str) -> FileSize:
    """The size of an xlsx, xlsm, ods or xls file's sheets, or a ``SpreadsheetError`` as soon as one is too large."""
    suffix = Path(path).suffix.lower()
    meter = _Meter(name)
    try:
        if suffix in (".xlsx", ".xlsm"):
            with zipfile.ZipFile(path) as archive:
                _measure_xlsx(archive, meter)
        elif suffix == ".ods":
            with zipfile.ZipFile(path) as archive, archive.open("content.xml") as stream:
                _measure_ods(stream, meter)
        elif suffix == ".xls":
            with Path(path).open("rb") as handle:
                _measure_xls(handle, meter)
    except SpreadsheetError:
        raise
    except (zipfile.BadZipFile, KeyError, ElementTree.ParseError, expat.ExpatError, _Malformed, EOFError,
            struct.error, ValueError, OSError) as exc:
        raise CorruptSpreadsheet(f"{name} is damaged and cannot be read as a spreadsheet ({exc}).") from exc
    return meter.size


class _Malformed(Exception):
    pass


# ------------------------------------------------------------------------------------------ XML
def _parser() -> Any:
    """An expat parser reporting elements as "namespace-uri local-name", so a prefix (``<x:row>``) changes nothing.

    A document type declaration is refused: no spreadsheet part has one, and its entities could make a few bytes
    stand for millions of rows."""
    parser = expat.ParserCreate(namespace_separator=" ")

    def refuse(*_args: object) -> None:
        raise _Malformed("a document type declaration, which spreadsheets never hold")

    parser.StartDoctypeDeclHandler = refuse
    parser.EntityDeclHandler = refuse
    parser.buffer_text = True
    return parser


def _feed(parser: Any, stream: IO[bytes]) -> None:
    while block := stream.read(_STREAM_BLOCK):
        parser.Parse(block, False)
    parser.Parse(b"", True)


def _parse(stream: IO[bytes], start: Callable[[str, dict[str, str]], None], end: Callable[[str], None],
           text: Callable[[str], None] | None = None) -> None:
    """Stream ``stream`` through expat, calling back with each element's local name (whatever its prefix)."""
    parser = _parser()
    parser.StartElementHandler = lambda tag, attrs: start(tag.rpartition(" ")[2], attrs)
    parser.EndElementHandler = lambda tag: end(tag.rpartition(" ")[2])
    if text is not None:
        parser.CharacterDataHandler = text
    _feed(parser, stream)


_REF = re.compile(r"([A-Za-z]{1,3})?(\d+)?$")


def _column_number(letters: str) -> int:
    number = 0
    for char in letters.upper():
        number = number * 26 + ord(char) - 64
    return number


_MAIN = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"
_OFFICE_REL = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
_PACKAGE_REL = "http://schemas.openxmlformats.org/package/2006/relationships"


def xlsx_parts(archive: zipfile.ZipFile) -> tuple[dict[str, str], str]:
    """Sheet name -> the zip member holding its cells, and the member holding the shared strings ("" if none)."""
    workbook = ElementTree.fromstring(archive.read("xl/workbook.xml"))
    rels = ElementTree.fromstring(archive.read("xl/_rels/workbook.xml.rels"))

    def member(target: str) -> str:
        return target.lstrip("/") if target.startswith("/") else f"xl/{target}"

    targets: dict[str, str] = {}
    shared = ""
    for rel in rels.iter(f"{{{_PACKAGE_REL}}}Relationship"):
        targets[rel.get("Id", "")] = rel.get("Target", "")
        if rel.get("Type", "").endswith("/sharedStrings"):
            shared = member(rel.get("Target", ""))
    parts = {}
    for sheet in workbook.iter(f"{{{_MAIN}}}sheet"):
        parts[sheet.get("name", "")] = member(targets.get(sheet.get(f"{{{_OFFICE_REL}}}id", ""), ""))
    return parts, shared


def _measure_xlsx(archive: zipfile.ZipFile, meter: _Meter) -> None:
    parts, shared_member = xlsx_parts(archive)
    names = set(archive.namelist())
    lengths = array("L")
    if shared_member in names:
        with archive.open(shared_member) as stream:
            _shared_strings(stream, lengths, meter)
    for sheet, member in parts.items():
        if member in names:
            with archive.open(member) as stream:
                _xlsx_sheet(stream, meter.sheet(sheet), lengths, meter)


def _shared_strings(stream: IO[bytes], lengths: array[int], meter: _Meter) -> None:
    """Each shared string's length, in order (calamine loads them all when the file is opened)."""
    size = meter.size
    current = [-1]  # length of the string being read, -1 outside one
    depth_t = [0]

    def start(tag: str, _attrs: dict[str, str]) -> None:
        if tag == "si":
            current[0] = 0
        elif tag == "t" and current[0] >= 0:
            depth_t[0] += 1

    def end(tag: str) -> None:
        if tag == "si":
            lengths.append(current[0])
            size.shared_strings += 1
            size.shared_text += current[0]
            current[0] = -1
            if size.shared_strings % 4096 == 0:
                meter.check()
        elif tag == "t" and depth_t[0]:
            depth_t[0] -= 1

    def text(data: str) -> None:
        if depth_t[0]:
            current[0] += len(data)

    _parse(stream, start, end, text)
    meter.check()


_LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
_EXPANDED_KINDS = frozenset({"str", "inlineStr"})
NUMBER_TEXT = 24
"""Characters a number, date or boolean cell's text takes at most (``cell_text`` of a float)."""


class UnreadableCells(SpreadsheetError):
    """Values written in a form calamine reads as empty (a number or a shared-string index as character references
    or in a CDATA section): valid XML, but read, they would be stored wrong in silence."""


def _xlsx_sheet(stream: IO[bytes], sheet: SheetSize, shared: array[int], meter: _Meter) -> None:
    """A worksheet's cells: where each stands (its ``r``, else after the one before), and its text's length (a
    shared string's, where it uses one). Called for every element of sheets of a million cells, so the state is in
    local variables.

    Text is read as written (expat's default handler: character references unexpanded, which makes a string's
    length count a little high), since calamine reads a number or a shared-string index written as character
    references (``&#49;``) or in a CDATA section as empty: such a cell is refused (``UnreadableCells``), not
    stored empty. (The character data handler is never swapped: pyexpat keeps a no-op one in its place when it
    is cleared inside a callback, which would hide the text from the default handler.)"""
    parser = _parser()
    names: dict[str, str] = {}
    columns: dict[str, int] = {}
    row = col = 0
    ref = kind = ""
    value: list[str] = []
    inline = 0
    in_inline = formula = has_value = False
    longest = max(shared, default=0)
    unreadable: list[str] = []

    def local(tag: str) -> str:
        name = names[tag] = tag.rpartition(" ")[2]
        return name

    def collect(data: str) -> None:
        value.append(data)

    def start(tag: str, attrs: dict[str, str]) -> None:
        nonlocal row, col, ref, kind, inline, in_inline, formula, has_value
        name = names.get(tag) or local(tag)
        if name == "c":
            ref = attrs.get("r", "")
            digits = ref.lstrip(_LETTERS)
            letters = ref[: len(ref) - len(digits)]
            if letters:
                col = columns.get(letters) or columns.setdefault(letters, _column_number(letters))
            else:
                col += 1
            if digits.isdigit():
                row = int(digits)
            kind = attrs.get("t", "")
            value.clear()
            inline, formula, has_value = 0, False, False
        elif name == "v":
            has_value = True
            parser.DefaultHandler = collect
        elif name == "row":
            row = int(attrs["r"]) if "r" in attrs else row + 1
            col = 0
        elif name == "t" and in_inline:
            parser.DefaultHandler = collect
        elif name == "is":
            in_inline = True
        elif name == "f":
            formula = True

    def end(tag: str) -> None:
        nonlocal in_inline, inline
        name = names.get(tag) or local(tag)
        if name == "c":
            if kind in _EXPANDED_KINDS:
                length = inline if kind == "inlineStr" else sum(len(part) for part in value)
                filled = has_value or kind == "inlineStr"
            else:
                text = "".join(value).strip()
                if "&" in text or "<" in text:
                    if len(unreadable) < 5:
                        unreadable.append(ref or f"row {row}")
                    return
                if kind == "s":
                    index = int(text) if text.isdigit() else -1
                    length = shared[index] if 0 <= index < len(shared) else longest
                    filled = has_value
                else:
                    length = NUMBER_TEXT
                    filled = has_value and (bool(text) or not formula)  # a formula saved without its result
            if filled:
                sheet.cells += 1
                sheet.text += length
                sheet.rows = max(sheet.rows, row)
                sheet.columns = max(sheet.columns, col)
                if sheet.cells % 4096 == 0:
                    meter.check(sheet)
            elif formula and len(sheet.bare_formulas) < 10:
                sheet.bare_formulas.append(ref or f"row {row}")
        elif name == "v":
            parser.DefaultHandler = None
        elif name == "t" and in_inline:
            parser.DefaultHandler = None
            inline += sum(len(part) for part in value)
            value.clear()
        elif name == "is":
            in_inline = False

    parser.StartElementHandler = start
    parser.EndElementHandler = end
    _feed(parser, stream)
    meter.check(sheet)
    if unreadable:
        raise UnreadableCells(
            f"{meter.name}, sheet '{sheet.name}': values are written in a form Folio's spreadsheet reader would read "
            f"as empty (as character references or CDATA, in {', '.join(unreadable)}). Open the file in Excel or "
            "LibreOffice and save it, then add it again.")


# -------------------------------------------------------------------------------------- OpenDocument
def _measure_ods(stream: IO[bytes], meter: _Meter) -> None:
    """content.xml: rows and cells repeated by ``number-rows-repeated`` / ``number-columns-repeated`` count as
    often as they repeat; empty ones (LibreOffice pads every sheet with them) count for nothing."""
    state: dict[str, Any] = {"sheet": None, "row": 0, "repeat": 1, "col": 0, "last": 0, "cells": 0, "text": 0,
                             "cell_repeat": 1, "cell_text": 0, "filled": False, "in_cell": False}

    def start(tag: str, attrs: dict[str, str]) -> None:
        local = {k.rpartition(" ")[2]: v for k, v in attrs.items()}
        if tag == "table":
            state.update(sheet=meter.sheet(local.get("name", "")), row=0)
        elif tag == "table-row" and state["sheet"] is not None:
            state.update(repeat=_count(local.get("number-rows-repeated")), col=0, last=0, cells=0, text=0)
        elif tag in ("table-cell", "covered-table-cell") and state["sheet"] is not None:
            value = local.get("value") or local.get("date-value") or local.get("time-value") or local.get(
                "boolean-value") or local.get("string-value") or ""
            state.update(cell_repeat=_count(local.get("number-columns-repeated")), cell_text=len(value),
                         filled=bool(local.get("value-type")), in_cell=True)
        elif tag == "s" and state["in_cell"]:
            state["cell_text"] += _count(local.get("c"))

    def end(tag: str) -> None:
        sheet: SheetSize | None = state["sheet"]
        if sheet is None:
            return
        if tag in ("table-cell", "covered-table-cell"):
            repeat = state["cell_repeat"]
            if state["filled"] or state["cell_text"]:
                state["cells"] += repeat
                state["text"] += state["cell_text"] * repeat
                state["last"] = state["col"] + repeat
            state["col"] += repeat
            state["in_cell"] = False
        elif tag == "table-row":
            repeat = state["repeat"]
            if state["cells"]:
                sheet.cells += state["cells"] * repeat
                sheet.text += state["text"] * repeat
                sheet.rows = state["row"] + repeat
                sheet.columns = max(sheet.columns, state["last"])
                meter.check(sheet)
            state["row"] += repeat
        elif tag == "table":
            state["sheet"] = None

    def text(data: str) -> None:
        if state["in_cell"]:
            state["cell_text"] += len(data)

    _parse(stream, start, end, text)
    meter.check()


def _count(value: str | None) -> int:
    try:
        return max(1, int(value)) if value else 1
    except ValueError:
        return 1


# ---------------------------------------------------------------------------------------------- xls
_CFB_SIGNATURE = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
_FREE, _END_OF_CHAIN = 0xFFFFFFFF, 0xFFFFFFFE


class _CompoundFile:
    """The streams of an OLE2 compound file (the container of .xls), read as the specification lays them out."""

    def __init__(self, handle: IO[bytes]) -> None:
        self.handle = handle
        header = handle.read(512)
        if len(header) < 512 or not header.startswith(_CFB_SIGNATURE):
            raise _Malformed("not an OLE2 compound file")
        self.sector = 1 << struct.unpack_from("<H", header, 0x1E)[0]
        self.mini_sector = 1 << struct.unpack_from("<H", header, 0x20)[0]
        fat_sectors, self.directory_start = struct.unpack_from("<II", header, 0x2C)
        self.mini_cutoff, mini_fat_start, mini_fat_sectors, difat_start, difat_sectors = struct.unpack_from(
            "<IIIII", header, 0x38)
        if self.sector not in (512, 4096) or self.mini_sector != 64:
            raise _Malformed("unknown sector size")
        handle.seek(0, 2)
        self.sectors = max(0, (handle.tell() - 512) // self.sector)
        fat_list = [n for n in struct.unpack_from("<109I", header, 0x4C) if n < self.sectors]
        sector, seen = difat_start, 0
        while sector < self.sectors and seen < difat_sectors:
            entries = struct.unpack(f"<{self.sector // 4}I", self._read_sector(sector))
            fat_list += [n for n in entries[:-1] if n < self.sectors]
            sector, seen = entries[-1], seen + 1
        fat_list = fat_list[:fat_sectors]
        self.fat = array("I")
        for number in fat_list:
            self.fat.frombytes(self._read_sector(number))
        self.mini_fat = array("I")
        if mini_fat_sectors:
            self.mini_fat.frombytes(self._chain_bytes(mini_fat_start))
        self.entries = self._directory()
        root = self.entries[0] if self.entries else None
        self.mini_stream_start = root[1] if root else _END_OF_CHAIN

    def _read_sector(self, number: int) -> bytes:
        self.handle.seek(512 + number * self.sector)
        data = self.handle.read(self.sector)
        if len(data) < self.sector:
            raise _Malformed("a sector lies past the end of the file")
        return data

    def _chain(self, start: int, table: array[int], limit: int) -> list[int]:
        chain: list[int] = []
        sector = start
        while sector not in (_END_OF_CHAIN, _FREE) and sector < len(table):
            chain.append(sector)
            if len(chain) > limit:
                raise _Malformed("a sector chain loops")
            sector = table[sector]
        return chain

    def _chain_bytes(self, start: int) -> bytes:
        return b"".join(self._read_sector(n) for n in self._chain(start, self.fat, self.sectors))

    def _directory(self) -> list[tuple[str, int, int, int]]:
        """(name, first sector, size, type) of each directory entry."""
        data = self._chain_bytes(self.directory_start)
        entries = []
        for offset in range(0, len(data) - 127, 128):
            name_length = struct.unpack_from("<H", data, offset + 64)[0]
            kind = data[offset + 66]
            start, size = struct.unpack_from("<IQ", data, offset + 116)
            if self.sector == 512:
                size &= 0xFFFFFFFF
            name = data[offset : offset + max(0, min(name_length, 64) - 2)].decode("utf-16-le", errors="replace")
            entries.append((name, start, size, kind))
        return entries

    def stream(self, *names: str) -> bytes:
        for name, start, size, kind in self.entries:
            if kind == 2 and name in names:
                if size < self.mini_cutoff:
                    mini = self._chain_bytes(self.mini_stream_start)
                    sectors = self._chain(start, self.mini_fat, len(self.mini_fat))
                    data = b"".join(mini[n * self.mini_sector : (n + 1) * self.mini_sector] for n in sectors)
                else:
                    data = self._chain_bytes(start)
                return data[:size]
        raise _Malformed(f"no {names[0]} stream")


_BOF, _EOF, _BOUNDSHEET, _SST, _CONTINUE = 0x0809, 0x000A, 0x0085, 0x00FC, 0x003C
_LABELSST, _LABEL, _NUMBER, _RK, _MULRK, _BOOLERR, _FORMULA, _STRING = (0x00FD, 0x0204, 0x0203, 0x027E, 0x00BD,
                                                                        0x0205, 0x0006, 0x0207)
_FILEPASS = 0x002F
MAX_XLS_BYTES = 128 * 1024 * 1024
"""An .xls holds at most 65,536 x 256 cells a sheet; a larger file is not one Folio reads."""


def _records(data: bytes, start: int = 0) -> Any:
    offset = start
    while offset + 4 <= len(data):
        kind, length = struct.unpack_from("<HH", data, offset)
        yield kind, offset + 4, length
        offset += 4 + length


def _measure_xls(handle: IO[bytes], meter: _Meter) -> None:
    handle.seek(0, 2)
    if handle.tell() > MAX_XLS_BYTES:
        raise SheetTooLarge(f"{meter.name} is {handle.tell() // 2**20:,} MB; Folio reads .xls files of at most "
                            f"{MAX_XLS_BYTES // 2**20} MB. Save it as .xlsx, or split it, then add it again.")
    handle.seek(0)
    data = _CompoundFile(handle).stream("Workbook", "Book")
    sheets: list[tuple[str, int]] = []
    lengths = array("L")
    table: list[bytes] | None = None  # the shared string table's records, while they are being collected
    unique = 0
    for kind, offset, length in _records(data):
        if table is not None and kind != _CONTINUE:
            _sst_lengths(table, unique, lengths, meter)
            table = None
        if kind == _EOF:
            break
        if kind == _FILEPASS:
            raise EncryptedSpreadsheet(f"{meter.name} is password-protected. Folio cannot open protected "
                                       "spreadsheets: save a copy without the password and add that.")
        if kind == _BOUNDSHEET and length >= 8:
            position, _state, sheet_type = struct.unpack_from("<IBB", data, offset)
            if sheet_type == 0:
                sheets.append((_short_string(data, offset + 6, offset + length), position))
        elif kind == _SST and length >= 8:
            unique = struct.unpack_from("<I", data, offset + 4)[0]
            table = [data[offset + 8 : offset + length]]
        elif kind == _CONTINUE and table is not None:
            table.append(data[offset : offset + length])
    for name, position in sheets:
        sheet = meter.sheet(name)
        depth = 0
        for kind, offset, length in _records(data, position):
            if kind == _BOF:
                depth += 1  # a chart drawn on the sheet is a substream of its own inside the sheet's
            elif kind == _EOF:
                depth -= 1
                if depth <= 0:
                    break
            elif kind in (_LABELSST, _LABEL, _NUMBER, _RK, _BOOLERR, _FORMULA) and length >= 6:
                row, col = struct.unpack_from("<HH", data, offset)
                text = 12
                if kind == _LABELSST and length >= 10:
                    index = struct.unpack_from("<I", data, offset + 6)[0]
                    text = lengths[index] if index < len(lengths) else 0
                elif kind == _LABEL and length >= 8:
                    text = struct.unpack_from("<H", data, offset + 6)[0]
                _add_cells(sheet, row, col, 1, text)
                if sheet.cells % 4096 == 0:
                    meter.check(sheet)
            elif kind == _MULRK and length >= 6:
                row, first = struct.unpack_from("<HH", data, offset)
                last = struct.unpack_from("<H", data, offset + length - 2)[0]
                _add_cells(sheet, row, last, max(0, last - first + 1), 12)
                meter.check(sheet)
            elif kind == _STRING and length >= 2:
                sheet.text += struct.unpack_from("<H", data, offset)[0]
        meter.check(sheet)
    meter.check()


def _add_cells(sheet: SheetSize, row: int, last_col: int, count: int, text: int) -> None:
    sheet.cells += count
    sheet.text += text * count
    sheet.rows = max(sheet.rows, row + 1)
    sheet.columns = max(sheet.columns, last_col + 1)


def _short_string(data: bytes, start: int, end: int) -> str:
    """A ShortXLUnicodeString: its length in characters, a flags byte, then 8- or 16-bit characters."""
    if start + 2 > end:
        return ""
    length, flags = data[start], data[start + 1]
    raw = data[start + 2 : min(end, start + 2 + length * (2 if flags & 1 else 1))]
    return raw.decode("utf-16-le" if flags & 1 else "latin-1", errors="replace")


def _sst_lengths(segments: list[bytes], unique: int, lengths: array[int], meter: _Meter) -> None:
    """The length of each string of the shared string table, whose strings run on over CONTINUE records (where a
    string's characters go on in the next record, that record starts with a new flags byte)."""
    segment, position = 0, 0
    size = meter.size

    def raw(count: int) -> bytes:
        nonlocal segment, position
        out = b""
        while count > 0:
            if segment >= len(segments):
                raise _Malformed("the shared string table ends early")
            piece = segments[segment][position : position + count]
            out += piece
            count -= len(piece)
            position += len(piece)
            if position >= len(segments[segment]) and count > 0:
                segment, position = segment + 1, 0
        return out

    for number in range(unique):
        if segment < len(segments) and position >= len(segments[segment]):
            segment, position = segment + 1, 0
        if segment >= len(segments):
            break
        characters, flags = struct.unpack("<HB", raw(3))
        runs = struct.unpack("<H", raw(2))[0] if flags & 0x08 else 0
        extra = struct.unpack("<I", raw(4))[0] if flags & 0x04 else 0
        wide = flags & 0x01
        left = characters
        while left:
            if segment >= len(segments):
                raise _Malformed("the shared string table ends early")
            available = (len(segments[segment]) - position) // (2 if wide else 1)
            take = min(available, left)
            position += take * (2 if wide else 1)
            left -= take
            if left:
                segment, position = segment + 1, 0
                if segment >= len(segments) or not segments[segment]:
                    raise _Malformed("the shared string table ends early")
                wide, position = segments[segment][0] & 0x01, 1
        raw(4 * runs + extra)
        lengths.append(characters)
        size.shared_strings += 1
        size.shared_text += characters
        if number % 4096 == 0:
            meter.check()


# ---------------------------------------------------------------------------------------------- CSV
class Budget:
    """A CSV file's size as it is read, row by row: refuses the file as soon as it passes a limit."""

    def __init__(self, name: str, sheet: str) -> None:
        self.meter = _Meter(name)
        self.size = self.meter.sheet(sheet)

    def add_row(self, fields: list[str]) -> None:
        size = self.size
        size.rows += 1
        size.columns = max(size.columns, len(fields))
        size.cells += sum(1 for f in fields if f)
        size.text += sum(len(f) for f in fields)
        if size.rows % 1024 == 0:
            self.meter.check(size)

    def finish(self) -> None:
        self.meter.check(self.size)
