"""Cutting pages and tables into retrieval chunks.

Text chunks stay within one page (so a citation names one page) and keep the boxes of the blocks they
cover; blocks inside a table's region are left to the table. Table chunks render a run of rows as
Markdown under the table's name, caption and column header, as TableRAG does, so both BM25 and the
embedder see row labels and column names together with the values.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from models.types import BBox, TextBlock

MAX_TEXT_WORDS = 120
MAX_TABLE_ROWS = 12
MAX_TABLE_WORDS = 160


@dataclass(frozen=True)
class TextPiece:
    page: int
    text: str
    boxes: tuple[BBox, ...]


@dataclass(frozen=True)
class TablePiece:
    text: str
    first_row: int
    last_row: int
    rows: tuple[int, ...]


def overlap_ratio(inner: BBox, outer: BBox) -> float:
    """How much of ``inner``'s area lies inside ``outer`` (0..1)."""
    x0, y0 = max(inner[0], outer[0]), max(inner[1], outer[1])
    x1, y1 = min(inner[2], outer[2]), min(inner[3], outer[3])
    if x1 <= x0 or y1 <= y0:
        return 0.0
    area = max((inner[2] - inner[0]) * (inner[3] - inner[1]), 1e-6)
    return (x1 - x0) * (y1 - y0) / area


def text_pieces(blocks: Sequence[TextBlock], table_boxes: Sequence[BBox] = ()) -> list[TextPiece]:
    """Group a page's blocks (in reading order) into chunks of about ``MAX_TEXT_WORDS`` words."""
    pieces: list[TextPiece] = []
    words: list[str] = []
    boxes: list[BBox] = []
    page = blocks[0].page if blocks else 0

    def flush() -> None:
        if words:
            pieces.append(TextPiece(page, " ".join(words), tuple(boxes)))
            words.clear()
            boxes.clear()

    for block in blocks:
        if any(overlap_ratio(block.bbox, box) > 0.6 for box in table_boxes):
            continue
        block_words = block.text.split()
        if words and len(words) + len(block_words) > MAX_TEXT_WORDS:
            flush()
        # A single very long block is split on word boundaries; each part keeps the block's box.
        while len(block_words) > MAX_TEXT_WORDS:
            words.extend(block_words[:MAX_TEXT_WORDS])
            boxes.append(block.bbox)
            flush()
            block_words = block_words[MAX_TEXT_WORDS:]
        if block_words:
            words.extend(block_words)
            boxes.append(block.bbox)
    flush()
    return pieces


def _markdown_row(cells: Sequence[str]) -> str:
    return "| " + " | ".join(" ".join(str(c).split()).replace("|", "/") for c in cells) + " |"


def table_pieces(
    name: str,
    title: str,
    column_names: Sequence[str],
    header_text: Sequence[str],
    body: Sequence[tuple[int, Sequence[str]]],
) -> list[TablePiece]:
    """Render a table's body rows, a run at a time, as Markdown with its name, title and header.

    ``body`` holds (row index, raw cell texts) per body row; ``header_text`` the full header of each column.
    """
    heading = f"Table {name}" + (f": {title}" if title else "")
    header = _markdown_row([f"{n} ({h})" if h and h != n else n for n, h in zip(column_names, header_text)])
    rule = "|" + "---|" * len(column_names)
    pieces: list[TablePiece] = []
    run: list[tuple[int, Sequence[str]]] = []
    run_words = 0

    def flush() -> None:
        if run:
            lines = [heading, header, rule] + [_markdown_row(cells) for _, cells in run]
            rows = tuple(index for index, _ in run)
            pieces.append(TablePiece("\n".join(lines), rows[0], rows[-1], rows))
            run.clear()

    for index, cells in body:
        words = sum(len(str(c).split()) for c in cells)
        if run and (len(run) >= MAX_TABLE_ROWS or run_words + words > MAX_TABLE_WORDS):
            flush()
            run_words = 0
        run.append((index, cells))
        run_words += words
    flush()
    if not pieces:
        pieces.append(TablePiece(f"{heading}\n{header}\n{rule}", 0, 0, ()))
    return pieces
