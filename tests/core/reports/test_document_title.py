"""Titles set in letter-spaced capitals or small caps (a capital at full size beside the rest of the word at a
smaller size) read as whole words, in a filing's cover and in a report's largest type, on PDFs drawn here glyph by
glyph; the issuer read from the stored cover text is spelled as the title spells it."""

from __future__ import annotations

from pathlib import Path

import pymupdf
import pytest

from core.reports.document_metadata import read_issuer, spelled_as_in
from core.reports.document_title import document_title, largest_type_title

pytestmark = pytest.mark.unit


def small_caps(page: pymupdf.Page, words: str, top: float, size: float, small: float, tracking: float) -> None:
    """Draw ``words`` as small caps, one glyph at a time: each word's first letter at ``size``, the rest at ``small``
    (acronyms of three letters or fewer all at ``size``), ``tracking`` points between letters."""
    x = 72.0
    for word in words.split():
        for n, letter in enumerate(word):
            height = size if n == 0 or len(word) <= 3 else small
            page.insert_text((x, top), letter, fontsize=height, fontname="tiro")
            x += pymupdf.get_text_length(letter, "tiro", height) + tracking
        x += size * 0.4


@pytest.mark.parametrize("tracking, small", [(2.1, 14.0), (2.4, 15.0), (3.0, 15.0), (1.0, 15.0)])
def test_a_letter_spaced_small_caps_title_reads_as_words(tmp_path: Path, tracking: float, small: float) -> None:
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    small_caps(page, "MGM RESORTS INTERNATIONAL", 120, 20, small, tracking)
    small_caps(page, "ANNUAL REPORT", 160, 20, small, tracking)
    for n in range(8):
        page.insert_text((72, 260 + 14 * n), "Body text of the report about results, resorts and guests.", fontsize=10)
    assert largest_type_title(page) == "MGM RESORTS INTERNATIONAL ANNUAL REPORT"


def test_a_filing_cover_names_its_registrant_whole(tmp_path: Path) -> None:
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    page.insert_text((72, 80), "UNITED STATES SECURITIES AND EXCHANGE COMMISSION", fontsize=11)
    page.insert_text((72, 110), "FORM 10-K", fontsize=14)
    page.insert_text((72, 135), "For the fiscal year ended December 31, 2019", fontsize=10)
    small_caps(page, "MGM RESORTS INTERNATIONAL", 180, 18, 13.5, 2.4)
    page.insert_text((72, 200), "(Exact name of registrant as specified in its charter)", fontsize=8)
    path = tmp_path / "0000789570-20-000010.pdf"
    doc.save(path)
    stored_text = page.get_text()
    assert "MGM R E S O R T S" in stored_text  # what the text layer gives, and ingestion stores
    title = document_title(pymupdf.open(path), path)
    assert title == "MGM RESORTS INTERNATIONAL, Form 10-K, fiscal year ended December 31, 2019"
    assert read_issuer(title, stored_text, path.name) == "MGM RESORTS INTERNATIONAL"


def test_words_apart_stay_apart() -> None:
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    page.insert_text((72, 120), "A NEW ERA FOR ACME", fontsize=22)
    for n in range(6):
        page.insert_text((72, 300 + 14 * n), "Body text of the report.", fontsize=10)
    assert largest_type_title(page) == "A NEW ERA FOR ACME"
    assert spelled_as_in("BEST BUY CO., INC., Form 10-K", "BEST BUY CO., INC.") == "BEST BUY CO., INC."
    assert spelled_as_in("Another title", "ACME CORP") == "ACME CORP"
