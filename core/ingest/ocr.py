"""Reading scanned pages: OCR, then the same page reading and table finding as a born-digital page.

Owns three things:

- ``OcrWorker``: a worker process running RapidOCR (PP-OCRv4 detection and recognition, ONNX models
  shipped inside the ``rapidocr-onnxruntime`` wheel, nothing downloaded). It renders a page, reads its
  text lines and sends them back in page points. It is a process, not a thread, so a cancel stops it
  mid-page at once (one page costs seconds, and one ONNX call cannot be interrupted), and OpenCV, which
  RapidOCR needs, never loads into the app's own process.
- ``text_layer_copy``: a one-page copy of the scanned page with the recognised lines written on it as
  invisible text (render mode 3), each fitted to the box where it was read, and the ruling lines seen
  in the image (OpenCV morphology, as camelot's lattice does on images) drawn as invisible vector lines.
  Everything downstream (text blocks, words, camelot's lattice and stream parsers, chunks, highlights,
  citations) then reads the page as if it had been born digital, in the page's own coordinates.
- ``ScannedPageReader``: the two together, giving ingestion a page's content and tables.
"""

from __future__ import annotations

import contextlib
import logging
import multiprocessing
import signal
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from multiprocessing.connection import Connection, wait
from multiprocessing.process import BaseProcess
from pathlib import Path
from typing import Any

import pymupdf

from core.errors import UserError
from core.ingest.pdf_reader import open_pdf, read_page
from models.types import BBox, ExtractedTable, PageContent

log = logging.getLogger(__name__)

# Resolution a page is rendered at for OCR. RapidOCR scales the image to at most 2,000 pixels on its
# long side anyway; 200 dpi gives a Letter page 2,200 pixels, so nothing is lost and little is wasted.
OCR_DPI = 200
# Lines read with less confidence than this are dropped (RapidOCR's own default is 0.5).
MIN_SCORE = 0.5
# How often a caller waiting for a page looks at its cancellation token.
POLL_SECONDS = 0.05
# Waiting for the worker to load its models and answer its first page; a page at 200 dpi takes 3-10 s
# on two cores, so this only catches a worker that hangs.
PAGE_SECONDS = 300.0
START_METHOD = "spawn"
FONT = "helv"


class OcrFailed(UserError):
    """OCR could not run (the engine is missing or its worker stopped)."""


@dataclass(frozen=True)
class OcrLine:
    """One line of text read from a page image, with its box in page points."""

    text: str
    bbox: BBox
    score: float


@dataclass(frozen=True)
class OcrPage:
    """What was read from a page image: its text lines, and its straight ruling lines (x0, y0, x1, y1 in
    page points; horizontal ones have y0 == y1, vertical ones x0 == x1)."""

    lines: tuple[OcrLine, ...]
    rulings: tuple[BBox, ...] = ()


# ------------------------------------------------------------------------------------- the worker
class OcrWorker:
    """A process that OCRs pages, started on first use. ``close`` when done; ``terminate`` stops it now.

    Used by one thread at a time.
    """

    def __init__(self, dpi: int = OCR_DPI, start_method: str = START_METHOD) -> None:
        self.dpi = dpi
        self.start_method = start_method
        self._process: BaseProcess | None = None
        self._conn: Connection | None = None

    @property
    def pid(self) -> int | None:
        return self._process.pid if self._process is not None else None

    def start(self) -> None:
        if self._process is not None:
            return
        context = multiprocessing.get_context(self.start_method)
        parent, child = context.Pipe()
        process = context.Process(target=_serve, args=(child,), name="folio-ocr", daemon=True)  # type: ignore[attr-defined]
        process.start()
        child.close()  # the worker's end lives in the worker only, so it sees EOF when we are gone
        self._process, self._conn = process, parent

    def read(self, path: Path, number: int, password: str | None = None,
             check: Callable[[], None] = lambda: None) -> OcrPage:
        """The text lines of page ``number`` (1-based) of the PDF at ``path``. Calls ``check`` every
        ``POLL_SECONDS`` while it waits; if ``check`` raises (a cancel), the worker is stopped at once."""
        self.start()
        assert self._process is not None and self._conn is not None
        try:
            self._conn.send((str(Path(path).absolute()), password, number, self.dpi))
            waited = 0.0
            while not self._conn.poll():
                check()
                ready = wait([self._conn, self._process.sentinel], POLL_SECONDS)
                if self._process.sentinel in ready and not self._conn.poll():
                    raise OcrFailed(f"OCR stopped on page {number} (its worker exited with code {self._process.exitcode}).")
                waited += POLL_SECONDS
                if waited > PAGE_SECONDS:
                    raise OcrFailed(f"OCR of page {number} did not finish within {PAGE_SECONDS:.0f} s.")
            ok, payload = self._conn.recv()
        except (EOFError, OSError) as exc:
            self.terminate()
            raise OcrFailed(f"OCR stopped on page {number} (its worker cannot be reached: {exc}).") from exc
        except BaseException:
            self.terminate()  # mid-page: nothing of it is wanted any more
            raise
        if not ok:
            raise OcrFailed(f"OCR failed on page {number}: {payload}")
        lines, rulings = payload
        return OcrPage(tuple(OcrLine(text, (x0, y0, x1, y1), score) for text, x0, y0, x1, y1, score in lines),
                       tuple(tuple(r) for r in rulings))  # type: ignore[misc]

    def close(self) -> None:
        if self._conn is not None:
            with contextlib.suppress(OSError, ValueError):
                self._conn.send(None)
        if self._process is not None:
            self._process.join(5)
        self.terminate()

    def terminate(self) -> None:
        process, conn = self._process, self._conn
        self._process = self._conn = None
        if process is not None:
            if process.is_alive():
                process.kill()  # an ONNX call does not return to Python to hear a gentler signal
            process.join(5)
            with contextlib.suppress(ValueError):
                process.close()
        if conn is not None:
            with contextlib.suppress(OSError):
                conn.close()


def _serve(conn: Connection) -> None:
    """The worker's life: load the engine once, then render and read pages until told to stop."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl+C reaches the process group; the caller decides
    try:
        engine: Any = _engine()
        error = ""
    except Exception as exc:  # noqa: BLE001 - told to the caller on its first page
        engine, error = None, f"the OCR engine cannot start ({type(exc).__name__}: {exc})"
    opened: tuple[str, str | None] | None = None
    doc: pymupdf.Document | None = None
    try:
        while True:
            try:
                task = conn.recv()
            except (EOFError, OSError):
                return
            if task is None:
                return
            path, password, number, dpi = task
            try:
                if engine is None:
                    raise RuntimeError(error)
                if doc is None or opened != (path, password):
                    if doc is not None:
                        doc.close()
                    doc = open_pdf(Path(path), password)
                    opened = (path, password)
                reply: tuple[bool, Any] = (True, recognise_page(engine, doc.load_page(number - 1), dpi))
            except Exception as exc:  # noqa: BLE001 - reported to the caller
                reply = (False, f"{type(exc).__name__}: {exc}")
            try:
                conn.send(reply)
            except (OSError, ValueError):
                return
    finally:
        if doc is not None:
            doc.close()


def _engine() -> Any:
    from rapidocr_onnxruntime import RapidOCR

    # No angle classifier: report pages are upright (a rotated page is turned by its /Rotate entry,
    # which rendering honours), and it costs a pass over every line.
    return RapidOCR(use_cls=False, print_verbose=False)


def recognise_page(engine: Any, page: pymupdf.Page, dpi: int = OCR_DPI) -> tuple[list[tuple[Any, ...]], list[BBox]]:
    """Render ``page`` and read it: (text, x0, y0, x1, y1, score) per line, and its ruling lines, all in
    unrotated page points."""
    import numpy as np

    pixmap = page.get_pixmap(dpi=dpi, colorspace=pymupdf.csRGB, alpha=False)
    image = np.frombuffer(pixmap.samples, dtype=np.uint8).reshape(pixmap.height, pixmap.width, 3)
    result, _elapsed = engine(image[:, :, ::-1])  # OpenCV's channel order
    # Pixels of the rendered (rotated) page back to the page's own coordinates.
    back = ~(page.rotation_matrix * pymupdf.Matrix(dpi / 72, dpi / 72))
    lines = []
    for quad, text, score in result or ():
        text = " ".join(str(text).split())
        if not text or float(score) < MIN_SCORE:
            continue
        points = [pymupdf.Point(float(x), float(y)) * back for x, y in quad]
        xs, ys = [p.x for p in points], [p.y for p in points]
        lines.append((text, min(xs), min(ys), max(xs), max(ys), float(score)))
    rulings = []
    for x0, y0, x1, y1 in image_rulings(image, dpi):
        a, b = pymupdf.Point(x0, y0) * back, pymupdf.Point(x1, y1) * back
        rulings.append((min(a.x, b.x), min(a.y, b.y), max(a.x, b.x), max(a.y, b.y)))
    return lines, rulings


# Shortest ruling lines looked for in the image, in points: a row is ~14 pt high, a narrow column ~30 pt
# wide; letters' strokes are shorter than both.
MIN_HORIZONTAL = 36.0
MIN_VERTICAL = 16.0


def image_rulings(image: Any, dpi: int) -> list[tuple[float, float, float, float]]:
    """Straight horizontal and vertical lines in a page image (pixels), found by opening the inked pixels
    with a long thin kernel, as camelot's lattice parser does on rendered pages."""
    import cv2

    gray = cv2.cvtColor(image, cv2.COLOR_RGB2GRAY)
    ink = cv2.adaptiveThreshold(255 - gray, 255, cv2.ADAPTIVE_THRESH_MEAN_C, cv2.THRESH_BINARY, 15, -2)
    scale = dpi / 72
    found: list[tuple[float, float, float, float]] = []
    for horizontal in (True, False):
        length = int((MIN_HORIZONTAL if horizontal else MIN_VERTICAL) * scale)
        kernel = cv2.getStructuringElement(cv2.MORPH_RECT, (length, 1) if horizontal else (1, length))
        opened = cv2.dilate(cv2.erode(ink, kernel), kernel)
        contours, _ = cv2.findContours(opened, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        for contour in contours:
            x, y, w, h = cv2.boundingRect(contour)
            if horizontal and h <= 0.15 * w:  # thin and long: a rule, not a filled block
                found.append((float(x), y + h / 2, float(x + w), y + h / 2))
            elif not horizontal and w <= 0.15 * h:
                found.append((x + w / 2, float(y), x + w / 2, float(y + h)))
    return found


# ----------------------------------------------------------------------------- the text layer
def text_layer_copy(doc: pymupdf.Document, number: int, lines: Sequence[OcrLine],
                    rulings: Sequence[BBox] = ()) -> pymupdf.Document:
    """A one-page document: page ``number`` of ``doc`` with ``lines`` written on it as invisible text.

    OCR boxes whole lines; each word is placed where its share of the line's natural width puts it, in
    a size that fits the line's height, so words (and the gaps between columns) land where the scan
    shows them."""
    copy = pymupdf.open()
    copy.insert_pdf(doc, from_page=number - 1, to_page=number - 1)
    page = copy[0]
    for line in lines:
        x0, y0, x1, y1 = line.bbox
        width, height = x1 - x0, y1 - y0
        words = line.text.split()
        natural = pymupdf.get_text_length(" ".join(words), fontname=FONT, fontsize=1.0)
        if width <= 0 or height <= 0 or natural <= 0:
            continue
        scale = width / natural  # points of the scan per point of text at size 1
        size = min(height * 0.75, scale)
        # Centred on the box's middle: OCR boxes of one printed row differ in padding more than in centre,
        # so the words of a row share a baseline as they do in a born-digital page.
        baseline = (y0 + y1) / 2 + size * 0.35
        offset = 0.0
        space = pymupdf.get_text_length(" ", fontname=FONT, fontsize=1.0)
        for word in words:
            length = pymupdf.get_text_length(word, fontname=FONT, fontsize=1.0)
            # Each word starts where it starts on the scan and is no wider than its share there (size <= scale).
            page.insert_text((x0 + offset * scale, baseline), word, fontname=FONT, fontsize=max(size, 0.5),
                             render_mode=3)
            offset += length + space
    if rulings:
        shape = page.new_shape()
        for x0, y0, x1, y1 in rulings:
            shape.draw_line((x0, y0), (x1, y1))
        # Invisible, like the text: the page still shows only the scan.
        shape.finish(color=(0, 0, 0), width=0.5, stroke_opacity=0, closePath=False)
        shape.commit()
    return copy


def _renumbered_table(table: ExtractedTable, number: int) -> ExtractedTable:
    cells = tuple(tuple(replace(ref, page=number) if ref is not None else None for ref in row) for row in table.cells)
    return replace(table, page=number, pages=tuple(number for _ in table.pages) or (number,), cells=cells)


class ScannedPageReader:
    """Reads scanned pages of one document: OCR in the worker, a text layer on a one-page copy, then the
    page's text blocks and tables read from that copy exactly as from any page, renumbered.

    ``extractor_factory(path, doc, password)`` is ingestion's table extractor (``TableExtractor``).
    """

    def __init__(self, extractor_factory: Callable[..., Any], worker: OcrWorker | None = None) -> None:
        self.extractor_factory = extractor_factory
        self.worker = worker or OcrWorker()
        self._folder: tempfile.TemporaryDirectory[str] | None = None

    def read(self, doc: pymupdf.Document, path: Path, number: int, password: str | None,
             check: Callable[[], None]) -> tuple[PageContent, list[ExtractedTable], int]:
        """Page ``number``'s content and tables, and how many lines OCR read on it."""
        read = self.worker.read(path, number, password, check)
        lines = read.lines
        check()
        copy = text_layer_copy(doc, number, lines, read.rulings)
        try:
            if self._folder is None:
                self._folder = tempfile.TemporaryDirectory(prefix="folio-ocr-")
            # camelot reads the file itself, so the copy is written out (a small one-page PDF).
            copy_path = Path(self._folder.name) / f"page-{number}.pdf"
            copy.save(str(copy_path), garbage=1)
            content = read_page(copy, 1, path)
            blocks = tuple(replace(block, page=number) for block in content.blocks)
            content = replace(content, number=number, blocks=blocks, needs_ocr=False)
            tables: list[ExtractedTable] = []
            if blocks:
                extractor = self.extractor_factory(copy_path, copy, None)
                try:
                    tables = [_renumbered_table(t, number) for t in extractor.page_tables(1)]
                finally:
                    close = getattr(extractor, "close", None)
                    if close is not None:
                        close()
            copy_path.unlink(missing_ok=True)
            return content, tables, len(lines)
        finally:
            copy.close()

    def close(self) -> None:
        self.worker.close()
        if self._folder is not None:
            self._folder.cleanup()
            self._folder = None

    def terminate(self) -> None:
        self.worker.terminate()
        if self._folder is not None:
            self._folder.cleanup()
            self._folder = None


def ocr_unavailable_reason() -> str:
    """Why OCR cannot run here ('' when it can): the engine package is missing."""
    import importlib.util

    if importlib.util.find_spec("rapidocr_onnxruntime") is None:
        return "the OCR engine (rapidocr-onnxruntime) is not installed"
    return ""


__all__ = ["OcrFailed", "OcrLine", "OcrPage", "OcrWorker", "ScannedPageReader", "ocr_unavailable_reason", "recognise_page",
           "text_layer_copy"]
