"""The real SEC filings of ../shared/bench/financebench-dev, read in place (never copied into the repository), and
PDFs cut out of them: a few pages of a filing, so a test ingests a statement in seconds rather than a whole 10-K."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pymupdf

FILINGS = Path(__file__).resolve().parents[3] / "shared" / "bench" / "financebench-dev"


def cut_filing(directory: Path, filing: str, pages: Sequence[int]) -> Path:
    """A PDF in ``directory`` of the given 0-based pages of ``filing`` (its name without ".pdf")."""
    source = pymupdf.open(str(FILINGS / f"{filing}.pdf"))
    out = pymupdf.open()
    for page in pages:
        out.insert_pdf(source, from_page=page, to_page=page)
    path = directory / f"{filing}_p{'_'.join(map(str, pages))}.pdf"
    out.save(str(path))
    return path
