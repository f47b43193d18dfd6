"""Drawing small real PDFs for tests: a ruled table with right-aligned figures, as reports print them."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pymupdf


def draw_ruled_table(page: pymupdf.Page, rows: Sequence[Sequence[str]], column_x: Sequence[float], top: float,
                     row_height: float = 22, fontsize: float = 10, pad: float = 4) -> None:
    """Draw ``rows`` as a ruled grid: column ``c`` spans column_x[c]..column_x[c + 1]; the first column is
    left-aligned (labels), the others right-aligned (figures)."""
    for r, row in enumerate(rows):
        baseline = top + r * row_height + 15
        for c, text in enumerate(row):
            if c == 0:
                page.insert_text((column_x[0] + pad, baseline), text, fontsize=fontsize)
            else:
                width = pymupdf.get_text_length(text, fontsize=fontsize)
                page.insert_text((column_x[c + 1] - pad - width, baseline), text, fontsize=fontsize)
    bottom = top + len(rows) * row_height
    for r in range(len(rows) + 1):
        page.draw_line((column_x[0], top + r * row_height), (column_x[-1], top + r * row_height))
    for x in column_x:
        page.draw_line((x, top), (x, bottom))


INCOME_ROWS = [["", "2019", "2018", "2017"], ["Revenue", "4,512.6", "4,108.3", "3,902.0"],
               ["Cost of sales", "(2,731.4)", "(2,498.9)", "(2,388.5)"], ["Gross profit", "1,781.2", "1,609.4", "1,513.5"],
               ["Restructuring charges", "(64.0)", "\u2014", "(12.5)"], ["Operating income", "1,717.2", "1,609.4", "1,501.0"],
               ["Net income (loss)", "(35.8)", "912.7", "845.1"]]
"""A statement of income in $ millions, costs and a loss in brackets, a dash for no value."""


def income_statement_pdf(path: Path, title: str = "Harbour Foods plc Annual Report 2019") -> Path:
    """One page: a title, a sentence, the captioned statement of ``INCOME_ROWS`` (stated in millions of dollars)."""
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    page.insert_text((72, 80), title, fontsize=16)
    page.insert_text((72, 110), "Revenue grew in 2019 while a restructuring charge led to a net loss.", fontsize=10)
    page.insert_text((72, 150), "Consolidated statement of income (in millions of dollars)", fontsize=11)
    draw_ruled_table(page, INCOME_ROWS, [72, 250, 340, 430, 520], 165, 22, pad=6)
    doc.save(path)
    doc.close()
    return path
