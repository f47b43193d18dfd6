"""``stitch_tables`` on hand-made ``ExtractedTable`` values: which tables join and how."""

from __future__ import annotations

from dataclasses import replace

import pytest

from core.ingest.extraction import stitch_tables
from models.types import CellRef, ExtractedTable

pytestmark = pytest.mark.unit


def _table(page: int, rows: list[list[str]], header_rows: int = 1, top: float = 100.0,
           extractor: str = "pymupdf") -> ExtractedTable:
    cells = tuple(
        tuple(CellRef(r, c, page, (72.0 + 100 * c, top + 20 * r, 172.0 + 100 * c, top + 20 * (r + 1)))
              for c in range(len(row)))
        for r, row in enumerate(rows)
    )
    return ExtractedTable(
        page=page,
        bbox=(72.0, top, 72.0 + 100 * len(rows[0]), top + 20 * len(rows)),
        rows=tuple(tuple(row) for row in rows),
        header_rows=header_rows,
        cells=cells,
        extractor=extractor,
        pages=(page,),
    )


HEADER = ["Country", "Population"]


def test_repeated_header_on_next_page_joins_and_cells_keep_their_page() -> None:
    first = _table(1, [HEADER, ["France", "68"], ["Spain", "48"]])
    second = _table(2, [HEADER, ["Italy", "59"]], top=60, extractor="camelot-lattice")
    (joined,) = stitch_tables([second, first])
    assert joined.rows == (tuple(HEADER), ("France", "68"), ("Spain", "48"), ("Italy", "59"))
    assert joined.pages == (1, 2)
    assert joined.page == 1 and joined.header_rows == 1
    assert [ref.page for ref in (row[0] for row in joined.cells)] == [1, 1, 1, 2]
    assert [row[0].row for row in joined.cells] == [0, 1, 2, 3]
    assert joined.cells[3][0].bbox == second.cells[1][0].bbox
    assert joined.extractor == "pymupdf+camelot-lattice"


def test_three_pages_join_into_one() -> None:
    pages = [_table(p, [HEADER, [f"Row {p}", str(p)]]) for p in (1, 2, 3)]
    (joined,) = stitch_tables(pages)
    assert joined.pages == (1, 2, 3)
    assert [row[0] for row in joined.rows] == ["Country", "Row 1", "Row 2", "Row 3"]


@pytest.mark.parametrize(
    "second",
    [
        _table(2, [["Country", "Area"], ["Italy", "301"]]),  # different header text
        _table(2, [["Country", "Population", "Area"], ["Italy", "59", "301"]]),  # different width
        _table(3, [HEADER, ["Italy", "59"]]),  # not the next page
        _table(2, [["Italy", "59"], ["Greece", "10"]], header_rows=0),  # no header to repeat
    ],
)
def test_tables_that_do_not_continue_stay_apart(second: ExtractedTable) -> None:
    first = _table(1, [HEADER, ["France", "68"]])
    assert stitch_tables([first, second]) == [first, second]


def test_only_the_last_table_of_a_page_continues_onto_the_first_of_the_next() -> None:
    upper = _table(1, [HEADER, ["France", "68"]], top=100)
    lower = _table(1, [["Region", "Sales"], ["North", "5"]], top=400)
    below_other = _table(2, [["Note", "Value"], ["a", "1"]], top=60)
    continued = _table(2, [HEADER, ["Italy", "59"]], top=300)
    result = stitch_tables([continued, lower, upper, below_other])
    assert result == [upper, lower, below_other, continued]  # reading order, nothing joined


def _titled(page: int, caption: str, body: list[list[str]]) -> ExtractedTable:
    return replace(_table(page, [["Option", "Votes"], *body]), caption=caption)


def test_the_same_layout_under_titles_naming_other_units_is_one_table_keyed_by_them() -> None:
    pages = [_titled(1, "Table 3: Results, ward 1 - Millbrook", [["Yes", "40"], ["No", "12"]]),
             _titled(2, "Table 4: Results, ward 2 - Old Quay", [["Yes", "31"], ["No", "25"]])]
    (joined,) = stitch_tables(pages)
    assert joined.rows == (("Option", "Votes", "Results ward"), ("Yes", "40", "Results, ward 1 - Millbrook"),
                           ("No", "12", "Results, ward 1 - Millbrook"), ("Yes", "31", "Results, ward 2 - Old Quay"),
                           ("No", "25", "Results, ward 2 - Old Quay"))
    assert [row[2] for row in joined.cells] == [None] * 5  # the key comes from a title, not from a cell
    assert [row[0].page for row in joined.cells] == [1, 1, 1, 2, 2] and joined.pages == (1, 2)
    assert joined.caption == "Results, ward 1 - Millbrook, 2 - Old Quay"


def test_a_title_from_the_line_above_counts_like_a_caption() -> None:
    pages = [_table(1, [HEADER, ["France", "68"]]), _table(2, [HEADER, ["Italy", "59"]])]
    titles = {1: "Northern region", 2: "Southern region"}
    (joined,) = stitch_tables(pages, lambda table: titles[table.page])
    assert [row[-1] for row in joined.rows] == ["region", "Northern region", "Southern region"]


@pytest.mark.parametrize("second", [
    "Table 3: Results, ward 1 - Millbrook (continued)",  # the same table, continued
    "Table 3: Results (continued). TOWN HALL REPORT",  # its number said again, and the page's running head
    "",  # no title of its own
    "Heavy metals",  # titles that share nothing name no units of one kind
    "Results, ward 1 - Millbrook, page 2",
])
def test_a_continuation_stays_a_continuation(second: str) -> None:
    pages = [_titled(1, "Table 3: Results, ward 1 - Millbrook", [["Yes", "40"]]), _titled(2, second, [["No", "12"]])]
    (joined,) = stitch_tables(pages)
    assert joined.rows == (("Option", "Votes"), ("Yes", "40"), ("No", "12"))


def test_running_headers_that_count_the_pages_are_no_family() -> None:
    pages = [_titled(1, "Annual digest 1", [["Yes", "40"]]), _titled(2, "Annual digest 2", [["No", "12"]])]
    (joined,) = stitch_tables(pages)
    assert joined.n_cols == 2


def test_a_section_said_continued_over_another_table_of_it_is_still_a_family() -> None:
    pages = [_titled(1, "4. Other assets and liabilities. Other assets were:", [["Yes", "40"]]),
             _titled(2, "4. Other assets and liabilities (continued). Other liabilities were:", [["No", "12"]])]
    (joined,) = stitch_tables(pages)
    assert joined.n_cols == 3 and joined.rows[1][2] != joined.rows[2][2], joined.rows


def test_tables_of_one_layout_numbered_apart_are_two_tables() -> None:
    pages = [_titled(1, "Table 6: Ballots cast at the spring vote", [["Yes", "40"]]),
             _titled(2, "Table 7: Postal forms returned unsigned", [["No", "12"]])]
    assert [t.rows for t in stitch_tables(pages)] == [(("Option", "Votes"), ("Yes", "40")),
                                                       (("Option", "Votes"), ("No", "12"))]


def test_a_table_of_one_layout_under_another_heading_on_the_next_page_is_another_table() -> None:
    """Two results tables of one layout on consecutive pages: the same sub-columns ("Single", "2", "5"), but "Error
    (%)" over the first and "Power (%)" over the second; a continuation that repeats its heading with "(continued)"
    still joins."""
    first = _table(1, [["Model", "Error (%)", "Error (%)"], ["", "Single", "Pooled"], ["Linear", "4.6", "1.6"]], 2)
    other = _table(2, [["Model", "Power (%)", "Power (%)"], ["", "Single", "Pooled"], ["Linear", "94.6", "90.4"]], 2,
                   top=60)
    assert len(stitch_tables([first, other])) == 2
    more = _table(2, [["Model", "Error (%) (continued)", "Error (%) (continued)"], ["", "Single", "Pooled"],
                      ["Cubic", "5.2", "2.0"]], 2, top=60)
    (joined,) = stitch_tables([first, more])
    assert [row[0] for row in joined.rows] == ["Model", "", "Linear", "Cubic"]
