"""Scoring answers against golds read off a page: figures, labels, lists; and the percentiles the benches print.

Shared by the answer benchmarks (``bench_financebench.py``, ``bench_tables.py``; ``bench_tatqa.py`` keeps
TAT-QA's own metric).

- A figure is read from report notation: thousands separators, a decimal point, or with ``european=True``
  also European notation (``27.715,5``, ``4.812`` read both ways), signs as ``-``, ``\u2212`` or
  parentheses, and a unit printed after it: ``%`` or a scale word (thousand, lakh, million, crore, billion,
  and bn, mn, m, k, b).
- An answer holds a gold figure when one of its figures equals it within half a unit of the gold's printed
  precision (``"9.30"``: 0.005), sign included, after converting scales: a figure followed by a scale word
  is compared in units with the gold (scaled by its own scale when it has one); a bare figure is compared
  with the gold as printed, or with the gold in units.
- A label matches a span of an answer when, lower-cased, without accents, punctuation and articles (and
  without figures, unless the label has some), the span is the label or holds it as a run of whole words
  with at most three words more ("Bargarh district", "5 Old Mill Library (3,738)").
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

SCALES = {"thousand": 1e3, "lakh": 1e5, "million": 1e6, "crore": 1e7, "billion": 1e9}
_UNITS = {"%": "%", "percent": "%", "thousand": "thousand", "thousands": "thousand", "k": "thousand",
          "lakh": "lakh", "lakhs": "lakh", "million": "million", "millions": "million", "mn": "million",
          "m": "million", "crore": "crore", "crores": "crore", "billion": "billion", "billions": "billion",
          "bn": "billion", "b": "billion"}
_TOKEN = re.compile(
    r"(?<![\w.,])(?P<sign>[-\u2212(]?)\s?(?:[$€£₹]|rs\.?|eur|usd)?\s?(?P<digits>\d(?:[\d.,]*\d)?)\)?"
    r"(?:\s*(?P<unit>%|percent\b|thousands?\b|lakhs?\b|millions?\b|crores?\b|billions?\b|bn\b|mn\b|[bmk]\b))?",
    re.IGNORECASE)
EXTRA_LABEL_WORDS = 3
"""How many words a span may add to a label it holds and still name it."""


@dataclass(frozen=True)
class Figure:
    """A number as an answer prints it: its value, its decimal places and the unit printed after it."""

    value: float
    decimals: int
    unit: str = ""
    """"", "%" or a key of ``SCALES``."""

    def in_units(self) -> float:
        return self.value * SCALES.get(self.unit, 1.0)


def _readings(digits: str, european: bool) -> list[tuple[float, int]]:
    """The values (and decimal places) a run of digits, dots and commas can mean."""
    dots, commas = digits.count("."), digits.count(",")

    def groups_of_three(parts: list[str]) -> bool:
        return all(len(p) == 3 for p in parts[1:]) and 1 <= len(parts[0]) <= 3

    if dots and commas:
        decimal = "." if digits.rfind(".") > digits.rfind(",") else ","
        whole, _, fraction = digits.rpartition(decimal)
        thousands = "," if decimal == "." else "."
        if decimal == "," and not european or not groups_of_three(whole.split(thousands)):
            return []
        return [(float(whole.replace(thousands, "") + "." + fraction), len(fraction))]
    if commas:
        parts = digits.split(",")
        if groups_of_three(parts):
            found = [(float(digits.replace(",", "")), 0)]
            return found + ([(float(digits.replace(",", ".")), len(parts[1]))] if european and commas == 1 else [])
        return [(float(digits.replace(",", ".")), len(parts[1]))] if european and commas == 1 else []
    if dots:
        parts = digits.split(".")
        if dots == 1:
            found = [(float(digits), len(parts[1]))]
            return found + ([(float(digits.replace(".", "")), 0)] if european and groups_of_three(parts) else [])
        return [(float(digits.replace(".", "")), 0)] if european and groups_of_three(parts) else []
    return [(float(digits), 0)]


def figures(text: str, *, european: bool = False) -> list[Figure]:
    """Every figure ``text`` prints, each reading of an ambiguous one (``4.812`` in European mode) apart."""
    found = []
    for match in _TOKEN.finditer(text.replace("\u2009", " ").replace("\u00a0", " ")):
        negative = bool(match.group("sign"))
        unit = _UNITS.get((match.group("unit") or "").lower(), "")
        for value, decimals in _readings(match.group("digits"), european):
            found.append(Figure(-value if negative else value, decimals, unit))
    return found


def decimals_of(printed: str) -> int:
    """Decimal places of a figure printed in US notation ("9.30" has 2)."""
    digits = re.sub(r"[^\d.]", "", printed)
    return len(digits.split(".")[1]) if "." in digits else 0


def gold_figure(printed: str) -> float:
    """The value of a gold figure printed in US notation, "(1,234)" and "-1,234" negative."""
    value = float(re.sub(r"[^\d.]", "", printed))
    return -value if printed.strip().startswith(("-", "\u2212", "(")) else value


def holds_figure(answer: str, gold: str, *, gold_scale: str = "", european: bool = False) -> bool:
    """The answer prints the gold figure within half a unit of its precision (see the module's rules)."""
    target, tolerance = gold_figure(gold), 0.5 * 10 ** -decimals_of(gold) + 1e-9
    scale = SCALES.get(gold_scale, 1.0)
    for figure in figures(answer, european=european):
        if figure.unit in SCALES:
            if abs(figure.in_units() - target * scale) <= tolerance * scale:
                return True
        elif abs(figure.value - target) <= tolerance or abs(figure.value - target * scale) <= tolerance * scale:
            return True
    return False


def question_scale(question: str) -> str:
    """The scale a question asks its answer in ("in millions"), "percent", or ""."""
    q = question.lower()
    for word in ("billion", "million", "thousand"):
        if word in q:
            return word
    return "percent" if "percent" in q or "%" in q else ""


def answer_figures(answer: str, scale: str) -> list[float]:
    """Every figure the answer holds, in the scale the question names (from the unit printed after it)."""
    out = []
    for figure in figures(answer):
        value = figure.value
        if figure.unit in SCALES and scale in SCALES:
            value = figure.in_units() / SCALES[scale]
        out.append(value)
    return out


def p90(values: Sequence[float]) -> float:
    """The 90th percentile (nearest rank) of ``values``."""
    ordered = sorted(values)
    return float(ordered[max(0, -(-9 * len(ordered) // 10) - 1)]) if ordered else float("nan")


def normalise_label(text: str, *, keep_digits: bool = True) -> str:
    """A label as it is compared: lower case, no accents, punctuation or articles ("&" read as "and")."""
    text = _ascii(text)
    if not keep_digits:
        text = re.sub(r"[-\u2212(]?\d[\d.,]*\)?%?", " ", text)
    words = re.sub(r"[^a-z0-9]+", " ", text).split()
    return " ".join(w for w in words if w not in ("the", "a", "an"))


def label_matches(span: str, label: str) -> bool:
    """``span`` names ``label`` (see the module's rule)."""
    gold = normalise_label(label)
    said = normalise_label(span, keep_digits=bool(re.search(r"\d", label)))
    if not gold or not said:
        return False
    if said == gold:
        return True
    return f" {gold} " in f" {said} " and len(said.split()) - len(gold.split()) <= EXTRA_LABEL_WORDS


def _ascii(text: str) -> str:
    return unicodedata.normalize("NFKD", text.replace("&", " and ")).encode("ascii", "ignore").decode().lower()


def split_spans(text: str, keep: Sequence[str] = ()) -> list[str]:
    """The items of an answer that lists several ("A, B and C", "A; B", one per line); the labels of ``keep``
    stay whole where the text prints them ("Daman and Diu" is one item)."""
    work = " ".join(_ascii(text).split())
    kept = {}
    for n, label in enumerate(sorted(keep, key=len, reverse=True)):
        printed = " ".join(_ascii(label).split())
        if printed and printed in work:
            kept[f"\x00{n}\x00"] = label
            work = work.replace(printed, f"\x00{n}\x00")
    parts = re.split(r"\s*(?:;|\n|,\s+(?:and\s+)?|\s+and\s+)\s*", work.strip().strip("."))
    spans = []
    for part in (p.strip(" .\"'") for p in parts):
        for placeholder, label in kept.items():
            part = part.replace(placeholder, label)
        if part:
            spans.append(part)
    return spans


def labels_match(spans: Iterable[str], golds: Sequence[str]) -> bool:
    """The spans name every gold label and nothing else (sets: order and repeats aside); spans without a
    letter (a figure beside its label) are not items, unless the labels themselves are figures ("20-29", an age
    group; "2014", a year) and the span names one."""
    spans = [s for s in spans if re.search(r"[A-Za-z]", s) or any(label_matches(s, g) for g in golds)]
    return (all(any(label_matches(s, g) for s in spans) for g in golds)
            and all(any(label_matches(s, g) for g in golds) for s in spans))


def names_label(text: str, label: str) -> bool:
    """``text`` prints ``label`` as a run of whole words (figures kept only when the label has some)."""
    gold = normalise_label(label)
    said = normalise_label(text, keep_digits=bool(re.search(r"\d", label)))
    return bool(gold) and f" {gold} " in f" {said} "
