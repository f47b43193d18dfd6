"""The report builder draws what it says it drew: text where the placements say, rules only on ruled
tables, right-aligned numbers, repeated headers on continuation pages, deterministic synthetic reports."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pymupdf
import pytest

from tests.support.report_builder import (
    BuildResult,
    Heading,
    PlacedTable,
    Section,
    TableSpec,
    build_generated_report,
    build_report,
)

pytestmark = pytest.mark.unit

REPO = Path(__file__).resolve().parents[2]

BUDGET = TableSpec(
    caption="Table 1: Budget by department ($ thousands)",
    header=[["", "Years ended June 30,", ""], ["Department", "2024", "2023"]],
    rows=[["Roads and Transport", "51,870", "48,250"], ["Libraries and Culture", "(1,380)", "6,410"],
          ["Emergency Management", "\u2014", "4,390"], ["Total", "50,490", "59,050"]],
    ruled=True,
)
STAFF = TableSpec(
    caption="Table 2: Staff by region",
    header=[["Region", "Staff", "Share"]],
    rows=[["North", "120", "40.0%"], ["South", "180", "60.0%"]],
    ruled=False,
)


def clip_text(page: pymupdf.Page, box: tuple[float, float, float, float]) -> str:
    return " ".join(page.get_text("text", clip=pymupdf.Rect(box)).split())


def words_in(page: pymupdf.Page, box: tuple[float, float, float, float]) -> list[tuple[float, ...]]:
    rect = pymupdf.Rect(box)
    return [w for w in page.get_text("words") if pymupdf.Rect(w[:4]).intersects(rect)]


def drawn_lines(page: pymupdf.Page) -> list[tuple[pymupdf.Point, pymupdf.Point]]:
    return [(item[1], item[2]) for d in page.get_drawings() for item in d["items"] if item[0] == "l"]


def assert_cells_hold_their_text(doc: pymupdf.Document, table: PlacedTable) -> None:
    for row in table.rows:
        source = table.spec.header[row.index] if row.is_header else table.spec.rows[row.index]
        page = doc[row.page - 1]
        for text, box, span in zip(source, row.cells, row.spans or [1] * len(source)):
            if span:
                assert clip_text(page, box) == " ".join(text.split()), (row, text)


@pytest.fixture
def small_report(tmp_path: Path) -> BuildResult:
    blocks = [
        ("An opening paragraph that is long enough to wrap onto a second line of the page, so that the "
        "wrapping code has something to do before the first heading arrives."),
        Section("1. Money", paragraphs=["What the council spent."], tables=[BUDGET]),
        Heading("2. People", level=2),
        STAFF,
        "A closing paragraph.",
    ]
    return build_report(tmp_path / "small.pdf", "Small Report", blocks, running_header="Small Report 2024")


def test_build_report_places_text_and_cells_where_it_says(small_report: BuildResult) -> None:
    assert small_report.path.is_file()
    with pymupdf.open(small_report.path) as doc:
        assert doc.page_count == small_report.page_count == 1
        assert doc.metadata["title"] == "Small Report"
        for table in small_report.tables:
            assert_cells_hold_their_text(doc, table)
        page = doc[0]
        for text in small_report.texts:
            assert " ".join(text.text.split()) in clip_text(page, text.bbox)
    kinds = [(t.kind, t.text) for t in small_report.texts if t.kind in ("title", "heading", "caption")]
    assert kinds == [("title", "Small Report"), ("heading", "1. Money"), ("caption", BUDGET.caption),
                     ("heading", "2. People"), ("caption", STAFF.caption)]
    assert {t.kind for t in small_report.texts} >= {"running_header", "page_number", "paragraph"}


def test_numbers_are_right_aligned_and_labels_left_aligned(small_report: BuildResult) -> None:
    budget = small_report.tables[0]
    with pymupdf.open(small_report.path) as doc:
        page = doc[0]
        for row in budget.body_rows:
            label_box, *number_boxes = row.cells
            label_words = words_in(page, label_box)
            assert label_words[0][0] - label_box[0] < 6  # starts at the left edge
            for box in number_boxes:
                words = words_in(page, box)
                if words:
                    assert box[2] - max(w[2] for w in words) < 6  # ends at the right edge
                    assert min(w[0] for w in words) - box[0] > 10


def test_ruled_tables_have_borders_and_borderless_none(small_report: BuildResult) -> None:
    budget, staff = small_report.tables
    with pymupdf.open(small_report.path) as doc:
        lines = drawn_lines(doc[0])
    ruled_box = pymupdf.Rect(budget.bbox_on(1)) + (-1, -1, 1, 1)
    horizontal_ys = [a.y for a, b in lines if abs(a.y - b.y) < 0.01 and ruled_box.contains(a)]
    vertical_xs = [a.x for a, b in lines if abs(a.x - b.x) < 0.01 and ruled_box.contains(a)]

    def drawn(value: float, at: list[float]) -> bool:
        return any(abs(value - v) < 0.2 for v in at)

    for row in budget.rows:
        assert drawn(row.bbox[1], horizontal_ys) and drawn(row.bbox[3], horizontal_ys)
    for x0, _, x1, _ in budget.body_rows[0].cells:
        assert drawn(x0, vertical_xs) and drawn(x1, vertical_xs)
    borderless = pymupdf.Rect(staff.bbox_on(1))
    assert not [pair for pair in lines if borderless.intersects(pymupdf.Rect(pair[0], pair[1]) + (-1, -1, 1, 1))]


def test_upper_header_cell_spans_the_blank_cells_after_it(small_report: BuildResult) -> None:
    top = small_report.tables[0].rows[0]
    assert top.is_header and top.index == 0
    assert top.spans == (1, 2, 0)
    assert top.cells[1][0] == top.cells[1][0] and top.cells[1][2] == top.cells[2][2]  # one box over both years
    with pymupdf.open(small_report.path) as doc:
        words = words_in(doc[0], top.cells[1])
    middle = (top.cells[1][0] + top.cells[1][2]) / 2
    assert abs((min(w[0] for w in words) + max(w[2] for w in words)) / 2 - middle) < 2  # centred


def test_long_table_continues_under_a_repeated_header(tmp_path: Path) -> None:
    rows = [[f"Project {n}", f"{n * 1_000:,}", f"({n * 7:,})", f"{n % 100}.5%"] for n in range(1, 121)]
    spec = TableSpec("Table 9: Capital projects ($ thousands)", [["Project", "Budget", "Variance", "Share"]], rows)
    result = build_report(tmp_path / "long.pdf", "Long", ["Intro.", spec], page_numbers=True)
    (table,) = result.tables
    assert result.page_count >= 3
    assert table.pages == tuple(range(1, result.page_count + 1))
    assert [r.index for r in table.body_rows] == list(range(120))  # every row once, in order
    headers = [r for r in table.rows if r.is_header]
    assert [r.page for r in headers] == list(table.pages)
    assert [r.repeated for r in headers] == [False] + [True] * (len(table.pages) - 1)
    with pymupdf.open(result.path) as doc:
        assert_cells_hold_their_text(doc, table)
        for page_number in table.pages[1:]:
            page = doc[page_number - 1]
            header = next(r for r in headers if r.page == page_number)
            first_body = next(r for r in table.body_rows if r.page == page_number)
            assert header.bbox[3] <= first_body.bbox[1] + 0.01  # the header sits above the page's rows
            assert "(continued)" in page.get_text()
            assert f"Page {page_number}" in page.get_text()
    on_page = {p: [r for r in table.body_rows if r.page == p] for p in table.pages}
    assert all(on_page.values())


def test_a_short_table_moves_whole_to_the_next_page(tmp_path: Path) -> None:
    filler = ["Filler text for the page. " * 30] * 5
    spec = TableSpec("Table 1: Short", [["Item", "Value"]], [[f"Item {n}", str(n)] for n in range(12)])
    result = build_report(tmp_path / "short.pdf", "Short", [*filler, spec])
    (table,) = result.tables
    assert len(table.pages) == 1
    assert table.caption_page == table.pages[0]


def test_unicode_report_text_survives(tmp_path: Path) -> None:
    spec = TableSpec("Table 1: Costs (\u20ac millions)", [["Item", "2024"]],
                     [["Caf\u00e9 \u2014 na\u00efve", "\u22125.0"], ["Total \u2019000", "1\u2009234"]], ruled=False)
    result = build_report(tmp_path / "unicode.pdf", "R\u00e9sum\u00e9 \u2014 2024", [spec])
    with pymupdf.open(result.path) as doc:
        text = doc[0].get_text()
    for expected in ("R\u00e9sum\u00e9 \u2014 2024", "\u20ac millions", "Caf\u00e9 \u2014 na\u00efve", "\u22125.0"):
        assert expected in text


def test_column_widths_are_relative_weights(tmp_path: Path) -> None:
    spec = TableSpec("", [["A", "B"]], [["1", "2"]], col_widths=[3, 1])
    (table,) = build_report(tmp_path / "w.pdf", "", [spec]).tables
    (a0, _, a1, _), (b0, _, b1, _) = table.rows[0].cells
    assert (a1 - a0) == pytest.approx(3 * (b1 - b0))


def test_generated_report_is_deterministic_and_exactly_as_long_as_asked(tmp_path: Path) -> None:
    first = build_generated_report(tmp_path / "a.pdf", 6, seed=3)
    again = build_generated_report(tmp_path / "b.pdf", 6, seed=3)
    other = build_generated_report(tmp_path / "c.pdf", 6, seed=4)
    assert first.page_count == 6
    with pymupdf.open(first.path) as doc:
        assert doc.page_count == 6
    assert [t.spec for t in first.tables] == [t.spec for t in again.tables]
    assert [(t.kind, t.text, t.page) for t in first.texts] == [(t.kind, t.text, t.page) for t in again.texts]
    assert [t.spec for t in first.tables] != [t.spec for t in other.tables]
    for pages in (1, 2, 11):
        assert build_generated_report(tmp_path / f"n{pages}.pdf", pages, seed=pages).page_count == pages


def test_generated_report_has_report_like_tables(tmp_path: Path) -> None:
    result = build_generated_report(tmp_path / "gen.pdf", 14, seed=5)
    specs = [t.spec for t in result.tables]
    cells = [c for s in specs for row in s.rows for c in row]
    assert any(s.ruled for s in specs) and any(not s.ruled for s in specs)
    assert any(len(s.header) > 1 for s in specs)  # a spanning "Years ended ..." header
    assert any(c.startswith("(") and c.endswith(")") for c in cells)  # negatives in parentheses
    assert any(c.endswith("%") for c in cells)
    assert any("," in c and c.replace(",", "").isdigit() for c in cells)  # thousands separators
    assert any("thousands" in s.caption or "millions" in s.caption for s in specs)
    assert [s.caption.split(":")[0] for s in specs] == [f"Table {n}" for n in range(1, len(specs) + 1)]
    with pymupdf.open(result.path) as doc:
        for table in result.tables:
            assert_cells_hold_their_text(doc, table)


def test_pymupdf_finds_the_ruled_grid(tmp_path: Path) -> None:
    """A real table finder sees the ruled table as drawn: same rows, same columns, same cell text."""
    result = build_report(tmp_path / "grid.pdf", "Grid", [BUDGET])
    (placed,) = result.tables
    with pymupdf.open(result.path) as doc:
        page = doc[0]
        found = page.find_tables(strategy="lines").tables
        assert len(found) == 1
        grid = found[0]
        assert grid.row_count == len(placed.rows)
        assert grid.col_count == BUDGET.n_cols
        body = [[clip_text(page, c) for c in row.cells] for row in grid.rows[2:]]
    assert body == [[" ".join(c.split()) for c in row] for row in BUDGET.rows]


def test_sample_report_script_regenerates_the_shipped_file(tmp_path: Path) -> None:
    spec = importlib.util.spec_from_file_location("make_sample_report", REPO / "packaging" / "make_sample_report.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    result = module.build(tmp_path / "sample.pdf")
    assert 3 <= result.page_count <= 4
    assert len(result.tables) == 4
    budget = result.tables[0].spec
    total = next(row for row in budget.rows if row[0] == "Total")
    assert total[2] == f"{sum(after for _, _, after in module.BUDGET):,}"
    shipped = REPO / "resources" / "sample_report.pdf"
    assert shipped.is_file(), "run: python packaging/make_sample_report.py"
    with pymupdf.open(shipped) as old, pymupdf.open(result.path) as new:
        assert [p.get_text() for p in old] == [p.get_text() for p in new], "sample_report.pdf is out of date"
