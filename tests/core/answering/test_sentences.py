"""Prose highlights: the sentences of a cited passage that answer, boxed line by line, never the
running header, the footer, a footnote or the page number; on a real PDF drawn with pymupdf."""

from __future__ import annotations

from pathlib import Path

import pymupdf
import pytest

from core.answering.sentences import answering_sentences, best_sentences, sentences

pytestmark = pytest.mark.unit

PARAGRAPH = ("The council reviewed spending for 2019. Road maintenance grew by 12% because of the harsh winter, "
             "which damaged many streets in the north of the city. Park spending rose with two new playgrounds.")


def page_pdf(path: Path) -> Path:
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    page.insert_text((56, 40), "Northwind Annual Report 2019", fontsize=9)  # running header
    page.insert_text((56, 110), "Spending review", fontsize=16)  # a title inside the passage
    page.insert_textbox(pymupdf.Rect(56, 130, 400, 260), PARAGRAPH, fontsize=11)
    page.insert_text((56, 790), "1 Figures are unaudited.", fontsize=8)  # footnote
    page.insert_text((290, 815), "3", fontsize=9)  # page number
    doc.save(path)
    doc.close()
    return path


def test_only_the_answering_sentence_is_boxed(tmp_path: Path) -> None:
    pdf = page_pdf(tmp_path / "report.pdf")
    whole_page = (0.0, 0.0, 595.0, 842.0)  # a chunk spanning every block, furniture included
    picked = answering_sentences(pdf, 1, [whole_page], "Why did road maintenance grow? 12%")
    assert picked is not None and len(picked) == 1
    (sentence,) = picked
    assert sentence.text.startswith("Road maintenance grew by 12% because of the harsh winter")
    assert sentence.text.endswith("north of the city.")
    assert len(sentence.boxes) >= 2  # one box per line the sentence runs over
    for x0, y0, x1, y1 in sentence.boxes:
        assert 120 <= y0 and y1 <= 270 and x1 <= 405  # inside the paragraph: no header, footer, title or number


def test_the_furniture_is_dropped_even_when_nothing_matches(tmp_path: Path) -> None:
    pdf = page_pdf(tmp_path / "report.pdf")
    with pymupdf.open(pdf) as doc:
        from core.answering.sentences import _lines

        lines = _lines(doc.load_page(0), [(0.0, 0.0, 595.0, 842.0)])
    texts = [" ".join(w.text for w in line) for line in lines]
    assert not any("Northwind" in t or "unaudited" in t or t == "3" for t in texts)
    found = sentences(lines)
    assert found[0].text == "Spending review"  # a title ends at its block: it is not glued to the paragraph
    assert best_sentences(found, "gardeners") == []


def test_an_unreadable_pdf_gives_none(tmp_path: Path) -> None:
    assert answering_sentences(tmp_path / "gone.pdf", 1, [], "q") is None


def test_a_year_alone_does_not_make_a_sentence_answer() -> None:
    from core.answering.sentences import Sentence

    title = Sentence("Northwind Regional Council Annual Report 2024", ((0.0, 0.0, 1.0, 1.0),))
    answer = Sentence("The operating budget rose to $185,980 thousand in 2024.", ((0.0, 2.0, 1.0, 3.0),))
    assert best_sentences([title, answer], "How much did the operating budget rise in 2024?") == [answer]
