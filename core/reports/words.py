"""The one way Folio cuts a text into the words it compares: questions, row labels, headers, captions.

Lower case; "D&A", "R&D", "SG&A", "PP&E" kept as one word; plurals folded so that "inventories" meets
"inventory", "liabilities" meets "liability" and "sales" meets "sale"; words a caller names as not naming
anything (its stop words) left out. Every matcher of the answering rooms reads words through ``content_words``
so that a label and a question are cut the same way wherever they are compared.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Collection

_COMPOUND = re.compile(r"\b[a-z]{1,3}\s*&\s*[a-z]{1,3}\b")
_WORD = re.compile(r"[a-z0-9]+")
_SINGLE_DIGIT = re.compile(r"(?<![\w.])\d(?![\w.])")


_LIGATURES = str.maketrans({"\ufb00": "ff", "\ufb01": "fi", "\ufb02": "fl", "\ufb03": "ffi", "\ufb04": "ffl",
                            "\ufb05": "st", "\ufb06": "st"})


def plain_letters(text: str) -> str:
    """``text`` with typographic ligatures spelt out: PDFs print "Difﬁculty" with one glyph for "fi", which no
    question's "difficulty" would meet; TeX's dashes and ligatures given as control characters read as what they
    print (see ``CONTROL_CHARACTERS``); and an accent printed as a glyph of its own before its letter, as TeX sets
    them ("M¨uller", "Rudov´a"), put on the letter ("Müller", "Rudová")."""
    if _ANY_CONTROL.search(text):
        text = _CORK_DASH.sub(lambda g: CONTROL_CHARACTERS[g.group(0)], text)
        text = _CORK_LIGATURE.sub(lambda g: CONTROL_CHARACTERS[g.group(0)], text)
    return _SPACING_ACCENT.sub(lambda g: unicodedata.normalize("NFC", g.group(2) + _COMBINING[g.group(1)]),
                               text.translate(_LIGATURES))


CONTROL_DASHES = {"\x15": "\u2013", "\x16": "\u2014"}
CONTROL_LIGATURES = {"\x1b": "ff", "\x1c": "fi", "\x1d": "fl", "\x1e": "ffi", "\x1f": "ffl"}
CONTROL_CHARACTERS = CONTROL_DASHES | CONTROL_LIGATURES
"""TeX's T1 (Cork) font encoding sets the en and em dashes at 0x15 and 0x16 and the ligatures ff, fi, fl, ffi and ffl
at 0x1B to 0x1F; a font embedded without a Unicode map gives them as control characters, which would be dropped or,
0x1C to 0x1F being separators to Python, cut words in two: "50\x1554" is the range 50-54, "e\x1bect" is "effect",
"\x1crst" is "first"."""
_ANY_CONTROL = re.compile("[" + "".join(CONTROL_CHARACTERS) + "]")
_CORK_DASH = re.compile(r"(?<=\w)[\x15\x16](?=\w)")
"""A dash only between two letters or digits (elsewhere the same codes are accents in TeX's older encoding)."""
_CORK_LIGATURE = re.compile(r"(?<=[A-Za-z])[\x1b-\x1f]|[\x1b-\x1f](?=[a-z])")
"""A ligature only next to a letter: after one, or before a lower-case one."""


_COMBINING = {"\u00a8": "\u0308", "\u00b4": "\u0301", "\u02c6": "\u0302", "\u02dc": "\u0303"}
_SPACING_ACCENT = re.compile(r"([\u00a8\u00b4\u02c6\u02dc]) ?([A-Za-z])")


def unaccented(text: str) -> str:
    """``text`` with its letters' accents taken off ("Müller" -> "Muller"): a question may be typed without them."""
    if text.isascii():
        return text
    return "".join(ch for ch in unicodedata.normalize("NFKD", text) if not unicodedata.combining(ch))


_SAME_AS = {"women": "female", "woman": "female", "men": "male", "man": "male", "girls": "female", "girl": "female",
            "boys": "male", "boy": "male", "people": "person", "children": "child"}
"""Irregular plurals, and the words statistics tables print for them in headers ("Females (%)" for "women", "Male"
over "Under 18" for "boys")."""


def fold(word: str) -> str:
    """A word's singular as reports' plurals go: "inventories" -> "inventory", "assets" -> "asset", "taxes" -> "tax",
    "branches" -> "branch"; "loss", "gas" and short words stay; "women" -> "female", "people" -> "person"."""
    if word in _SAME_AS:
        return _SAME_AS[word]
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith(("xes", "ches", "shes", "sses")) and len(word) > 4:  # "taxes" -> "tax", "expenses" stays below
        return word[:-2]
    if word.endswith("s") and not word.endswith("ss") and len(word) > 3:
        return word[:-1]
    return word


def content_words(text: str, stop: Collection[str] = (), single_digits: bool = False) -> set[str]:
    """The folded words of ``text`` less ``stop`` and one-letter words; with ``single_digits``, a lone digit is a
    word too ("Scope 1" and "Scope 2" differ by it)."""
    lowered = unaccented(plain_letters(text)).lower()
    out = {re.sub(r"\s+", "", compound) for compound in _COMPOUND.findall(lowered)}  # "d&a", "pp&e": one word
    if single_digits:
        out.update(_SINGLE_DIGIT.findall(lowered))
    lowered = _COMPOUND.sub(" ", lowered)
    for word in _WORD.findall(lowered.replace("&", " and ")):
        if word in stop or len(word) < 2:
            continue
        out.add(fold(word))
    return out
