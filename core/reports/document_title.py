"""A document's title as a person would give it, read from its first pages when its metadata is junk.

PDF title metadata is often an SEC accession number ("0000764478-19-000009"), a word processor's
file name ("Microsoft Word - F20_10K_VFinal"), a tag ("ADBE 10K FY15") or plainly wrong ("Nike 2023
Proxy" on a 10-K). The first pages say what the document is: a filing's cover names the registrant,
the form and the period ("AMCOR PLC, Form 10-K, fiscal year ended June 30, 2023"); any other report
prints its title in the largest type on its first page.

Titles are often set in letter-spaced capitals or small caps (a capital at full size beside the rest of the word
at a smaller size, "R" + "ESORTS"); a text layer read by spans then splits the words ("MGM R ESORTS I NTERNATIONAL").
The cover and the largest type are read here from the glyphs' positions instead, a word ending only at a space or
at a gap wider than the line's own letter spacing (``page_lines``).
"""

from __future__ import annotations

import itertools
import re
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pymupdf loads onnxruntime through pymupdf4llm: only the callers' documents need it
    import pymupdf


COVER_PAGES = 2
MAX_TITLE_WORDS = 14
WORD_GAP = 0.2
"""A gap this many times the type size wider than the line's letter spacing ends a word."""
_SPLIT_CAPITALS = re.compile(r"(?<!\S)[A-Z] [A-Z]")
"""A capital standing alone before another capital: how a split letter-spaced or small-caps word reads."""
_FORM = re.compile(r"\bFORM\s+(10-K|10-Q|8-K|20-F|40-F|6-K|S-1|11-K)\b", re.IGNORECASE)
PERIOD_ENDED = re.compile(
    r"\bfor the (fiscal year|quarterly period|year|period) ended:?\s+([A-Z][a-z]+\.?\s+\d{1,2},?\s+\d{4})", re.IGNORECASE
)
REPORT_DATE = re.compile(r"date of report[^:]*:\s*\(?([A-Z][a-z]+\.?\s+\d{1,2},?\s+\d{4})", re.IGNORECASE)
_REGISTRANT = re.compile(r"\(?\s*exact\s+name\s+of\s+(the\s+)?registrant", re.IGNORECASE)
_FILE_NUMBER = re.compile(r"commission\s+file\s+(?:number|no\.?)[:\s]*[\d-]+", re.IGNORECASE)
_JUNK_TITLE = re.compile(
    r"^(?:\d{7,10}-\d{2}-\d{5,6}|microsoft (?:word|excel|powerpoint)\b.*|untitled.*|document\d*|.*\.(?:pdf|docx?|xlsx?|html?|indd|psd|ai|qxd))$",
    re.IGNORECASE,
)


def metadata_title(doc: pymupdf.Document) -> str:
    """The PDF's title metadata, unless it is junk (an accession number, a file name, "untitled")."""
    title = " ".join(((doc.metadata or {}).get("title") or "").split())
    if not title or _JUNK_TITLE.match(title) or sum(ch.isalpha() for ch in title) < 3:
        return ""
    return title


def _upper_word(word: str) -> bool:
    return word == "&" or (any(ch.isalpha() for ch in word) and not any(ch.islower() for ch in word))


def _upper_run(words: list[str], *, leading: bool) -> list[str]:
    """The capitalised words at the end (or start) of a line: "Commission File Number: 0-15175 ADOBE
    SYSTEMS INCORPORATED" -> ADOBE SYSTEMS INCORPORATED."""
    run: list[str] = []
    for word in (words if leading else reversed(words)):
        if not _upper_word(word):
            break
        run.append(word)
    return run if leading else run[::-1]


def registrant(text: str) -> str:
    """The registrant's name a filing's cover prints, or "".

    Covers set it in capitals above "(Exact name of registrant ...)", sometimes broken over lines ("AMCOR" /
    "PLC"), at the end of the commission file number's line, or, with no such caption, just after that
    line ("3M COMPANY State of Incorporation: ...")."""
    found = _REGISTRANT.search(text)
    if found is None:
        file_number = _FILE_NUMBER.search(text)
        if file_number is None:
            return ""
        words = text[file_number.end():].lstrip(" \t\n:").split("\n", 1)[0].split()
        run = _upper_run(words, leading=True)
        return " ".join(run) if sum(ch.isalpha() for ch in "".join(run)) >= 2 else ""
    above = [ln.strip() for ln in text[: found.start()].splitlines() if ln.strip() and not ln.strip().startswith("(")]
    taken: list[str] = []
    while above and len(taken) < 4:
        words = above[-1].split()
        run = _upper_run(words, leading=False)
        if run and len(run) == len(words):
            taken.insert(0, above.pop())
            continue
        if run and not taken and sum(ch.isalpha() for ch in "".join(run)) >= 2:
            taken = [" ".join(run)]
        break
    if taken:
        return " ".join(" ".join(taken).split())
    return above[-1] if above and len(above[-1]) <= 80 else ""


def filing_title(text: str) -> str:
    """"REGISTRANT, Form 10-K, fiscal year ended DATE" from a filing's cover page text, or ""."""
    form = _FORM.search(text)
    if form is None:
        return ""
    name = registrant(text)
    parts = [name, f"Form {form.group(1).upper()}"]
    flat = " ".join(text.split())
    period = PERIOD_ENDED.search(flat)
    if period is not None:
        parts.append(f"{period.group(1).lower()} ended {' '.join(period.group(2).split())}")
    elif (reported := REPORT_DATE.search(flat)) is not None:
        parts.append(f"dated {' '.join(reported.group(1).split())}")
    return ", ".join(p for p in parts if p) if name else ""


def sec_form(text: str) -> str:
    """The SEC form a filing's cover names ("10-K", "10-Q", "8-K"), or ""."""
    form = _FORM.search(text)
    return form.group(1).upper() if form is not None else ""


def _words(chars: list[tuple[str, float, float, float]]) -> list[tuple[str, float]]:
    """A line's words from its glyphs (text, left, right, type size), each with the size of its largest letter: a
    word ends at a space glyph or at a gap wider than the line's letter spacing (the middle gap between glyphs) by
    ``WORD_GAP`` of the type size."""
    glyphs: list[tuple[str, float, float, float, bool]] = []  # text, x0, x1, size, a space before it
    space = False
    for text, x0, x1, size in chars:
        if text.isspace():
            space = True
            continue
        glyphs.append((text, x0, x1, size, space))
        space = False
    if not glyphs:
        return []
    gaps = [b[1] - a[2] for a, b in itertools.pairwise(glyphs)]
    tight = sorted(gap for gap, glyph in zip(gaps, glyphs[1:], strict=True) if not glyph[4])
    letter = tight[len(tight) // 2] if tight else 0.0
    words = [[glyphs[0]]]
    for gap, glyph in zip(gaps, glyphs[1:], strict=True):
        if glyph[4] or gap > letter + WORD_GAP * min(glyph[3], words[-1][-1][3]):
            words.append([glyph])
        else:
            words[-1].append(glyph)
    return [("".join(g[0] for g in word), max(g[3] for g in word)) for word in words]


def _small_caps(spans: list[dict[str, object]]) -> bool:
    """A word going on across a change of type size: a capital followed, without a space, by smaller capitals."""
    for first, then in itertools.pairwise(spans):
        before, after = str(first.get("text", "")), str(then.get("text", ""))
        if (before[-1:].isupper() and after[:1].isupper()
                and float(then["size"]) < 0.95 * float(first["size"])):  # type: ignore[arg-type]
            return True
    return False


def page_lines(page: pymupdf.Page) -> list[tuple[str, list[tuple[str, float, float]], bool]]:
    """A page's lines as (text, pieces, mended), in the text layer's order; a piece is (text, type size, top): a span
    of the text layer, or, for a line set in small caps or whose text reads as split letter-spaced capitals ("MGM
    R ESORTS"), a word read from its glyphs' positions ("RESORTS", at the size of its capital), the line's text then
    joined from those words (``mended``)."""
    import pymupdf

    plain = [line for block in page.get_text("dict").get("blocks", []) for line in block.get("lines", [])]
    raw = [line for block in page.get_text("rawdict", flags=pymupdf.TEXTFLAGS_RAWDICT | pymupdf.TEXT_INHIBIT_SPACES)
           .get("blocks", []) for line in block.get("lines", [])]
    out = []
    for n, line in enumerate(plain):
        spans = line.get("spans", [])
        text = "".join(span.get("text", "") for span in spans)
        pieces = [(span.get("text", ""), float(span["size"]), float(span["bbox"][1])) for span in spans]
        mended = False
        if (_SPLIT_CAPITALS.search(text) or _small_caps(spans)) and len(raw) == len(plain):
            words = _words([(char["c"], char["bbox"][0], char["bbox"][2], float(span["size"]))
                            for span in raw[n].get("spans", []) for char in span.get("chars", [])])
            if "".join(w for w, _ in words) == "".join(text.split()):
                text = " ".join(w for w, _ in words)
                pieces = [(w, size, float(line["bbox"][1])) for w, size in words]
                mended = True
        out.append((text, pieces, mended))
    return out


def cover_text(page: pymupdf.Page) -> str:
    """A cover page's text, letter-spaced capitals read whole (see ``page_lines``)."""
    lines = page_lines(page)
    if not any(mended for _, _, mended in lines):
        return str(page.get_text())
    return "".join(text + "\n" for text, _, _ in lines)


def largest_type_title(page: pymupdf.Page) -> str:
    """The text set in the largest type in the upper half of a page (a report's title), or ""."""
    spans = []
    for line, pieces, mended in page_lines(page):
        for piece, size, top in pieces:
            text = " ".join(piece.split())
            lettered = line if mended else text  # a word of a mended line may be one letter ("A NEW ERA")
            if text and top < page.rect.height * 0.6 and sum(ch.isalpha() for ch in lettered) >= 2:
                spans.append((round(size, 1), top, text))
    if not spans:
        return ""
    largest = max(size for size, _, _ in spans)
    body = sorted(size for size, _, _ in spans)[len(spans) // 2]
    if largest < body * 1.2:
        return ""
    words = " ".join(text for size, _, text in sorted(spans, key=lambda s: s[1]) if size >= largest - 0.5).split()
    title = " ".join(words[:MAX_TITLE_WORDS])
    # A units line or a fragment ("(In crores of") is not a title.
    return "" if title.startswith("(") or sum(1 for w in words if sum(ch.isalpha() for ch in w) >= 2) < 2 else title


def document_title(doc: pymupdf.Document, path: Path) -> str:
    """The best title: a filing's cover, else clean metadata, else the first page's largest type, else the file name."""
    try:
        cover = "\n".join(cover_text(doc.load_page(i)) for i in range(min(COVER_PAGES, doc.page_count)))
        first = doc.load_page(0) if doc.page_count else None
    except Exception:  # noqa: BLE001 - a damaged first page: fall back on metadata and the file name
        cover, first = "", None
    return (
        filing_title(cover)
        or metadata_title(doc)
        or (largest_type_title(first) if first is not None else "")
        or path.stem.replace("_", " ").replace("-", " ").strip()
        or path.name
    )
