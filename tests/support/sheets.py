"""Writing real spreadsheet files for tests: xlsx with openpyxl, xls with xlwt, ods by hand (an ODF zip:
mimetype, manifest, content.xml, as LibreOffice writes it), CSV with the csv module, and a huge xlsx
streamed straight into its zip (a million rows in seconds, as no writer library would)."""

from __future__ import annotations

import csv
import zipfile
from collections.abc import Sequence
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


def write_ods(path: Path, sheets: dict[str, Rows]) -> Path:
    ns = ('xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" '
          'xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" '
          'xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" office:version="1.2"')
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
    content = (f'<?xml version="1.0" encoding="UTF-8"?><office:document-content {ns}><office:body>'
               f"<office:spreadsheet>{''.join(tables)}</office:spreadsheet></office:body></office:document-content>")
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


def write_long_xlsx(path: Path, rows: int, columns: int = 8) -> Path:
    """An xlsx of ``rows`` data rows under a header row: region, year and numbers, streamed into the zip."""
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
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=1) as archive:
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
                         '<?xml version="1.0" encoding="UTF-8"?><workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" '
                         'xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships">'
                         '<sheets><sheet name="Data" sheetId="1" r:id="rId1"/></sheets></workbook>')
        archive.writestr("xl/_rels/workbook.xml.rels",
                         '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
                         '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/>'
                         "</Relationships>")
        with archive.open("xl/worksheets/sheet1.xml", "w") as sheet:
            sheet.write(b'<?xml version="1.0" encoding="UTF-8"?><worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>')
            cells = "".join(f'<c r="{names[c]}1" t="inlineStr"><is><t>{escape(h)}</t></is></c>' for c, h in enumerate(header))
            sheet.write(f'<row r="1">{cells}</row>'.encode())
            batch = []
            for r in range(2, rows + 2):
                values = [f'<c r="A{r}" t="inlineStr"><is><t>{regions[r % 5]} {r % 97}</t></is></c>',
                          f'<c r="B{r}"><v>{2000 + r % 25}</v></c>']
                values += [f'<c r="{names[c]}{r}"><v>{(r * (c + 3)) % 10007 / 10}</v></c>' for c in range(2, columns)]
                batch.append(f'<row r="{r}">{"".join(values)}</row>')
                if len(batch) == 2000:
                    sheet.write("".join(batch).encode())
                    batch = []
            sheet.write(("".join(batch) + "</sheetData></worksheet>").encode())
    return path
