"""Structured operations: hints from obvious words, the enums the model is held to, newer-minus-older,
compilation to SQL that computes the right number over the real table, and scale-aware formatting."""

from __future__ import annotations

from contextlib import closing
from dataclasses import replace
from pathlib import Path

import pytest

from core.answering import operations as ops
from core.answering.reading import read
from core.reports.values import scale_stated_in
from core.sql.runner import SqlRunner
from tests.core.answering.test_answering_library import TABLE_NAME, ReportFixture, report  # noqa: F401
from tests.core.answering.test_table_units import drawn_library

pytestmark = pytest.mark.unit


@pytest.mark.parametrize(("question", "hint"), [
    ("What was the percentage change in rent from 2020 to 2021?", "percent_change"),
    ("What was the change in Sundry in 2021 from 2020?", "difference"),
    ("What is the average Non-recurring charges for 2020 and 2021?", "average"),
    ("What is the sum of roads and parks in 2019?", "sum"),
    ("How many departments spent more than 100 million?", "count"),
    ("How many departments are listed?", "count"),
    ("Which year had the highest revenue?", "max"),
    ("Between year ended 2020 and 2021, which year had higher total licence income?", "max"),
    ("Which year had lower costs, 2018 or 2019?", "min"),
    ("Which department's budget grew the most from 2023 to 2024?", "top_row"),
    ("Which department spent the least in 2019?", "bottom_row"),
    ("What was the special dividend per unit in 2021?", None),
])
def test_operation_hints(question: str, hint: str | None) -> None:
    assert read(question).operation == hint, read(question).describe()


def test_total_in_a_row_label_is_not_a_sum_hint() -> None:
    assert read("What is the amount of total shipments in 2021?").operation is None
    assert read("What is the total of fixed price and other sales?").operation == "sum"


@pytest.mark.parametrize(("value", "scale", "text"), [
    (10.5, "million", "10.5 million"), (-12.6000001, "million", "-12.6 million"), (4.5549, "%", "4.55%"),
    (200, "", "200"), (1452.40, "thousand", "1,452.4 thousand"), (None, "", ""), ("Roads", "million", "Roads"),
])
def test_format_value(value: object, scale: str, text: str) -> None:
    assert ops.format_value(value, scale) == text


@pytest.mark.parametrize(("unit", "scale"), [("$ million", "million"), ("percent", "%"), ("$", ""), ("", "")])
def test_scale_of(unit: str, scale: str) -> None:
    assert ops.scale_of(unit) == scale


def test_schema_enums_are_real_labels_and_columns(report: ReportFixture) -> None:  # noqa: F811
    info = report.library.table(TABLE_NAME)
    assert info is not None
    view = ops.load_table_view(report.library, info)
    assert [r.label for r in view.rows] == ["Roads", "Parks", "Schools", "Libraries", "Total"]
    assert [r.row for r in view.rows] == [1, 2, 3, 4, 5]
    assert view.label_column is not None and view.label_column.name == "department"
    short = view.row_choices("how much did schools get", limit=2)
    assert [r.label for r in short] == ["Roads", "Schools"]  # best overlap (then first rows), in table order
    schema = ops.operation_schema(view, view.rows, view.data_columns)
    assert schema["properties"]["operation"]["enum"] == list(ops.OPERATIONS)


def choose(report: ReportFixture, operation: str, cells: list[tuple[str, str]],  # noqa: F811
           question: str) -> tuple[ops.TableView, ops.OperationChoice]:
    """The report's table as the operation step sees it, and the model's choice parsed against it."""
    info = report.library.table(TABLE_NAME)
    assert info is not None
    view = ops.load_table_view(report.library, info)
    data = {"operation": operation, "cells": [{"row": r, "column": c} for r, c in cells]}
    return view, ops.parse_choice(view, data, question)


@pytest.mark.parametrize(("operation", "cells", "expected", "text"), [
    ("sum", [("Roads", "y2019"), ("Parks", "y2019")], 200.5, "200.5 million"),
    ("difference", [("Schools", "y2018"), ("Schools", "y2019")], 20.25, "20.25 million"),  # reordered
    ("percent_change", [("Parks", "y2019"), ("Parks", "y2018")], 5.960264900662252, "5.96%"),
    ("average", [("Roads", "y2019"), ("Roads", "y2018")], 115.25, "115.25 million"),
    ("ratio", [("Schools", "y2019"), ("Total", "y2019")], 300.25 / 500.75, "0.6"),
    ("percentage", [("Schools", "y2019"), ("Total", "y2019")], 300.25 * 100 / 500.75, "59.96%"),
    ("max", [("Roads", "y2019"), ("Parks", "y2019"), ("Schools", "y2019")], 300.25, "300.25 million"),
    ("min", [("Roads", "y2018"), ("Parks", "y2018")], 75.5, "75.5 million"),
])
def test_compiled_sql_computes_over_the_table(report: ReportFixture, operation: str,  # noqa: F811
                                              cells: list[tuple[str, str]], expected: float, text: str) -> None:
    view, choice = choose(report, operation, cells, "question")
    result = report.runner.run(ops.compile_sql(view, choice))
    assert result.rows[0][0] == pytest.approx(expected)
    assert ops.describe_result(view, choice, result.columns, result.rows) == text


def test_every_operation_in_the_registry_runs_and_is_worded(report: ReportFixture) -> None:  # noqa: F811
    """One record per operation is all it takes: each one the model may choose compiles to SQL that runs over
    the real table and gives a sentence naming what it read; "none" computes nothing."""
    cells = {"two": [("Schools", "y2019"), ("Schools", "y2018")], "cells": [("Roads", "y2019"), ("Parks", "y2019")],
             "columns": [("Roads", "y2019"), ("Roads", "y2018")]}
    for name, operation in ops.OPERATIONS.items():
        if name == "none":
            view, choice = choose(report, name, [], "q")
            with pytest.raises(ops.InvalidChoice):
                ops.compile_sql(view, choice)
            continue
        view, choice = choose(report, name, cells[operation.operands], "question")
        result = report.runner.run(ops.compile_sql(view, choice))
        sentence = ops.describe_in_words(view, choice, result.columns, result.rows)
        assert result.rows and sentence, name
        assert ("Schools" in sentence or "Roads" in sentence or "Parks" in sentence
                or "2019" in sentence), (name, sentence)
    assert ops.COMPUTING == {"difference", "percent_change", "sum", "average", "ratio", "percentage", "count",
                             "top_row", "bottom_row"}
    assert ops.NEW_FIGURES == {"difference", "percent_change", "sum", "average", "ratio", "percentage", "product"}


def test_a_count_of_one_cell_is_that_cell_s_figure(report: ReportFixture) -> None:  # noqa: F811
    """"How much did parks get": counting the one cell that says it gives 1, never an answer; its figure is."""
    view, choice = choose(report, "count", [("Parks", "y2019")], "How much did parks get in 2019?")
    result = report.runner.run(ops.compile_sql(view, choice))
    assert choice.operation == "lookup"
    assert ops.describe_result(view, choice, result.columns, result.rows) == "80 million"
    view, choice = choose(report, "count", [("Parks", "y2019"), ("Roads", "y2019")], "q")
    assert choice.operation == "count"  # several cells: how many of them hold a figure, as chosen


def test_lookup_returns_the_cells_with_scale(report: ReportFixture) -> None:  # noqa: F811
    info = report.library.table(TABLE_NAME)
    assert info is not None
    view = ops.load_table_view(report.library, info)
    choice = ops.parse_choice(view, {"operation": "lookup", "cells": [
        {"row": "Parks", "column": "y2018"}, {"row": "Roads", "column": "y2019"}]}, "q")
    result = report.runner.run(ops.compile_sql(view, choice))
    assert ops.describe_result(view, choice, result.columns, result.rows) == "75.5 million and 120.5 million"
    assert ops.join_values(["1,164,000", "", "1,609,000", "2,000"]) == "1,164,000; 1,609,000; 2,000"


@pytest.mark.parametrize(("data", "message"), [
    ({"operation": "divide", "cells": []}, "Unknown operation"),
    ({"operation": "sum", "cells": [{"row": "Bridges", "column": "y2019"}]}, "no row labelled"),
    ({"operation": "sum", "cells": [{"row": "Roads", "column": "y2020"}]}, "no column named"),
    ({"operation": "sum", "cells": []}, "No cells"),
    ({"operation": "difference", "cells": [{"row": "Roads", "column": "y2019"}]}, "exactly two"),
])
def test_invalid_choices_are_explained(report: ReportFixture, data: dict, message: str) -> None:  # noqa: F811
    info = report.library.table(TABLE_NAME)
    assert info is not None
    view = ops.load_table_view(report.library, info)
    with pytest.raises(ops.InvalidChoice, match=message):
        ops.parse_choice(view, data, "q")


@pytest.mark.parametrize(("text", "scale"), [
    ("52 weeks ended 30 Mar 2019 £m", "million"), ("$'000", "thousand"), ("(in millions)", "million"),
    ("The following summarizes our obligations (in thousands):", "thousand"), ("US$bn", "billion"),
    ("the domestic income tax rate of 19.0%", ""), ("Revenue by segment", ""),
])
def test_scale_stated_in_headers_and_intro_lines(text: str, scale: str) -> None:
    assert scale_stated_in(text) == scale


def test_cell_scale_follows_the_printed_cell(report: ReportFixture) -> None:  # noqa: F811
    info = report.library.table(TABLE_NAME)
    assert info is not None
    # A column typed percent because most of its cells are, and a table without a unit of its own.
    columns = tuple(replace(c, unit="percent") if c.type == "REAL" else c for c in info.schema.columns)
    info = replace(info, unit="", schema=replace(info.schema, columns=columns, unit=""))
    view = replace(ops.load_table_view(report.library, info), page_scale="million")
    view.printed[(1, 1)] = "12.5%"
    assert view.cell_scale(1, "y2019") == "%"
    assert view.cell_scale(2, "y2019") == "million"  # printed "80.0": no percent sign


@pytest.mark.parametrize(("operation", "cells", "winner", "text"), [
    ("top_row", [("Parks", "y2019")], "Schools", "Schools (300.25 million)"),  # Total is not a contender
    ("top_row", [("Roads", "y2018"), ("Roads", "y2019")], "Schools", "Schools (change 20.25 million)"),
    ("bottom_row", [("Roads", "y2019")], "Parks", "Parks (80 million)"),  # Libraries' blank 2019 is skipped
    ("bottom_row", [("Parks", "y2019"), ("Roads", "y2018")], "Parks", "Parks (change 4.5 million)"),
])
def test_rankings_compare_every_row_but_totals(report: ReportFixture, operation: str,  # noqa: F811
                                               cells: list[tuple[str, str]], winner: str, text: str) -> None:
    view, choice = choose(report, operation, cells, "Which department grew most from 2018 to 2019?")
    sql = ops.compile_sql(view, choice)
    total_row = next(r.row for r in view.rows if r.label == "Total")
    compared = sql.split("_row IN (")[1].split(")")[0].split(", ")
    assert str(total_row) not in compared and len(compared) == len(view.rows) - 1
    result = report.runner.run(sql)
    assert result.rows[0][1] == winner
    assert ops.describe_result(view, choice, result.columns, result.rows) == text
    used = ops.cells_used(choice, result.rows)
    winner_row = next(r.row for r in view.rows if r.label == winner)
    assert used and all(row == winner_row for row, _ in used)
    assert {column for _, column in used} == {c for _, c in cells}


def _stored_table(tmp_path, hash_embedder, rows):  # type: ignore[no-untyped-def]
    from pathlib import Path

    from core.library.store import DocumentWriter, Library
    from models.types import ColumnSchema

    library = Library(Path(tmp_path) / "lib.sqlite3")
    writer = DocumentWriter(library.conn, hash_embedder)
    library.conn.execute("BEGIN IMMEDIATE")
    doc = writer.add_document("a" * 64, Path("r.pdf"), "R", 1, 1)
    columns = [ColumnSchema("country", "TEXT", ""), ColumnSchema("y2019", "REAL", "2019"), ColumnSchema("y2018", "REAL", "2018")]
    writer.add_table(doc, "revenue", page=1, last_page=1, bbox=(0, 0, 1, 1), caption="", heading="", unit="",
                     header_rows=1, extractor="test", columns=columns, rows=rows,
                     row_indices=list(range(1, len(rows) + 1)), cells=[], schema_json={})
    library.conn.execute("COMMIT")
    return library, library.table("revenue")


def test_an_unlabeled_row_that_sums_the_rows_above_is_named_total(tmp_path, hash_embedder) -> None:  # type: ignore[no-untyped-def]
    library, info = _stored_table(tmp_path, hash_embedder, [
        (None, 2019.0, 2018.0), ("Canada", 100.0, 90.5), ("United States", 1079.5, 1000.0), ("Rest of World", 20.0, None),
        (None, 1199.6, 1090.0),  # printed rounded: 1,199.5 and 1,090.5 add up to these within a unit
        (None, 5.0, 7.0),
    ])
    view = ops.load_table_view(library, info)
    assert [r.label for r in view.rows] == ["the 1st row (2019 2019, 2018 2018)", "Canada", "United States",
                                            "Rest of World", "Total", "the 6th row (2019 5, 2018 7)"]
    assert [r.labelled for r in view.rows] == [False, True, True, True, True, False]


def test_a_row_without_a_label_is_named_by_a_column_that_names_rows(tmp_path, hash_embedder) -> None:  # type: ignore[no-untyped-def]
    from pathlib import Path

    from core.library.store import DocumentWriter, Library
    from models.types import ColumnSchema

    library = Library(Path(tmp_path) / "lib.sqlite3")
    writer = DocumentWriter(library.conn, hash_embedder)
    library.conn.execute("BEGIN IMMEDIATE")
    doc = writer.add_document("b" * 64, Path("t.pdf"), "T", 1, 1)
    columns = [ColumnSchema("year", "INTEGER", "Year"), ColumnSchema("votes", "INTEGER", "Votes cast")]
    writer.add_table(doc, "turnout", page=1, last_page=1, bbox=(0, 0, 1, 1), caption="", heading="", unit="",
                     header_rows=1, extractor="test", columns=columns, rows=[(2019, 1200), (2023, 1450)],
                     row_indices=[1, 2], cells=[], schema_json={})
    library.conn.execute("COMMIT")
    view = ops.load_table_view(library, library.table("turnout"))
    assert view.label_column is None
    assert [r.label for r in view.rows] == ["Year 2019", "Year 2023"]
    choice = ops.OperationChoice("top_row", (ops.CellChoice(1, "Year 2019", "votes"),))
    result = library.conn.execute(ops.compile_sql(view, choice)).fetchall()
    sentence = ops.describe_result(view, choice, ["_row", "label", "value"], result)
    assert sentence == "Year 2023 (1,450)", sentence
    worded = ops.describe_in_words(view, choice, ["_row", "label", "value"], result)
    assert worded.startswith("Year 2023 has the highest Votes cast: 1,450"), worded


def test_a_count_of_cells_that_count_what_is_asked_adds_them_up(tmp_path: Path) -> None:
    """"How many burglaries from 2019 through 2021" over a Burglary column's yearly cells: their figures are the
    count asked (added up); "in how many years" counts the cells."""
    rows = [["Offence", "Burglary", "Arson"], ["Reported 2019", "120", "4"], ["Reported 2020", "98", "7"],
            ["Reported 2021", "143", "2"]]
    with closing(drawn_library(tmp_path, "Table 4: Offences reported to the county police", rows, [40, 200, 320, 440])
                 ) as library:
        view = ops.load_table_view(library, library.tables()[0])
        chosen = {"operation": "count", "cells": [{"row": r.label, "column": "burglary"} for r in view.rows]}
        choice = ops.parse_choice(view, chosen, "How many burglaries were reported from 2019 through 2021?")
        assert choice.operation == "sum"
        with closing(SqlRunner(library.path)) as runner:
            assert runner.run(ops.compile_sql(view, choice)).rows[0][0] == 361
        assert ops.parse_choice(view, chosen, "In how many years were burglaries reported?").operation == "count"
        assert ops.parse_choice(view, chosen, "How many arsons were reported in those years?").operation == "count"
