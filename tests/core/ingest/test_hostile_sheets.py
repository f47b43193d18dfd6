"""Spreadsheets and CSV files a hostile or unlucky user gives (issue 23), written in the tests: sheets whose size
hides from a naive count (rows with a namespace prefix, one shared string used by every cell, a row repeated a
million times, a cell far out), refused from a streaming read before anything is loaded and in bounded memory;
and CSV text in mixed or broken encodings, decoded line by line as what each line is, never half-decoded in
silence, with NUL bytes kept out of every value."""

from __future__ import annotations

import codecs
from pathlib import Path

import pytest

from core.ingest.ingestor import Ingestor
from core.ingest.sheet_limits import measure
from core.library.store import Library
from tests.conftest import HashEmbedder
from tests.support.sheets import (
    SHEET_BOMBS,
    SPREADSHEETML,
    write_long_xlsx,
    write_raw_ods,
    write_raw_xlsx,
    write_xls,
)

pytestmark = pytest.mark.unit


def _peak_kib() -> int:
    with open("/proc/self/status") as status:
        return next(int(line.split()[1]) for line in status if line.startswith("VmHWM"))


@pytest.mark.parametrize("case", list(SHEET_BOMBS))
def test_a_sheet_too_large_to_read_is_refused_before_it_is_loaded(case: str, tmp_path: Path, library: Library,
                                                                   hash_embedder: HashEmbedder) -> None:
    write, name, words = SHEET_BOMBS[case]
    path = write(tmp_path / name)
    with open("/proc/self/clear_refs", "w") as clear:  # restart the peak-memory count of this process
        clear.write("5")
    start = _peak_kib()
    (result,) = Ingestor(library, hash_embedder).ingest_paths([path])
    grown_mib = (_peak_kib() - start) / 1024
    assert result.status == "failed" and words in result.message, result.message
    assert path.name in result.message and "\n" not in result.message
    assert grown_mib < 80, f"refusing {path.name} took {grown_mib:.0f} MiB"
    assert library.counts()["documents"] == 0


def test_the_measure_counts_a_prefixed_sheet_as_calamine_reads_it(tmp_path: Path) -> None:
    plain = measure(write_long_xlsx(tmp_path / "plain.xlsx", 300, columns=4), "plain.xlsx").sheets[0]
    prefixed = measure(write_long_xlsx(tmp_path / "prefixed.xlsx", 300, columns=4, prefix="x"), "p.xlsx").sheets[0]
    assert (plain.rows, plain.columns, plain.cells) == (prefixed.rows, prefixed.columns, prefixed.cells) == (301, 4, 1204)


def test_a_sheet_just_under_the_limits_is_read(tmp_path: Path, library: Library, hash_embedder: HashEmbedder) -> None:
    xls = write_xls(tmp_path / "notes.xls", {"Data": [["Region", "Note", "Amount"]] + [[f"R{i}", "n" * 200, i]
                                                                                    for i in range(3000)]})
    wide = write_raw_ods(
        tmp_path / "wide.ods", '<table:table table:name="Data"><table:table-row><table:table-cell office:value-type='
        '"string"><text:p>Region</text:p></table:table-cell><table:table-cell office:value-type="string" '
        'table:number-columns-repeated="3"><text:p>Amount</text:p></table:table-cell></table:table-row>'
        '<table:table-row table:number-rows-repeated="2000"><table:table-cell office:value-type="string"><text:p>North'
        '</text:p></table:table-cell><table:table-cell office:value-type="float" office:value="7" '
        'table:number-columns-repeated="3"><text:p>7</text:p></table:table-cell></table:table-row>'
        '<table:table-row table:number-rows-repeated="1048000"><table:table-cell table:number-columns-repeated="1024"/>'
        "</table:table-row></table:table>")  # LibreOffice pads a sheet with empty rows: they cost nothing
    results = Ingestor(library, hash_embedder).ingest_paths([xls, wide])
    assert [r.status for r in results] == ["added", "added"], [r.message for r in results]
    assert sorted(t.row_count for t in library.tables()) == [2000, 3000]


def _csv_document(library: Library, hash_embedder: HashEmbedder, path: Path) -> tuple[list[tuple], str]:
    (result,) = Ingestor(library, hash_embedder).ingest_paths([path])
    assert result.status == "added", result.message
    (table,) = library.tables(result.document_id)
    rows = library.conn.execute(f'SELECT * FROM "{table.name}" ORDER BY _row').fetchall()
    (document,) = [d for d in library.documents() if d.id == result.document_id]
    return rows, document.note


def test_a_utf8_file_with_a_windows_1252_line_far_down_reads_both(tmp_path: Path, library: Library,
                                                                  hash_embedder: HashEmbedder) -> None:
    lines = ["City,Year,Visitors"] + [f"Zürich {i},2019,{1000 + i}" for i in range(3000)]  # > 64 KB of UTF-8
    path = tmp_path / "cities.csv"
    path.write_bytes(("\n".join(lines) + "\n").encode("utf-8") + "München,2019,5000\n".encode("cp1252"))
    rows, note = _csv_document(library, hash_embedder, path)
    assert rows[0][1:] == ("Zürich 0", 2019, 1000) and rows[-1][1:] == ("München", 2019, 5000)
    assert note == "line 3002 of cities.csv is not UTF-8 like the rest of the file and was read as Windows-1252"


def test_a_windows_1252_line_before_utf8_lines_does_not_turn_them_to_mojibake(tmp_path: Path, library: Library,
                                                                               hash_embedder: HashEmbedder) -> None:
    path = tmp_path / "cities.csv"
    path.write_bytes("City,Visitors\nMünchen,5000\n".encode("cp1252") + "Zürich,7000\nKraków,300\n".encode())
    rows, note = _csv_document(library, hash_embedder, path)
    assert [r[1:] for r in rows] == [("München", 5000), ("Zürich", 7000), ("Kraków", 300)]
    assert note == "line 2 of cities.csv is not UTF-8 like the rest of the file and was read as Windows-1252"


def test_a_windows_1252_file_is_read_as_one_without_a_note_and_bytes_it_lacks_are_named(
        tmp_path: Path, library: Library, hash_embedder: HashEmbedder) -> None:
    legacy = tmp_path / "legacy.csv"
    legacy.write_bytes("City,Visitors\nMünchen,5000\nSão Paulo,9000\n".encode("cp1252"))
    rows, note = _csv_document(library, hash_embedder, legacy)
    assert [r[1:] for r in rows] == [("München", 5000), ("São Paulo", 9000)] and note == ""
    broken = tmp_path / "broken.csv"  # 0x81 is no character in Windows-1252
    broken.write_bytes("City,Visitors\nMünchen,5000\n".encode("cp1252") + b"Odd\x81name,12\n")
    rows, note = _csv_document(library, hash_embedder, broken)
    assert [r[1:] for r in rows] == [("München", 5000), ("Odd\ufffdname", 12)]
    assert note == ("line 3 of broken.csv holds bytes that are no character in Windows-1252; they were replaced "
                    "by \ufffd")


def test_nul_bytes_never_reach_a_value(tmp_path: Path, library: Library, hash_embedder: HashEmbedder) -> None:
    lines = ["Region,Year,Amount"] + [f"North {i},2019,{i}" for i in range(4000)]  # > 64 KB before the NULs
    path = tmp_path / "amounts.csv"
    path.write_bytes(("\n".join(lines) + "\n").encode() + b"South,20\x0019,77\n")
    rows, note = _csv_document(library, hash_embedder, path)
    assert rows[-1][1:] == ("South", 2019, 77)
    assert note == "NUL bytes were removed from line 4002 of amounts.csv"
    assert library.conn.execute("SELECT COUNT(*) FROM table_cells WHERE instr(text, char(0)) > 0").fetchone()[0] == 0


def test_utf16_with_and_without_a_byte_order_mark(tmp_path: Path, library: Library,
                                                  hash_embedder: HashEmbedder) -> None:
    text = "City\tVisitors\nMünchen\t5000\nZürich\t7000\n"
    marked = tmp_path / "marked.tsv"
    marked.write_bytes(codecs.BOM_UTF16_LE + text.encode("utf-16-le"))
    unmarked = tmp_path / "unmarked.tsv"
    unmarked.write_bytes(text.encode("utf-16-le"))
    for path in (marked, unmarked):
        rows, note = _csv_document(library, hash_embedder, path)
        assert [r[1:] for r in rows] == [("München", 5000), ("Zürich", 7000)] and note == "", path.name


@pytest.mark.parametrize("written", ["&#49;&#50;", "<![CDATA[12]]>"])
def test_numbers_the_reader_would_drop_are_refused_not_stored_empty(written: str, tmp_path: Path, library: Library,
                                                                    hash_embedder: HashEmbedder) -> None:
    """Valid XML that calamine reads as an empty cell: a number written as character references or in CDATA."""
    rows = "".join(f'<row r="{r}"><c r="A{r}" t="inlineStr"><is><t>Region {r}</t></is></c><c r="B{r}"><v>'
                   f"{written if r == 3 else r * 10}</v></c></row>" for r in range(1, 6))
    path = write_raw_xlsx(tmp_path / "written oddly.xlsx",
                          f'<worksheet xmlns="{SPREADSHEETML}"><sheetData>{rows}</sheetData></worksheet>')
    (result,) = Ingestor(library, hash_embedder).ingest_paths([path])
    assert result.status == "failed", result.message
    assert result.message == ("written oddly.xlsx, sheet 'Data': values are written in a form Folio's spreadsheet "
                              "reader would read as empty (as character references or CDATA, in B3). Open the file "
                              "in Excel or LibreOffice and save it, then add it again.")
