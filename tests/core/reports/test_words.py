"""The words Folio compares: ligatures spelt out, plurals folded."""

from __future__ import annotations

import pytest

from core.reports.words import content_words, plain_letters
from tests.conftest import BENCH


def test_ligatures_are_spelt_out_so_a_label_meets_the_question_s_words() -> None:
    """A PDF prints "Difﬁculty" and "Ofﬂine" with one glyph for "fi" and "fl": compared by their letters."""
    assert plain_letters("Difﬁculty hearing, ofﬂine staff, aﬀordable") == "Difficulty hearing, offline staff, affordable"
    assert content_words("Difﬁculty hearing") == content_words("difficulty hearing") == {"difficulty", "hearing"}


def test_a_pdf_printing_ligatures_is_read_with_its_letters_spelt_out() -> None:
    """A real government statistics table that prints "Difﬁculty seeing" with the fi ligature: its page text and
    the cells of its table come out spelt in plain letters."""
    from core.ingest.extraction.extractor import extract_tables
    from core.ingest.pdf_reader import open_pdf, read_page

    path = BENCH / "icdar2013-dev" / "us-001.pdf"
    if not path.exists():
        pytest.skip(f"{path} not found (the shared folder is absent)")
    doc = open_pdf(path)
    try:
        page = read_page(doc, 1, path)
    finally:
        doc.close()
    tables = extract_tables(path)
    assert "Difficulty" in page.text and "\ufb01" not in page.text
    cells = [cell for table in tables for row in table.rows for cell in row]
    assert any("Difficulty hearing" in cell for cell in cells) and not any("\ufb01" in cell for cell in cells)


def _read_back(tmp_path: object, line: str) -> tuple[str, list[str]]:
    """``line`` printed on a page of its own, read back: the page's passage text and its table words."""
    from pathlib import Path

    import pymupdf

    from core.ingest.extraction.page_text import read_words
    from core.ingest.pdf_reader import read_page

    doc = pymupdf.open()
    doc.new_page().insert_text((72, 100), line, fontsize=10)
    path = Path(str(tmp_path)) / "line.pdf"
    doc.save(path)
    doc = pymupdf.open(path)
    try:
        return read_page(doc, 1, path).text, [w.text for w in read_words(doc[0])]
    finally:
        doc.close()


def test_a_dash_printed_as_a_control_character_joins_its_two_words(tmp_path: object) -> None:
    """A TeX font embedded without a Unicode map prints the en and em dashes as the control characters 0x15 and 0x16:
    a band of ages "30\x1539" is read "30\u201339" in the page's passages and as one word in its tables; a control
    character that stands between no two words is still dropped."""
    assert plain_letters("ages 30\x1539 and 40\x1649, \x15 alone") == "ages 30\u201339 and 40\u201449, \x15 alone"
    text, words = _read_back(tmp_path, "Cohort 30\x1539 then 40\x1649 years")
    assert "30\u201339" in text
    assert words == ["Cohort", "30\u201339", "then", "40\u201449", "years"]


def test_a_number_that_begins_with_its_year_is_no_period() -> None:
    """"Notice 2015-071" and "case 2019/0042" are identifiers: no year is asked; "2019/2020" and "2015-2017" are
    periods still."""
    from core.reports.values import find_periods

    assert find_periods("Who filed notice 2015-071?") == []
    assert [m.year for m in find_periods("case 2019/0042 heard in 2020")] == [2020]
    assert [m.year for m in find_periods("the 2019/2020 season")] == [2020]
    assert [m.year for m in find_periods("from 2015-2017")] == [2015, 2017]


def test_a_year_an_acronym_names_is_no_period() -> None:
    """"The SMC-2018 entries" names a contest by its year: no year is asked; "FY-2019" is a year still."""
    from core.reports.values import find_periods

    assert find_periods("How many SMC-2018 entries finished?") == []
    assert [m.year for m in find_periods("the SMC-2018 entries ranked in 2021")] == [2021]
    assert [m.year for m in find_periods("revenue in FY-2019")] == [2019]


def test_an_accent_set_as_a_glyph_of_its_own_goes_on_its_letter_and_words_meet_without_accents() -> None:
    assert plain_letters("the survey by M\u00a8uller and Rudov\u00b4a") == "the survey by M\u00fcller and Rudov\u00e1"
    assert content_words("M\u00a8uller's survey") == content_words("Muller's survey") == content_words("M\u00fcller's survey")


def test_a_ligature_printed_as_a_control_character_is_spelt_out(tmp_path: object) -> None:
    """TeX's T1 encoding sets ff, fi, fl, ffi and ffl at 0x1B to 0x1F; a font embedded without a Unicode map gives
    them as control characters, where pymupdf ends a word and Python splits one: the page's passages and its
    table words read "effect", "first", "influence", "efficacy" and "baffled"."""
    assert plain_letters("the e\x1bect \x1crst in\x1duence e\x1ecacy ba\x1fed") == (
        "the effect first influence efficacy baffled")
    # (pymupdf's insert_text breaks lines at 0x1C-0x1E, so the page is drawn with the other two)
    text, words = _read_back(tmp_path, "Treatment e\x1bect left patients ba\x1fed")
    assert "Treatment effect left patients baffled" in text
    assert words == ["Treatment", "effect", "left", "patients", "baffled"]
