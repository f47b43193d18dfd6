"""Rendering pages to PNG and placing page boxes on the picture, for plain and rotated pages."""

from __future__ import annotations

from pathlib import Path

import pymupdf
import pytest

from core.errors import EncryptedPdf
from core.ingest.page_render import PageNotFound, clamp_zoom, render_page

pytestmark = pytest.mark.unit


def _pdf(path: Path, rotation: int = 0, pages: int = 2) -> Path:
    doc = pymupdf.open()
    for number in range(1, pages + 1):
        page = doc.new_page(width=400, height=300)
        page.draw_rect(pymupdf.Rect(50, 60, 150, 100), color=(0, 0, 0), fill=(0, 0, 0))
        page.insert_text((200, 200), f"Page {number}", fontsize=14)
        page.set_rotation(rotation)
    doc.save(path)
    doc.close()
    return path


def _pixel(png: bytes, x: float, y: float) -> tuple[int, ...]:
    pixmap = pymupdf.Pixmap(png)
    return tuple(pixmap.pixel(int(x), int(y)))


def test_render_gives_a_png_of_the_page_at_the_zoom(tmp_path: Path) -> None:
    rendered = render_page(_pdf(tmp_path / "a.pdf"), 2, zoom=2.0)
    assert rendered.png.startswith(b"\x89PNG")
    assert (rendered.width_px, rendered.height_px) == (800, 600)
    assert (rendered.page, rendered.page_count, rendered.zoom) == (2, 2, 2.0)


def test_boxes_land_on_what_they_mark(tmp_path: Path) -> None:
    rendered = render_page(_pdf(tmp_path / "a.pdf"), 1, zoom=1.5)
    x0, y0, x1, y1 = rendered.to_pixels((50, 60, 150, 100))
    assert (x0, y0, x1, y1) == pytest.approx((75, 90, 225, 150))
    assert _pixel(rendered.png, (x0 + x1) / 2, (y0 + y1) / 2) == (0, 0, 0)
    assert _pixel(rendered.png, x1 + 20, y1 + 20) == (255, 255, 255)


@pytest.mark.parametrize("rotation", [90, 180, 270])
def test_boxes_follow_a_rotated_page(tmp_path: Path, rotation: int) -> None:
    path = _pdf(tmp_path / f"r{rotation}.pdf", rotation=rotation)
    rendered = render_page(path, 1, zoom=1.0)
    if rotation in (90, 270):
        assert (rendered.width_px, rendered.height_px) == (300, 400)
    # The box must cover the black rectangle as the rotated picture shows it.
    with pymupdf.open(path) as doc:
        word_box = tuple(doc[0].search_for("Page 1")[0])
    x0, y0, x1, y1 = rendered.to_pixels((50, 60, 150, 100))
    assert _pixel(rendered.png, (x0 + x1) / 2, (y0 + y1) / 2) == (0, 0, 0)
    assert x1 - x0 > 0 and y1 - y0 > 0
    tx0, ty0, tx1, ty1 = rendered.to_pixels(word_box)  # type: ignore[arg-type]
    assert 0 <= tx0 < tx1 <= rendered.width_px and 0 <= ty0 < ty1 <= rendered.height_px


def test_a_sample_with_a_rotated_page_highlights_its_words(samples: Path) -> None:
    path = samples / "rotated_page.pdf"
    with pymupdf.open(path) as doc:
        words = doc[0].get_text("words")
    longest = max(words, key=lambda w: (w[2] - w[0]) * (w[3] - w[1]))
    rendered = render_page(path, 1, zoom=1.0)
    x0, y0, x1, y1 = rendered.to_pixels(tuple(longest[:4]))  # type: ignore[arg-type]
    pixmap = pymupdf.Pixmap(rendered.png)
    inside = [pixmap.pixel(int(x), int(y)) for x in range(int(x0), int(x1)) for y in range(int(y0), int(y1))]
    assert min(sum(p) for p in inside) < 300, "the box should cover dark glyph pixels"


def test_missing_file_and_page_out_of_range_say_so(tmp_path: Path) -> None:
    path = _pdf(tmp_path / "a.pdf")
    with pytest.raises(PageNotFound, match="no page 5"):
        render_page(path, 5)
    with pytest.raises(PageNotFound, match="no longer at"):
        render_page(tmp_path / "gone.pdf", 1)


def test_encrypted_pdf_needs_its_password(samples: Path) -> None:
    with pytest.raises(EncryptedPdf):
        render_page(samples / "health_protected.pdf", 1)
    assert render_page(samples / "health_protected.pdf", 1, password="userpass").page_count >= 1


def test_zoom_is_clamped() -> None:
    assert clamp_zoom(0.01) == 0.25 and clamp_zoom(100) == 6.0 and clamp_zoom(1.5) == 1.5
