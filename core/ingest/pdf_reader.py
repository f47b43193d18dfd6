"""Opening PDFs and reading each page's text and laid-out blocks with pymupdf.

Owns the checks that turn bad input into clear errors before anything is written: not a PDF,
truncated or corrupt, encrypted (with an optional password), zero pages, no text layer at all.
Pages are read one at a time so a 1,000-page file never sits in memory whole.
"""

from __future__ import annotations

from pathlib import Path

import pymupdf

from core.errors import CorruptPdf, EmptyPdf, EncryptedPdf, NotAPdf
from core.ingest.file_names import display_name, readable_path
from core.reports.words import plain_letters
from models.types import PageContent, TextBlock

pymupdf.TOOLS.mupdf_display_errors(False)
pymupdf.TOOLS.mupdf_display_warnings(False)

# A page with fewer characters than this but with images is taken for a scan, when its images cover at least
# ``MIN_SCAN_COVER`` of it: a logo or a signature on a page left blank (filings have them) is no scan, and reading
# one by OCR cost 9 to 25 s (the OCR worker's start, and the whole page rendered and searched for text).
MIN_TEXT_CHARS = 20
MIN_SCAN_COVER = 0.1


def open_pdf(path: Path, password: str | None = None) -> pymupdf.Document:
    """Open ``path`` for reading or raise a ``UserError`` that says what is wrong with it."""
    name = display_name(path)
    try:
        with path.open("rb") as handle:
            head = handle.read(1024)
            handle.seek(max(0, path.stat().st_size - 2048))
            tail = handle.read()
    except OSError as exc:
        raise NotAPdf(f"{name}: cannot be read ({exc.strerror or exc}).") from exc
    if b"%PDF-" not in head:
        raise NotAPdf(f"{name} is not a PDF file.")
    if b"%%EOF" not in tail:
        # MuPDF would "repair" it and silently show what is left; a cut-off file must not pass as whole.
        raise CorruptPdf(f"{name} is damaged: the file is incomplete (truncated). Copy or download it again.")
    try:
        with readable_path(path) as readable:  # MuPDF holds the file open: the link may go once it is opened
            doc = pymupdf.open(str(readable), filetype="pdf")
    except Exception as exc:  # pymupdf raises FileDataError and plain RuntimeErrors
        raise CorruptPdf(f"{name} is damaged and cannot be opened ({exc}).") from exc
    if doc.needs_pass:
        if not password:
            doc.close()
            raise EncryptedPdf(f"{name} is password-protected. Give its password to add it.")
        if not doc.authenticate(password):
            doc.close()
            raise EncryptedPdf(f"{name}: the password given is not correct.")
    if doc.page_count == 0:
        doc.close()
        raise EmptyPdf(f"{name} has no pages.")
    if doc.is_repaired:
        # MuPDF rebuilt a broken cross-reference table. If nothing readable came out, say it is damaged.
        try:
            doc.load_page(0)
        except Exception as exc:
            doc.close()
            raise CorruptPdf(f"{name} is damaged and cannot be read ({exc}).") from exc
    return doc


def read_page(doc: pymupdf.Document, number: int, path: Path | None = None) -> PageContent:
    """Read page ``number`` (1-based): its text, its text blocks with boxes, and whether it needs OCR."""
    pymupdf.TOOLS.reset_mupdf_warnings()
    try:
        page = doc.load_page(number - 1)
        rect = page.rect
        raw_blocks = page.get_text("blocks", sort=True)
        has_images = bool(page.get_images(full=False))  # raises on a damaged page tree too
    except Exception as exc:
        name = display_name(path) if path else "the PDF"
        raise CorruptPdf(f"{name}: page {number} is damaged and cannot be read ({exc}).") from exc
    blocks: list[TextBlock] = []
    for x0, y0, x1, y1, text, _block_no, block_type in raw_blocks:
        if block_type != 0:
            continue
        clean = " ".join(plain_letters(text).split())
        if clean:
            blocks.append(TextBlock(number, (x0, y0, x1, y1), clean))
    text = "\n".join(b.text for b in blocks)
    needs_ocr = len(text) < MIN_TEXT_CHARS and has_images and _image_cover(page) >= MIN_SCAN_COVER
    # MuPDF reads past what it cannot parse (a broken page tree, a garbled content stream) and says so only
    # in its warnings: a page that gave nothing while it complained is damaged, not blank.
    warnings = pymupdf.TOOLS.mupdf_warnings() if not blocks and not has_images else ""
    damage = next((line for line in warnings.splitlines() if "error" in line or "cannot" in line), "")
    a, b, c, d, e, f = page.rotation_matrix
    return PageContent(number, rect.width, rect.height, text, tuple(blocks), needs_ocr, damage, (a, b, c, d, e, f))


def _image_cover(page: pymupdf.Page) -> float:
    """The share of the page its images cover (their boxes' areas added up, at most the whole page)."""
    try:
        boxes = [pymupdf.Rect(info["bbox"]) for info in page.get_image_info()]
    except Exception:  # noqa: BLE001 - images that cannot be placed: take the page for a scan, as before
        return 1.0
    area = abs(page.rect)
    return min(1.0, sum(abs(box) for box in boxes) / area) if area > 0 else 1.0
