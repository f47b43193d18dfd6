"""Damaged PDFs, made deterministically from real ones, and a way to feed each to `folio ingest` in a
process of its own.

Each sample is first rewritten by pymupdf with its streams expanded and its objects as plain text, so
the mutations hit the structure and not only compressed bytes. The mutations are those a hostile or
broken file shows: flipped bytes, a file cut short (with and without a new ``%%EOF``), a second
cross-reference table, garbage objects, huge page dimensions, deeply nested arrays, a page tree that
contains itself, and a page whose content stream is noise. File ``i`` of a set depends only on the
samples, the seed and ``i``.

Used by tests/core/ingest/test_fuzz_pdfs.py (a rotating subset) and tests/bench/bench_fuzz.py (the full set).
"""

from __future__ import annotations

import os
import random
import re
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import pymupdf

Mutation = Callable[[bytes, random.Random], bytes]


def _flip_bytes(data: bytes, rng: random.Random) -> bytes:
    out = bytearray(data)
    for _ in range(rng.randint(8, 200)):
        out[rng.randrange(len(out))] ^= 1 << rng.randrange(8)
    return bytes(out)


def _truncate(data: bytes, rng: random.Random) -> bytes:
    return data[: rng.randint(len(data) // 10, len(data) * 9 // 10)]


def _truncate_keep_eof(data: bytes, rng: random.Random) -> bytes:
    """Cut short, then given a new end marker, so the file does not look truncated at a glance."""
    return _truncate(data, rng) + b"\n%%EOF\n"


def _duplicate_xref(data: bytes, rng: random.Random) -> bytes:
    start = data.rfind(b"xref")
    if start < 0:
        return _flip_bytes(data, rng)
    tail = data[start:]
    shifted = re.sub(rb"startxref\s+\d+", b"startxref\n" + str(len(data) + rng.randint(-500, 500)).encode(), tail)
    return data + b"\n" + shifted


def _garbage_objects(data: bytes, rng: random.Random) -> bytes:
    objects = []
    for n in range(rng.randint(3, 30)):
        noise = bytes(rng.randrange(256) for _ in range(rng.randint(10, 400)))
        number = rng.choice([rng.randint(1, 60), 99_999_999, 0])
        objects.append(b"%d 0 obj\n<< /Type /%s /Length %d >>\nstream\n%s\nendstream\nendobj\n"
                       % (number, rng.choice([b"Page", b"Pages", b"XObject", b"Font"]), rng.randint(-5, 10**9), noise))
        if n % 3 == 0:
            objects.append(b"%d 0 obj\n%s\nendobj\n" % (number + 1, noise))
    at = data.find(b"xref")
    at = at if at > 0 else len(data) // 2
    return data[:at] + b"".join(objects) + data[at:]


def _huge_dimensions(data: bytes, rng: random.Random) -> bytes:
    big = rng.choice([b"14400000", b"1e30", b"-99999999", b"0", b"340282366920938463463374607431768211456"])
    return re.sub(rb"/MediaBox\s*\[[^\]]*\]", b"/MediaBox [ 0 0 " + big + b" " + big + b" ]", data)


def _deep_nesting(data: bytes, rng: random.Random) -> bytes:
    depth = rng.choice([1_000, 10_000, 100_000])
    nested = b"[" * depth + b"1" + b"]" * depth
    return re.sub(rb"/Type\s*/Page\b", b"/Type /Page /Annots " + nested, data, count=1)


def _page_tree_cycle(data: bytes, rng: random.Random) -> bytes:
    found = re.search(rb"(\d+) 0 obj\s*<<(?:(?!endobj).){0,400}?/Type\s*/Pages", data, re.DOTALL)
    if found is None:
        return _flip_bytes(data, rng)
    own = found.group(1)
    return re.sub(rb"/Kids\s*\[", b"/Kids [ " + own + b" 0 R ", data, count=1)


def _noise_content(data: bytes, rng: random.Random) -> bytes:
    """A content stream replaced by operators with missing or absurd operands."""
    ops = [b"BT", b"ET", b"Tj", b"TJ", b"q", b"Q", b"cm", b"re", b"f", b"Do", b"(x)", b"1e308", b"/F9 99 Tf", b"[", b"]"]
    noise = b" ".join(rng.choice(ops) for _ in range(rng.randint(50, 2_000)))
    return re.sub(rb"stream\r?\n(.*?)endstream", lambda m: b"stream\n" + noise + b"\nendstream", data, count=2,
                  flags=re.DOTALL)


MUTATIONS: dict[str, Mutation] = {
    "flip": _flip_bytes,
    "truncate": _truncate,
    "truncate_eof": _truncate_keep_eof,
    "double_xref": _duplicate_xref,
    "garbage_objects": _garbage_objects,
    "huge_dimensions": _huge_dimensions,
    "deep_nesting": _deep_nesting,
    "page_tree_cycle": _page_tree_cycle,
    "noise_content": _noise_content,
}


def sample_pdfs(samples: Path) -> list[Path]:
    return sorted(p for p in samples.glob("*.pdf") if p.is_file())


def expanded(pdf: Path) -> bytes:
    """The PDF rewritten with plain-text objects and uncompressed streams (same pages, same content)."""
    doc = pymupdf.open(pdf)
    try:
        if doc.needs_pass:
            return pdf.read_bytes()  # encrypted: mutated as it is
        return doc.tobytes(expand=255, no_new_id=True, pretty=True)
    finally:
        doc.close()


def make_fuzzed(samples: Sequence[Path], out_dir: Path, count: int, seed: int = 0,
                only: Sequence[int] | None = None) -> list[Path]:
    """Write files ``0 .. count-1`` (or only those in ``only``) of the set for ``seed`` into ``out_dir``."""
    out_dir.mkdir(parents=True, exist_ok=True)
    kinds = list(MUTATIONS)
    sources: dict[Path, bytes] = {}
    written = []
    for i in sorted(set(range(count) if only is None else only)):
        sample = samples[i % len(samples)]
        kind = kinds[(i // len(samples)) % len(kinds)]
        rng = random.Random(f"{seed}:{i}")
        if sample not in sources:
            sources[sample] = expanded(sample)
        path = out_dir / f"{i:03d}-{kind}-{sample.stem}.pdf"
        path.write_bytes(MUTATIONS[kind](sources[sample], rng))
        written.append(path)
    return written


@dataclass(frozen=True)
class Outcome:
    path: Path
    verdict: str  # "added" | "refused" | "crashed" | "hung"
    detail: str
    seconds: float


def ingest_alone(pdf: Path, library: Path, timeout: float, repo: Path) -> Outcome:
    """`folio ingest` of one file in a process of its own, judged: added (with content), refused (with a
    one-line reason), crashed (a traceback, a signal, an unexpected error, an empty document) or hung."""
    env = dict(os.environ, PYTHONPATH=str(repo))
    started = time.monotonic()
    process = subprocess.Popen([sys.executable, "-m", "app.main", "ingest", "--library", str(library), str(pdf)],
                               cwd=repo, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               start_new_session=True)
    try:
        out, err = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        process.communicate()
        return Outcome(pdf, "hung", f"no end after {timeout:g} s", time.monotonic() - started)
    seconds = time.monotonic() - started
    lines = [line for line in err.splitlines() if line.startswith(("added  ", "FAILED ", "skipped "))]
    if process.returncode < 0 or "Traceback" in err or "unexpected error" in err:
        return Outcome(pdf, "crashed", f"exit {process.returncode}: {err.strip()[-600:]}", seconds)
    if process.returncode == 0 and len(lines) == 1 and lines[0].startswith(("added", "skipped")):
        if re.search(r"\b1 added \(\d+ pages, 0 chunks, 0 tables\)", out):
            return Outcome(pdf, "crashed", f"added with no content: {out.strip()}", seconds)
        return Outcome(pdf, "added", lines[0], seconds)
    reason = lines[0].split(": ", 1)[-1] if lines else ""
    if process.returncode == 1 and len(lines) == 1 and lines[0].startswith("FAILED") and reason and "\n" not in reason:
        return Outcome(pdf, "refused", reason, seconds)
    return Outcome(pdf, "crashed", f"exit {process.returncode}: {err.strip()[-600:]}", seconds)
