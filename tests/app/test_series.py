"""Is an answer a series? The chart read from the SQL result an answer cites: a line across periods, bars for
several lines of one period or a ranking, every point tied to the cell it was read from; a single figure, text
or a refusal makes none."""

from __future__ import annotations

import pytest

from app.series import answer_chart, chart_values, citation_chart, column_label, point_citation
from models.types import Answer, CellEvidence, Citation

pytestmark = pytest.mark.unit

TABLE = "harbour_p1_statement_of_income"


def cell(row: int, column: str, text: str) -> CellEvidence:
    return CellEvidence(TABLE, row, column, text, 1, (100.0 + 10 * row, 50.0, 140.0 + 10 * row, 60.0))


def citation(columns: tuple[str, ...], result: tuple[tuple[object, ...], ...],
             cells: tuple[CellEvidence, ...] = ()) -> Citation:
    return Citation("table", "harbour.pdf", 1, 1, None, "", table=TABLE, sql="SELECT ...", columns=columns,
                    result=result, cells=cells, label="Harbour Foods, p. 1, Statement of income")


def test_one_line_across_periods_is_a_line_with_each_point_on_its_cell() -> None:
    cells = (cell(1, "y2019", "4,512.6"), cell(1, "y2018", "4,108.3"), cell(1, "y2017", "3,902.0"))
    answer = Answer("q", "Revenue ...", (citation(("_row", "item", "y2019", "y2018", "y2017"),
                                                  ((1, "Revenue", 4512.6, 4108.3, 3902.0),), cells),))
    chart = answer_chart(answer, {TABLE: {"y2019": "2019", "y2018": "2018"}}, {TABLE: "$ millions"})
    assert chart is not None and chart.kind == "line" and chart.unit == "$ millions"
    # Oldest first, though the report prints its newest year first.
    assert chart_values(chart) == [("Revenue", "2017", 3902.0), ("Revenue", "2018", 4108.3),
                                   ("Revenue", "2019", 4512.6)]
    assert [p.cell for p in chart.points] == list(reversed(cells))
    narrowed = point_citation(answer, chart.points[1])
    assert narrowed.cells == (cells[1],) and narrowed.sql == "SELECT ..."
    assert narrowed.snippet == "Revenue, 2018: 4,108.3"


def test_several_lines_of_one_period_are_bars_negative_figures_kept() -> None:
    result = ((1, "Revenue", 4512.6), (2, "Cost of sales", -2731.4), (6, "Net income (loss)", -35.8))
    cells = tuple(cell(r[0], "y2019", str(r[2])) for r in result)  # type: ignore[arg-type]
    chart = citation_chart(citation(("_row", "item", "y2019"), result, cells), 1)
    assert chart is not None and chart.kind == "bar"
    assert chart_values(chart) == [("2019", "Revenue", 4512.6), ("2019", "Cost of sales", -2731.4),
                                   ("2019", "Net income (loss)", -35.8)]
    assert chart.points[2].cell == cells[2]


def test_a_ranking_written_as_free_sql_finds_its_cells_by_position() -> None:
    result = (("Roads", 2650), ("Parks", 1350), ("Libraries", 820))
    cells = (cell(2, "y2024", "2,650"), cell(1, "y2024", "1,350"), cell(3, "y2024", "820"))
    chart = citation_chart(citation(("department", "y2024"), result, cells), 2)
    assert chart is not None and chart.kind == "bar" and [p.label for p in chart.points] == ["Roads", "Parks", "Libraries"]
    assert [p.cell for p in chart.points] == list(cells) and {p.citation for p in chart.points} == {2}


def test_rows_across_periods_are_several_lines_and_a_year_column_labels_rows() -> None:
    two = citation(("_row", "item", "y2019", "y2018"), ((1, "Revenue", 4512.6, 4108.3), (3, "Gross profit", 1781.2, 1609.4)))
    chart = citation_chart(two, 1)
    assert chart is not None and chart.kind == "line" and [s.name for s in chart.series] == ["Revenue", "Gross profit"]
    by_year = citation_chart(citation(("year", "revenue"), ((2017, 3902.0), (2018, 4108.3), (2019, 4512.6))), 1)
    assert by_year is not None and by_year.kind == "line"
    assert chart_values(by_year) == [("revenue", "2017", 3902.0), ("revenue", "2018", 4108.3), ("revenue", "2019", 4512.6)]


@pytest.mark.parametrize("columns, result", [
    (("sum",), ((4000,),)),  # one computed figure
    (("_row", "item", "y2019"), ((1, "Revenue", 4512.6),)),  # one cell looked up
    (("item", "note"), (("Revenue", "grew"), ("Cost", "fell"))),  # no figures
    ((), ()),
])
def test_what_is_not_a_series_makes_no_chart(columns: tuple[str, ...], result: tuple[tuple[object, ...], ...]) -> None:
    assert citation_chart(citation(columns, result), 1) is None


def test_a_refusal_and_text_sources_make_no_chart() -> None:
    series = citation(("_row", "item", "y2019", "y2018"), ((1, "Revenue", 4512.6, 4108.3),))
    assert answer_chart(Answer("q", "Not found", (series,), status="refused")) is None
    text = Citation("text", "harbour.pdf", 1, 1, None, "Revenue grew")
    chart = answer_chart(Answer("q", "...", (text, series)))
    assert chart is not None and chart.points[0].citation == 2


def test_columns_are_named_by_their_printed_headers() -> None:
    assert column_label("y2019", {"y2019": "Year ended  2019"}) == "Year ended 2019"
    assert column_label("y2019", {}) == "2019" and column_label("fy_2020", {}) == "2020"
    assert column_label("plan_total", {}) == "plan total"
