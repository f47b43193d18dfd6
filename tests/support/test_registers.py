"""The register-style documents print what the table benchmark's golds were read off: the notice register
over pages under a repeated header, one referendum table per page, a harvest report in European notation
under a two-row header; the same for a seed; and a page break starts a new page."""

from __future__ import annotations

import re
from pathlib import Path

import pymupdf
import pytest

from tests.support.registers import (
    build_harvest_report,
    build_notice_register,
    build_referendum_results,
    notice_rows,
)
from tests.support.report_builder import Heading, PageBreak, build_report

pytestmark = pytest.mark.unit


def _pages(path: Path) -> list[str]:
    with pymupdf.open(path) as doc:
        return [page.get_text() for page in doc]


def test_the_notice_register_runs_over_pages_under_a_repeated_header(tmp_path: Path) -> None:
    result = build_notice_register(tmp_path / "warn.pdf")
    pages = _pages(result.path)

    assert result.page_count == len(pages) >= 3
    assert all("Employees" in page and "Date" in page for page in pages)
    assert result.tables[0].pages == tuple(range(1, len(pages) + 1))
    numbers = re.findall(r"2015-\d{3}", "".join(pages))
    assert numbers == [f"2015-{n:03d}" for n in range(1, len(notice_rows()) + 1)]


def test_each_referendum_question_has_a_page_of_its_own(tmp_path: Path) -> None:
    result = build_referendum_results(tmp_path / "referendum.pdf")
    pages = _pages(result.path)

    assert [table.pages for table in result.tables] == [(n,) for n in range(1, 6)]
    for number, page in enumerate(pages, 1):
        assert f"Question {number}:" in page and "Polling station" in page and "Total" in page


def test_the_harvest_report_prints_european_numbers_under_a_two_row_header(tmp_path: Path) -> None:
    result = build_harvest_report(tmp_path / "harvest.pdf")
    text = "".join(_pages(result.path))
    crops = result.tables[0]

    assert len(crops.spec.header) == 2 and crops.spec.header[0][1:3] == ["Wheat", ""]
    assert re.search(r"\b\d{1,3}\.\d{3},\d\b", text)  # 27.715,5
    assert not re.search(r"\b\d{1,3},\d{3}\.\d\b", text)  # never 27,715.5


def test_the_documents_are_the_same_for_a_seed(tmp_path: Path) -> None:
    first = build_notice_register(tmp_path / "a.pdf")
    again = build_notice_register(tmp_path / "b.pdf")
    other = build_notice_register(tmp_path / "c.pdf", seed=7)

    assert _pages(first.path) == _pages(again.path)
    assert _pages(first.path) != _pages(other.path)


def test_a_page_break_starts_a_new_page(tmp_path: Path) -> None:
    result = build_report(tmp_path / "r.pdf", "Title", [Heading("One"), "Short.", PageBreak(), Heading("Two")])

    assert result.page_count == 2
    assert [t.page for t in result.texts if t.kind == "heading"] == [1, 2]
