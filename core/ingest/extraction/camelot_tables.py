"""Tables found by camelot (lattice for ruled tables, stream for borderless ones), as ``TableGrid``s.

Camelot works in its own coordinate space (playa's "page" space: the rotated MediaBox with the origin
at the bottom left); ``camelot_to_page_matrix`` maps that onto pymupdf's page coordinates so camelot's
rows and columns can be read with the same words as every other extractor. Camelot's warnings and
log messages ("no tables found") are silenced: they are expected on most pages.

``find_camelot_grids`` is one ``camelot.read_pdf`` call: it opens the PDF, parses the page's layout and
runs one parser. ``CamelotReader`` does what ``read_pdf`` does, but keeps the document open across pages
and parses each page's layout once for every flavor asked of it (lattice then stream on the same page
paid the layout twice: 30-60 ms a time, most of camelot's cost on a page), with text-box grouping off
(``LAYOUT_KWARGS``). It goes through camelot's own steps (``PDFHandler._get_layout``, the flavor's
parser, ``prepare_page_parse``, ``extract_tables``), which are not public API:
``tests/core/ingest/test_camelot_reader.py`` checks that they are still there and that the reader's tables
equal ``read_pdf``'s, so a camelot release that changes them fails loudly.
"""

from __future__ import annotations

import contextlib
import logging
import os
import tempfile
import warnings
from collections import OrderedDict
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Self

import pymupdf

from core.ingest.extraction.grid import Span, TableGrid, edges_from_intervals

log = logging.getLogger(__name__)

PdfSource = Path | bytes
"""A PDF file on disk, or the bytes of an in-memory PDF (camelot spills those to a temporary file)."""


@contextlib.contextmanager
def _quiet() -> Iterator[None]:
    """Silence camelot's and its PDF parser's warnings and log records for one call."""
    loggers = [logging.getLogger(name) for name in ("camelot", "playa", "pdfminer", "pypdf", "pypdfium2")]
    levels = [logger.level for logger in loggers]
    for logger in loggers:
        logger.setLevel(logging.CRITICAL)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            yield
    finally:
        for logger, level in zip(loggers, levels):
            logger.setLevel(level)


def _playa_matrix(mediabox: tuple[float, float, float, float], rotate: int) -> pymupdf.Matrix:
    """Default user space -> playa "page" device space, as playa's ``Page.set_initial_ctm`` builds it."""
    x0, y0, x1, y1 = mediabox
    width, height = x1 - x0, y1 - y0
    rotate %= 360
    if rotate == 90:
        ctm = pymupdf.Matrix(0, -1, 1, 0, 0, width)
    elif rotate == 180:
        ctm = pymupdf.Matrix(-1, 0, 0, -1, width, height)
    elif rotate == 270:
        ctm = pymupdf.Matrix(0, 1, -1, 0, height, 0)
    else:
        ctm = pymupdf.Matrix(1, 0, 0, 1, 0, 0)
    box = pymupdf.Rect(mediabox) * ctm
    box.normalize()
    return ctm * pymupdf.Matrix(1, 0, 0, 1, -box.x0, -box.y0)


def camelot_to_page_matrix(page: pymupdf.Page, camelot_rotation: str = "") -> pymupdf.Matrix:
    """Matrix from camelot's coordinates on ``page`` to pymupdf's displayed (rotated) page coordinates."""
    rotate = page.rotation
    if camelot_rotation == "clockwise":
        rotate -= 90
    elif camelot_rotation == "anticlockwise":
        rotate += 90
    mediabox = tuple(page.mediabox)
    to_user = ~_playa_matrix(mediabox, rotate)  # type: ignore[arg-type]
    return to_user * page.transformation_matrix * page.rotation_matrix


def _lattice_spans(table: Any) -> list[Span]:
    """Merged cells of a lattice table: neighbours not separated by a ruling line belong together."""
    n_rows, n_cols = len(table.cells), len(table.cells[0]) if table.cells else 0
    parent = list(range(n_rows * n_cols))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    def union(a: int, b: int) -> None:
        parent[find(a)] = find(b)

    for r in range(n_rows):
        for c in range(n_cols):
            cell = table.cells[r][c]
            if c + 1 < n_cols and not cell.right and not table.cells[r][c + 1].left:
                union(r * n_cols + c, r * n_cols + c + 1)
            if r + 1 < n_rows and not cell.bottom and not table.cells[r + 1][c].top:
                union(r * n_cols + c, (r + 1) * n_cols + c)
    groups: dict[int, list[tuple[int, int]]] = {}
    for r in range(n_rows):
        for c in range(n_cols):
            groups.setdefault(find(r * n_cols + c), []).append((r, c))
    spans = []
    for members in groups.values():
        if len(members) > 1:
            rows = [r for r, _ in members]
            cols = [c for _, c in members]
            spans.append((min(rows), min(cols), max(rows), max(cols)))
    return spans


def grid_from_camelot(table: Any, page: pymupdf.Page, extractor: str) -> TableGrid | None:
    """Convert one camelot ``Table`` into a ``TableGrid`` in ``page``'s coordinates."""
    if not table.cols or not table.rows:
        return None
    matrix = camelot_to_page_matrix(page, getattr(table, "rotation", "") or "")
    if abs(matrix.b) > 1e-6 or abs(matrix.c) > 1e-6:
        return None  # the table is rotated against the page; the caller hands over upright pages
    xs = edges_from_intervals(sorted((min(a, b), max(a, b)) for a, b in table.cols))
    ys = edges_from_intervals(sorted((min(a, b), max(a, b)) for a, b in table.rows))
    x_values = sorted(matrix.a * x + matrix.e for x in xs)
    y_values = sorted(matrix.d * y + matrix.f for y in ys)
    native = [[str(v) for v in row] for row in table.data]
    spans: list[Span] = []
    if extractor == "camelot-lattice":
        spans = _lattice_spans(table)
    # camelot lists rows top-down in PDF space (y descending), which is top-down on the page too unless
    # the mapping flips y; flip the row order with it.
    flip_y = matrix.d > 0
    flip_x = matrix.a < 0
    if flip_y or flip_x:
        n_rows, n_cols = len(y_values) - 1, len(x_values) - 1
        if flip_y:
            native = native[::-1]
            spans = [(n_rows - 1 - r1, c0, n_rows - 1 - r0, c1) for r0, c0, r1, c1 in spans]
        if flip_x:
            native = [row[::-1] for row in native]
            spans = [(r0, n_cols - 1 - c1, r1, n_cols - 1 - c0) for r0, c0, r1, c1 in spans]
    return TableGrid(extractor, x_values, y_values, spans, native)


def find_camelot_grids(
    source: PdfSource,
    page_number: int,
    page: pymupdf.Page,
    flavor: str,
    password: str | None = None,
    **options: Any,
) -> list[TableGrid]:
    """Run camelot ``flavor`` ("lattice" or "stream") on one page (1-based) of ``source``.

    ``page`` is the pymupdf page of the same PDF, used for coordinates. Returns [] when camelot finds
    nothing or fails on an odd page.
    """
    import camelot  # imported lazily: it pulls in OpenCV and pandas, which a prose-only run never needs

    filepath: Any = str(source) if isinstance(source, Path) else source
    try:
        with _quiet():
            found = camelot.read_pdf(
                filepath, pages=str(page_number), flavor=flavor, password=password, suppress_stdout=True, **options
            )
    except Exception as exc:  # noqa: BLE001 - camelot raises on image-only or malformed pages; there is no table to give
        log.debug("camelot %s failed on page %s: %s", flavor, page_number, exc)
        return []
    return _grids(found, page, flavor)


def _grids(tables: Any, page: pymupdf.Page, flavor: str) -> list[TableGrid]:
    grids = []
    for table in tables:
        try:
            grid = grid_from_camelot(table, page, f"camelot-{flavor}")
        except Exception as exc:  # noqa: BLE001 - a malformed table must not lose the others on the page
            log.debug("camelot table conversion failed: %s", exc)
            continue
        if grid is not None:
            grids.append(grid)
    return grids


# A document kept open by ``CamelotReader`` caches every object it has parsed (fonts, content streams);
# it is reopened after this many pages so a 1,000-page file never sits in memory whole.
READER_REOPEN_PAGES = 64
# Layouts kept: the page being extracted (lattice and stream both read it) and the one before.
READER_LAYOUTS = 2
# Layout analysis settings for the reader (playa's LAParams, read_pdf's ``layout_kwargs``). Camelot reads
# only text lines from the layout, and re-sorts them; ``boxes_flow=None`` skips grouping the lines into
# a hierarchy of text boxes, which camelot never looks at and which took 60% of the layout time on report
# pages (6.3 s -> 2.5 s on 200 generated pages). The text lines are the same, only listed in another
# order: on ICDAR 2013, the samples and generated reports every lattice and stream table came out the
# same as read_pdf's defaults (1,119 tables, text included); tests/core/ingest/test_camelot_reader.py keeps
# checking it.
LAYOUT_KWARGS: dict[str, Any] = {"boxes_flow": None}


class CamelotReader:
    """Camelot on the pages of one PDF, with the document opened once and each page's layout parsed once.

    ``grids`` answers what ``find_camelot_grids`` answers for the same arguments (see ``LAYOUT_KWARGS``).
    Not thread-safe: one per ``TableExtractor``. Close it when the document is done.
    """

    def __init__(self) -> None:
        self._source: PdfSource | None = None
        self._password: str | None = None
        self._pdf: Any = None  # the open playa Document
        self._filepath: str | None = None  # what camelot's parsers are told the file is
        self._temp: str | None = None  # a spilled in-memory PDF
        self._handler: Any = None  # camelot's PDFHandler for that file (it holds no open file)
        self._layouts: OrderedDict[int, tuple[Any, ...]] = OrderedDict()
        self._parsed: set[int] = set()

    def grids(
        self,
        source: PdfSource,
        page_number: int,
        page: pymupdf.Page,
        flavor: str,
        password: str | None = None,
        **options: Any,
    ) -> list[TableGrid]:
        """Run camelot ``flavor`` on page ``page_number`` (1-based) of ``source``; see ``find_camelot_grids``."""
        try:
            with _quiet():
                tables = self._tables(source, page_number, flavor, password, options)
        except Exception as exc:  # noqa: BLE001 - as find_camelot_grids: an odd page has no table to give
            log.debug("camelot %s failed on page %s: %s", flavor, page_number, exc)
            return []
        return _grids(tables, page, flavor)

    def close(self) -> None:
        self._layouts.clear()
        self._parsed.clear()
        if self._pdf is not None:
            with contextlib.suppress(Exception):
                self._pdf.close()
            self._pdf = None
        if self._temp is not None:
            with contextlib.suppress(OSError):
                os.remove(self._temp)
            self._temp = None
        self._source = self._handler = None

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ------------------------------------------------------------------------------------- steps
    def _tables(self, source: PdfSource, page_number: int, flavor: str, password: str | None,
                options: dict[str, Any]) -> list[Any]:
        from camelot.handlers import PARSERS
        from camelot.utils import remove_extra, validate_input

        # As read_pdf: refuse options the flavor does not take, then drop the ones its parser ignores.
        kwargs = dict(options)
        validate_input(kwargs, flavor=flavor)
        kwargs = remove_extra(kwargs, flavor=flavor)
        layout, dimensions, images, horizontal_text, vertical_text, rotation = self._layout(
            source, page_number, password
        )
        parser = PARSERS[flavor](debug=False, **kwargs)
        # Parsers sort the text lines they are given in place: each gets its own lists, so what the
        # second flavor sees does not depend on the first having run.
        parser.prepare_page_parse(
            self._filepath, layout, dimensions, page_number, list(images), list(horizontal_text),
            list(vertical_text), rotation, layout_kwargs=dict(LAYOUT_KWARGS),
        )
        return sorted(parser.extract_tables())

    def _layout(self, source: PdfSource, page_number: int, password: str | None) -> tuple[Any, ...]:
        self._open(source, password)
        index = page_number - 1
        cached = self._layouts.get(index)
        if cached is not None:
            self._layouts.move_to_end(index)
            return cached
        if index in self._parsed or len(self._parsed) >= READER_REOPEN_PAGES:
            # camelot turns a playa page in place when its text runs sideways, so a page is parsed only
            # once per open document; and the document's object cache is let go now and then.
            self._reopen()
        # camelot's own step: the page's layout, re-read upright when its text runs sideways.
        layout, dimensions, images, _chars, horizontal, vertical, rotation = self._handler._get_layout(
            self._pdf.pages[index], **LAYOUT_KWARGS
        )
        entry = (layout, dimensions, images, horizontal, vertical, rotation)
        self._parsed.add(index)
        self._layouts[index] = entry
        while len(self._layouts) > READER_LAYOUTS:
            self._layouts.popitem(last=False)
        return entry

    def _open(self, source: PdfSource, password: str | None) -> None:
        # An in-memory page (a rotated or decrypted copy) is the same source only as the same object.
        same = source is self._source or (isinstance(source, Path) and source == self._source)
        if self._pdf is not None and same and password == self._password:
            return
        self.close()
        if isinstance(source, Path):
            self._filepath = str(source)
        else:
            # read_pdf spills in-memory PDFs to a file too: lattice's rendering engines need a path.
            with tempfile.NamedTemporaryFile(prefix="folio-camelot-", suffix=".pdf", delete=False) as handle:
                handle.write(source)
            self._temp = self._filepath = handle.name
        from camelot.handlers import PDFHandler

        self._handler = PDFHandler(self._filepath, password=password)
        self._source, self._password = source, password
        self._reopen()

    def _reopen(self) -> None:
        import playa
        from playa.exceptions import PDFTextExtractionNotAllowed

        if self._pdf is not None:
            with contextlib.suppress(Exception):
                self._pdf.close()
            self._pdf = None
        self._layouts.clear()
        self._parsed.clear()
        assert self._filepath is not None
        # As playa.open, which camelot uses, but the file is closed at once: playa reads it through a
        # memory map, so an extractor that is never closed leaves no open file behind.
        with open(self._filepath, "rb") as handle:
            pdf = playa.Document(handle, password=self._password or "", space="page")
        if not pdf.is_extractable:
            raise PDFTextExtractionNotAllowed(f"Text extraction is not allowed: {self._filepath}")
        self._pdf = pdf
