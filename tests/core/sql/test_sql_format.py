"""SQL laid out for reading changes only whitespace: what is shown is what ran."""

from __future__ import annotations

import re

import pytest

from core.sql.formatting import format_sql

pytestmark = pytest.mark.unit

COMPILED = ('WITH v AS (SELECT (SELECT "y2024" FROM "budget_p1_budget_by_department" WHERE _row = 1) AS v1, '
            '(SELECT "y2024" FROM "budget_p1_budget_by_department" WHERE _row = 2) AS v2) SELECT v1 + v2 AS sum FROM v')
RANKING = ('SELECT _row, "department" AS label, "y2024" - "y2023" AS value FROM "t" WHERE _row IN (1, 2, 3) '
           'AND ("y2024" - "y2023") IS NOT NULL ORDER BY value DESC, _row LIMIT 1')
FREE = "select sum(y2019) from t  left join u on t.a = u.a where department in ('Roads,  x', 'Parks') group by a"


@pytest.mark.parametrize("sql", [COMPILED, RANKING, FREE])
def test_only_whitespace_changes(sql: str) -> None:
    assert re.sub(r"\s+", "", format_sql(sql)) == re.sub(r"\s+", "", sql)
    assert "'Roads,  x'" in format_sql(FREE)  # text inside quotes is left alone


def test_clauses_and_selected_items_get_their_own_lines() -> None:
    assert format_sql(COMPILED).splitlines() == [
        "WITH v AS (",
        "  SELECT",
        '    (SELECT "y2024" FROM "budget_p1_budget_by_department" WHERE _row = 1) AS v1,',
        '    (SELECT "y2024" FROM "budget_p1_budget_by_department" WHERE _row = 2) AS v2',
        ")",
        "SELECT v1 + v2 AS sum",
        "FROM v",
    ]
    assert format_sql(FREE).splitlines() == [
        "select sum(y2019)", "from t", "left join u on t.a = u.a", "where department in ('Roads,  x', 'Parks')",
        "group by a"]
    assert format_sql("  ") == ""
