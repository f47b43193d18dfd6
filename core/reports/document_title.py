"""A document's title as a person would give it, read from its first pages when its metadata is junk.

PDF title metadata is often an SEC accession number ("0000764478-19-000009"), a word processor's
file name ("Microsoft Word - F20_10K_VFinal"), a tag ("ADBE 10K FY15") or plainly wrong ("Nike 2023
Proxy" on a 10-K). The first pages say what the document is: a filing's cover names the registrant,
the form and the period ("AMCOR PLC, Form 10-K, fiscal year ended June 30, 2023"); any other report
prints its title in the largest type on its first page.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pymupdf loads onnxruntime through pymupdf4llm: only the callers' documents need it
    import pymupdf


COVER_PAGES = 2
MAX_TITLE_WORDS = 14
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


def largest_type_title(page: pymupdf.Page) -> str:
    """The text set in the largest type in the upper half of a page (a report's title), or ""."""
    spans = []
    for block in page.get_text("dict").get("blocks", []):
        for line in block.get("lines", []):
            for span in line.get("spans", []):
                text = " ".join(span.get("text", "").split())
                if text and span["bbox"][1] < page.rect.height * 0.6 and sum(ch.isalpha() for ch in text) >= 2:
                    spans.append((round(span["size"], 1), span["bbox"][1], text))
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
        cover = "\n".join(doc.load_page(i).get_text() for i in range(min(COVER_PAGES, doc.page_count)))
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
