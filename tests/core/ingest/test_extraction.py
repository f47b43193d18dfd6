"""Table extraction on PDFs drawn by the tests themselves (pymupdf lines and text), run for real."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pymupdf
import pytest

from core.ingest.extraction import TableExtractor, extract_tables
from core.ingest.extraction.camelot_tables import find_camelot_grids
from core.ingest.extraction.cleanup import trim_edges
from core.ingest.extraction.grid import TableGrid, read_grid
from core.ingest.extraction.headers import settle_headers
from core.ingest.extraction.merge import select
from core.ingest.extraction.page_text import read_words
from core.ingest.extraction.page_view import open_view
from core.ingest.extraction.pymupdf_tables import find_pymupdf_grids
from core.ingest.extraction.refine import extend_upwards, phrases_at_columns, word_space
from models.types import ExtractedTable

pytestmark = pytest.mark.unit

FONT_SIZE = 9


def _draw_ruled(page: pymupdf.Page, rows: Sequence[Sequence[str]], x: Sequence[float], top: float,
                row_height: float = 18) -> float:
    """Draw ``rows`` as a fully ruled table with column boundaries ``x``; return its bottom."""
    bottom = top + row_height * len(rows)
    for r in range(len(rows) + 1):
        page.draw_line((x[0], top + r * row_height), (x[-1], top + r * row_height), width=0.6)
    for xc in x:
        page.draw_line((xc, top), (xc, bottom), width=0.6)
    for r, row in enumerate(rows):
        for c, text in enumerate(row):
            if text:
                page.insert_text((x[c] + 4, top + r * row_height + 13), text, fontsize=FONT_SIZE)
    return bottom


def _draw_borderless(page: pymupdf.Page, rows: Sequence[Sequence[str]], x: Sequence[float], top: float,
                     row_height: float = 15) -> float:
    """Draw ``rows`` without lines: first column left-aligned at x[0], the others right-aligned at x[c]."""
    font = pymupdf.Font("helv")
    for r, row in enumerate(rows):
        baseline = top + r * row_height + 11
        for c, text in enumerate(row):
            if not text:
                continue
            if c == 0:
                page.insert_text((x[0], baseline), text, fontsize=FONT_SIZE)
            else:
                width = font.text_length(text, fontsize=FONT_SIZE)
                page.insert_text((x[c] - width, baseline), text, fontsize=FONT_SIZE)
    return top + row_height * len(rows)


def _prose(page: pymupdf.Page, top: float, lines: int = 6) -> float:
    sentence = "The committee reviewed the annual figures and noted that spending rose in most regions"
    for i in range(lines):
        page.insert_text((72, top + i * 14), sentence, fontsize=10)
    return top + lines * 14


def _save(doc: pymupdf.Document, path: Path) -> Path:
    doc.save(path)
    doc.close()
    return path


def _tables(path: Path, page: int = 1, password: str | None = None) -> list[ExtractedTable]:
    doc = pymupdf.open(path)
    if doc.needs_pass:
        doc.authenticate(password or "")
    try:
        with TableExtractor(path, doc, password) as extractor:
            return extractor.page_tables(page)
    finally:
        doc.close()


def _norm(text: str) -> str:
    return "".join(text.split())


BUDGET_ROWS = [
    ["Segment", "2012", "2013", "Change"],
    ["Retail", "1,200", "1,450", "20.8%"],
    ["Wholesale", "3,456,789", "(1,234)", "-12.5%"],
    ["Services", "980", "1,010", "3.1%"],
    ["Total", "3,458,969", "1,226", "12.5%"],
]


def test_ruled_table_keeps_thousands_separators_negatives_and_percentages(tmp_path: Path) -> None:
    doc = pymupdf.open()
    page = doc.new_page()
    _draw_ruled(page, BUDGET_ROWS, [72, 200, 290, 380, 470], 100)
    tables = _tables(_save(doc, tmp_path / "ruled.pdf"))
    assert len(tables) == 1
    table = tables[0]
    assert table.extractor.startswith("camelot-lattice")
    assert [list(r) for r in table.rows] == BUDGET_ROWS
    assert table.header_rows == 1
    assert table.pages == (1,) and table.page == 1


def test_pymupdf_grid_is_read_from_the_words_not_from_pymupdf_cell_text(tmp_path: Path) -> None:
    # pymupdf 2.0's own text for these cells is '1200\n,', '(1234)\n,', '125%\n.': only its grid is used.
    doc = pymupdf.open()
    page = doc.new_page()
    _draw_ruled(page, BUDGET_ROWS, [72, 200, 290, 380, 470], 100)
    path = _save(doc, tmp_path / "pymupdf.pdf")
    doc = pymupdf.open(path)
    (grid,) = find_pymupdf_grids(doc[0])
    draft = read_grid(grid, read_words(doc[0]))
    assert draft is not None and draft.texts == BUDGET_ROWS
    doc.close()


def test_borderless_table_is_found_by_column_alignment(tmp_path: Path) -> None:
    doc = pymupdf.open()
    page = doc.new_page()
    bottom = _prose(page, 80, 4)
    rows = [["Region", "Units", "Revenue", "Margin"]] + [
        [name, f"{units:,}", f"{units * 3:,}", f"{pct}%"]
        for name, units, pct in [("North", 1200, 11.5), ("South", 980, 9.2), ("East", 15300, 14.0), ("West", 770, 7.7)]
    ]
    _draw_borderless(page, rows, [72, 260, 360, 450], bottom + 30)
    _prose(page, bottom + 140, 4)
    tables = _tables(_save(doc, tmp_path / "borderless.pdf"))
    assert len(tables) == 1
    table = tables[0]
    assert table.extractor.startswith("camelot-stream")
    assert [list(r) for r in table.rows] == rows
    assert table.header_rows == 1


def test_a_running_head_in_pieces_above_a_table_is_no_header_of_it(tmp_path: Path) -> None:
    doc = pymupdf.open()
    # the paper's running title at the left of every page's top margin, its status at the right; on the second page,
    # a table at the top of the page's text
    for _ in range(2):
        page = doc.new_page()
        page.insert_text((150, 44), "Harbour Logistics: Methods, Datasets, and Results", fontsize=9)
        page.insert_text((470, 44), "A DRAFT", fontsize=9)
    _prose(doc[0], 80, 20)
    rows = [["Port", "Ships", "Crews", "Cranes", "Berths", "Tugs", "Depth", "Load"]] + [
        [name, str(ships), str(ships * 12), str(cranes), str(cranes * 2), str(cranes + 1), f"{depth:.2f}", f"{load:.2f}"]
        for name, ships, cranes, depth, load in [("Alder", 120, 4, 9.5, 0.81), ("Birch", 98, 3, 8.25, 0.64),
                                                 ("Cedar", 1530, 14, 14.75, 0.93), ("Dunmore", 77, 2, 6.5, 0.42),
                                                 ("Elmstead", 210, 5, 10.25, 0.77), ("Fernhill", 64, 1, 5.75, 0.38)]]
    bottom = _draw_borderless(page, rows, [72, 180, 240, 300, 360, 420, 480, 540], 74)
    _prose(page, bottom + 40, 6)
    tables = _tables(_save(doc, tmp_path / "running_head.pdf"), page=2)
    assert len(tables) == 1
    assert [list(r) for r in tables[0].rows] == rows and tables[0].header_rows == 1, tables[0].rows[:2]


def test_a_running_head_on_the_first_line_under_a_wide_top_margin_is_no_row_of_the_table(tmp_path: Path) -> None:
    # a book's running head (the author's name, centred) set lower than the top margin band, on every page; on the
    # second page a borderless table starts right under it
    doc = pymupdf.open()
    for _ in range(3):
        page = doc.new_page()
        page.insert_text((250, 86), "Mirela Oakhurst Vance", fontsize=10)
    _prose(doc[0], 110, 20)
    _prose(doc[2], 110, 20)
    page = doc[1]
    rows = [["Soil", "Plots", "Wet", "Dry", "Mixed"],
            ["clay", "12", "4", "6", "2"],
            ["loam", "9", "5", "1", "3"],
            ["sand", "7", "0", "5", "2"],
            ["peat", "4", "3", "0", "1"]]
    bottom = _draw_borderless(page, rows, [180, 260, 320, 380, 440], 112)
    _prose(page, bottom + 40, 8)
    tables = _tables(_save(doc, tmp_path / "book_head.pdf"), page=2)
    assert len(tables) == 1
    assert [list(r) for r in tables[0].rows] == rows, tables[0].rows[:2]


def test_a_row_of_number_bands_over_figures_heads_the_columns(tmp_path: Path) -> None:
    # age bands printed with a TeX font's control-character dash, over counts: the bands name the columns
    doc = pymupdf.open()
    page = doc.new_page()
    bottom = _prose(page, 80, 3)
    printed = [["Region", "20\x1529", "30\x1539", "40\x1549", "50+"],
               ["North", "412", "388", "301", "97"],
               ["South", "275", "260", "244", "88"],
               ["East", "190", "205", "170", "64"]]
    _draw_borderless(page, printed, [72, 250, 320, 390, 460], bottom + 30)
    _prose(page, bottom + 120, 3)
    (table,) = _tables(_save(doc, tmp_path / "bands.pdf"))
    rows = [list(r) for r in table.rows]
    assert rows[0] == ["Region", "20\u201329", "30\u201339", "40\u201349", "50+"]
    assert table.header_rows == 1 and rows[1] == printed[1]


def test_figures_printed_with_a_space_after_their_decimal_point_are_one_figure(tmp_path: Path) -> None:
    # Some publishers set bold figures with a zero-width point and a space after it: "3,512. 4".
    doc = pymupdf.open()
    page = doc.new_page()
    bottom = _prose(page, 80, 3)
    printed = [["Depot", "Trucks", "Vans", "Bikes"],
               ["All depots", "3,512. 4", "807. 9", "64. 25"],
               ["Harbour", "1,902.1", "455.0", "30.75"],
               ["Airport", "1,610.3", "352.9", "33.50"]]
    _draw_borderless(page, printed, [72, 260, 360, 450], bottom + 30)
    _prose(page, bottom + 120, 3)
    (table,) = _tables(_save(doc, tmp_path / "split_decimals.pdf"))
    assert [list(r) for r in table.rows][1] == ["All depots", "3,512.4", "807.9", "64.25"]
    assert [list(r) for r in table.rows][2] == printed[2]


def test_two_row_header_with_spanning_cell_is_filled_across_its_columns(tmp_path: Path) -> None:
    doc = pymupdf.open()
    page = doc.new_page()
    x = [72, 220, 320, 420]
    top = 100
    # The spanning header: one merged cell over the two year columns (no vertical line between them).
    page.draw_line((x[0], top), (x[-1], top), width=0.6)
    page.draw_line((x[1], top + 18), (x[-1], top + 18), width=0.6)
    body = [["Revenue", "", "1,200", "1,350"], ["Costs", "", "(800)", "(905)"], ["Profit", "", "400", "445"]]
    y = top + 36
    for r in range(len(body) + 1):
        page.draw_line((x[0], y + r * 18), (x[-1], y + r * 18), width=0.6)
    for xc in (x[0], x[-1]):
        page.draw_line((xc, top), (xc, y + len(body) * 18), width=0.6)
    page.draw_line((x[1], top), (x[1], y + len(body) * 18), width=0.6)
    page.draw_line((x[2], top + 18), (x[2], y + len(body) * 18), width=0.6)
    page.insert_text((x[1] + 4, top + 13), "Years ended December 31", fontsize=FONT_SIZE)
    page.insert_text((x[0] + 4, top + 13), "Item", fontsize=FONT_SIZE)
    page.insert_text((x[1] + 4, top + 31), "2012", fontsize=FONT_SIZE)
    page.insert_text((x[2] + 4, top + 31), "2013", fontsize=FONT_SIZE)
    for r, (label, _, a, b) in enumerate(body):
        page.insert_text((x[0] + 4, y + r * 18 + 13), label, fontsize=FONT_SIZE)
        page.insert_text((x[1] + 4, y + r * 18 + 13), a, fontsize=FONT_SIZE)
        page.insert_text((x[2] + 4, y + r * 18 + 13), b, fontsize=FONT_SIZE)
    tables = _tables(_save(doc, tmp_path / "header.pdf"))
    assert len(tables) == 1
    table = tables[0]
    assert table.header_rows == 2
    assert table.rows[0][1:] == ("Years ended December 31", "Years ended December 31")
    assert table.rows[1][1:] == ("2012", "2013")
    assert table.rows[2] == ("Revenue", "1,200", "1,350")
    # The spanning cell's positions share one box: the merged cell on the page.
    assert table.cells[0][1].bbox == table.cells[0][2].bbox


def test_table_continued_on_next_page_is_stitched(tmp_path: Path) -> None:
    header = ["Country", "Population", "Area"]
    first = [[f"Country {i}", f"{1000 + i * 37:,}", f"{50 + i}"] for i in range(1, 9)]
    second = [[f"Country {i}", f"{1000 + i * 37:,}", f"{50 + i}"] for i in range(9, 15)]
    doc = pymupdf.open()
    x = [72, 240, 360, 460]
    page = doc.new_page()
    page.insert_text((72, 80), "Table 1: Countries", fontsize=11)
    _draw_ruled(page, [header] + first, x, 100)
    page = doc.new_page()
    _draw_ruled(page, [header] + second, x, 72)
    tables = extract_tables(_save(doc, tmp_path / "stitched.pdf"))
    assert len(tables) == 1
    table = tables[0]
    assert table.pages == (1, 2)
    assert table.header_rows == 1
    assert [list(r) for r in table.rows] == [header] + first + second
    pages_by_row = [table.cells[r][0].page for r in range(table.n_rows)]
    assert pages_by_row == [1] * (1 + len(first)) + [2] * len(second)
    assert [table.cells[r][0].row for r in range(table.n_rows)] == list(range(table.n_rows))
    assert table.caption == "Table 1: Countries"


def test_a_table_headed_by_codes_continued_under_its_title_said_continued_is_one_table(tmp_path: Path) -> None:
    # age groups headed as a program names them ("A25.34"), the title set over two lines, the rest of the rows on the
    # next page under "Table 4: ... (continued)" and the same header
    header = ["", "A25.34", "A35.44", "A45.54", "A55.64"]
    first = [["Ardmore", "21", "26", "30", "33"], ["Belcourt", "9", "18", "11", "15"], ["Carrow", "23", "20", "22", "30"]]
    second = [[name, *(str(10 + 3 * i + j) for j in range(4))]
              for i, name in enumerate(["Dunleary", "Elmsford", "Fenwick", "Glenarm", "Harwich", "Inchmore"])]
    x = [150, 240, 300, 360, 420]
    doc = pymupdf.open()
    page = doc.new_page()  # 595 x 842
    page.insert_text((72, 100), "The rates vary widely between towns and age groups, as the next table shows.", fontsize=10)
    page.insert_text((150, 600), "Table 4: Admissions per 100,000 residents by age group and", fontsize=10)
    page.insert_text((150, 612), "town of residence.", fontsize=10)
    for r, row in enumerate([header] + first):
        for c, text in enumerate(row):
            page.insert_text((x[c], 640 + 14 * r), text, fontsize=10)
    page = doc.new_page()
    page.insert_text((150, 72), "Table 4: Admissions by age group and town (continued).", fontsize=10)
    for r, row in enumerate([header] + second):
        for c, text in enumerate(row):
            page.insert_text((x[c], 100 + 14 * r), text, fontsize=10)
    page.insert_text((72, 300), "Admissions rise with age in every town but one.", fontsize=10)
    tables = extract_tables(_save(doc, tmp_path / "continued.pdf"))
    assert len(tables) == 1, [t.caption for t in tables]
    (table,) = tables
    assert table.header_rows == 1 and list(table.rows[0][1:]) == header[1:]
    assert [r[0] for r in table.rows[1:]] == [row[0] for row in first + second]
    assert table.caption.startswith("Table 4: Admissions per 100,000 residents"), table.caption


def test_a_numbered_title_wider_than_its_table_and_set_over_several_lines_is_its_caption(tmp_path: Path) -> None:
    doc = pymupdf.open()
    page = doc.new_page()  # 595 x 842
    page.insert_text((72, 80), "The survey asked the same question in every district, with the answers below.", fontsize=10)
    lines = ["Table 7: Answers to question 12 of the district survey. The answers were coded by the",
             "field office before they were counted, and blank forms were left out of the counts that",
             "follow; a form with two answers ticked was counted as a spoilt form, and is not in the",
             "table either."]
    for i, line in enumerate(lines):
        page.insert_text((72, 120 + 12 * i), line, fontsize=10)
    rows = [["Answer", "Forms"], ["Agree", "412"], ["Disagree", "230"], ["No opinion", "58"]]
    _draw_ruled(page, rows, [250, 350, 450], 162)
    (table,) = extract_tables(_save(doc, tmp_path / "survey.pdf"))
    assert table.caption.startswith("Table 7: Answers to question 12"), table.caption


def test_page_number_footer_is_not_part_of_a_borderless_table(tmp_path: Path) -> None:
    doc = pymupdf.open()
    page = doc.new_page()  # 595 x 842
    rows = [["Region", "Cases", "Deaths", "Rate"]] + [
        [f"District {i}", f"{1200 + 37 * i:,}", f"{12 + i}", f"{1.5 + i / 10:.1f}"] for i in range(1, 13)
    ]
    bottom = _draw_borderless(page, rows, [72, 250, 350, 450], 590)
    assert bottom < 790
    # The page number sits under the "Deaths" column, in the page's bottom margin.
    page.insert_text((350 - pymupdf.Font("helv").text_length("12", fontsize=9), 812), "12", fontsize=9)
    path = _save(doc, tmp_path / "footer.pdf")
    tables = _tables(path)
    assert len(tables) == 1
    table = tables[0]
    assert [list(r) for r in table.rows] == rows
    # Camelot stream itself takes the page number in as a last row; it is trimmed away.
    doc = pymupdf.open(path)
    view = open_view(doc, path, 1, None)
    (grid,) = find_camelot_grids(path, 1, view.page, "stream")
    assert any("12" in cell for cell in grid.native_text[-1])
    doc.close()


def test_caption_is_the_title_line_above_not_the_source_line_below(tmp_path: Path) -> None:
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((72, 90), "Table 3: Revenue by segment (in millions)", fontsize=11)
    bottom = _draw_ruled(page, BUDGET_ROWS, [72, 200, 290, 380, 470], 100)
    page.insert_text((72, bottom + 16), "Source: company filings", fontsize=8)
    page.insert_text((72, bottom + 200), "Table 4: nothing follows this line", fontsize=11)
    tables = _tables(_save(doc, tmp_path / "caption.pdf"))
    assert len(tables) == 1
    assert tables[0].caption == "Table 3: Revenue by segment (in millions)"
    assert all("Source" not in cell for row in tables[0].rows for cell in row)


def test_cell_boxes_contain_their_text(tmp_path: Path) -> None:
    doc = pymupdf.open()
    page = doc.new_page()
    _draw_ruled(page, BUDGET_ROWS, [72, 200, 290, 380, 470], 100)
    rows = [["Region", "Units", "Revenue"], ["North", "1,200", "3,600"], ["South", "980", "2,940"], ["East", "770", "2,310"]]
    _draw_borderless(page, rows, [72, 260, 360], 300)
    path = _save(doc, tmp_path / "boxes.pdf")
    tables = _tables(path)
    assert len(tables) == 2
    doc = pymupdf.open(path)
    page = doc[0]
    for table in tables:
        assert len(table.cells) == table.n_rows and all(len(r) == table.n_cols for r in table.cells)
        box = pymupdf.Rect(table.bbox)
        for r, row in enumerate(table.rows):
            for c, text in enumerate(row):
                ref = table.cells[r][c]
                assert ref is not None and (ref.row, ref.col, ref.page) == (r, c, 1)
                cell_box = pymupdf.Rect(ref.bbox)
                assert box.contains(cell_box)
                if text:
                    inside = page.get_text("text", clip=cell_box)
                    assert _norm(text) in _norm(inside), (text, inside)
    doc.close()


def test_superscript_footnote_markers_are_stripped(tmp_path: Path) -> None:
    doc = pymupdf.open()
    page = doc.new_page()
    x = [72, 240, 340, 440]
    rows = [["Programme", "2012", "2013"], ["Defense", "699", "709"], ["Health", "600", "610"], ["Energy", "75", "81"]]
    _draw_ruled(page, rows, x, 100)
    # A small raised "3" right after "Defense": a footnote marker.
    width = pymupdf.Font("helv").text_length("Defense", fontsize=FONT_SIZE)
    page.insert_text((x[0] + 4 + width + 1, 118 + 13 - 4), "3", fontsize=5)
    tables = _tables(_save(doc, tmp_path / "superscript.pdf"))
    assert tables[0].rows[1] == ("Defense", "699", "709")


def test_table_on_a_rotated_page_reports_unrotated_boxes(tmp_path: Path) -> None:
    doc = pymupdf.open()
    page = doc.new_page()
    _draw_ruled(page, BUDGET_ROWS, [72, 200, 290, 380, 470], 100)
    page.set_rotation(90)
    path = _save(doc, tmp_path / "rotated.pdf")
    tables = _tables(path)
    assert len(tables) == 1
    assert [list(r) for r in tables[0].rows] == BUDGET_ROWS
    doc = pymupdf.open(path)
    ref = tables[0].cells[1][1]
    assert _norm(doc[0].get_text("text", clip=pymupdf.Rect(ref.bbox))) == "1,200"
    doc.close()


def test_prose_page_runs_no_table_extractor(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import core.ingest.extraction.extractor as extractor_module

    def refuse(*args: object, **kwargs: object) -> list[object]:
        raise AssertionError("an extractor ran on a prose page")

    monkeypatch.setattr(extractor_module.CamelotReader, "grids", refuse)
    monkeypatch.setattr(extractor_module, "find_pymupdf_grids", refuse)
    doc = pymupdf.open()
    page = doc.new_page()
    _prose(page, 80, 30)
    page.draw_line((72, 60), (520, 60))  # a rule under the running head is not a table
    assert _tables(_save(doc, tmp_path / "prose.pdf")) == []


def test_odd_pages_do_not_break_extraction(tmp_path: Path) -> None:
    doc = pymupdf.open()
    doc.new_page()  # empty
    page = doc.new_page(width=14400, height=14400)  # the largest page PDF allows
    _draw_ruled(page, BUDGET_ROWS, [72, 200, 290, 380, 470], 100)
    page = doc.new_page()
    pix = pymupdf.Pixmap(pymupdf.csRGB, pymupdf.IRect(0, 0, 50, 50), False)
    pix.clear_with(200)
    page.insert_image(pymupdf.Rect(72, 72, 400, 400), pixmap=pix)  # image only, no text layer
    path = _save(doc, tmp_path / "odd.pdf")
    doc = pymupdf.open(path)
    extractor = TableExtractor(path, doc)
    assert extractor.page_tables(1) == []
    (huge,) = extractor.page_tables(2)  # a table on a huge page is still found
    assert [list(r) for r in huge.rows] == BUDGET_ROWS
    assert extractor.page_tables(3) == []
    assert extractor.page_tables(0) == [] and extractor.page_tables(4) == []  # no such page
    extractor.close()
    doc.close()


def test_two_column_prose_and_bulleted_lists_are_not_tables(tmp_path: Path) -> None:
    doc = pymupdf.open()
    page = doc.new_page()
    left = [
        "In 2012 the agency spent 1,200 million on roads",
        "and 340 million on bridges, up from 290 million",
        "in 2011. The increase of 17% reflects repairs",
        "after the floods of 2010, which damaged 42 bridges",
        "and 310 km of roads in the northern regions.",
        "Spending is planned to fall to 1,050 million",
    ]
    right = [
        "by 2014, when 85% of the repairs are finished.",
        "The remaining 15% will be spread over 2015 and",
        "2016, at about 60 million a year. Staff numbers",
        "rose from 2,300 to 2,450 over the same period,",
        "mostly engineers hired on 3-year contracts for",
        "the 12 largest projects listed in annex 4.",
    ]
    for i, (a, b) in enumerate(zip(left, right, strict=True)):
        page.insert_text((50, 100 + 14 * i), a, fontsize=9)
        page.insert_text((320, 100 + 14 * i), b, fontsize=9)
    bullets = ["Roads: 1,200 million in 2012, after 1,020 in 2011", "Bridges: 340 million in 2012, after 290",
               "Staff: 2,450 at the end of 2012, from 2,300", "Contracts: 12 projects, 3 years each, 85% done"]
    for i, text in enumerate(bullets):
        page.insert_text((60, 300 + 16 * i), "\u2022", fontsize=9)
        page.insert_text((80, 300 + 16 * i), text, fontsize=9)
    path = _save(doc, tmp_path / "layout.pdf")
    assert _tables(path) == []
    # Camelot stream does read tables into this page; judging them must turn them all down.
    doc = pymupdf.open(path)
    view = open_view(doc, path, 1, None)
    grids = find_camelot_grids(path, 1, view.page, "stream")
    assert grids
    drafts = [draft for draft in (read_grid(g, phrases_at_columns(view.phrases, g.x_edges, word_space(view.words)))
                                  for g in grids) if draft is not None]
    assert select(drafts) == []
    doc.close()


def test_running_title_at_the_top_of_the_page_is_not_part_of_a_borderless_table(tmp_path: Path) -> None:
    doc = pymupdf.open()
    page = doc.new_page()
    head = "Annual health report 2012"
    page.insert_text((450 - pymupdf.Font("helv").text_length(head, fontsize=8), 30), head, fontsize=8)
    rows = [["Region", "Cases", "Deaths", "Rate"]] + [
        [f"District {i}", f"{1200 + 37 * i:,}", f"{12 + i}", f"{1.5 + i / 10:.1f}"] for i in range(1, 9)
    ]
    _draw_borderless(page, rows, [72, 250, 350, 450], 62)
    _prose(page, 220, 8)
    tables = _tables(_save(doc, tmp_path / "header.pdf"))
    assert len(tables) == 1
    assert [list(r) for r in tables[0].rows] == rows
    assert tables[0].caption == ""


def test_a_page_is_cut_into_figure_pieces_once_and_asked_about_several_areas(tmp_path: Path,
                                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    import core.ingest.extraction.extractor as extractor_module

    doc = pymupdf.open()
    page = doc.new_page()
    _prose(page, 60, 4)
    bottom = _draw_borderless(page, [["Region", "2019", "2018"], *[[f"Region {n}", f"${100 + n:,}", f"{90 + n:,}"]
                                                                    for n in range(6)]], [72, 300, 380], 140)
    path = _save(doc, tmp_path / "statement.pdf")
    opened = pymupdf.open(path)
    view = open_view(opened, path, 1, None)
    layout = extractor_module.FigureLayout(view.words)
    assert layout.has_value_columns()
    assert not layout.has_value_columns([pymupdf.Rect(60, 130, 400, bottom + 5)])  # every figure inside the box
    assert layout.has_value_columns([pymupdf.Rect(60, 20, 400, 120)])  # a box over the prose only
    view.close()

    built: list[int] = []
    real_init = extractor_module.FigureLayout.__init__

    def counting_init(self: object, words: Sequence[object]) -> None:
        built.append(1)
        real_init(self, words)  # type: ignore[arg-type]

    monkeypatch.setattr(extractor_module.FigureLayout, "__init__", counting_init)
    with TableExtractor(path, opened) as extractor:
        (table,) = extractor.page_tables(1)
    assert table.rows[-1][1] == "$105"
    assert built == [1]  # the ledger gate, the statements' check and the generic extractors share one
    opened.close()


def test_a_date_split_over_two_header_lines_stays_in_the_header() -> None:
    """"Year Ended December" with its "31" wrapped onto a line of its own above the years (as a rendered
    TAT-QA note came out of the page): the day is not a figure, so the lines above the first line item are
    all header and the columns keep their periods (before, "31" made the row of years a body row)."""
    from core.ingest.extraction.grid import DraftCell, DraftTable
    from core.ingest.extraction.headers import count_header_rows

    def table(texts: list[list[str]]) -> DraftTable:
        return DraftTable("ledger", [[DraftCell(text, pymupdf.Rect(c * 50, r * 12, c * 50 + 40, r * 12 + 10), (r, c, r, c))
                                      for c, text in enumerate(row)] for r, row in enumerate(texts)])

    body = [["United States", "$65.8", "$62.8", "$45.6"], ["Foreign", "0.3", "0.1", "(0.1)"]]
    split = [["", "", "Year Ended December", ""], ["", "", "31", ""], ["", "2019", "2018", "2017"], *body]
    assert count_header_rows(table(split)) == 3
    # A small figure under a word that is no month is a figure: the body starts there.
    counted = [["", "", "Units", ""], ["Stores", "", "31", ""], *body]
    assert count_header_rows(table(counted)) == 1


def test_a_wide_date_header_right_aligned_over_narrow_figures_heads_a_small_note_table(tmp_path: Path) -> None:
    """A three-line note table headed "December 31, 2019 | December 31, 2018", each date right-aligned over
    a column of four-digit figures, so it reaches well left of them (as a rendered TAT-QA note printed it).
    The ledger reader takes the dates as the columns' header, not as a title centred across the page (before,
    the header line ended the ledger's header; the headerless ledger was dropped where camelot found nothing)."""
    from core.ingest.extraction.ledger import read_ledgers

    doc = pymupdf.open()
    page = doc.new_page()
    bottom = _prose(page, 80, 3)
    rows = [["", "December 31, 2019", "December 31, 2018"], ["Trade accounts receivable", "1,396", "1,292"],
            ["Allowance for doubtful accounts", "(16)", "(15)"], ["Total", "1,380", "1,277"]]
    _draw_borderless(page, rows, [64, 436, 531], bottom + 30)
    ledgers = read_ledgers(read_words(page), 1)
    assert len(ledgers) == 1
    table, _box = ledgers[0]
    assert [list(r) for r in table.rows] == rows
    assert table.header_rows == 1
    # A title centred across labels and figures still stays out of the header.
    titled = pymupdf.open()
    page = titled.new_page()
    page.insert_text((200, 150), "Accounts receivable by kind of customer", fontsize=FONT_SIZE)
    _draw_borderless(page, rows, [64, 436, 531], 160)
    table, _box = read_ledgers(read_words(page), 1)[0]
    assert table.rows[0] == ("", "December 31, 2019", "December 31, 2018")


def test_an_item_printed_over_its_indented_parts_holds_only_them_and_stays_in_its_section() -> None:
    """A balance sheet prints "Inventories" with no figure over two indented lines, then goes on at its level:
    only the two are the item's parts; the lines after it, and the item itself, stand in "Current assets"."""
    from core.ingest.extraction.ledger import read_ledgers

    doc = pymupdf.open()
    page = doc.new_page()
    lines = [(60, "Current assets:", None), (60, "Cash", ("410", "380")), (60, "Receivables", ("1,204", "1,150")),
             (60, "Inventories", None), (72, "Raw materials", ("310", "295")), (72, "Finished goods", ("502", "488")),
             (60, "Prepaid expenses", ("93", "90")), (60, "Total current assets", ("2,519", "2,403")),
             (60, "Non-current assets:", None), (60, "Goodwill", ("3,020", "3,020"))]
    _right(page, 440, 100, "2021")
    _right(page, 520, 100, "2020")
    for i, (x, label, figures) in enumerate(lines):
        y = 116 + i * 13
        page.insert_text((x, y), label, fontsize=FONT_SIZE)
        for right, figure in zip((440, 520), figures or (), strict=False):
            _right(page, right, y, figure)
    table, _box = read_ledgers(read_words(page), 1)[0]
    sections = {row[0]: row[-1] for row in table.rows[table.header_rows:]}
    assert sections["Raw materials"] == sections["Finished goods"] == "Inventories"
    assert sections["Inventories"] == sections["Prepaid expenses"] == sections["Total current assets"] == "Current assets"
    assert sections["Goodwill"] == "Non-current assets"


def _right(page: pymupdf.Page, right: float, y: float, text: str, font: str = "helv") -> None:
    page.insert_text((right - pymupdf.get_text_length(text, fontname=font, fontsize=FONT_SIZE), y), text,
                     fontname=font, fontsize=FONT_SIZE)


def test_shaded_rows_are_no_ruled_grid_but_drawn_lines_are() -> None:
    """Filings shade every other row of a table as a filled box per cell: the boxes' edges cross like a grid's, but
    no line divides the cells, so the ruled-table extractors are not asked (they cost half a second a page there)."""
    doc = pymupdf.open()
    shaded = doc.new_page()
    for row in range(0, 8, 2):
        for x0, x1 in ((50, 300), (300, 310), (310, 400), (400, 410), (410, 500)):
            shaded.draw_rect(pymupdf.Rect(x0, 100 + row * 14, x1, 114 + row * 14), color=None, fill=(0.8, 0.93, 1.0))
    shaded.draw_rect(pymupdf.Rect(310, 212, 400, 213), color=None, fill=(0, 0, 0))  # a total's underline
    ruled = doc.new_page()
    _draw_ruled(ruled, [["Region", "2023"], ["North", "12"], ["South", "7"]], [50, 200, 300], 100)
    assert not open_view(doc, Path("x.pdf"), 1, None).rulings.has_grid
    assert len(open_view(doc, Path("x.pdf"), 1, None).rulings.shading) == 20
    assert open_view(doc, Path("x.pdf"), 2, None).rulings.has_grid


def test_a_frame_around_the_page_is_no_ruled_grid_but_a_box_split_in_two_is(tmp_path: Path) -> None:
    """A filing drawing a stroked frame on every page (General Mills' 10-K) has four lines meeting at four corners:
    no cell is divided, so the ruled-table extractors are not asked; one more line splitting the box makes it a grid."""
    doc = pymupdf.open()
    framed = doc.new_page()
    framed.draw_rect(pymupdf.Rect(153, 24, 459, 420), color=(0, 0, 0), width=0.5)
    framed.draw_line((199, 68), (217, 68), color=(0, 0, 0), width=0.5)  # an underline inside the frame
    _draw_borderless(framed, [["", "2022", "2021"], ["Net sales", "18,992.8", "18,127.0"],
                              ["Cost of sales", "12,590.6", "11,678.7"], ["Net earnings", "2,707.3", "2,339.8"]],
                     [170, 360, 440], 120)
    split = doc.new_page()
    split.draw_rect(pymupdf.Rect(153, 24, 459, 420), color=(0, 0, 0), width=0.5)
    split.draw_line((153, 200), (459, 200), color=(0, 0, 0), width=0.5)
    assert not open_view(doc, Path("x.pdf"), 1, None).rulings.has_grid
    assert open_view(doc, Path("x.pdf"), 2, None).rulings.has_grid
    path = tmp_path / "framed.pdf"
    doc.save(path)
    with TableExtractor(path, pymupdf.open(path)) as extractor:
        (table,) = extractor.page_tables(1)
    assert table.extractor == "camelot-stream"  # read as a borderless table, its frame no grid
    assert table.rows[1] == ("Net sales", "18,992.8", "18,127.0") and table.n_rows == 4


def test_a_statement_whose_ledger_loses_a_figure_is_read_by_the_borderless_extractor_too(tmp_path: Path) -> None:
    """A "$" table with a sparse Notes column: the ledger reader takes the one note number into its label; the page
    is not a statement read whole, so camelot stream reads it too, and its reading, which keeps the column, wins."""
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    page.insert_text((50, 60), "Note 9. Receivables", fontname="hebo", fontsize=10)
    y = 90.0
    for right, text in ((300, "Notes"), (420, "2019"), (520, "2018")):
        _right(page, right, y, text, "hebo")
    rows = [("Trade receivables", "", "$ 3,770", "$ 3,054"), ("Allowance for expected credit losses", "", "(135)", "(23)"),
            ("Other receivables", "", "4,223", "4,082"), ("Receivables from related parties", "17", "11,880", "8,039"),
            ("Loans to employees", "", "118", "601"), ("Total receivables", "", "$ 19,856", "$ 15,753")]
    for label, note, this_year, last_year in rows:
        y += 14
        page.insert_text((50, y), label, fontname="helv", fontsize=FONT_SIZE)
        for right, text in ((300, note), (420, this_year), (520, last_year)):
            if text:
                _right(page, right, y, text)
    doc.save(tmp_path / "receivables.pdf")
    (table,) = extract_tables(tmp_path / "receivables.pdf")
    assert table.rows[table.header_rows - 1][1:] == ("Notes", "2019", "2018")
    assert ("Receivables from related parties", "17", "11,880", "8,039") in table.rows


# A ruled table printing currency signs: its columns are the drawn ones. Text is left-aligned in the cells, so
# figures of one column do not share a right edge (the ledger reader, inferring columns from gaps, cut "2012" in
# two), and two ruled tables set one below another are two tables (a borderless reading ran them together).
_GRANTS = [["Programme", "2011", "2012"]] + [
    [f"Grant line {i}", f"${1000 + 37 * i:,}", f"${900 + 41 * i:,}"] for i in range(1, 6)
]
_OFFICES = [["Office", "2011", "2012"]] + [
    [f"Office cost {i}", f"${200 + 13 * i:,}", f"${300 + 17 * i:,}"] for i in range(1, 5)
]


def test_ruled_table_with_currency_signs_is_read_by_its_lines(tmp_path: Path) -> None:
    doc = pymupdf.open()
    _draw_ruled(doc.new_page(), _GRANTS, [72, 230, 330, 430], 100)
    tables = extract_tables(_save(doc, tmp_path / "ruled_currency.pdf"))
    assert [[list(r) for r in t.rows] for t in tables] == [_GRANTS]
    assert tables[0].header_rows == 1


def _ruled_rows(path: Path, *grids: Sequence[Sequence[str]]) -> list[list[list[str]]]:
    """Draw ``grids`` as ruled tables one below another on one page; the rows of the tables extracted from it."""
    doc = pymupdf.open()
    page = doc.new_page()
    top = 100.0
    for rows in grids:
        top = _draw_ruled(page, rows, [72, 230, 330, 430], top) + 14
    return [[list(r) for r in t.rows] for t in extract_tables(_save(doc, path))]


def test_stacked_ruled_tables_with_currency_signs_stay_apart(tmp_path: Path) -> None:
    assert _ruled_rows(tmp_path / "stacked_currency.pdf", _GRANTS, _OFFICES) == [_GRANTS, _OFFICES]


_SHARES = [["Programme", "2011", "2012"]] + [
    [f"Grant line {i}", f"${100 + 37 * i:,} ({10 + i}.5%)", f"${300 + 41 * i:,} ({20 + i}.1%)"] for i in range(1, 6)
]


def test_ruled_cells_holding_a_figure_and_its_share_are_read_by_their_lines(tmp_path: Path) -> None:
    # Each drawn cell holds an amount and its share in brackets: the ledger reader, going by gaps, would make two
    # columns of each; a rule parts the labels from the figures and another the two years, so the grid decides.
    assert _ruled_rows(tmp_path / "ruled_shares.pdf", _SHARES) == [_SHARES]


@pytest.mark.parametrize("turn", [90, 270])
def test_ruled_grid_on_a_turned_page_is_read_by_its_lines(tmp_path: Path, turn: int) -> None:
    # The page's content lies sideways and the page is turned to show it upright: the drawn rules (seen upright)
    # and the ledger's cells (in the page's own coordinates) are compared in one orientation.
    source = pymupdf.open()
    _draw_ruled(source.new_page(), _SHARES, [72, 230, 330, 430], 100)
    doc = pymupdf.open()
    page = doc.new_page(width=842, height=595)
    page.show_pdf_page(page.rect, source, 0, rotate=turn)
    page.set_rotation(turn)
    tables = extract_tables(_save(doc, tmp_path / f"turned_{turn}.pdf"))
    assert [[list(r) for r in t.rows] for t in tables] == [_SHARES]


def test_stacked_ruled_tables_with_aligned_currency_figures_stay_apart(tmp_path: Path) -> None:
    # Figures of one width line up as a statement's would; the two grids are still two tables, not one ledger
    # or one borderless reading across both.
    first = [["Programme", "2011", "2012"]] + [
        [f"Grant line {i}", f"${1000 + 37 * i:,}", f"${1900 + 41 * i:,}"] for i in range(1, 6)
    ]
    second = [["Office", "2011", "2012"]] + [
        [f"Office cost {i}", f"${2000 + 13 * i:,}", f"${3000 + 17 * i:,}"] for i in range(1, 5)
    ]
    assert _ruled_rows(tmp_path / "stacked_aligned.pdf", first, second) == [first, second]


def test_statement_with_rules_only_between_its_figure_columns_stays_a_ledger(tmp_path: Path) -> None:
    # A statement with lines around its figures (as filings draw shaded cells parted by lines) but none between
    # its labels and its figures is not a ruled grid: its labels must not be lost to a reading of the drawn part.
    rows = [["", "2021", "2020"], ["Net sales", "$ 4,120", "$ 3,870"], ["Cost of sales", "2,310", "2,205"],
            ["Gross profit", "1,810", "1,665"], ["Selling expenses", "640", "610"], ["Operating income", "$ 1,170", "$ 1,055"]]
    doc = pymupdf.open()
    page = doc.new_page()
    bottom = _draw_borderless(page, rows, [72, 330, 420], 100)
    for x in (345, 435):
        page.draw_line((x, 100), (x, bottom), width=0.6)
    for y in (100, 115, bottom):
        page.draw_line((260, y), (435, y), width=0.6)
    tables = extract_tables(_save(doc, tmp_path / "statement_rules.pdf"))
    assert [t.extractor for t in tables] == ["ledger"]
    assert [list(r) for r in tables[0].rows][1:] == [[label, a.replace(" ", ""), b.replace(" ", "")] for label, a, b in rows[1:]]


def test_a_ruling_line_that_stops_short_leaves_the_last_rows_labels_in_their_columns(tmp_path: Path) -> None:
    # The line between the serial-number column and the names stops two rows early, as a printer's template
    # did: the last area's number and name, and the totals row's name, still belong to their own columns.
    rows = [["No.", "Area", "Wheat", "Barley"], ["1", "Northmoor", "4.10", "0.82"], ["2", "Eastfield", "3.95", "1.07"],
            ["3", "Kingsbury", "5.02", "0.66"], ["4", "Holloway", "2.71", "1.30"], ["5", "Ashgrove", "3.33", "0.91"],
            ["6", "Westfield", "4.48", "1.12"], ["", "REGION", "23.59", "5.88"]]
    x, top, height = [72, 110, 250, 330, 410], 100, 18
    doc = pymupdf.open()
    page = doc.new_page()
    bottom = top + height * len(rows)
    for r in range(len(rows) + 1):
        page.draw_line((x[0], top + r * height), (x[-1], top + r * height), width=0.6)
    for xc in x:
        page.draw_line((xc, top), (xc, bottom if xc != x[1] else bottom - 2 * height), width=0.6)
    for r, row in enumerate(rows):
        for c, text in enumerate(row):
            if text:
                page.insert_text((x[c] + 4, top + r * height + 13), text, fontsize=FONT_SIZE)
    tables = extract_tables(_save(doc, tmp_path / "short_line.pdf"))
    assert len(tables) == 1
    assert [list(r) for r in tables[0].rows][-2:] == [rows[-2], rows[-1]]


def test_labels_printed_as_one_block_beside_ruled_rows_of_figures_go_back_to_their_rows(tmp_path: Path) -> None:
    # The label column has no line between its rows (the lines between body rows run across the figures only): its
    # labels come out as one tall merged cell; each goes back to the row of figures it is printed beside.
    rows = [["Cost category", "Total", "Direct"], ["Salaries", "1,314,000", "940,750"],
            ["Fringe benefits", "352,000", "252,012"], ["Staff travel", "94,000", "74,000"],
            ["Office rent", "161,000", "68,000"], ["Total costs", "1,921,000", "1,334,762"]]
    x, top, height = [72, 230, 330, 430], 100, 18
    doc = pymupdf.open()
    page = doc.new_page()
    bottom = top + height * len(rows)
    for r in range(len(rows) + 1):
        full = r in (0, 1, len(rows))
        page.draw_line((x[0] if full else x[1], top + r * height), (x[-1], top + r * height), width=0.6)
    for xc in x:
        page.draw_line((xc, top), (xc, bottom), width=0.6)
    for r, row in enumerate(rows):
        for c, text in enumerate(row):
            page.insert_text((x[c] + 4, top + r * height + 13), text, fontsize=FONT_SIZE)
    tables = extract_tables(_save(doc, tmp_path / "label_block.pdf"))
    assert len(tables) == 1
    assert [list(r) for r in tables[0].rows] == rows


def _centred(page: pymupdf.Page, middle: float, baseline: float, text: str, size: float = 7) -> None:
    page.insert_text((middle - pymupdf.Font("helv").text_length(text, fontsize=size) / 2, baseline), text, fontsize=size)


def test_headers_stacked_over_narrow_columns_under_group_headings_set_a_word_space_apart(tmp_path: Path) -> None:
    """Borderless detection starts a table at its first aligned row; the header lines above it are read back. Here
    each column's header is stacked over three or four lines set closer than a line apart, neighbours' words a little
    more than a word space apart on one line ("Height" | "Control"), and the group headings over each pair of columns
    only a word space apart ("Week 1 of growth Week 2 of growth"): every column keeps its group and its own header."""
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((60, 60), "Table 2. Seedling growth by week after sowing, by watering scheme", fontsize=9)
    pitch, bottom = 28.0, 140.0
    middles = [125 + pitch * i for i in range(6)]
    stacks = [["Mean", "Height", "(cm)"], ["Share", "of", "Control", "(%)"]] * 3
    for middle, stack in zip(middles, stacks, strict=True):
        for i, word in enumerate(reversed(stack)):
            _centred(page, middle, bottom - 8 * i, word)
    for g in range(3):
        _centred(page, (middles[2 * g] + middles[2 * g + 1]) / 2, bottom - 34, f"Week {g + 1} of growth")
    page.insert_text((60, bottom - 8), "Scheme", fontsize=7)
    page.insert_text((60, bottom), "(l/day)", fontsize=7)
    body = [["0", "4.1", "100", "7.9", "100", "12.2", "100"], ["0.5", "4.3", "105", "8.4", "106", "13.0", "107"],
            ["1.0", "4.6", "112", "8.8", "111", "13.9", "114"], ["1.5", "4.4", "107", "8.1", "103", "12.8", "105"],
            ["2.0", "3.9", "95", "7.2", "91", "11.1", "91"]]
    for r, row in enumerate(body):
        page.insert_text((60, bottom + 16 + 11 * r), row[0], fontsize=7)
        for middle, text in zip(middles, row[1:], strict=True):
            _centred(page, middle, bottom + 16 + 11 * r, text)
    path = _save(doc, tmp_path / "stacked_headers.pdf")

    doc = pymupdf.open(path)
    view = open_view(doc, path, 1, None)
    # The body alone, as camelot stream leaves such a table: header lines above its first aligned row left out.
    edges = [55.0] + [m - pitch / 2 for m in middles] + [middles[-1] + pitch / 2]
    grid = TableGrid("camelot-stream", edges, [bottom + 8 + 11 * r for r in range(len(body) + 1)])
    draft = read_grid(grid, phrases_at_columns(view.phrases, grid.x_edges, word_space(view.words)))
    assert draft is not None and draft.texts == body
    extend_upwards(draft, view.words, [])
    title, units = trim_edges(draft, view.page)  # the group headings are no title set over the columns
    settle_headers(draft)
    doc.close()
    assert (title, units) == ("", "")
    assert draft.texts[draft.header_rows:] == body
    paths = [" / ".join(t for t in dict.fromkeys(draft.texts[r][c] for r in range(draft.header_rows)) if t)
             for c in range(draft.n_cols)]
    assert paths == ["Scheme (l/day)"] + [f"Week {g + 1} of growth / {name}" for g in range(3)
                                          for name in ("Mean Height (cm)", "Share of Control (%)")]


@pytest.mark.parametrize("unit", ["US$000", "$'000", "RMB'000", "$000"])
def test_a_unit_row_under_the_periods_is_header_not_a_row_of_figures(tmp_path: Path, unit: str) -> None:
    """A row printing each column's unit in thousands under the periods heads the figures: read as a body row, the
    table's columns would hold a word among numbers (and be typed as text)."""
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((72, 80), "Note 12. Other expenses of the group", fontsize=10)
    rows = [["", "2021", "2020"], ["", unit, unit], ["Freight and cartage", "1,204", "1,118"],
            ["Repairs and upkeep", "377", "402"], ["Insurance premiums", "96", "88"], ["Total other expenses", "1,677", "1,608"]]
    _draw_borderless(page, rows, [72, 330, 420], 110)
    (table,) = extract_tables(_save(doc, tmp_path / "units.pdf"))
    assert [list(row) for row in table.rows[table.header_rows:]] == rows[2:]
    assert all(unit in cell for cell in table.rows[table.header_rows - 1][1:])


def test_group_headings_centred_over_pairs_of_period_columns_head_their_own_pair(tmp_path: Path) -> None:
    """Two group headings, each centred over its two periods; the borderless extractor's column boundaries follow
    its widest text (the headings), not the figures, and the second heading's column looked empty on both sides:
    each heading must span its own pair, read from where the figures stand."""
    from tests.support.report_builder import TableSpec, build_report

    spec = TableSpec("", [["", "Inland", "", "Overseas", ""], ["", "March 31,", "", "March 31,", ""],
                          ["", "2021", "2020", "2021", "2020"]],
                     [["Discount rate applied to obligations", "4.10%", "3.85%", "1.95%", "2.70%"],
                      ["Expected return on scheme investments", "", "", "3.20%", "3.40%"],
                      ["Rate of salary growth", "", "", "2.40%", "2.50%"]], ruled=False)
    build_report(tmp_path / "pairs.pdf", "Pension notes", ["The assumptions used were as follows:", spec])
    (table,) = extract_tables(tmp_path / "pairs.pdf")
    header = [" ".join(table.rows[r][c] for r in range(table.header_rows)) for c in range(1, table.n_cols)]
    assert header == ["Inland March 31, 2021", "Inland March 31, 2020", "Overseas March 31, 2021", "Overseas March 31, 2020"]


def test_group_headings_parted_by_drawn_rules_head_every_column_between_the_rules(tmp_path: Path) -> None:
    """Statistical tables draw a vertical rule between groups of columns and centre each group's heading over its
    middle column, whose own header sits right under it: the heading heads every column between the rules, it is
    not the first line of the middle column's header. The narrow columns' headers run over two lines set a little
    more than a word space apart ("Under 5 years" | "5 years and over"): each line stays in its own column."""
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((40, 50), "Table 7. Vehicles registered by age of vehicle, 2021", fontsize=9)
    pitch, left, top = 28.0, 150.0, 70.0
    middles = [left + pitch * (i + 0.5) for i in range(9)]
    for g, group in enumerate(["Cars", "Vans", "Lorries"]):
        _centred(page, middles[3 * g + 1], top + 7, group)
        for middle, stack in zip(middles[3 * g:3 * g + 3], [["All"], ["Under 5", "years"], ["5 years", "and over"]]):
            for i, word in enumerate(reversed(stack)):
                _centred(page, middle, top + 22 - 7 * i, word)
    for g in range(1, 3):
        page.draw_line((left + 3 * g * pitch, top - 2), (left + 3 * g * pitch, top + 24), width=0.5)
    page.draw_line((40, top - 2), (left + 9 * pitch, top - 2), width=0.5)
    page.draw_line((40, top + 24), (left + 9 * pitch, top + 24), width=0.5)
    page.insert_text((40, top + 22), "Region", fontsize=7)
    body = [[name] + [f"{(r + 2) * (c + 3) * 0.75:.1f}" for c in range(9)]
            for r, name in enumerate(["Northland", "Southmoor", "Eastvale", "Westmarch", "Midshire", "Coastal"])]
    for r, row in enumerate(body):
        baseline = top + 34 + 9 * r
        page.insert_text((40, baseline), row[0], fontsize=7)
        for middle, text in zip(middles, row[1:], strict=True):
            _centred(page, middle, baseline, text)
    (table,) = extract_tables(_save(doc, tmp_path / "ruled_groups.pdf"))
    header = table.rows[: table.header_rows]
    paths = [" ".join(dict.fromkeys(t for row in header for t in [row[c]] if t)) for c in range(1, 10)]
    assert paths == [f"{group} {name}" for group in ("Cars", "Vans", "Lorries")
                     for name in ("All", "Under 5 years", "5 years and over")]
    assert [list(r) for r in table.rows[table.header_rows:]] == body


def test_the_end_of_a_paragraph_read_into_a_borderless_table_with_its_title_is_no_header(tmp_path: Path) -> None:
    """A short last line of the paragraph above ("fitted with a straight line.") sits over a borderless table printed
    in two halves side by side, and a reader takes it in with the table's numbered title: it is no header of the
    columns, the title is the caption, and the halves are one table: the left half's rows, then the right half's
    (a register set in two columns to save space), the source line under both no row of it."""
    doc = pymupdf.open()
    page = doc.new_page()  # 595 x 842
    for k, line in enumerate(["Each comet was observed twice a night over the winter, and its brightness against",
                              "its distance from the sun is shown below; the trend in the readings is then",
                              "fitted with a straight line."]):
        page.insert_text((143.7, 374 + 12 * k), line, fontsize=10)
    page.insert_text((175.5, 412), "Table 4.1: comets data. Brightness and distance for 20 comets.", fontsize=10)
    header = ["comet", "brightness", "distance"]
    comets = [[f"C{1990 + 3 * i}K{i}", f"{700 + (i * 377) % 900}", f"{(i * 53) % 41 + 2}.{i}5"] for i in range(20)]
    rights = [[199.6, 253.3, 307.0], [368.9, 422.6, 476.3]]
    for half, block in enumerate((comets[:10], comets[10:])):
        for c, word in enumerate(header):
            _right(page, rights[half][c], 435, word)
        for r, row in enumerate(block):
            for c, text in enumerate(row):
                _right(page, rights[half][c], 447 + 12 * r, text)
    page.insert_text((143.7, 580), "Source: invented for this test, after the Minor Planet Circular of the winter,",
                     fontsize=10)
    (table,) = extract_tables(_save(doc, tmp_path / "comets.pdf"))
    assert table.caption == "Table 4.1: comets data. Brightness and distance for 20 comets."
    assert table.header_rows == 1 and list(table.rows[0]) == header, table.rows[:3]
    assert [list(r) for r in table.rows[1:]] == comets  # the left half's rows, then the right half's
    assert table.cells[11][0] is not None and table.cells[11][0].bbox[0] > 300  # each cell where it is printed


def test_a_header_set_off_its_figures_by_a_borderless_reader_is_their_header(tmp_path: Path) -> None:
    """Month headers right-aligned with their figures, the stub's labels short, a missing reading printed "NA": the
    reader cuts "January" into a column of its own left of its figures. The header joins them; no column is left
    empty."""
    def right(x: float, y: float, text: str) -> None:
        page.insert_text((x - pymupdf.get_text_length(text, fontsize=10), y), text, fontsize=10)
    doc = pymupdf.open()
    page = doc.new_page()  # 595 x 842
    page.insert_text((162.1, 398), "Table 2.2: frost data. Coldest readings in degrees Fahrenheit", fontsize=10)
    page.insert_text((162.1, 410), "taken in four months in the towns of the valley.", fontsize=10)
    months = ["January", "April", "July", "October"]
    rights = [300.6, 338.7, 371.5, 420.0]
    towns = ["Alder", "Birchwood", "Cedar", "Dunmore", "Elmstead", "Fenby", "Garth", "Holme", "Ivybridge", "Jarrow",
             "Kelso", "Larch", "Morden", "Northam", "Oakley", "Penrith", "Quarry", "Rowan", "Selby", "Thorne"]
    readings = [[str((7 * i + 3 * m) % 50 - 30) if (i + m) % 9 else "NA" for m in range(4)] for i in range(len(towns))]
    for x, month in zip(rights, months):
        right(x, 431, month)
    for r, (town, values) in enumerate(zip(towns, readings)):
        page.insert_text((195.5, 443 + 12 * r), town, fontsize=10)
        for x, value in zip(rights, values):
            right(x, 443 + 12 * r, value)
    path = _save(doc, tmp_path / "frost.pdf")
    doc = pymupdf.open(path)
    view = open_view(doc, path, 1, None)
    # the columns as camelot stream cut them on such a page: an edge between "January" and the figures under it
    grid = TableGrid("camelot-stream", [190.0, 262.0, 286.0, 305.0, 345.0, 378.0, 425.0],
                     [421.0 + 12 * r for r in range(len(towns) + 2)])
    draft = read_grid(grid, phrases_at_columns(view.phrases, grid.x_edges, word_space(view.words)))
    doc.close()
    assert draft is not None and draft.texts[0] == ["", "January", "", "April", "July", "October"]
    settle_headers(draft)
    assert draft.header_rows == 1 and draft.texts[0] == ["", *months], draft.texts[:2]
    assert draft.texts[1:] == [[town, *values] for town, values in zip(towns, readings)]
    (table,) = extract_tables(path)  # as the page is read whole
    assert list(table.rows[0]) == ["", *months], table.rows[:2]


def test_a_figure_title_just_under_a_table_is_its_caption(tmp_path: Path) -> None:
    """Papers that number every float as a figure caption a table "Figure 7. ..." under it: that is its caption, as a
    "Table 7: ..." there would be."""
    doc = pymupdf.open()
    page = doc.new_page()  # 595 x 842
    rows = [["", "Runs", "Faults", "Restarts"]] + [[f"job-{name}", str(10 + 7 * i), str(i % 3), str(i)]
                                                   for i, name in enumerate(["alpha", "bravo", "delta", "gamma", "kappa"])]
    bottom = _draw_borderless(page, rows, [80, 250, 330, 410], 100)
    page.insert_text((120, bottom + 16), "Figure 7. Faults and restarts of the nightly jobs over the test month.",
                     fontsize=9)
    _prose(page, bottom + 60)
    (table,) = _tables(_save(doc, tmp_path / "jobs.pdf"))
    assert table.caption == "Figure 7. Faults and restarts of the nightly jobs over the test month.", table.caption


def test_body_lines_left_above_a_stream_table_are_read_back_with_its_header(tmp_path: Path) -> None:
    """Borderless detection may start a long table rows below its header: every aligned line of figures above its
    first row is read back (not only six header lines), then the header over them."""
    doc = pymupdf.open()
    page = doc.new_page()
    x = [72, 200, 260, 320]
    header = ["Site", "Plots", "Trees", "Birds"]
    body = [[f"Stand {n}", str(3 + n % 4), str(40 + 7 * n), str(n % 5)] for n in range(1, 15)]
    _draw_borderless(page, [header, *body], x, 100)
    _prose(page, 100 + 15 * 16 + 30, 4)
    path = _save(doc, tmp_path / "long_stream.pdf")
    doc = pymupdf.open(path)
    view = open_view(doc, path, 1, None)
    # camelot stream's reading of the last three rows alone
    grid = TableGrid("camelot-stream", [70.0, 140.0, 220.0, 280.0, 330.0], [100 + 15 * r for r in range(12, 16)])
    draft = read_grid(grid, phrases_at_columns(view.phrases, grid.x_edges, word_space(view.words)))
    assert draft is not None and draft.texts == body[-3:]
    extend_upwards(draft, view.words, [])
    doc.close()
    assert draft.texts == [header, *body]


PLOTS = [["Plot", "Spring", "Autumn"], ["north", "12", "9"], ["south", "7", "11"], ["east", "4", "6"]]


def _trimmed(path: Path, lines: Sequence[tuple[float, float, str]], rows: Sequence[Sequence[str]], x: Sequence[float],
             top: float, columns: Sequence[float], row_edges: Sequence[float]) -> tuple[str, list[list[str]], int]:
    """Draw ``lines`` of text ((x, baseline, text)) and ``rows`` as a borderless table at ``top``; read them as camelot
    stream would over the grid ``columns`` x ``row_edges``, trim its edges: the title taken off, the rows kept and how
    many rows the grid read before."""
    doc = pymupdf.open()
    page = doc.new_page()
    for left, baseline, text in lines:
        page.insert_text((left, baseline), text, fontsize=9)
    _draw_borderless(page, rows, x, top)
    doc = pymupdf.open(_save(doc, path))
    view = open_view(doc, path, 1, None)
    grid = TableGrid("camelot-stream", list(columns), list(row_edges))
    draft = read_grid(grid, phrases_at_columns(view.phrases, grid.x_edges, word_space(view.words)))
    assert draft is not None
    read = draft.n_rows
    title, _ = trim_edges(draft, view.page)
    doc.close()
    return title, draft.texts, read


def test_a_caption_and_references_under_a_table_are_no_rows_of_it(tmp_path: Path) -> None:
    bottom = 100 + 15 * len(PLOTS)
    lines = [(120, bottom + 14, "Table 6: Seedlings counted by plot."), (72, bottom + 40, "References"),
             (72, bottom + 56, "[1] A. Marsh. Counting seedlings in wet meadows, 1999.")]
    _, texts, read = _trimmed(tmp_path / "caption_below.pdf", lines, PLOTS, [72, 200, 280], 100, [70.0, 150.0, 210.0, 290.0],
                              [100 + 15 * r for r in range(5)] + [bottom + 18, bottom + 44, bottom + 60])
    assert read == 7 and texts == PLOTS


def test_labels_centred_between_their_rows_under_a_three_line_header_are_read_on_each_row(tmp_path: Path) -> None:
    """A results table as papers typeset it: a two-line numbered caption over it, a header whose last line numbers
    the columns of a group ("Sites" over 2, 4, 8), and each condition's label centred between its two rows."""
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((150, 76), "Table 2: Simulation A: share of plots where the test rejected, by number of", fontsize=9)
    page.insert_text((150, 88), "sites (%).", fontsize=9)
    x = [160, 240, 330, 380, 430]
    font = pymupdf.Font("helv")

    def right(text: str, at: float, baseline: float) -> None:
        page.insert_text((at - font.text_length(text, fontsize=FONT_SIZE), baseline), text, fontsize=FONT_SIZE)

    page.insert_text((x[0], 112), "Soil", fontsize=FONT_SIZE)
    page.insert_text((200, 112), "Drained", fontsize=FONT_SIZE)
    page.insert_text((350, 112), "Rejected (%)", fontsize=FONT_SIZE)
    page.insert_text((345, 124), "Number of sites", fontsize=FONT_SIZE)
    for at, text in zip(x[2:], ["2", "4", "8"], strict=True):
        right(text, at, 136)
    body = {"Clay": [("No", "4.10", "3.20", "2.90"), ("Yes", "5.40", "4.80", "4.00")],
            "Loam": [("No", "88.20", "61.50", "20.40"), ("Yes", "91.00", "70.30", "33.10")],
            "Sand": [("No", "99.10", "97.40", "80.20"), ("Yes", "99.80", "98.60", "91.70")]}
    baseline = 152.0
    for label, pair in body.items():
        page.insert_text((x[0], baseline + 6), label, fontsize=FONT_SIZE)  # centred between its two rows
        for drained, *figures in pair:
            page.insert_text((200, baseline), drained, fontsize=FONT_SIZE)
            for at, text in zip(x[2:], figures, strict=True):
                right(text, at, baseline)
            baseline += 12
        baseline += 2
    _prose(page, baseline + 30, 6)
    (table,) = _tables(_save(doc, tmp_path / "centred_labels.pdf"))
    rows = [list(r) for r in table.rows]
    assert table.caption.startswith("Table 2: Simulation A:"), table.caption
    assert rows[table.header_rows - 1][-3:] == ["2", "4", "8"], rows[:4]
    assert rows[table.header_rows:] == [[label, drained, *figures] for label, pair in body.items()
                                        for drained, *figures in pair], rows


def test_a_numbered_caption_cut_at_the_columns_over_a_table_is_its_title(tmp_path: Path) -> None:
    """"Table 3:" set apart from the rest of its caption line, each piece in a column of its own: still the title."""
    lines = [(72, 88, "Table 3:"), (125, 88, "Seedlings counted by plot and season")]
    title, texts, _ = _trimmed(tmp_path / "cut_caption.pdf", lines, PLOTS, [72, 260, 330], 100,
                               [70.0, 120.0, 270.0, 340.0], [78.0] + [100 + 15 * r for r in range(5)])
    assert title == "Table 3: Seedlings counted by plot and season"
    assert texts == PLOTS


def test_a_row_numbering_the_columns_under_their_heading_is_header(tmp_path: Path) -> None:
    """Judges numbered 1 to 6 under "Judge", next to the names of the label columns: the numbers name the columns,
    the rows of scores under them are the body."""
    doc = pymupdf.open()
    page = doc.new_page()
    bottom = _prose(page, 80, 3)
    x = [72, 150, 250, 290, 330, 370, 410, 450]
    _centred(page, 350, bottom + 36, "Judge", size=FONT_SIZE)
    rows = [["Soil", "Watered", "1", "2", "3", "4", "5", "6"],
            ["clay", "no", "2", "3", "2", "1", "3", "2"],
            ["clay", "yes", "4", "3", "5", "4", "4", "3"],
            ["loam", "no", "3", "2", "3", "3", "2", "2"],
            ["loam", "yes", "5", "4", "4", "5", "3", "4"]]
    _draw_borderless(page, rows, x, bottom + 40)
    _prose(page, bottom + 140, 3)
    (table,) = _tables(_save(doc, tmp_path / "judges.pdf"))
    printed = [[cell for cell in row if cell] for row in table.rows]  # "Judge" may set a column of its own apart
    assert printed[table.header_rows:] == rows[1:]
    assert printed[table.header_rows - 1] == rows[0]


def test_a_caption_over_two_lines_in_a_table_s_top_rows_reads_in_order(tmp_path: Path) -> None:
    lines = [(72, 88, "Table 4: Seedlings counted by plot and season in the wet"), (72, 100, "meadow.")]
    title, texts, read = _trimmed(tmp_path / "two_line_caption.pdf", lines, PLOTS, [72, 260, 330], 110,
                                  [70.0, 200.0, 270.0, 340.0], [78.0, 92.0] + [110 + 15 * r for r in range(5)])
    assert read == 6 and title == "Table 4: Seedlings counted by plot and season in the wet meadow."
    assert texts == PLOTS


def test_the_last_line_of_the_paragraph_above_a_title_is_no_part_of_it(tmp_path: Path) -> None:
    lines = [(72, 74, "across the three markets levels."), (72, 88, "Correlation of weekly prices between market towns")]
    rows = [["Town", "Wheat", "Barley"], ["Ashby", "0.42", "0.37"], ["Brill", "0.51", "0.44"], ["Colne", "0.18", "0.29"]]
    title, texts, read = _trimmed(tmp_path / "sentence_end.pdf", lines, rows, [72, 260, 330], 100,
                                  [70.0, 200.0, 270.0, 340.0], [64.0, 78.0] + [100 + 15 * r for r in range(5)])
    assert read == 6 and title == "Correlation of weekly prices between market towns"
    assert texts == rows


def test_a_label_set_a_little_below_its_own_figures_is_not_given_to_the_rows_around_it(tmp_path: Path) -> None:
    """Labels printed a few points off their figures' line (a filing's wrapped layout) are no labels centred over two
    rows: no row takes another's label."""
    doc = pymupdf.open()
    page = doc.new_page()
    bottom = _prose(page, 80, 3)
    font = pymupdf.Font("helv")
    labels = ["Statutory rate", "State taxes", "Credits", "Other items"]
    figures = [("21.0", "21.0"), ("1.4", "0.6"), ("(2.2)", "(1.9)"), ("0.3", "(0.4)")]
    top = bottom + 40
    page.insert_text((300, top), "2025", fontsize=FONT_SIZE)
    page.insert_text((380, top), "2024", fontsize=FONT_SIZE)
    for i, (label, pair) in enumerate(zip(labels, figures, strict=True)):
        baseline = top + 16 + 16 * i
        page.insert_text((72, baseline + 3), label, fontsize=FONT_SIZE)
        for at, text in zip((320, 400), pair, strict=True):
            page.insert_text((at - font.text_length(text, fontsize=FONT_SIZE), baseline), text, fontsize=FONT_SIZE)
    _prose(page, top + 100, 3)
    tables = _tables(_save(doc, tmp_path / "offset_labels.pdf"))
    stubs = [row[0] for table in tables for row in table.rows if row[0]]
    assert len(stubs) == len(set(stubs)), stubs


def test_a_ruled_outline_round_a_table_and_a_chart_beside_it_is_no_second_table(tmp_path: Path) -> None:
    # A table of days by year, drawn in a ruled grid, with a chart's labels printed beside it; one extractor reads
    # the table's grid, another a wider outline that takes in the chart's labels as a sixth column. The table's rows
    # are read once: the wider reading's rows repeat words of the accepted table, though their boxes (stretched over
    # the chart) cover it too little to clash by area.
    doc = pymupdf.open()
    page = doc.new_page(width=842, height=595)
    x_edges = [40.0, 80.0, 120.0, 160.0, 200.0]
    y_edges = [60.0 + 14 * i for i in range(13)]
    page.insert_text((44, 70), "Day", fontsize=8)
    for c, year in enumerate(("2015", "2016", "2017")):
        page.insert_text((x_edges[c + 1] + 4, 70), year, fontsize=8)
    for r in range(1, 12):
        page.insert_text((44, y_edges[r] + 10), str(r), fontsize=8)
        for c in range(3):
            page.insert_text((x_edges[c + 1] + 4, y_edges[r] + 10), str(60 + (7 * r + 13 * c) % 40), fontsize=8)
    labels = {2: "Deaths by day and year", 4: "140", 6: "120", 8: "100", 10: "80"}
    for r, label in labels.items():
        page.insert_text((420, y_edges[r] + 10), label, fontsize=8)
    path = _save(doc, tmp_path / "chart_beside.pdf")
    doc = pymupdf.open(path)
    view = open_view(doc, path, 1, None)
    table = read_grid(TableGrid("camelot-lattice", x_edges, y_edges), view.words)
    outline = read_grid(TableGrid("pymupdf", x_edges + [760.0], y_edges), view.words)
    assert table is not None and outline is not None and outline.n_cols == 5
    chosen = select([table, outline])
    doc.close()
    assert len(chosen) == 1 and chosen[0].n_rows == 12


def test_a_candidate_is_judged_without_the_caption_under_it_and_the_references_after(tmp_path: Path) -> None:
    # A borderless reader that starts a table late holds its last two rows, the numbered caption under them and the
    # references after it: the candidate is scored on the rows alone (the references, read into its columns, would
    # sink a table of a few rows below the score of a table at all); the rows above are read back afterwards.
    doc = pymupdf.open()
    page = doc.new_page()
    xs = [100, 160, 220, 280, 340]
    y = 100.0
    for i in range(6):
        for x, text in zip(xs, [str(i // 2 + 1), str(i), str(i + 4), "abc"[i % 3], str(i % 2)], strict=True):
            page.insert_text((x, y), text, fontsize=10)
        y += 13
    tops = []
    for row in (["5", "1", "3", "b", "2"], ["5", "3", "11", "c", "2"]):
        tops.append(y - 10)
        for x, text in zip(xs, row, strict=True):
            page.insert_text((x, y), text, fontsize=10)
        y += 13
    tops.append(y + 2)
    page.insert_text((150, y + 12), "Table 4: A small data set.", fontsize=10)
    y += 38
    tops.append(y - 12)
    page.insert_text((72, y), "References", fontsize=12)
    y += 16
    for text in ("[1] A. Author. On the likelihood of censored data. J. Stat. Assoc., 72:557-565, 1977.",
                 "[2] B. Author and C. Author. Estimation of a survival curve. Comm. Stat., 13:2469-2486, 1984."):
        tops.append(y - 10)
        page.insert_text((72, y), text, fontsize=10)
        y += 12
    tops.append(y)
    path = _save(doc, tmp_path / "late_start.pdf")
    import core.ingest.extraction.extractor as extractor_module

    doc = pymupdf.open(path)
    try:
        with TableExtractor(path, doc) as extractor:
            extractor.camelot.grids = lambda *_a, **_k: [  # type: ignore[method-assign]
                TableGrid("camelot-stream", [70.0, 150.0, 210.0, 270.0, 330.0, 560.0], tops)]
            view = open_view(doc, path, 1, None)
            (draft,) = extractor._choose(view, extractor_module.FigureLayout(view.words), True)
            assert [[cell.text for cell in row] for row in draft.cells] == [["5", "1", "3", "b", "2"],
                                                                             ["5", "3", "11", "c", "2"]]
            (table,) = extractor.page_tables(1)
            assert table.caption.startswith("Table 4") and len(table.rows) == 8
    finally:
        doc.close()


def test_a_numbered_section_heading_and_lines_of_code_over_a_table_are_no_rows(tmp_path: Path) -> None:
    # a software manual's example: the section heading, the code that prints the table, then the table; the
    # heading's number stands in a column of its own and the code lines reach over the columns
    doc = pymupdf.open()
    page = doc.new_page()
    bottom = _prose(page, 80, 3)
    page.insert_text((90, bottom + 40), "2.7", fontsize=12)
    page.insert_text((200, bottom + 40), "Time series", fontsize=12)
    page.insert_text((90, bottom + 52), "series <- ts(cumsum(steps), start = c(1954, 7))", fontsize=FONT_SIZE)
    page.insert_text((90, bottom + 66), "data(steps)", fontsize=FONT_SIZE)
    _draw_borderless(page, _MONTHS_BY_YEAR, [90, 200, 250, 300, 350, 400], bottom + 80, row_height=18)
    _prose(page, bottom + 190, 3)
    (table,) = _tables(_save(doc, tmp_path / "section.pdf"))
    assert [list(r) for r in table.rows] == _MONTHS_BY_YEAR
    assert table.caption == "2.7 Time series"


_MONTHS_BY_YEAR = [["", "Jan", "Feb", "Mar", "Apr", "May"],
                   ["1955", "5", "5", "5", "5", "6"],
                   ["1956", "10", "13", "14", "15", "16"],
                   ["1957", "22", "23", "23", "23", "22"],
                   ["1958", "25", "26", "26", "26", "26"]]


def test_months_across_and_years_down_keep_one_header_row(tmp_path: Path) -> None:
    # "5" under "Jan" in a row labelled 1955 is a figure, not the day of a date split over two header lines
    doc = pymupdf.open()
    page = doc.new_page()
    bottom = _prose(page, 80, 3)
    _draw_borderless(page, _MONTHS_BY_YEAR, [90, 200, 250, 300, 350, 400], bottom + 30, row_height=18)
    _prose(page, bottom + 140, 3)
    (table,) = _tables(_save(doc, tmp_path / "months.pdf"))
    assert table.header_rows == 1 and [list(r) for r in table.rows] == _MONTHS_BY_YEAR


@pytest.mark.parametrize("raised", [True, False])
def test_the_notes_between_a_table_and_its_title_under_it_are_passed_over(tmp_path: Path, raised: bool) -> None:
    # a paper's table with its notes under it (each opened by a small raised number, or numbered "1." in the line),
    # and its title under them
    doc = pymupdf.open()
    page = doc.new_page()
    bottom = _prose(page, 80, 3)
    printed = [["Measure", "Start", "Step 1", "Step 2"],
               ["AIC", "1872.1", "407.6", "760.4"],
               ["BIC", "1882.8", "412.9", "781.7"],
               ["Deviance", "1868.1", "405.6", "752.4"]]
    end = _draw_borderless(page, printed, [72, 260, 330, 400], bottom + 30)
    for i, note in enumerate(("Not significant at the 5% level.", "No reduction by adding a variable.")):
        if raised:
            page.insert_text((72, end + 16 + 12 * i), str(i + 1), fontsize=5)
            page.insert_text((78, end + 19 + 12 * i), note, fontsize=9)
        else:
            page.insert_text((72, end + 19 + 12 * i), f"{i + 1}. {note}", fontsize=9)
    page.insert_text((72, end + 50), "Table 1: Summary of the model selection.", fontsize=FONT_SIZE)
    _prose(page, end + 90, 3)
    (table,) = _tables(_save(doc, tmp_path / "notes.pdf"))
    assert table.caption == "Table 1: Summary of the model selection."
    assert [list(r) for r in table.rows] == printed


def test_a_title_between_two_tables_titled_under_them_is_the_upper_ones(tmp_path: Path) -> None:
    # tables titled under themselves, one under the other: "Table 4" between them is the upper table's, as "Table 5"
    # under the lower one is its own (each table as a borderless reader finds it)
    from core.ingest.extraction.cleanup import caption_below_wins, find_caption, find_caption_below

    doc = pymupdf.open()
    page = doc.new_page()
    upper = [["Variable", "Estimate", "p-value"], ["Income", "0.02", "1.000"], ["Height", "0.01", "1.000"],
             ["Age", "-0.37", "0.092"]]
    lower = [["Levels compared", "Log odds", "p-value"], ["University - College", "-0.11", "0.999"],
             ["College - Upper", "-0.03", "1.000"], ["Upper - Lower", "0.59", "0.000"]]
    end = _draw_borderless(page, upper, [72, 300, 400], 100)
    page.insert_text((72, end + 14), "Table 4: Estimates of the first model.", fontsize=FONT_SIZE)
    second = end + 24
    end = _draw_borderless(page, lower, [72, 300, 400], second)
    page.insert_text((72, end + 14), "Table 5: Log odds ratios of the second model.", fontsize=FONT_SIZE)
    path = _save(doc, tmp_path / "stacked.pdf")
    doc = pymupdf.open(path)
    view = open_view(doc, path, 1, None)
    try:
        edges = [70.0, 250.0, 330.0, 410.0]
        top = read_grid(TableGrid("camelot-stream", edges, [100 + 15 * r for r in range(5)]), view.words)
        bottom = read_grid(TableGrid("camelot-stream", edges, [second + 15 * r for r in range(5)]), view.words)
        assert top is not None and bottom is not None
        top_box, bottom_box = top.text_rect(), bottom.text_rect()
        assert find_caption(bottom, view.words, [top_box]) == "Table 4: Estimates of the first model."
        assert caption_below_wins(bottom, view.words, view.page.rect, [top_box]) == \
            "Table 5: Log odds ratios of the second model."
        assert find_caption_below(top, view.words, view.page.rect, [bottom_box]) == \
            "Table 4: Estimates of the first model."
        assert caption_below_wins(top, view.words, view.page.rect, [bottom_box]) == ""
    finally:
        doc.close()


def test_a_check_mark_drawn_tall_stays_on_its_own_row(tmp_path: Path) -> None:
    # a sign set as a check mark in a larger size (TeX's radical "\u221a"; drawn here as "+", which the base fonts
    # have) reaches up into the line above from its row's baseline
    doc = pymupdf.open()
    page = doc.new_page()
    bottom = _prose(page, 80, 3)
    top = bottom + 30
    xs = [72, 260, 330, 400]
    for c, text in enumerate(["", "Start", "Step 1", "Step 2"]):
        page.insert_text((xs[c], top + 11), text, fontsize=FONT_SIZE)
    rows = [["Income", "+", "+", "-"], ["Height", "+", "-", "-"], ["Age", "-", "+", "+"], ["Region", "+", "+", "+"]]
    for r, row in enumerate(rows):
        baseline = top + 11 + 15 * (r + 1)
        page.insert_text((xs[0], baseline), row[0], fontsize=FONT_SIZE)
        for c, mark in enumerate(row[1:], start=1):
            page.insert_text((xs[c], baseline), mark, fontsize=2 * FONT_SIZE if mark == "+" else FONT_SIZE)
    doc.save(tmp_path / "marks.pdf")
    doc.close()
    doc = pymupdf.open(tmp_path / "marks.pdf")
    try:
        words = read_words(doc[0])
    finally:
        doc.close()
    head = max(w.y1 for w in words if w.text == "Start")
    marks = [w for w in words if w.text == "+"]
    assert len(marks) == 8 and all(w.y0 >= head for w in marks)
