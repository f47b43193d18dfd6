"""Making scanned PDFs for tests: each page of a born-digital PDF rendered to a picture, and a new PDF
holding only those pictures (no text layer), as a scanner would produce."""

from __future__ import annotations

from pathlib import Path

import pymupdf


def scan_of(source: pymupdf.Document, path: Path, *, dpi: int = 150, copies: int = 1) -> Path:
    """Write ``path``: every page of ``source`` as a JPEG-like picture only, the whole set ``copies`` times
    (the same picture is stored once, so a 20-page scan stays small)."""
    out = pymupdf.open()
    pictures = [page.get_pixmap(dpi=dpi, alpha=False).tobytes("png") for page in source]
    xrefs: dict[int, int] = {}
    for _ in range(copies):
        for index, page in enumerate(source):
            target = out.new_page(width=page.rect.width, height=page.rect.height)
            xref = target.insert_image(target.rect, stream=pictures[index], xref=xrefs.get(index, 0))
            xrefs[index] = xref
    out.save(str(path))
    out.close()
    return path


def blank_scan(path: Path) -> Path:
    """One page holding a plain white picture: a scan with nothing to read."""
    source = pymupdf.open()
    source.new_page(width=595, height=842)
    return scan_of(source, path, dpi=50)
