"""The command line as scripts use it: exit codes, JSON shapes, progress on stderr."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from app.main import main
from tests.core.ingest.test_ingest import ruled_table_pdf

pytestmark = pytest.mark.e2e


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def test_ingest_library_and_sql(tmp_path: Path, samples: Path, capsys: pytest.CaptureFixture[str]) -> None:
    lib = str(tmp_path / "lib")
    pdf = ruled_table_pdf(tmp_path / "budget.pdf")
    broken = tmp_path / "broken.pdf"
    broken.write_text("not a pdf at all")
    code, out, err = run(capsys, "ingest", "--library", lib, str(pdf), str(broken), str(samples / "population_growth.pdf"))
    assert code == 1  # one file failed, after the others were added
    assert "2 added" in out and "1 failed" in out
    assert "broken.pdf is not a PDF file" in err and "pages" in err

    code, out, _ = run(capsys, "library", "--library", lib, "--json")
    assert code == 0
    payload = json.loads(out)
    names = [d["file_name"] for d in payload["documents"]]
    assert names == ["budget.pdf", "population_growth.pdf"]
    budget_table = payload["documents"][0]["tables"][0]
    assert {"table_name", "columns", "page", "unit"} <= set(budget_table)
    assert any(col[0] == "y2024" for col in budget_table["columns"])

    name = budget_table["table_name"]
    code, out, _ = run(capsys, "sql", "--library", lib, "--json", f'SELECT MAX(y2024) AS top FROM "{name}"')
    assert code == 0 and json.loads(out)["rows"] == [[4567]]
    code, _, err = run(capsys, "sql", "--library", lib, f'DROP TABLE "{name}"')
    assert code == 2 and "refused" in err

    code, out, _ = run(capsys, "library", "--library", lib)
    assert code == 0 and name in out and "y2024" in out


def test_tables_json_does_not_store(tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch) -> None:
    monkeypatch.setenv("FOLIO_LIBRARY", str(tmp_path / "unused"))
    pdf = ruled_table_pdf(tmp_path / "budget.pdf")
    code, out, _ = run(capsys, "tables", "--json", str(pdf))
    assert code == 0
    (table,) = json.loads(out)
    assert table["page"] == 1 and len(table["bbox"]) == 4 and table["header_rows"] == 1
    assert table["rows"][0] == ["Department", "2023", "2024", "Change"]
    assert ["Roads", "1,200", "1,450", "20.8%"] in table["rows"]
    assert not (tmp_path / "unused").exists()


def test_tables_on_bad_input(tmp_path: Path, samples: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "tables", "--json", str(samples / "health_protected.pdf"))
    assert code == 2 and "password" in err
    code, out, _ = run(capsys, "tables", "--json", "--password", "userpass", str(samples / "health_protected.pdf"))
    assert code == 0 and json.loads(out)
