"""The SQL runner reads only, stops runaway queries and cuts long results."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.errors import SqlError, SqlRefused, SqlTimeout
from core.library.db import connect
from core.library.migrations import MIGRATIONS, migrate
from core.sql.runner import SqlRunner

pytestmark = pytest.mark.unit


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    path = tmp_path / "library.sqlite3"
    conn = connect(path)
    migrate(conn)
    conn.execute("CREATE TABLE budget (_row INTEGER PRIMARY KEY, item TEXT, y2024 REAL)")
    conn.executemany("INSERT INTO budget VALUES (?, ?, ?)", [(1, "Roads", 120.5), (2, "Parks", 80.0), (3, "Schools", 300.25)])
    conn.close()
    return path


def test_select_sums_exactly(db_path: Path) -> None:
    runner = SqlRunner(db_path)
    result = runner.run("SELECT SUM(y2024) AS total FROM budget;")
    assert result.columns == ("total",)
    assert result.rows == ((500.75,),)


@pytest.mark.parametrize(
    "sql",
    [
        "DROP TABLE budget",
        "DELETE FROM budget",
        "UPDATE budget SET y2024 = 0",
        "INSERT INTO budget (item) VALUES ('x')",
        "CREATE TABLE x (a)",
        "ATTACH DATABASE ':memory:' AS other",
        "PRAGMA journal_mode = DELETE",
        "PRAGMA user_version = 7",
    ],
)
def test_writes_attach_and_pragma_changes_are_refused(db_path: Path, sql: str) -> None:
    runner = SqlRunner(db_path)
    with pytest.raises(SqlRefused):
        runner.run(sql)
    assert runner.run("SELECT COUNT(*) FROM budget").rows == ((3,),)
    conn = connect(db_path)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == len(MIGRATIONS)


def test_read_only_pragma_is_allowed(db_path: Path) -> None:
    result = SqlRunner(db_path).run("PRAGMA table_info(budget)")
    assert [r[1] for r in result.rows] == ["_row", "item", "y2024"]


def test_runaway_query_is_interrupted(db_path: Path) -> None:
    runner = SqlRunner(db_path, timeout_seconds=0.3)
    with pytest.raises(SqlTimeout):
        runner.run("WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) SELECT SUM(i) FROM n")
    assert runner.run("SELECT 1").rows == ((1,),)  # the connection stays usable


def test_row_limit_and_errors(db_path: Path) -> None:
    runner = SqlRunner(db_path, max_rows=2)
    result = runner.run("SELECT item FROM budget ORDER BY _row")
    assert result.rows == (("Roads",), ("Parks",)) and result.truncated
    with pytest.raises(SqlError, match="no such function: YEAR"):
        runner.run("SELECT YEAR(y2024) FROM budget WHERE nope = 1")
    with pytest.raises(SqlError):
        runner.run("SELECT 1; SELECT 2")


def test_allowed_tables_limit_what_can_be_read(db_path: Path) -> None:
    runner = SqlRunner(db_path, allowed_tables={"budget"})
    assert runner.run("SELECT COUNT(*) FROM budget").rows == ((3,),)
    with pytest.raises(SqlRefused, match="documents"):
        runner.run("SELECT * FROM documents")
