"""`folio sql` at the command line: BLOBs in text and JSON output, the per-value limit as a one-line
message, and a row limit that must be a positive number."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from app import cli
from core.library.store import Library

pytestmark = pytest.mark.unit


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    library = Library.in_directory(tmp_path / "library")
    library.conn.execute("INSERT INTO documents (id, sha256, file_name, path, title, page_count, status, size_bytes, "
                         "added_at) VALUES (1, 'x', 'report.pdf', '/r.pdf', 'Report', 1, 'ready', 10, '2024-01-01')")
    for i, text in enumerate(["Roads spending rose in 2024", "Parks budget was cut", "Libraries stayed flat"], 1):
        library.conn.execute("INSERT INTO chunks (id, document_id, kind, page, text, content_hash) "
                             "VALUES (?, 1, 'text', 1, ?, ?)", (i, text, f"h{i}"))
    library.close()
    return library.path


def test_cli_sql_json_renders_blobs_and_rejects_bad_row_limits(db_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    library = str(db_path.parent)
    assert cli.run(["sql", "--library", library, "--json", "SELECT zeroblob(20) AS b, 1e999 AS big"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["rows"] == [[{"blob_bytes": 20, "hex_prefix": "00" * 16}, "inf"]] and out["truncated"] is False
    assert cli.run(["sql", "--library", library, "SELECT zeroblob(3), text FROM chunks ORDER BY id"]) == 0
    assert "<BLOB 3 bytes: 000000>  Roads spending rose in 2024" in capsys.readouterr().out
    assert cli.run(["sql", "--library", library, "SELECT zeroblob(100000000)"]) == 2
    assert "limit per value" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        cli.run(["sql", "--library", library, "--max-rows", "-1", "SELECT 1"])
    assert "--max-rows: must be a whole number of 1 or more, not '-1'" in capsys.readouterr().err
