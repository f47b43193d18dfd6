"""Tables to take away: a stored table read as typed columns and rows (``read_table``), and written as CSV or as
an Excel workbook (one table, or every table of a document with a contents sheet linking to each sheet and back
to its page) by ``export_tables``, a job that reports progress and stops when cancelled.

Numbers go out as numbers, exactly as the SQL table holds them: as printed in the table's stated scale, negative
where the report bracketed them, never as text. The scale and currency they are stated in are named in each
column's header ("2019 ($ millions)"), since a figure without them misleads. Files are written beside their
destination under a temporary name and moved into place at the end, so a cancelled or failed export leaves
nothing half written.
"""

from __future__ import annotations

import csv
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from core.errors import Cancelled, UserError
from core.jobs import JobContext
from core.library.db import quote_identifier
from core.library.store import Library, TableInfo
from core.reports.values import STATED_SCALES
from models.types import ColumnSchema, Document, ProgressEvent

FORMATS = ("csv", "xlsx")
SCALE_WORDS = {"thousand": "thousands", "million": "millions", "billion": "billions", "crore": "crore",
               "lakh": "lakh"}
"""A stated scale as a header names it: "($ millions)"."""
SHEET_NAME_LIMIT = 31
"""Excel refuses longer sheet names."""
_SHEET_FORBIDDEN = re.compile(r"[\[\]:*?/\\']")
NUMERIC_TYPES = ("INTEGER", "REAL", "NUMERIC")


class ExportError(UserError):
    """A table or document that cannot be exported as asked (not found, an unknown format, an unwritable place)."""


@dataclass(frozen=True)
class ExportColumn:
    """One column of a table as it goes out: its SQL name, its header as printed, its type, the unit its figures
    are stated in ("$ millions", "%", ""), and the period it holds ("FY2019", "")."""

    name: str
    header: str
    type: str
    unit: str = ""
    period: str = ""

    @property
    def numeric(self) -> bool:
        return self.type.upper() in NUMERIC_TYPES

    @property
    def title(self) -> str:
        """The header a spreadsheet shows: "2019 ($ millions)"."""
        return f"{self.header} ({self.unit})" if self.unit else self.header


@dataclass(frozen=True)
class TableExport:
    """A stored table as typed rows (the SQL table's values, ``_row`` left out), with what names it."""

    info: TableInfo
    columns: tuple[ExportColumn, ...]
    rows: tuple[tuple[Any, ...], ...]
    row_numbers: tuple[int, ...]
    """Each row's ``_row``: its row in the table as found, the key of its cells on the page."""
    kind: str = "pdf"
    """The document's kind: "pdf", or "sheet" (its pages are sheets)."""
    place: str = ""
    """Where the table is, as a person reads it: "p. 52", "pp. 52-53", "sheet Budget"."""
    document_path: str = ""
    """The document's file, for a link to the table's page."""

    @property
    def title(self) -> str:
        return " ".join((self.info.caption or self.info.heading or self.info.name).split())

    @property
    def unit(self) -> str:
        """The unit most of its figure columns are stated in ("$ millions"), or ""."""
        units = [c.unit for c in self.columns if c.numeric and c.unit and c.unit != "%"]
        return max(set(units), key=units.count) if units else ""

    @property
    def periods(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(c.period for c in self.columns if c.period))

    def decimals(self, position: int) -> int:
        """How many decimals the figures of the column at ``position`` print with (at most 4)."""
        return _decimals([row[position] for row in self.rows])


def _scale_words(unit: str) -> tuple[str, str]:
    """(currency, scale) of a recorded unit ("$ million" -> ("$", "million"); "percent" -> ("", "percent"))."""
    parts = unit.split()
    scale = next((p for p in parts if p in STATED_SCALES or p == "percent"), "")
    currency = " ".join(p for p in parts if p != scale)
    return currency, scale


def column_unit(info: TableInfo, column: ColumnSchema) -> str:
    """The unit a column's figures are stated in, as a header names it: the column's own unit, else the table's
    (its unit, its stated scale and currency); "%" for percents, "" for text."""
    if column.type.upper() not in NUMERIC_TYPES:
        return ""
    currency, scale = _scale_words(column.unit)
    if scale == "percent":
        return "%"
    table_currency, table_scale = _scale_words(info.unit)
    if table_scale == "percent":
        table_scale = ""
    currency = currency or table_currency or info.currency
    scale = scale or table_scale or info.stated_scale
    return " ".join(filter(None, [currency, SCALE_WORDS.get(scale, scale)]))


def _place(info: TableInfo, document: Document | None, library: Library) -> str:
    if document is not None and document.kind == "sheet":
        return f"sheet {library.page_label(info.document_id, info.page)}"
    return f"p. {info.page}" if info.last_page == info.page else f"pp. {info.page}-{info.last_page}"


def read_table(library: Library, table: TableInfo | int | str, *, limit: int | None = None) -> TableExport:
    """A stored table's typed columns and rows (the first ``limit`` rows when given), ready to show or write."""
    info = table if isinstance(table, TableInfo) else library.table(table)
    if info is None:
        raise ExportError(f"There is no table {table!r} in the library (`folio library` lists them).")
    periods = {p.column: p.period.label for p in info.periods}
    shown = [c for c in info.schema.columns if not c.name.startswith("_")]
    columns = tuple(ExportColumn(c.name, " ".join((c.header or c.name).split()), c.type, column_unit(info, c),
                                 periods.get(c.name, "")) for c in shown)
    selected = ", ".join(["_row", *(quote_identifier(c.name) for c in shown)])
    sql = f"SELECT {selected} FROM {quote_identifier(info.name)} ORDER BY _row"
    data = library.conn.execute(sql + (f" LIMIT {int(limit)}" if limit is not None else "")).fetchall()
    document = library.document(info.document_id)
    return TableExport(info, columns, tuple(tuple(r[1:]) for r in data), tuple(int(r[0]) for r in data),
                       document.kind if document is not None else "pdf", _place(info, document, library),
                       document.path if document is not None else "")


# --------------------------------------------------------------------------------------------------
# Finding what to export by the names people use
# --------------------------------------------------------------------------------------------------


def document_named(library: Library, name: str) -> Document:
    """The document ``name`` means: its id, its file name (with or without the extension), or the only one whose
    file name or title holds it."""
    documents = library.documents()
    wanted = name.strip().lower()
    exact = [d for d in documents if str(d.id) == wanted or d.file_name.lower() == wanted
             or Path(d.file_name).stem.lower() == wanted]
    found = exact or [d for d in documents if wanted in d.file_name.lower() or wanted in d.title.lower()]
    if len(found) == 1:
        return found[0]
    if not found:
        raise ExportError(f"No document in the library is called {name!r} (`folio library` lists them).")
    names = ", ".join(d.file_name for d in found[:6])
    raise ExportError(f"{len(found)} documents match {name!r} ({names}); give the file name or the id.")


def tables_to_export(library: Library, document: str | None = None, table: str | None = None) -> list[TableInfo]:
    """The tables a person named: one table (by its SQL name or id, within ``document`` when both are given), or
    every table of a document (export them with ``contents=True``)."""
    chosen = document_named(library, document) if document else None
    if table:
        info = library.table(int(table)) if table.isdigit() else library.table(table)
        if info is None or (chosen is not None and info.document_id != chosen.id):
            where = f" in {chosen.file_name}" if chosen is not None else ""
            raise ExportError(f"There is no table {table!r}{where} (`folio library` lists them).")
        return [info]
    if chosen is None:
        raise ExportError("Name a table (--table) or a document (--document) to export.")
    tables = library.tables(chosen.id)
    if not tables:
        raise ExportError(f"{chosen.file_name} has no tables to export.")
    return tables


# --------------------------------------------------------------------------------------------------
# Writing
# --------------------------------------------------------------------------------------------------


def export_format(out: Path, chosen: str | None = None) -> str:
    """The format asked for, else the one the file name ends in."""
    fmt = (chosen or out.suffix.lstrip(".")).lower()
    if fmt not in FORMATS:
        raise ExportError(f"Choose the format: csv or xlsx (not {fmt or 'none'}).")
    return fmt


def export_tables(library: Library, tables: Sequence[TableInfo], fmt: str, out: Path,
                  ctx: JobContext | None = None, *, contents: bool | None = None) -> list[Path]:
    """Write ``tables`` to ``out``; return the files written.

    ``xlsx``: one workbook, a sheet per table, and a contents sheet first when ``contents`` (by default, when
    there are several tables; a document's workbook always has one). ``csv``: one
    table to the file ``out``; several to the folder ``out``, a file per table named after its SQL table. A cancel
    between tables stops the job and leaves no file of this export behind."""
    ctx = ctx or JobContext()
    fmt = export_format(Path(out), fmt)
    out = Path(out)
    if fmt == "xlsx" and out.suffix.lower() != ".xlsx":
        out = out.with_name(out.name + ".xlsx")
    if fmt == "csv" and len(tables) == 1 and out.suffix.lower() != ".csv" and not out.is_dir():
        out = out.with_name(out.name + ".csv")
    written: list[Path] = []
    temporary: list[Path] = []
    try:
        exports = []
        for number, info in enumerate(tables):
            ctx.check()
            ctx.report(ProgressEvent("export", f"Reading {info.caption or info.name}", number, len(tables),
                                     info.document))
            exports.append(read_table(library, info))
        if fmt == "xlsx":
            temporary.append(_temporary(out))
            write_workbook(exports, temporary[-1], ctx, contents=len(exports) > 1 if contents is None else contents)
            targets = [out]
        else:
            folder = out if len(exports) > 1 or out.is_dir() else None
            if folder is not None:
                folder.mkdir(parents=True, exist_ok=True)
            targets = [folder / f"{e.info.name}.csv" if folder is not None else out for e in exports]
            for number, (export, target) in enumerate(zip(exports, targets, strict=True)):
                ctx.check()
                ctx.report(ProgressEvent("export", f"Writing {export.title}", number, len(exports),
                                         export.info.document))
                temporary.append(_temporary(target))
                write_csv(export, temporary[-1])
        ctx.check()
        for source, target in zip(temporary, targets, strict=True):
            os.replace(source, target)
            written.append(target)
        ctx.report(ProgressEvent("done", f"Exported {len(tables)} table(s)", len(tables), len(tables)))
        return written
    except (Cancelled, ExportError):
        raise
    except OSError as exc:
        if exc.errno == 28:  # a full disk is said by app.messages
            raise
        raise ExportError(f"Cannot write {out}: {exc.strerror or exc}.") from exc
    finally:
        for path in temporary:
            path.unlink(missing_ok=True)


def _temporary(target: Path) -> Path:
    target.parent.mkdir(parents=True, exist_ok=True)
    return target.with_name(f".{target.name}.{os.getpid()}.part")


def write_csv(export: TableExport, path: Path) -> None:
    """One table as CSV (UTF-8 with a byte-order mark, which spreadsheet programs need to read it as UTF-8): the
    column titles, then the rows, numbers written as numbers ("-1234.5"), no value as an empty field."""
    with Path(path).open("w", encoding="utf-8-sig", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow([c.title for c in export.columns])
        writer.writerows(["" if v is None else v for v in row] for row in export.rows)


def _decimals(values: Sequence[Any]) -> int:
    """How many decimals a column's figures print with (at most 4)."""
    most = 0
    for value in values:
        if isinstance(value, float) and not value.is_integer():
            text = repr(value)
            if "e" not in text:
                most = max(most, len(text.split(".")[1]))
    return min(most, 4)


def number_format(values: Sequence[Any]) -> str:
    """A spreadsheet number format showing a column's figures as printed: thousands separators, its decimals."""
    decimals = _decimals(values)
    return "#,##0" + ("." + "0" * decimals if decimals else "")


def sheet_names(exports: Sequence[TableExport]) -> list[str]:
    """A sheet name per table, as Excel allows them (31 characters, no []:*?/\\'), unique: "p52 Balance sheets"."""
    names: list[str] = []
    for export in exports:
        where = export.place.replace("pp. ", "p").replace("p. ", "p").split("-")[0]
        base = _SHEET_FORBIDDEN.sub(" ", f"{where} {export.title}")
        base = " ".join(base.split())[:SHEET_NAME_LIMIT].strip() or export.info.name[:SHEET_NAME_LIMIT]
        name, number = base, 2
        while name.lower() in (n.lower() for n in names):
            suffix = f" ({number})"
            name, number = base[:SHEET_NAME_LIMIT - len(suffix)].rstrip() + suffix, number + 1
        names.append(name)
    return names


def write_workbook(exports: Sequence[TableExport], path: Path, ctx: JobContext | None = None, *,
                   contents: bool = True) -> None:
    """Tables as one Excel workbook: a sheet per table (titles in bold, frozen under the header row, figures as
    numbers in the format they print with) and, with ``contents``, a first sheet listing every table with a link
    to its sheet and to its page in the document."""
    from openpyxl import Workbook
    from openpyxl.styles import Font
    from openpyxl.utils import get_column_letter

    ctx = ctx or JobContext()
    workbook = Workbook()
    first = workbook.active
    assert first is not None
    names = sheet_names(exports)
    bold, link = Font(bold=True), Font(color="0563C1", underline="single")
    if contents:
        index = first
        index.title = "Contents"
        _write_contents(index, exports, names, bold, link)
    else:
        workbook.remove(first)
    for number, (export, name) in enumerate(zip(exports, names, strict=True)):
        ctx.check()
        ctx.report(ProgressEvent("export", f"Writing {export.title}", number, len(exports), export.info.document))
        sheet = workbook.create_sheet(name)
        sheet.append([c.title for c in export.columns])
        for cell in sheet[1]:
            cell.font = bold
        for row in export.rows:
            sheet.append(list(row))
        for position, column in enumerate(export.columns, start=1):
            letter = get_column_letter(position)
            values = [row[position - 1] for row in export.rows]
            if column.numeric:
                fmt = number_format(values)
                for cell in sheet[letter][1:]:
                    cell.number_format = fmt
            longest = max([len(column.title), *(len(str(v)) for v in values[:200] if v is not None)])
            sheet.column_dimensions[letter].width = min(60, max(8, longest + 2))
        sheet.freeze_panes = "A2"
    workbook.properties.title = exports[0].info.document if exports else ""
    workbook.properties.creator = "Folio"
    workbook.save(path)


CONTENTS_HEADERS = ("Sheet", "Table", "Document", "Page", "Rows", "Unit", "Periods", "SQL table")


def _write_contents(sheet: Any, exports: Sequence[TableExport], names: Sequence[str], bold: Any, link: Any) -> None:
    from openpyxl.styles import Font
    from openpyxl.worksheet.hyperlink import Hyperlink

    documents = list(dict.fromkeys(e.info.document for e in exports))
    sheet.append([f"Tables of {', '.join(documents)}"])
    sheet["A1"].font = Font(bold=True, size=14)
    sheet.append([])
    sheet.append(list(CONTENTS_HEADERS))
    for cell in sheet[3]:
        cell.font = bold
    for export, name in zip(exports, names, strict=True):
        info = export.info
        sheet.append([name, export.title, info.document, export.place, len(export.rows), export.unit,
                      ", ".join(export.periods), info.name])
        row = sheet.max_row
        sheet.cell(row, 1).hyperlink = Hyperlink(ref=f"A{row}", location=f"'{name}'!A1", display=name)
        sheet.cell(row, 1).font = link
        if export.kind == "pdf" and export.document_path:
            sheet.cell(row, 4).hyperlink = f"{Path(export.document_path).resolve().as_uri()}#page={info.page}"
            sheet.cell(row, 4).font = link
    for letter, width in zip("ABCDEFGH", (28, 48, 28, 10, 7, 14, 18, 40), strict=True):
        sheet.column_dimensions[letter].width = width
    sheet.freeze_panes = "A4"

