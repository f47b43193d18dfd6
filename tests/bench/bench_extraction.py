"""Benchmark of table extraction on the ICDAR 2013 table competition (dev set) and on the samples.

Run from the repository root (the data is found at ../shared either way):

    python tests/bench/bench_extraction.py [--limit N] [--methods folio,pymupdf,lattice,stream] [--verbose]

For every document it compares the tables each method finds on each page with the ``-str.xml``
ground truth (one ground-truth table per region, i.e. per page):

- detection: a found table matches a ground-truth table on the same page when IoU >= 0.5 or the
  overlap covers >= 0.8 of the smaller box (one-to-one, best overlap first); precision and recall
  over tables. The ground-truth box is the union of its cells' boxes.
- cell content: (row, column, normalised text) triples. Each found table is aligned to its matched
  ground-truth table (rows and columns by an order-preserving best match, since indices shift);
  unmatched tables count fully against precision (found) or recall (missed). "matched F1" leaves the
  cells of unmatched found tables out of the precision. Positions of one merged cell (one cell box,
  one text) count once, as the ground truth has each spanning cell once. Text is compared after
  Unicode normalisation, lower-casing, and removing white space and dot leaders.

Methods: Folio's extractor, and pymupdf ``find_tables``, camelot lattice (default engine) and camelot
stream alone, each with its own cell text and no clean-up; ``lattice-vector`` (lattice reading vector
lines, as Folio uses it) on request. Seconds per page are wall-clock extraction time. Then Folio's
pages/second on the shared samples.
"""

from __future__ import annotations

import argparse
import re
import sys
import time
import unicodedata
import xml.etree.ElementTree as ET
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import pymupdf

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from core.ingest.extraction import TableExtractor
from core.ingest.extraction.camelot_tables import find_camelot_grids
from core.ingest.extraction.extractor import native_table
from core.ingest.extraction.page_view import open_view
from core.ingest.extraction.pymupdf_tables import find_pymupdf_grids
from models.types import ExtractedTable

pymupdf.TOOLS.mupdf_display_errors(False)
pymupdf.TOOLS.mupdf_display_warnings(False)

# The shared data sits beside the repository: ../shared from the repository root.
ICDAR = REPO.parent / "shared" / "bench" / "icdar2013-dev"
SAMPLES = REPO.parent / "shared" / "samples"
SAMPLE_PASSWORDS = {"health_protected.pdf": "userpass"}


# ----------------------------------------------------------------------------------------- ground truth
@dataclass
class TruthTable:
    page: int
    bbox: pymupdf.Rect
    cells: list[tuple[int, int, str]]  # (start row, start col, normalised text), non-empty only


def normalise(text: str) -> str:
    text = unicodedata.normalize("NFKC", text).lower()
    text = re.sub(r"[\u2010-\u2015\u2212]", "-", text)
    text = re.sub(r"[\u2018\u2019\u201a\u201b]", "'", text)
    text = re.sub(r"[\u201c\u201d\u201e]", '"', text)
    text = re.sub(r"\.(\s*\.)+", "", text)  # dot leaders, which some methods keep and others drop
    return re.sub(r"\s+", "", text)


def _box(element: ET.Element) -> tuple[float, float, float, float]:
    return tuple(float(element.get(k, "0")) for k in ("x1", "y1", "x2", "y2"))  # type: ignore[return-value]


def _page_transforms(page: pymupdf.Page) -> list[Callable[[tuple[float, float, float, float]], pymupdf.Rect]]:
    """Ways the ground truth's bottom-left-origin boxes may map onto pymupdf's page coordinates.

    The usual one is PDF user space. On pages whose text runs vertically the ground truth was made on
    the upright page, whose origin sits elsewhere; the benchmark picks whichever mapping puts the
    ground-truth cell text inside the ground-truth cell boxes.
    """
    standard = page.transformation_matrix
    height = page.mediabox.height

    def user_space(b: tuple[float, float, float, float]) -> pymupdf.Rect:
        r = pymupdf.Rect(b) * standard
        r.normalize()
        return r

    def upright(b: tuple[float, float, float, float]) -> pymupdf.Rect:
        x1, y1, x2, y2 = b
        return pymupdf.Rect(height - y2, height - x2, height - y1, height - x1)

    return [user_space, upright]


def load_truth(stem: Path, doc: pymupdf.Document) -> list[TruthTable]:
    structure = ET.parse(f"{stem}-str.xml").getroot()
    regions_box: dict[tuple[str, int], tuple[float, float, float, float]] = {}
    reg_file = Path(f"{stem}-reg.xml")
    if reg_file.exists():
        for table in ET.parse(reg_file).getroot().iter("table"):
            for region in table.iter("region"):
                box = region.find("bounding-box")
                if box is not None:
                    regions_box[(table.get("id", ""), int(region.get("page", "1")))] = _box(box)
    raw: list[tuple[int, tuple[float, float, float, float] | None, list[tuple[int, int, str, tuple]]]] = []
    for table in structure.iter("table"):
        for region in table.iter("region"):
            page_no = int(region.get("page", "1"))
            cells = []
            for cell in region.iter("cell"):
                box = cell.find("bounding-box")
                text = cell.findtext("content") or ""
                cells.append((int(cell.get("start-row", "0")), int(cell.get("start-col", "0")), text,
                              _box(box) if box is not None else None))
            raw.append((page_no, regions_box.get((table.get("id", ""), page_no)), cells))
    # Pick, per page, the coordinate mapping under which the cell text lies in the cell boxes.
    chosen: dict[int, Callable] = {}
    for page_no in {p for p, _, _ in raw}:
        page = doc[page_no - 1]
        transforms = _page_transforms(page)
        scores = []
        for transform in transforms:
            hits = 0
            for p, _, cells in raw:
                if p != page_no:
                    continue
                for _, _, text, box in cells[:40]:
                    if box and normalise(text):
                        found = page.get_text("text", clip=transform(box) + (-2, -2, 2, 2))
                        hits += normalise(text) in normalise(found)
            scores.append(hits)
        chosen[page_no] = transforms[max(range(len(transforms)), key=lambda i: scores[i])]
    truth = []
    for page_no, region_box, cells in raw:
        transform = chosen[page_no]
        # The cells' union is the table's box; -reg.xml's region box is the fallback (on rotated pages it
        # is given in yet another frame).
        bbox = pymupdf.Rect()
        for *_, box in cells:
            if box:
                bbox |= transform(box)
        if bbox.is_empty and region_box is not None:
            bbox = transform(region_box)
        min_row = min((c[0] for c in cells), default=0)
        min_col = min((c[1] for c in cells), default=0)
        triples = [(r - min_row, c - min_col, normalise(t)) for r, c, t, _ in cells if normalise(t)]
        truth.append(TruthTable(page_no, bbox, triples))
    return truth


# -------------------------------------------------------------------------------------------- scoring
def table_triples(table: ExtractedTable) -> list[tuple[int, int, str]]:
    """Non-empty cells; positions of one merged cell (same cell box) count once."""
    seen: set[tuple[float, ...]] = set()
    out = []
    for r, row in enumerate(table.rows):
        for c, text in enumerate(row):
            norm = normalise(text)
            if not norm:
                continue
            ref = table.cells[r][c] if table.cells and r < len(table.cells) and c < len(table.cells[r]) else None
            if ref is not None:
                key = (round(ref.bbox[0], 1), round(ref.bbox[1], 1), round(ref.bbox[2], 1), round(ref.bbox[3], 1), hash(norm))
                if key in seen:
                    continue
                seen.add(key)
            out.append((r, c, norm))
    return out


def _align(sim: list[list[int]]) -> dict[int, int]:
    """Order-preserving one-to-one alignment maximising the summed similarity (gaps are free)."""
    n = len(sim)
    m = len(sim[0]) if n else 0
    best = [[0] * (m + 1) for _ in range(n + 1)]
    for i in range(n - 1, -1, -1):
        for j in range(m - 1, -1, -1):
            best[i][j] = max(best[i + 1][j], best[i][j + 1], best[i + 1][j + 1] + sim[i][j])
    mapping: dict[int, int] = {}
    i = j = 0
    while i < n and j < m:
        if sim[i][j] > 0 and best[i][j] == best[i + 1][j + 1] + sim[i][j]:
            mapping[i] = j
            i += 1
            j += 1
        elif best[i][j] == best[i + 1][j]:
            i += 1
        else:
            j += 1
    return mapping


def _groups(triples: Sequence[tuple[int, int, str]], axis: int) -> dict[int, Counter]:
    out: dict[int, Counter] = {}
    for t in triples:
        out.setdefault(t[axis], Counter())[t[2]] += 1
    return out


def matched_cells(found: Sequence[tuple[int, int, str]], truth: Sequence[tuple[int, int, str]]) -> int:
    """How many found triples equal a truth triple once rows and columns are aligned."""
    if not found or not truth:
        return 0
    found_rows, truth_rows = _groups(found, 0), _groups(truth, 0)
    found_cols, truth_cols = _groups(found, 1), _groups(truth, 1)
    fr, tr = sorted(found_rows), sorted(truth_rows)
    fc, tc = sorted(found_cols), sorted(truth_cols)
    row_map = _align([[sum((found_rows[a] & truth_rows[b]).values()) for b in tr] for a in fr])
    col_map = _align([[sum((found_cols[a] & truth_cols[b]).values()) for b in tc] for a in fc])
    rows = {fr[i]: tr[j] for i, j in row_map.items()}
    cols = {fc[i]: tc[j] for i, j in col_map.items()}
    truth_set = Counter((r, c, t) for r, c, t in truth)
    hits = 0
    for r, c, t in found:
        key = (rows.get(r, -1), cols.get(c, -1), t)
        if truth_set[key] > 0:
            truth_set[key] -= 1
            hits += 1
    return hits


def overlap_match(a: pymupdf.Rect, b: pymupdf.Rect) -> float:
    """0 if the boxes do not match, else a score for ordering candidate pairs."""
    inter = abs(a & b)
    if inter <= 0:
        return 0.0
    union = abs(a) + abs(b) - inter
    iou = inter / union if union else 0.0
    smaller = inter / max(min(abs(a), abs(b)), 1e-6)
    return iou if iou >= 0.5 or smaller >= 0.8 else 0.0


@dataclass
class Tally:
    found: int = 0
    truth: int = 0
    matched: int = 0
    cells_found: int = 0
    cells_truth: int = 0
    cells_hit: int = 0
    matched_cells_found: int = 0
    seconds: float = 0.0
    pages: int = 0
    failures: list[str] = field(default_factory=list)

    def add_page(self, found: Sequence[ExtractedTable], truth: Sequence[TruthTable]) -> None:
        self.found += len(found)
        self.truth += len(truth)
        triples = [table_triples(t) for t in found]
        self.cells_found += sum(len(t) for t in triples)
        self.cells_truth += sum(len(t.cells) for t in truth)
        pairs = []
        for i, table in enumerate(found):
            for j, gt in enumerate(truth):
                score = overlap_match(pymupdf.Rect(table.bbox), gt.bbox)
                if score > 0:
                    pairs.append((score, i, j))
        used_f: set[int] = set()
        used_t: set[int] = set()
        for _, i, j in sorted(pairs, reverse=True):
            if i in used_f or j in used_t:
                continue
            used_f.add(i)
            used_t.add(j)
            self.matched += 1
            self.cells_hit += matched_cells(triples[i], truth[j].cells)
            self.matched_cells_found += len(triples[i])

    @staticmethod
    def _f1(p: float, r: float) -> float:
        return 2 * p * r / (p + r) if p + r else 0.0

    def summary(self) -> dict[str, float]:
        precision = self.matched / self.found if self.found else 0.0
        recall = self.matched / self.truth if self.truth else 0.0
        cell_p = self.cells_hit / self.cells_found if self.cells_found else 0.0
        cell_r = self.cells_hit / self.cells_truth if self.cells_truth else 0.0
        matched_p = self.cells_hit / self.matched_cells_found if self.matched_cells_found else 0.0
        return {
            "precision": precision,
            "recall": recall,
            "cell_p": cell_p,
            "cell_r": cell_r,
            "cell_f1": self._f1(cell_p, cell_r),
            "matched_cell_f1": self._f1(matched_p, cell_r),
            "s_per_page": self.seconds / self.pages if self.pages else 0.0,
        }


# -------------------------------------------------------------------------------------------- methods
Method = Callable[[Path, pymupdf.Document, int], list[ExtractedTable]]


def _single(run: Callable) -> Method:
    def method(path: Path, doc: pymupdf.Document, number: int) -> list[ExtractedTable]:
        view = open_view(doc, path, number, None)
        try:
            return [t for t in (native_table(g, view) for g in run(view)) if t is not None]
        finally:
            view.close()

    return method


def make_methods(names: Sequence[str]) -> dict[str, Method]:
    extractors: dict[str, TableExtractor] = {}

    def folio(path: Path, doc: pymupdf.Document, number: int) -> list[ExtractedTable]:
        key = str(path)
        if key not in extractors:
            for extractor in extractors.values():
                extractor.close()
            extractors.clear()
            extractors[key] = TableExtractor(path, doc)
        return extractors[key].page_tables(number)

    available: dict[str, Method] = {
        "folio": folio,
        "pymupdf": _single(lambda v: find_pymupdf_grids(v.page)),
        "lattice": _single(lambda v: find_camelot_grids(v.source, v.source_page, v.page, "lattice", v.password)),
        "stream": _single(lambda v: find_camelot_grids(v.source, v.source_page, v.page, "stream", v.password)),
        # Not in the default set: camelot lattice reading vector ruling lines instead of rendering the page.
        "lattice-vector": _single(
            lambda v: find_camelot_grids(v.source, v.source_page, v.page, "lattice", v.password, engine="vector")
        ),
    }
    return {name: available[name] for name in names}


# ------------------------------------------------------------------------------------------------ run
def run_icdar(limit: int | None, names: Sequence[str], verbose: bool) -> dict[str, Tally]:
    pdfs = sorted(ICDAR.glob("*.pdf"))[: limit or None]
    methods = make_methods(names)
    tallies = {name: Tally() for name in methods}
    for pdf in pdfs:
        stem = pdf.with_suffix("")
        doc = pymupdf.open(pdf)
        truth = load_truth(stem, doc)
        for name, method in methods.items():
            tally = tallies[name]
            before = (tally.cells_hit, tally.cells_found, tally.cells_truth)
            for number in range(1, doc.page_count + 1):
                start = time.perf_counter()
                try:
                    found = method(pdf, doc, number)
                except Exception as exc:  # noqa: BLE001 - a crash is a finding, not the end of the benchmark
                    tally.failures.append(f"{pdf.name} p{number}: {type(exc).__name__}: {exc}")
                    found = []
                tally.seconds += time.perf_counter() - start
                tally.pages += 1
                tally.add_page(found, [t for t in truth if t.page == number])
            if verbose:
                hit, got, want = (a - b for a, b in zip((tally.cells_hit, tally.cells_found, tally.cells_truth), before))
                print(f"  {pdf.name:12} {name:8} cells hit {hit:4} / found {got:4} / truth {want:4}")
        doc.close()
    return tallies


def _tatqa_pdf(item: dict, path: Path) -> list[list[str]]:
    """Render one TAT-QA table as a borderless report table between two paragraphs; return its rows."""
    from reportlab.lib import colors
    from reportlab.lib.styles import getSampleStyleSheet
    from reportlab.platypus import Paragraph, SimpleDocTemplate, Spacer, Table, TableStyle

    styles = getSampleStyleSheet()
    rows = [[" ".join(str(c).split()) for c in row] for row in item["table"]["table"]]
    width = max(len(r) for r in rows)
    rows = [r + [""] * (width - len(r)) for r in rows]
    text = " ".join(p["text"] for p in item.get("paragraphs", [])[:2])[:900] or "No commentary."
    table = Table(rows)
    table.setStyle(TableStyle([
        ("FONTSIZE", (0, 0), (-1, -1), 8),
        ("ALIGN", (1, 0), (-1, -1), "RIGHT"),
        ("LINEBELOW", (0, 0), (-1, 0), 0.5, colors.black),
        ("LINEBELOW", (0, -1), (-1, -1), 0.5, colors.black),
    ]))
    story = [
        Paragraph(text.replace("&", "&amp;").replace("<", "&lt;"), styles["BodyText"]),
        Spacer(1, 12),
        table,
        Spacer(1, 12),
        Paragraph("Source: company annual report.", styles["BodyText"]),
    ]
    # A page tall enough for the longest table, so every table stays on page 1.
    height = 842 + 14 * max(0, len(rows) - 30)
    SimpleDocTemplate(str(path), pagesize=(842, height), leftMargin=36, rightMargin=36).build(story)
    return rows


def run_tatqa(limit: int, names: Sequence[str]) -> dict[str, Tally]:
    """Held-out check: TAT-QA's financial-report tables (never looked at while tuning), rendered to PDF.

    Each document holds one table on its first page; the found table sharing most cells with it is its
    match (detection is not scored), other found tables count against precision.
    """
    import json
    import tempfile

    data = REPO.parent / "shared" / "bench" / "tatqa" / "tatqa_dataset_dev.json"
    if not data.exists() or limit <= 0:
        return {}
    items = json.loads(data.read_text())[:limit]
    methods = make_methods(names)
    tallies = {name: Tally() for name in methods}
    with tempfile.TemporaryDirectory() as tmp:
        for index, item in enumerate(items):
            pdf = Path(tmp) / f"tatqa-{index}.pdf"
            rows = _tatqa_pdf(item, pdf)
            truth = [(r, c, normalise(t)) for r, row in enumerate(rows) for c, t in enumerate(row) if normalise(t)]
            doc = pymupdf.open(pdf)
            for name, method in methods.items():
                tally = tallies[name]
                start = time.perf_counter()
                found = method(pdf, doc, 1)
                tally.seconds += time.perf_counter() - start
                tally.pages += 1
                triples = [table_triples(t) for t in found]
                tally.found += len(found)
                tally.truth += 1
                tally.cells_found += sum(len(t) for t in triples)
                tally.cells_truth += len(truth)
                hits = [matched_cells(t, truth) for t in triples]
                if hits and max(hits) > 0:
                    best = max(range(len(hits)), key=lambda i: hits[i])
                    tally.matched += 1
                    tally.cells_hit += hits[best]
                    tally.matched_cells_found += len(triples[best])
            doc.close()
    return tallies


def run_samples() -> tuple[int, float, int]:
    pages = tables = 0
    start = time.perf_counter()
    for pdf in sorted(SAMPLES.glob("*.pdf")):
        password = SAMPLE_PASSWORDS.get(pdf.name)
        doc = pymupdf.open(pdf)
        if doc.needs_pass:
            doc.authenticate(password or "")
        with TableExtractor(pdf, doc, password) as extractor:
            for number in range(1, doc.page_count + 1):
                tables += len(extractor.page_tables(number))
                pages += 1
        doc.close()
    return pages, time.perf_counter() - start, tables


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=None, help="only the first N documents")
    parser.add_argument("--methods", default="folio,pymupdf,lattice,stream",
                        help="comma-separated, from folio, pymupdf, lattice, stream, lattice-vector")
    parser.add_argument("--verbose", action="store_true", help="per-document cell counts")
    parser.add_argument("--no-samples", action="store_true")
    parser.add_argument("--tatqa", type=int, default=60, help="held-out TAT-QA tables to render and score (0: none)")
    args = parser.parse_args()
    names = [n.strip() for n in args.methods.split(",") if n.strip()]
    if not ICDAR.is_dir():
        print(f"ICDAR 2013 data not found at {ICDAR}; nothing to measure.")
        return 0
    tallies = run_icdar(args.limit, names, args.verbose)
    print(f"\nICDAR 2013 dev: {len(sorted(ICDAR.glob('*.pdf'))[: args.limit or None])} documents, "
          f"{next(iter(tallies.values())).pages if tallies else 0} pages, "
          f"{next(iter(tallies.values())).truth if tallies else 0} ground-truth tables")
    header = f"{'method':14} {'tables':>6} {'prec':>6} {'recall':>6} {'cell P':>7} {'cell R':>7} {'cell F1':>8} {'matched F1':>11} {'s/page':>7}"
    print(header)
    print("-" * len(header))
    for name, tally in tallies.items():
        s = tally.summary()
        print(f"{name:14} {tally.found:6} {s['precision']:6.3f} {s['recall']:6.3f} {s['cell_p']:7.3f} {s['cell_r']:7.3f} "
              f"{s['cell_f1']:8.3f} {s['matched_cell_f1']:11.3f} {s['s_per_page']:7.3f}")
        for failure in tally.failures[:5]:
            print(f"    failure: {failure}")
    if "folio" in tallies and len(tallies) > 1:
        best_name, best = max(((n, t.summary()["cell_f1"]) for n, t in tallies.items() if n != "folio"),
                              key=lambda x: x[1])
        gain = tallies["folio"].summary()["cell_f1"] - best
        print(f"\nFolio cell F1 minus best single extractor ({best_name}): {gain * 100:+.1f} points")
    if args.tatqa:
        tallies = run_tatqa(args.tatqa, names)
        if tallies:
            print(f"\nHeld out: TAT-QA dev, first {args.tatqa} tables rendered to PDF (one per page)")
            print(f"{'method':14} {'tables':>6} {'cell P':>7} {'cell R':>7} {'cell F1':>8} {'s/page':>7}")
            for name, tally in tallies.items():
                s = tally.summary()
                print(f"{name:14} {tally.found:6} {s['cell_p']:7.3f} {s['cell_r']:7.3f} {s['cell_f1']:8.3f} "
                      f"{s['s_per_page']:7.3f}")
    if "folio" in names and not args.no_samples and SAMPLES.is_dir():
        pages, seconds, tables = run_samples()
        print(f"\nSamples: {pages} pages, {tables} tables in {seconds:.2f} s = {pages / seconds:.1f} pages/s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
