"""Figures a passage states outright, found without the model.

"Top ten customers account for 51.3% of total operating revenues in 2019" answers "what percentage of
total operating revenues do the top ten customers account for in 2019" directly; SQL over a table that
merely shares words with the question computes something else. This module finds, in the passages the
loop retrieved, the clause that names (nearly) all of what the question asks about, the year it names
if any, and a figure; that figure, cited to the passage, answers a lookup, and a table result that
disagrees with it is flagged rather than preferred blindly (``core.answering.loop`` decides which
wins by how well each names the question's subject).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from core.answering import operations as ops
from core.answering.citations import snippet
from core.reports.values import YEAR_WORD
from models.types import Chunk

MIN_COVERAGE = 0.8
"""Share of the question's subject words a clause must name to state the answer outright."""
_CLAUSE = re.compile(r"(?<=[.;:])\s+|,\s+(?:and|while|whereas|but|compared)\s+|\s+compared\s+(?:to|with)\s+")
_STATED = re.compile(
    r"(?:(?:US|A|C)?[$\u20ac\u00a3\u00a5]\s?)?(?<![\w.])-?\d(?:[\d,]*\d)?(?:\.\d+)?"
    r"(?:\s?(?:%|per\s?cent|percent)|\s(?:thousand|million|billion)s?\b|\s?(?:m|bn|k)\b|p\b)?",
    re.IGNORECASE)
"""A figure as a passage prints it, with its unit; a comma after it ends it ("May 31, Percent Change" states no 31%)."""
_ASKING = frozenset(ops.words(
    "much many amount value figure number total what which was were is are the company company's group "
    "percentage percent proportion share rate level balance"))


@dataclass(frozen=True)
class StatedFigure:
    """A figure a passage states for the question's subject."""

    figure: str
    """As printed, with its unit ("51.3%", "$126 million")."""
    clause: str
    chunk: Chunk
    coverage: float
    """Share of the question's subject words the clause names."""
    parts: tuple[str, ...] = ()
    """Several figures, one for each period asked in the question's order ("$4.6 million", "$4.0 million"), where
    the clause states them "respectively"; ``figure`` then joins them."""


def subject_words(question: str) -> set[str]:
    """What a question asks about: its content words without years, figures and asking words."""
    return {w for w in ops.words(question) if not any(ch.isdigit() for ch in w)} - _ASKING


_RISES = frozenset(ops.words("increase increased increasing rise rose risen rising grow grew grown growth"))
_FALLS = frozenset(ops.words("decrease decreased decreasing decline declined declining fall fell fallen drop dropped "
                             "reduction reduced"))
_CHANGES = frozenset(ops.words("change changed movement"))


def _change_classes(words: set[str]) -> set[str]:
    classes = set()
    if words & _RISES:
        classes.add("increase")
    if words & _FALLS:
        classes.add("decrease")
    if words & _CHANGES:
        classes.add("change")
    return classes


def _asked_change(words: set[str]) -> set[str]:
    """A question's words with its word for a change as its class: "increase", "decrease" or "change"."""
    return (words - _RISES - _FALLS - _CHANGES) | _change_classes(words)


def _said(clause: str) -> set[str]:
    """A clause's words, a word for a rise also saying "increase" and "change", one for a fall "decrease" and
    "change" ("interest expense rose $12 million" says the increase, and the change, in interest expense)."""
    words = ops.words(clause)
    classes = _change_classes(words)
    return words | classes | ({"change"} if classes else set())


_MONTH = (r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|"
          r"oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)")
_UNIT = re.compile(r"[%$\u20ac\u00a3\u00a5]|per\s?cent|million|billion|thousand|\d(?:m|bn|k|p)\b", re.IGNORECASE)


_NOTE_MARK = re.compile(r"(?:[)\]]|[^\W\d_][:;.,]|\)[:;.,])$")
"""What a footnote's number follows, printed flat with no space: a closing bracket, or a word's or a bracket's
last stop ("as reported.4", "(Lee et al., 2006):19")."""
_SPACE_GROUPED = re.compile(r"\d[ \u00a0]$")


def _figures(clause: str) -> list[str]:
    """The figures a clause states, those with a unit (currency, percent, scale) first; years, dates
    ("31 December") and bare one-digit numbers left out."""
    return sorted(_printed(clause), key=lambda text: not _UNIT.search(text))


def _printed(clause: str) -> list[str]:
    """The figures a clause states, in the order it prints them (as ``_figures`` reads them)."""
    out = []
    for match in _STATED.finditer(clause):
        text = match.group(0).strip().rstrip(",.")
        digits = re.sub(r"[^\d.]", "", text)
        if _NOTE_MARK.search(clause[: match.start()]) or _SPACE_GROUPED.search(clause[: match.start()]) or \
                re.match(r"[ \u00a0]\d{3}(?!\d)", clause[match.end():]):
            continue  # a footnote's number glued to the words it notes ("(Lee, 2006):19"), or a piece of "150 000"
        if re.search(r"(?:[\u2265\u2264<>]|>=|<=)\s*$", clause[: match.start()]):
            continue  # a bound that says of whom ("adults of \u226518 years"), not a figure stated of them
        if not _UNIT.search(text):
            if YEAR_WORD.fullmatch(digits) or re.fullmatch(r"\d", digits):
                continue  # a year, or a small count that names a thing ("Note 3") more often than it answers
            before, after = clause[: match.start()], clause[match.end():]
            if re.match(rf"\s*{_MONTH}\b", after, re.IGNORECASE) or re.search(rf"\b{_MONTH}\s*$", before, re.IGNORECASE):
                continue  # a day of a date
        out.append(text)
    return out


_RESPECTIVELY = re.compile(r"\brespectively\b", re.IGNORECASE)
_PERCENT = re.compile(r"%|per\s?cent", re.IGNORECASE)


def _respective(sentence: str, wants_percent: bool) -> list[tuple[str, dict[str, str]]]:
    """The parts of a sentence that pair figures with periods "respectively" ("X was A, B and C in 2019, 2018 and
    2017, respectively", or the years first), each with its figure for each year: the n-th figure printed goes
    with the n-th year printed. Where the part prints percentages beside amounts ("$5 million and $4 million, or
    10% and 8% of sales"), the figures of the kind asked are paired. A part whose figures and years differ in
    number pairs nothing and is left out."""
    out: list[tuple[str, dict[str, str]]] = []
    start = 0
    for match in _RESPECTIVELY.finditer(sentence):
        part, start = sentence[start: match.end()], match.end()
        years = list(dict.fromkeys(YEAR_WORD.findall(part)))
        figures = _printed(part)
        if len(figures) != len(years):
            figures = [f for f in figures if bool(_PERCENT.search(f)) == wants_percent]
        if len(years) >= 2 and len(figures) == len(years):
            out.append((part.strip(" ,;"), dict(zip(years, figures))))
    return out


_ASKS_PERCENT = re.compile(r"percent|%|proportion|share of", re.IGNORECASE)


def _sentences(chunk: Chunk) -> list[str]:
    return re.split(r"(?<=[.!?])\s+", " ".join(chunk.text.split()))


def stated_figure(question: str, passages: Sequence[Chunk]) -> StatedFigure | None:
    """The figure the best-matching clause of ``passages`` states for ``question``'s subject, when that
    clause names at least ``MIN_COVERAGE`` of the subject and every year the question names; None else,
    or when two clauses that match equally well state different figures."""
    asked = _asked_change(subject_words(question))
    if len(asked) < 2:
        return None
    years = set(YEAR_WORD.findall(question))
    wants_percent = bool(_ASKS_PERCENT.search(question))
    printed = {_number(f) for f in _figures(question)} - {None}
    found: list[StatedFigure] = []
    for chunk in passages:
        if chunk.kind != "text":
            continue
        for sentence in _sentences(chunk):
            sentence_years = set(YEAR_WORD.findall(sentence))
            if years and not years <= sentence_years:
                continue
            # "A and B in 2019 and 2018, respectively": the figure in the place of the year asked, or none; the
            # words after the last "respectively" are read clause by clause
            for clause, by_year in _respective(sentence, wants_percent):
                coverage = len(asked & _said(clause)) / len(asked)
                figure = by_year.get(next(iter(years))) if len(years) == 1 else None
                if coverage >= MIN_COVERAGE and figure is not None and _number(figure) not in printed:
                    found.append(StatedFigure(figure, clause, chunk, coverage))
            rest = _RESPECTIVELY.split(sentence)[-1]
            for clause in _CLAUSE.split(rest):
                figures = _figures(clause)
                if wants_percent:
                    figures = [f for f in figures if re.search(r"%|per\s?cent", f, re.IGNORECASE)]
                # a figure the question itself prints ("a member aged 65") says which, not what is asked
                figures = [f for f in figures if _number(f) not in printed]
                if not figures:
                    continue
                coverage = len(asked & _said(clause)) / len(asked)
                if coverage >= MIN_COVERAGE:
                    figure = _nearest_to_year(clause, figures, years) if len(years) == 1 else \
                        _best_said(clause, figures, asked)
                    if figure is not None:
                        found.append(StatedFigure(figure, clause, chunk, coverage))
    if not found:
        return None
    best = max(f.coverage for f in found)
    top = [f for f in found if f.coverage == best]
    if len({_number(f.figure) for f in top}) > 1:
        return None
    return top[0]


def _respective_subject(question: str) -> set[str]:
    return subject_words(question) - {"respective", "respectively"}


def stated_figures(question: str, passages: Sequence[Chunk]) -> StatedFigure | None:
    """The figures a passage states "respectively" for each period ``question`` names, in the question's order
    ("Freight cost $8.4 million, $7.7 million and $6.9 million in fiscal 2021, 2020 and 2019, respectively"
    for the freight cost in 2021, 2020 and 2019): from the part that names at least
    ``MIN_COVERAGE`` of the subject and pairs a figure with every period asked; None where none does, or where
    two that match equally well state different figures."""
    asked = _respective_subject(question)
    years = list(dict.fromkeys(YEAR_WORD.findall(question)))
    if len(asked) < 2 or len(years) < 2:
        return None
    wants_percent = bool(_ASKS_PERCENT.search(question))
    found: list[StatedFigure] = []
    for chunk in passages:
        if chunk.kind != "text":
            continue
        for sentence in _sentences(chunk):
            for clause, by_year in _respective(sentence, wants_percent):
                coverage = len(asked & ops.words(clause)) / len(asked)
                if coverage >= MIN_COVERAGE and all(y in by_year for y in years):
                    parts = tuple(by_year[y] for y in years)
                    found.append(StatedFigure(ops.join_values(parts), clause, chunk, coverage, parts))
    if not found:
        return None
    best = max(f.coverage for f in found)
    top = {f.parts: f for f in found if f.coverage == best}
    return next(iter(top.values())) if len(top) == 1 else None


def _best_said(clause: str, figures: Sequence[str], asked: set[str]) -> str | None:
    """Of several figures of a clause, the one whose own words (from it to the next figure) name the most of the
    question's subject: "19.9% have smoked cannabis at some point and 9.6% have used it in the last month" gives
    9.6% for the last month; None when two name as much (which one the question means, the clause does not say)."""
    if len(figures) == 1:
        return figures[0]
    placed = sorted((clause.find(f), f) for f in figures if clause.find(f) >= 0)
    scored = []
    for index, (start, figure) in enumerate(placed):
        end = placed[index + 1][0] if index + 1 < len(placed) else len(clause)
        scored.append((len(asked & ops.words(clause[start:end])), figure))
    best = max((n for n, _ in scored), default=0)
    top = [f for n, f in scored if n == best]
    return top[0] if len(top) == 1 else None


def _nearest_to_year(clause: str, figures: Sequence[str], years: set[str]) -> str:
    """Of several figures in a clause, the one stated for the year asked: "from 1,501 employees at June 30,
    2018 to 1,620 employees at June 30, 2019" gives 1,620 for 2019 (the figure the year follows closest),
    not the 119 the clause opens with."""
    mentions = [m.start() for year in years for m in re.finditer(year, clause)]

    def distance(figure: str) -> int:
        end = clause.find(figure) + len(figure)
        after = [m - end for m in mentions if m >= end]
        return min(after) if after else 10_000 + min((abs(m - end) for m in mentions), default=0)
    return min(figures, key=distance)


def _number(figure: str) -> float | None:
    digits = re.sub(r"[^\d.\-]", "", figure)
    try:
        return round(float(digits), 4)
    except ValueError:
        return None


def same_figure(stated: str, value: str) -> bool:
    """The passage's figure and a table result agree (to the rounding reports use)."""
    a = _number(stated)
    found = [_number(m) for m in re.findall(r"-?\d[\d,]*(?:\.\d+)?", value.replace(",", ""))]
    return a is not None and any(b is not None and abs(abs(a) - abs(b)) <= max(0.01, 0.005 * abs(a)) for b in found)


def label_coverage(question: str, label: str) -> float:
    """Share of the question's subject words a table row's label (with its column's header) names."""
    asked = subject_words(question)
    return len(asked & ops.words(label)) / len(asked) if asked else 0.0


def states_change(stated: StatedFigure, question: str) -> bool:
    """The passage states the very change a "what was the increase in X" question computes ("X increased $12
    million compared to 2020", "an increase of $12 million in X"): the text answers it outright."""
    asked = _asked_change(subject_words(question)) & {"increase", "decrease", "change"}
    at = stated.clause.find(stated.figure)
    if not asked or at < 0 or not asked <= _said(stated.clause):
        return False
    # the figure is what the change word says: "increased $12 million", "an increase of $12 million", "a $12
    # million rise"; a figure further off is some other amount of the clause
    before = " ".join(stated.clause[:at].split()[-3:])
    after = " ".join(stated.clause[at + len(stated.figure):].split()[:1])
    return bool(_change_classes(ops.words(before) | ops.words(after)))


def states_share(stated: StatedFigure, question: str) -> bool:
    """The passage states the very percentage a "what percentage of" question computes ("51.3% of total
    operating revenues"): the text answers it outright, and no division of table cells should."""
    return (bool(re.search(r"\b(percent(age)?|proportion|share)\s+of\b", question, re.IGNORECASE))
            and bool(re.search(r"%|per\s?cent", stated.figure))
            and bool(re.search(r"(%|per\s?cent)\s+of\b", stated.clause, re.IGNORECASE)))


@dataclass(frozen=True)
class Reconciled:
    """A final answer changed by what a passage states: its text, bare value and status."""

    text: str
    value: str
    status: str
    stated: StatedFigure
    """The passage's figure, to be cited."""
    parts: tuple[str, ...] = ()
    """The figures, one for each period asked, where several are ("respective")."""


_ASKS_A_FIGURE = re.compile(r"^\s*(?:how\s+(?:many|much)|what\s+(?:percentage|share|proportion|number)\s+of)\b",
                            re.IGNORECASE)
"""A question whose answer is a figure, even where its words are the text's ("how many holdings did the survey
cover")."""


def reconcile(question: str, kind: str, text: str, value: str, status: str, table_words: str,
              passages: Sequence[Chunk], retrieved: Sequence[Chunk] = ()) -> Reconciled | None:
    """The answer to a figure question (``kind`` "lookup" or "computed") given what ``passages`` state
    outright, or None when it stands as it is: the text confirmed it, the passage states the same figure, or
    none states one. An answer the model gave from the text gives way to a figure a passage states outright
    (one it was shown, or one of the ``retrieved``). With no figure from the table, the passage's answers.
    When they differ, the one naming the question's subject more closely is given (the table's
    by its row label and header, ``table_words``) and the answer is flagged as a conflict; a computed
    figure gives way only to a passage stating the very share asked for (``states_share``)."""
    if kind == "figures":
        return _reconcile_figures(question, text, value, status, table_words, passages)
    figure_asked = kind in ("lookup", "computed") or kind == "text" and (status == "refused" or not value) and \
        bool(_ASKS_A_FIGURE.search(question))
    from_text = status == "text"
    if not figure_asked or status == "checked" or from_text and kind == "computed":
        return None
    # the model's reading of the passages stands, unless a passage it was shown or another retrieved states
    # another figure outright for the question's subject: a small model miscounts, or takes another clause's
    stated = stated_figure(question, [*passages, *(c for c in retrieved if c not in passages)] if from_text
                           else passages)
    if stated is None or (value and same_figure(stated.figure, value)):
        return None
    if kind == "computed" and not (states_share(stated, question) or states_change(stated, question)):
        return None
    quoted = f"\u201c{snippet(stated.clause, 160)}\u201d (p. {stated.chunk.page})"
    if status == "refused" or from_text or not value:
        return Reconciled(f"{stated.figure}: the text states it ({quoted}).", stated.figure, "text", stated)
    if stated.coverage > label_coverage(question, table_words):
        return Reconciled(f"{stated.figure}, as the text states ({quoted}); the table gives {value} instead, which "
                          "names the question's subject less closely.", stated.figure, "conflict", stated)
    return Reconciled(f"{text} The text states {stated.figure} instead: {quoted}.", value, "conflict", stated)


def _reconcile_figures(question: str, text: str, value: str, status: str, table_words: str,
                       passages: Sequence[Chunk]) -> Reconciled | None:
    """Several figures asked, one for each period ("the X in 2019 and 2018, respectively"), given what a passage
    states "respectively" (``stated_figures``): the passage's where no table gave them, or where it names the
    question's subject more closely than the table's labels do (flagged as a conflict); None where the answer
    stands (the table gives the same figures, or names the subject as closely)."""
    if status in ("checked", "text"):
        return None
    stated = stated_figures(question, passages)
    if stated is None:
        return None
    given = [v for v in re.split(r"\s+and\s+|;\s*", value) if v.strip()] if value else []
    if len(given) == len(stated.parts) and all(same_figure(a, b) for a, b in zip(stated.parts, given)):
        return None
    quoted = f"\u201c{snippet(stated.clause, 160)}\u201d (p. {stated.chunk.page})"
    if status == "refused" or not value:
        return Reconciled(f"{stated.figure}: the text states them ({quoted}).", stated.figure, "text", stated,
                          stated.parts)
    asked = _respective_subject(question)
    if stated.coverage > len(asked & ops.words(table_words)) / len(asked):
        return Reconciled(f"{stated.figure}, as the text states ({quoted}); the table gives {value} instead, which "
                          "names the question's subject less closely.", stated.figure, "conflict", stated, stated.parts)
    return None


_YES_NO = re.compile(r"^(?:yes|no)\s*[,.;:]\s+", re.IGNORECASE)
_LINKING = re.compile(
    r"\b(?:(?:is|are|was|were)(?:\s+(?:comprised|composed|made\s+up)\s+of|\s+(?:primarily\s+|mainly\s+)?"
    r"(?:due|attributable|related)\s+to|\s+(?:calculated|determined|recogni[sz]ed|measured|presented|defined|"
    r"amortised|amortized|tested)(?:\s+(?:as|by|using|on|over))?)?|includes?|included|consists?\s+of|comprises?|"
    r"represents?|relates?\s+to)\s+", re.IGNORECASE)
"""The verb a written answer echoing its question's subject links it to the answer with ("tax fees are comprised
of ...", "the charge relates to ...")."""


def quoted_span(question: str, answer: str, passages: Sequence[Chunk]) -> str:
    """The passage's own words for an answer written from it: where the answer less a frame that echoes the
    question ("audit fees are comprised of ...", "Yes, ..."), else the whole answer, is printed in a passage (letter
    case and spacing aside), the span as printed; else the answer as written. Nothing is trimmed to words the
    passage does not print, so a paraphrase stays whole."""
    core = " ".join(answer.split()).rstrip(".")
    texts = [" ".join(c.text.split()) for c in passages if c.kind == "text"]
    if not core or not texts:
        return answer
    plain = _YES_NO.sub("", core)
    tries = [plain, core] if plain != core else [core]
    link = _LINKING.search(plain)
    if link is not None and link.start() > 0:
        echoed = ops.words(plain[: link.start()])
        if echoed and echoed <= ops.words(question) | _ASKING:
            tries.insert(0, plain[link.end():])  # what the question asks, without its subject said again
    for tried in tries:
        if len(tried.split()) < 2:
            continue
        for text in texts:
            at = text.lower().find(tried.lower())
            if at >= 0:
                return text[at: at + len(tried)]
    return answer
