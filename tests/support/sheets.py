"""Writing real spreadsheet files for tests: xlsx with openpyxl, xls with xlwt, ods by hand (an ODF zip:
mimetype, manifest, content.xml, as LibreOffice writes it), CSV with the csv module, a huge xlsx
streamed straight into its zip (a million rows in seconds, as no writer library would), and xlsx and ods files
from their XML as given (hostile files: prefixed elements, shared-string and repeated-row bombs)."""

from __future__ import annotations

import csv
import zipfile
from collections.abc import Callable, Sequence
from pathlib import Path
from xml.sax.saxutils import escape

Rows = Sequence[Sequence[object]]

BUDGET_TITLE = "Northwind Council: budget by department ($ thousands)"
BUDGET = [
    ["Department", 2023, 2024, "Change"],
    ["Roads", 1200, 1450, "20.8%"],
    ["Parks", 830, 790, "(4.8%)"],
    ["Schools", 2310, 2402, "4.0%"],
    ["Libraries", 415, 436, "5.1%"],
    ["Total", 4755, 5078, "6.8%"],
]
STAFF = [["Team", "Headcount", "Salaries"], ["Roads", 40, 1.5], ["Parks", 12, 0.4]]


def budget_sheets() -> dict[str, list[list[object]]]:
    """Two sheets: the budget under a title line (A1) and a blank row, table from A3; staff from A1."""
    return {"Budget": [[BUDGET_TITLE], [], *[list(r) for r in BUDGET]], "Staff": [list(r) for r in STAFF]}


def write_xlsx(path: Path, sheets: dict[str, Rows]) -> Path:
    import openpyxl

    book = openpyxl.Workbook()
    book.remove(book.active)
    for name, rows in sheets.items():
        sheet = book.create_sheet(name)
        for row in rows:
            sheet.append(list(row))
    book.save(path)
    return path


def write_xls(path: Path, sheets: dict[str, Rows]) -> Path:
    import xlwt

    book = xlwt.Workbook()
    for name, rows in sheets.items():
        sheet = book.add_sheet(name)
        for r, row in enumerate(rows):
            for c, value in enumerate(row):
                sheet.write(r, c, value)
    book.save(str(path))
    return path


ODS_NAMESPACES = ('xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" '
                  'xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" '
                  'xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" office:version="1.2"')


def write_ods(path: Path, sheets: dict[str, Rows]) -> Path:
    tables = []
    for name, rows in sheets.items():
        lines = []
        for row in rows:
            cells = []
            for value in row:
                if isinstance(value, (int, float)) and not isinstance(value, bool):
                    cells.append(f'<table:table-cell office:value-type="float" office:value="{value}">'
                                 f"<text:p>{value}</text:p></table:table-cell>")
                elif value in ("", None):
                    cells.append("<table:table-cell/>")
                else:
                    cells.append(f'<table:table-cell office:value-type="string"><text:p>{escape(str(value))}</text:p>'
                                 "</table:table-cell>")
            lines.append("<table:table-row>" + "".join(cells) + "</table:table-row>")
        tables.append(f'<table:table table:name="{escape(name)}">' + "".join(lines) + "</table:table>")
    return write_raw_ods(path, "".join(tables))


def write_raw_ods(path: Path, tables_xml: str) -> Path:
    """An ods whose spreadsheet body is ``tables_xml`` (``<table:table>`` elements), as given."""
    content = (f'<?xml version="1.0" encoding="UTF-8"?><office:document-content {ODS_NAMESPACES}><office:body>'
               f"<office:spreadsheet>{tables_xml}</office:spreadsheet></office:body></office:document-content>")
    manifest = ('<?xml version="1.0" encoding="UTF-8"?><manifest:manifest '
                'xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0" manifest:version="1.2">'
                '<manifest:file-entry manifest:full-path="/" manifest:media-type="application/vnd.oasis.opendocument.spreadsheet"/>'
                '<manifest:file-entry manifest:full-path="content.xml" manifest:media-type="text/xml"/>'
                "</manifest:manifest>")
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("mimetype", "application/vnd.oasis.opendocument.spreadsheet", compress_type=zipfile.ZIP_STORED)
        archive.writestr("META-INF/manifest.xml", manifest, compress_type=zipfile.ZIP_DEFLATED)
        archive.writestr("content.xml", content, compress_type=zipfile.ZIP_DEFLATED)
    return path


def write_csv(path: Path, rows: Rows, *, delimiter: str = ",", encoding: str = "utf-8") -> Path:
    with path.open("w", encoding=encoding, newline="") as handle:
        csv.writer(handle, delimiter=delimiter).writerows(rows)
    return path


SPREADSHEETML = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"


def write_raw_xlsx(path: Path, sheet_xml: str | bytes, shared_xml: str | bytes | None = None) -> Path:
    """An xlsx of one sheet, "Data", whose worksheet part (and shared strings part) is the XML given, as given."""
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        _xlsx_frame(archive, shared=shared_xml is not None)
        archive.writestr("xl/worksheets/sheet1.xml", sheet_xml)
        if shared_xml is not None:
            archive.writestr("xl/sharedStrings.xml", shared_xml)
    return path


def _xlsx_frame(archive: zipfile.ZipFile, *, shared: bool = False) -> None:
    """The parts around a one-sheet workbook's cells: content types, relationships, the workbook naming "Data"."""
    archive.writestr("[Content_Types].xml",
                     '<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
                     '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
                     '<Default Extension="xml" ContentType="application/xml"/>'
                     '<Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>'
                     '<Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>'
                     "</Types>")
    archive.writestr("_rels/.rels",
                     '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
                     '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="xl/workbook.xml"/>'
                     "</Relationships>")
    archive.writestr("xl/workbook.xml",
                     f'<?xml version="1.0" encoding="UTF-8"?><workbook xmlns="{SPREADSHEETML}" '
                     'xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships">'
                     '<sheets><sheet name="Data" sheetId="1" r:id="rId1"/></sheets></workbook>')
    shared_rel = ('<Relationship Id="rId2" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/'
                  'sharedStrings" Target="sharedStrings.xml"/>') if shared else ""
    archive.writestr("xl/_rels/workbook.xml.rels",
                     '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
                     '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/>'
                     f"{shared_rel}</Relationships>")


def write_long_xlsx(path: Path, rows: int, columns: int = 8, *, prefix: str = "") -> Path:
    """An xlsx of ``rows`` data rows under a header row: region, year and numbers, streamed into the zip; with
    ``prefix`` ("x"), every element is written with that namespace prefix (valid SpreadsheetML all the same)."""
    header = ["Region", "Year"] + [f"Measure {i}" for i in range(1, columns - 1)]

    def letters(col: int) -> str:
        out = ""
        col += 1
        while col:
            col, rest = divmod(col - 1, 26)
            out = chr(65 + rest) + out
        return out

    names = [letters(c) for c in range(columns)]
    regions = ["North", "South", "East", "West", "Central"]
    p = f"{prefix}:" if prefix else ""
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=1) as archive:
        _xlsx_frame(archive)
        with archive.open("xl/worksheets/sheet1.xml", "w") as sheet:
            declared = f'xmlns:{prefix}="{SPREADSHEETML}"' if prefix else f'xmlns="{SPREADSHEETML}"'
            sheet.write(f'<?xml version="1.0" encoding="UTF-8"?><{p}worksheet {declared}><{p}sheetData>'.encode())
            cells = "".join(f'<{p}c r="{names[c]}1" t="inlineStr"><{p}is><{p}t>{escape(h)}</{p}t></{p}is></{p}c>'
                            for c, h in enumerate(header))
            sheet.write(f'<{p}row r="1">{cells}</{p}row>'.encode())
            batch = []
            for r in range(2, rows + 2):
                values = [f'<{p}c r="A{r}" t="inlineStr"><{p}is><{p}t>{regions[r % 5]} {r % 97}</{p}t></{p}is></{p}c>',
                          f'<{p}c r="B{r}"><{p}v>{2000 + r % 25}</{p}v></{p}c>']
                values += [f'<{p}c r="{names[c]}{r}"><{p}v>{(r * (c + 3)) % 10007 / 10}</{p}v></{p}c>'
                           for c in range(2, columns)]
                batch.append(f'<{p}row r="{r}">{"".join(values)}</{p}row>')
                if len(batch) == 2000:
                    sheet.write("".join(batch).encode())
                    batch = []
            sheet.write(("".join(batch) + f"</{p}sheetData></{p}worksheet>").encode())
    return path


def _shared_string_used_everywhere(path: Path) -> Path:
    cells = "".join(f'<row r="{r}"><c r="A{r}" t="s"><v>0</v></c></row>' for r in range(1, 60_001))
    return write_raw_xlsx(path, f'<worksheet xmlns="{SPREADSHEETML}"><sheetData>{cells}</sheetData></worksheet>',
                          f'<sst xmlns="{SPREADSHEETML}"><si><t>{"x" * 20_000}</t></si></sst>')


def _huge_shared_strings(path: Path) -> Path:
    return write_raw_xlsx(path, f'<worksheet xmlns="{SPREADSHEETML}"><sheetData><row r="1"><c r="A1" t="s"><v>0</v>'
                                "</c></row></sheetData></worksheet>",
                          f'<sst xmlns="{SPREADSHEETML}">' + f"<si><t>{'y' * 1_000_000}</t></si>" * 400 + "</sst>")


def _prefixed_corners(path: Path) -> Path:
    """Two cells, A1 and OJ240000: within the row and column limits, but calamine holds the grid between them."""
    return write_raw_xlsx(path, f'<x:worksheet xmlns:x="{SPREADSHEETML}"><x:sheetData><x:row r="1"><x:c r="A1"><x:v>1'
                                '</x:v></x:c></x:row><x:row r="240000"><x:c r="OJ240000"><x:v>2</x:v></x:c></x:row>'
                                "</x:sheetData></x:worksheet>")


def _far_cell(path: Path) -> Path:
    return write_raw_xlsx(path, f'<worksheet xmlns="{SPREADSHEETML}"><sheetData><row r="1"><c r="A1"><v>1</v></c>'
                                f'</row><row r="1048576"><c r="B1048576"><v>2</v></c></row></sheetData></worksheet>')


def _repeated_row(path: Path) -> Path:
    return write_raw_ods(path, '<table:table table:name="Data"><table:table-row table:number-rows-repeated="1000000">'
                               '<table:table-cell office:value-type="float" office:value="1"><text:p>1</text:p>'
                               "</table:table-cell></table:table-row></table:table>")


def _repeated_cell(path: Path) -> Path:
    return write_raw_ods(path, '<table:table table:name="Data"><table:table-row><table:table-cell office:value-type='
                               '"string" table:number-columns-repeated="16384"><text:p>wide</text:p></table:table-cell>'
                               "</table:table-row></table:table>")


# Small files that ask for a great deal once loaded: how each is written, its name, the words of its refusal
# (tests/core/ingest/test_hostile_sheets.py, tests/bench/bench_sheets.py --bombs).
SHEET_BOMBS: dict[str, tuple[Callable[[Path], Path], str, str]] = {
    "prefixed rows": (lambda p: write_long_xlsx(p, 260_000, columns=2, prefix="x"), "prefixed.xlsx",
                      "sheet 'Data' has more than 250,000 rows"),
    "prefixed corners": (_prefixed_corners, "corners.xlsx", "is too large to read"),
    "shared string used everywhere": (_shared_string_used_everywhere, "one string.xlsx", "is too large to read"),
    "huge shared strings": (_huge_shared_strings, "huge strings.xlsx", "is too large to read"),
    "far cell": (_far_cell, "far cell.xlsx", "has more than 250,000 rows"),
    "repeated ods row": (_repeated_row, "repeated row.ods", "has more than 250,000 rows"),
    "repeated ods cell": (_repeated_cell, "wide row.ods", "16,384 columns is more than Folio reads"),
    "xls shared string used everywhere": (lambda p: write_xls(p, {"Data": [["z" * 30_000] for _ in range(40_000)]}),
                                          "one string.xls", "is too large to read"),
}
