"""Hostile and unlucky spreadsheets and CSV files, made deterministically, each with what it must become: the
rows a correct reading stores (where they are known), so a file that is added but stored wrong is caught, not
counted as added.

Kinds (file ``i`` of a set depends only on the seed and ``i``):

- ``mutated``: a good xlsx, ods, xls or CSV with flipped bytes, cut short, or with one zip member's bytes
  flipped (nothing is known of what it should store, only that nothing stored may hold a NUL byte or a
  replacement character that no note explains);
- ``xml``: a good xlsx whose sheet XML is rewritten as other writers (or attackers) write it: prefixed
  elements, cells without ``r``, values as character references or CDATA, a document type declaration;
- ``prefixed``: a long xlsx written with a namespace prefix, its rows known;
- ``encoding``: a CSV whose lines are UTF-8, Windows-1252, UTF-8 with a BOM, UTF-16, or hold NUL bytes or bytes
  that are no character, its rows known (NULs dropped, unknown bytes as U+FFFD, named in the note);
- ``bomb``: the small files that ask for gigabytes (tests/support/sheets.py ``SHEET_BOMBS``), to be refused.

Used by tests/bench/bench_fuzz.py (``--sheets``).
"""

from __future__ import annotations

import codecs
import csv
import io
import random
import re
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from tests.support.sheets import (
    SHEET_BOMBS,
    budget_sheets,
    write_csv,
    write_long_xlsx,
    write_ods,
    write_raw_xlsx,
    write_xls,
    write_xlsx,
)

KINDS = ("mutated", "xml", "prefixed", "encoding", "bomb")


@dataclass(frozen=True)
class SheetCase:
    path: Path
    kind: str
    rows: tuple[tuple[str, ...], ...] | None = None
    """The one table's rows as a correct reading stores their text (header first), where they are known."""
    refused: bool = False
    """The file must be refused."""


def make_sheet_cases(out_dir: Path, count: int, seed: int = 0) -> list[SheetCase]:
    out_dir.mkdir(parents=True, exist_ok=True)
    makers: dict[str, Callable[[Path, random.Random, int], SheetCase]] = {
        "mutated": _mutated, "xml": _xml_variant, "prefixed": _prefixed, "encoding": _encoding, "bomb": _bomb,
    }
    cases = []
    for i in range(count):
        kind = KINDS[i % len(KINDS)]
        rng = random.Random(f"sheets:{seed}:{i}")
        cases.append(makers[kind](out_dir / f"{i:03d}-{kind}", rng, i))
    return cases


# ------------------------------------------------------------------------------------------ mutated
def _good_file(stem: Path, rng: random.Random) -> Path:
    kind = rng.choice(["xlsx", "ods", "xls", "csv"])
    path = stem.with_name(stem.name + f".{kind}")
    sheets = budget_sheets()
    if kind == "csv":
        return write_csv(path, sheets["Budget"][2:])
    return {"xlsx": write_xlsx, "ods": write_ods, "xls": write_xls}[kind](path, sheets)


def _mutated(stem: Path, rng: random.Random, _i: int) -> SheetCase:
    path = _good_file(stem, rng)
    data = bytearray(path.read_bytes())
    how = rng.choice(["flip", "truncate", "member"])
    if how == "flip" or how == "member" and not zipfile.is_zipfile(path):
        for _ in range(rng.randint(1, 40)):
            data[rng.randrange(len(data))] ^= 1 << rng.randrange(8)
        path.write_bytes(bytes(data))
    elif how == "truncate":
        path.write_bytes(bytes(data[: rng.randint(len(data) // 10, len(data) - 1)]))
    else:  # one member's uncompressed bytes flipped, the zip itself sound
        with zipfile.ZipFile(path) as source:
            members = [(info, source.read(info)) for info in source.infolist()]
        target = rng.randrange(len(members))
        with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as out:
            for n, (info, content) in enumerate(members):
                if n == target and content:
                    flipped = bytearray(content)
                    for _ in range(rng.randint(1, 20)):
                        flipped[rng.randrange(len(flipped))] ^= 1 << rng.randrange(8)
                    content = bytes(flipped)
                out.writestr(info.filename, content)
    return SheetCase(path, "mutated")


# ------------------------------------------------------------------------------------------ xml
_MAIN = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"


def _xml_variant(stem: Path, rng: random.Random, _i: int) -> SheetCase:
    rows = [["Region", "Amount"]] + [[f"Region {n}", str(100 + n * 7)] for n in range(rng.randint(2, 40))]
    how = rng.choice(["prefix", "no_refs", "char_refs", "cdata", "doctype"])
    prefix = rng.choice(["x", "ss", "main"]) if how == "prefix" else ""
    p = f"{prefix}:" if prefix else ""

    def value(text: str) -> str:
        if how == "char_refs":
            return "".join(f"&#{ord(c)};" for c in text)
        if how == "cdata":
            return f"<![CDATA[{text}]]>"
        return text

    lines = []
    for r, row in enumerate(rows, start=1):
        cells = []
        for c, text in enumerate(row):
            ref = "" if how == "no_refs" else f' r="{"AB"[c]}{r}"'
            if text.isdigit():
                cells.append(f"<{p}c{ref}><{p}v>{value(text)}</{p}v></{p}c>")
            else:
                cells.append(f'<{p}c{ref} t="inlineStr"><{p}is><{p}t>{value(text)}</{p}t></{p}is></{p}c>')
        row_ref = "" if how == "no_refs" else f' r="{r}"'
        lines.append(f"<{p}row{row_ref}>{''.join(cells)}</{p}row>")
    declared = f'xmlns:{prefix}="{_MAIN}"' if prefix else f'xmlns="{_MAIN}"'
    doctype = '<!DOCTYPE worksheet [<!ENTITY e "Region">]>' if how == "doctype" else ""
    xml = (f'<?xml version="1.0" encoding="UTF-8"?>{doctype}<{p}worksheet {declared}><{p}sheetData>{"".join(lines)}'
           f"</{p}sheetData></{p}worksheet>")
    path = write_raw_xlsx(stem.with_name(stem.name + f"-{how}.xlsx"), xml)
    return SheetCase(path, "xml", None if how == "doctype" else tuple(tuple(r) for r in rows), refused=how == "doctype")


def _prefixed(stem: Path, rng: random.Random, _i: int) -> SheetCase:
    count = rng.randint(3, 400)
    path = write_long_xlsx(stem.with_name(stem.name + ".xlsx"), count, columns=3, prefix=rng.choice(["x", "s", "ns0"]))
    header = ("Region", "Year", "Measure 1")
    regions = ["North", "South", "East", "West", "Central"]
    body = [(f"{regions[r % 5]} {r % 97}", str(2000 + r % 25), _number((r * 5) % 10007 / 10))
            for r in range(2, count + 2)]
    return SheetCase(path, "prefixed", (header, *body))


def _number(value: float) -> str:
    return str(int(value)) if value.is_integer() else format(value, ".15g")


# ------------------------------------------------------------------------------------------ encodings
_WORDS = ["Zürich", "München", "São Paulo", "Kraków", "Ærø", "Łódź", "Grünwald", "Plain", "Oslo", "Málaga"]
_LEGACY_WORDS = [w for w in _WORDS if w.encode("cp1252", errors="ignore").decode("cp1252") == w]


def _encoding(stem: Path, rng: random.Random, _i: int) -> SheetCase:
    """Lines written each in its own way; what each must read as is known line by line."""
    rows = [("City", "Visitors")]
    count = rng.randint(3, 3000)
    style = rng.choice(["utf-8", "cp1252", "mixed", "bom", "utf-16", "nul", "undefined"])
    if style == "utf-16":
        rows += [(rng.choice(_WORDS), str(rng.randint(1, 99999))) for _ in range(count)]
        text = _csv_text(rows)
        path = stem.with_name(stem.name + "-utf-16.csv")
        path.write_bytes(codecs.BOM_UTF16_LE + text.encode("utf-16-le"))
        return SheetCase(path, "encoding", tuple(rows))
    data = bytearray(codecs.BOM_UTF8 if style == "bom" else b"")
    data += _csv_text(rows[:1]).encode()
    for n in range(count):
        legacy = style == "cp1252" or style == "mixed" and rng.random() < 0.1
        word, visitors = rng.choice(_LEGACY_WORDS if legacy else _WORDS), str(rng.randint(1, 99999))
        raw = _csv_text([(word, visitors)]).encode("cp1252" if legacy else "utf-8")
        if style == "nul" and rng.random() < 0.05:
            at = rng.randrange(len(raw) - 1)
            raw = raw[:at] + b"\x00" + raw[at:]
        if style == "undefined" and rng.random() < 0.05 and n > 0:
            raw = raw.replace(b",", b"\x81,", 1)
            word = word + "\ufffd"
        data += raw
        rows.append((word, visitors))
    path = stem.with_name(stem.name + f"-{style}.csv")
    path.write_bytes(bytes(data))
    return SheetCase(path, "encoding", tuple(rows))


def _csv_text(rows: list[tuple[str, str]]) -> str:
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerows(rows)
    return out.getvalue()


def _bomb(stem: Path, rng: random.Random, i: int) -> SheetCase:
    name = sorted(SHEET_BOMBS)[(i // len(KINDS)) % len(SHEET_BOMBS)]
    write, file_name, _words = SHEET_BOMBS[name]
    return SheetCase(write(stem.with_name(stem.name + "-" + re.sub(r"\s+", "-", file_name))), "bomb", refused=True)


# ------------------------------------------------------------------------------------------ judging
def stored_wrong(case: SheetCase, conn: object) -> str:
    """Why what the library stored for an added case is wrong, or "" when it is right (``conn``: the library,
    read-only). Every case: no NUL byte in any stored text, no replacement character unless the document's note
    names replaced bytes, some content. Cases whose rows are known: its table holds exactly those rows."""
    run = conn.execute  # type: ignore[attr-defined]
    found = run("SELECT id, note FROM documents WHERE file_name = ?", (case.path.name,)).fetchone()
    if found is None:
        return ""  # the same content was already in the library under another name
    document_id, note = found
    texts = [t for (t,) in run("SELECT text FROM pages WHERE document_id = ? UNION ALL SELECT c.text FROM table_cells c "
                               "JOIN extracted_tables t ON t.id = c.table_id WHERE t.document_id = ?",
                               (document_id, document_id))]
    if any("\x00" in t for t in texts):
        return "a NUL byte was stored"
    if any("\ufffd" in t for t in texts) and "replaced" not in note and case.rows is None:
        return "replacement characters stored without a note"
    tables = run("SELECT id FROM extracted_tables WHERE document_id = ?", (document_id,)).fetchall()
    if not tables and not run("SELECT 1 FROM chunks WHERE document_id = ?", (document_id,)).fetchone():
        return "stored with no content"
    if case.rows is None:
        return ""
    if len(tables) != 1:
        return f"{len(tables)} tables instead of 1"
    grid: dict[int, dict[int, str]] = {}
    for row, col, text in run("SELECT row, col, text FROM table_cells WHERE table_id = ?", (tables[0][0],)):
        grid.setdefault(row, {})[col] = text
    stored = tuple(tuple(grid[r][c] for c in sorted(grid[r])) for r in sorted(grid))
    if stored != case.rows:
        wrong = next((i for i, (a, b) in enumerate(zip(stored, case.rows, strict=False)) if a != b), min(len(stored), len(case.rows)))
        got = stored[wrong] if wrong < len(stored) else None
        want = case.rows[wrong] if wrong < len(case.rows) else None
        return f"row {wrong + 1}: stored {got!r}, expected {want!r} ({len(stored)} rows, expected {len(case.rows)})"
    if any("\ufffd" in "".join(r) for r in case.rows) and "replaced" not in note:
        return "replaced bytes stored without a note naming their lines"
    return ""
