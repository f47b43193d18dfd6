"""Rendering one PDF page to PNG bytes with pymupdf, and mapping page boxes onto the picture.

Owns the geometry between the library's coordinates (PDF points in the unrotated page, origin
top-left, as pymupdf's text extraction reports them) and the pixels of the rendered image, which
shows the page as a reader sees it (rotated, scaled by ``zoom``). The window draws highlights with
``RenderedPage.to_pixels``; no Qt here.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pymupdf

from core.errors import UserError
from core.ingest.pdf_reader import open_pdf
from models.types import BBox

MIN_ZOOM = 0.25
MAX_ZOOM = 6.0


class PageNotFound(UserError):
    """The document or page to show is not there (the file moved, or the page number is out of range)."""


@dataclass(frozen=True)
class RenderedPage:
    """A page as a PNG, plus what is needed to place boxes on it."""

    png: bytes
    page: int
    page_count: int
    zoom: float
    width_px: int
    height_px: int
    matrix: tuple[float, float, float, float, float, float]
    """Page points -> image pixels (rotation then zoom), as pymupdf's (a, b, c, d, e, f)."""

    def to_pixels(self, bbox: BBox) -> tuple[float, float, float, float]:
        """The box ``bbox`` (page points) as x0, y0, x1, y1 in image pixels, normalised."""
        rect = pymupdf.Rect(bbox) * pymupdf.Matrix(*self.matrix)
        rect.normalize()
        return (rect.x0, rect.y0, rect.x1, rect.y1)


def clamp_zoom(zoom: float) -> float:
    return max(MIN_ZOOM, min(MAX_ZOOM, zoom))


def render_page(path: Path, page: int, zoom: float = 1.5, password: str | None = None) -> RenderedPage:
    """Render page ``page`` (1-based) of the PDF at ``path`` at ``zoom`` (1.0 = 72 dpi)."""
    path = Path(path)
    if not path.is_file():
        raise PageNotFound(f"{path.name} is no longer at {path}. Move it back or add it again.")
    zoom = clamp_zoom(zoom)
    doc = open_pdf(path, password)
    try:
        if not 1 <= page <= doc.page_count:
            raise PageNotFound(f"{path.name} has {doc.page_count} page(s); there is no page {page}.")
        pdf_page = doc.load_page(page - 1)
        matrix = pdf_page.rotation_matrix * pymupdf.Matrix(zoom, zoom)
        pixmap = pdf_page.get_pixmap(matrix=pymupdf.Matrix(zoom, zoom), alpha=False)
        return RenderedPage(
            png=pixmap.tobytes("png"),
            page=page,
            page_count=doc.page_count,
            zoom=zoom,
            width_px=pixmap.width,
            height_px=pixmap.height,
            matrix=(matrix.a, matrix.b, matrix.c, matrix.d, matrix.e, matrix.f),
        )
    finally:
        doc.close()


def page_count(path: Path, password: str | None = None) -> int:
    doc = open_pdf(Path(path), password)
    try:
        return int(doc.page_count)
    finally:
        doc.close()
