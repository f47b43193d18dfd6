"""A page as table extraction sees it: upright, with its words, ruling lines and a way back to page space.

Some PDFs lay a landscape table on a portrait page, so its text runs up or down the page. Every
extractor reads rows left to right, so extraction works on the page as displayed, and when even the
displayed page has vertical text, on an in-memory copy with a /Rotate that makes it upright. Boxes go
back to the page's unrotated coordinates (those of ``page.get_text``) through ``map_rect``.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from functools import cached_property
from pathlib import Path

import numpy as np
import pymupdf

from core.ingest.extraction.camelot_tables import PdfSource
from core.ingest.extraction.page_text import Word, mark_vertical, read_words, superscript_boxes
from core.ingest.extraction.page_text import phrases as phrases_of_words
from models.types import BBox

RULING_THICKNESS = 2.5  # points: a filled rectangle thinner than this is drawn as a line
MIN_RULING_LENGTH = 4.0  # points: shorter strokes are glyph parts, ticks or bullets


@dataclass(frozen=True)
class Rulings:
    """The straight horizontal and vertical lines drawn on a page (stroked lines, thin filled rectangles, the edges
    of stroked boxes), and apart from them the edges of filled boxes (``shading``).

    Filings drawn by EDGAR tools shade every other row of a table as a run of filled boxes, one per cell (a "$"
    has a box of its own), with a thin line under the totals: their edges cross like a grid's, but no line divides
    the cells. Such a page is not ruled: the ruled-table extractors, asked to read it (about half a second a page),
    cut the rows at the shading's boxes and lose to the borderless ones.
    """

    horizontal: tuple[pymupdf.Rect, ...]
    vertical: tuple[pymupdf.Rect, ...]
    shading: tuple[pymupdf.Rect, ...] = ()

    def crossings(self, tolerance: float = 2.0) -> int:
        """How many horizontal/vertical pairs touch or cross: a grid has many, underlines have none."""
        if not self.horizontal or not self.vertical:
            return 0
        h = np.array([(r.x0, r.y0, r.x1, r.y1) for r in self.horizontal])[:, None, :]
        v = np.array([(r.x0, r.y0, r.x1, r.y1) for r in self.vertical])[None, :, :]
        meet = (
            (v[..., 0] <= h[..., 2] + tolerance)
            & (v[..., 2] >= h[..., 0] - tolerance)
            & (h[..., 1] <= v[..., 3] + tolerance)
            & (h[..., 3] >= v[..., 1] - tolerance)
        )
        return int(meet.sum())

    @property
    def has_grid(self) -> bool:
        """At least a box split into cells by drawn lines: horizontal and vertical lines that meet, more than the four
        corners of one box. A frame drawn around the page or a passage (a filing draws one on every page) divides
        nothing: the ruled-table extractors, asked to read it, cost half a second a page and find no table."""
        return len(self.horizontal) >= 2 and len(self.vertical) >= 2 and self.crossings() >= 6


def find_rulings(page: pymupdf.Page) -> Rulings:
    """Collect the page's ruling lines from its vector drawings, in displayed (rotated) page coordinates."""
    horizontal: list[pymupdf.Rect] = []
    vertical: list[pymupdf.Rect] = []
    shading: list[pymupdf.Rect] = []
    matrix = page.rotation_matrix
    try:
        paths = page.get_cdrawings()
    except Exception:  # noqa: BLE001 - broken content streams: treat as a page without lines
        return Rulings((), ())

    def add(rect: pymupdf.Rect) -> None:
        rect = rect * matrix
        rect.normalize()
        if rect.height <= RULING_THICKNESS and rect.width >= MIN_RULING_LENGTH:
            horizontal.append(rect)
        elif rect.width <= RULING_THICKNESS and rect.height >= MIN_RULING_LENGTH:
            vertical.append(rect)

    for path in paths:
        stroked = "s" in path.get("type", "")
        for item in path.get("items", ()):
            kind = item[0]
            if kind == "l":
                (x0, y0), (x1, y1) = item[1], item[2]
                add(pymupdf.Rect(min(x0, x1), min(y0, y1), max(x0, x1), max(y0, y1)))
            elif kind == "re":
                rect = pymupdf.Rect(item[1])
                if rect.width <= RULING_THICKNESS or rect.height <= RULING_THICKNESS:
                    add(rect)
                elif stroked:  # a box drawn with its border: four lines
                    add(pymupdf.Rect(rect.x0, rect.y0, rect.x1, rect.y0))
                    add(pymupdf.Rect(rect.x0, rect.y1, rect.x1, rect.y1))
                    add(pymupdf.Rect(rect.x0, rect.y0, rect.x0, rect.y1))
                    add(pymupdf.Rect(rect.x1, rect.y0, rect.x1, rect.y1))
                elif rect.width * rect.height < 0.5 * abs(page.rect):  # a shaded cell or row (not the background)
                    shaded = rect * matrix
                    shaded.normalize()
                    shading.append(shaded)
    return Rulings(tuple(horizontal), tuple(vertical), tuple(shading))


def text_direction(page: pymupdf.Page) -> tuple[int, int]:
    """The writing direction of most of the page's text, as pymupdf reports it per line."""
    counts: dict[tuple[int, int], int] = {}
    for block in page.get_text("dict").get("blocks", []):
        for line in block.get("lines", []):
            key = (round(line["dir"][0]), round(line["dir"][1]))
            counts[key] = counts.get(key, 0) + len(line.get("spans", ()))
    return max(counts, key=lambda k: counts[k]) if counts else (1, 0)


# The page /Rotate under which text written in a given (unrotated) direction reads left to right.
_ROTATION_FOR_DIRECTION = {(1, 0): 0, (0, -1): 90, (-1, 0): 180, (0, 1): 270}


def _looks_vertical(words: list[Word]) -> bool:
    """Cheap test before asking for text directions: most longer words are taller than wide."""
    longer = [w for w in words if len(w.text) >= 3]
    if not longer:
        return False
    tall = sum(1 for w in longer if (w.y1 - w.y0) > 1.2 * (w.x1 - w.x0))
    return tall > 0.5 * len(longer)


def _transform(words: list[Word], matrix: pymupdf.Matrix) -> list[Word]:
    out = []
    for w in words:
        r = w.rect * matrix
        r.normalize()
        out.append(replace(w, x0=r.x0, y0=r.y0, x1=r.x1, y1=r.y1))
    return mark_vertical(out)


@dataclass
class PageView:
    """One page ready for extraction, in its upright (displayed) coordinates.

    ``page`` is the original page, or an in-memory copy with another /Rotate when the original does not
    display its text upright. ``words`` and ``rulings`` are in the display coordinates of ``page``, like
    ``find_tables``' results; ``map_rect`` takes a box back to the original page's unrotated
    coordinates, the ones ``page.get_text`` uses and every ``ExtractedTable`` reports.

    ``source`` and ``source_page`` are what camelot reads: the file and the page's number in it, or, for a file
    opened with a password (``decrypted``), the bytes of a decrypted copy of the page, made only when camelot
    is asked (most pages of a filing never are, and a copy costs 10-20 ms).
    """

    page: pymupdf.Page
    number: int
    file: PdfSource
    file_page: int
    password: str | None
    words: list[Word]
    _copy: pymupdf.Document | None = field(default=None, repr=False)
    decrypted: pymupdf.Document | None = field(default=None, repr=False)

    @cached_property
    def _camelot_source(self) -> tuple[PdfSource, int]:
        if self.decrypted is not None:
            return _page_bytes(self.decrypted, self.file_page - 1), 1
        return self.file, self.file_page

    @property
    def source(self) -> PdfSource:
        return self._camelot_source[0]

    @property
    def source_page(self) -> int:
        return self._camelot_source[1]

    @cached_property
    def rulings(self) -> Rulings:
        return find_rulings(self.page)

    @cached_property
    def phrases(self) -> list[list[Word]]:
        """The page's phrases (words set close on one line), each as its words: read once, cut for each borderless
        grid at its columns (``refine.phrases_at_columns``)."""
        return phrases_of_words(self.words)

    def map_rect(self, rect: pymupdf.Rect) -> pymupdf.Rect:
        """A box on this view, in the original page's (unrotated) coordinates."""
        mapped = pymupdf.Rect(rect) * self.page.derotation_matrix
        mapped.normalize()
        return mapped

    def view_rect(self, rect: BBox | pymupdf.Rect) -> pymupdf.Rect:
        """A box in the original page's coordinates (a table's), on this view: the inverse of ``map_rect``."""
        shown = pymupdf.Rect(rect) * self.page.rotation_matrix
        shown.normalize()
        return shown

    def superscripts(self, rect: pymupdf.Rect) -> list[tuple[pymupdf.Rect, str]]:
        """Footnote markers inside ``rect`` (view coordinates)."""
        found = superscript_boxes(self.page, self.map_rect(rect))
        out = []
        for box, text in found:
            shown = box * self.page.rotation_matrix
            shown.normalize()
            out.append((shown, text))
        return out

    def close(self) -> None:
        if self._copy is not None:
            self._copy.close()
            self._copy = None


def _one_page_copy(doc: pymupdf.Document, index: int) -> pymupdf.Document:
    """A new document holding page ``index`` of ``doc``. Without its links: copying them walks every page of the
    document (a 150-page filing's page cost 14 ms instead of 2), and no extractor reads them."""
    copy = pymupdf.open()
    copy.insert_pdf(doc, from_page=index, to_page=index, links=False)
    return copy


def _page_bytes(doc: pymupdf.Document, index: int) -> bytes:
    copy = _one_page_copy(doc, index)
    try:
        return copy.tobytes()
    finally:
        copy.close()


def open_view(doc: pymupdf.Document, pdf_path: Path, number: int, password: str | None) -> PageView:
    """The view of page ``number`` (1-based): the page itself, or a copy turned so its text is upright.

    pymupdf gives words and drawings in unrotated coordinates but ``find_tables`` results in displayed
    (rotated) ones; the view works in displayed coordinates throughout.
    """
    page = doc[number - 1]
    raw_words = read_words(page)
    # An encrypted file the caller has opened: camelot gets this page decrypted instead of a password.
    decrypted = doc if (doc.metadata or {}).get("encryption") and not password else None
    if page.rotation == 0 and not _looks_vertical(raw_words):
        return PageView(page, number, pdf_path, number, password, raw_words, decrypted=decrypted)
    wanted = _ROTATION_FOR_DIRECTION.get(text_direction(page), page.rotation)
    if wanted == page.rotation:
        return PageView(page, number, pdf_path, number, password, _transform(raw_words, page.rotation_matrix),
                        decrypted=decrypted)
    copy = _one_page_copy(doc, number - 1)
    copy[0].set_rotation(wanted)
    source = copy.tobytes()
    copy.close()
    copy = pymupdf.open("pdf", source)
    upright = copy[0]
    return PageView(upright, number, source, 1, None, _transform(raw_words, upright.rotation_matrix), copy)
