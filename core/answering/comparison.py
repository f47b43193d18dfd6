"""Comparisons across documents and periods: one question asking for several figures and how they compare.

"Compare A's and B's X in 2021", "which of A, B and C had the highest X", "X in 2019 vs 2021": such a question
names one measure and asks it of several issuers the library knows, or over several periods set against each
other ("vs", "versus", "compared with", "compare"). ``comparison_of`` finds that in the question's reading and
says the figures it needs, each as a question of its own ("What was A's X in 2021?"), which the normal pipeline
answers in its own document (routing by issuer and period, every cell cited). ``combine`` makes one answer of
them: the comparison computed here, in code, from the figures the answers stated (the difference and the ratio
of two, the change between periods, a ranking of several), in one sentence and a small Markdown table, with
every part's citations. Nothing here asks a model or reads a table.

A question that names several issuers the library does not know, or several periods without setting them
against each other ("the change from 2019 to 2021", "the average over 2019-2021"), is no comparison here:
the reading's own measure (a change, an average) answers it in one document.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace

from core.answering import answer_types as kinds
from core.answering import measures as m
from core.answering.operations import format_number
from core.answering.reading import QuestionReading, read
from core.reports.values import SCALE_FACTORS, PeriodMention, find_periods, parse_report_number
from models.types import Answer, Citation, Step, Usage

ISSUER = "issuer"
PERIOD = "period"

_VERSUS = re.compile(r"\b(?:vs\.?|versus|compared\s+(?:to|with)|as\s+against|against|compare|comparing|comparison)\b",
                     re.IGNORECASE)
"""Words that set figures against each other."""
_MARK = "\x00"
_LEGAL = r"(?:,?\s+(?:inc|incorporated|corp|corporation|co|company|plc|ltd|limited|llc|group|holdings)\b\.?)?"
_POSSESSIVE = r"(?:['\u2019]s|['\u2019](?=\s))?"
_JOINED = (rf"(?:\b(?:between|among|amongst|of|for|at|by|from)\s+(?:the\s+)?)?{_MARK}"
           rf"(?:\s*(?:,\s*(?:and\s+|or\s+)?|\band\b|\bor\b|&|\bvs\.?|\bversus\b|\bagainst\b|\bcompared\s+(?:to|with)\b|\bto\b)"
           rf"\s*(?:(?:that|those)\s+of\s+)?(?:the\s+)?{_MARK})*")
_SUPERLATIVE = {"higher": "max", "highest": "max", "larger": "max", "largest": "max", "greater": "max",
                "greatest": "max", "bigger": "max", "biggest": "max", "more": "max", "most": "max", "better": "max",
                "best": "max", "lower": "min", "lowest": "min", "smaller": "min", "smallest": "min", "less": "min",
                "least": "min", "fewer": "min", "fewest": "min", "worse": "min", "worst": "min"}
_WHICH = re.compile(
    r"^\s*(?:which|who|what)\s+(?:of\s+(?:the\s+|these\s+|those\s+|them\s*)?)?(?:(?:two\s+|three\s+|four\s+)?"
    r"(?:companies|company|firms?|issuers?|businesses|business|groups?|organi[sz]ations?|ones?|one)\s+)?"
    r"(?:,\s*)?(?:had|has|have|reported|posted|made|earned|showed|shows|generated|spent|paid|recorded|achieved|"
    r"delivered|saw|was|is|were|are)?\s*(?:the\s+|a\s+)?(?P<sup>" + "|".join(_SUPERLATIVE) + r")\b\s*", re.IGNORECASE)
_FRAMES = (
    re.compile(r"^\s*(?:please\s+)?(?:can\s+you\s+)?compare\s+(?:the\s+)?", re.IGNORECASE),
    re.compile(r"^\s*how\s+(?:does|did|do|has|have|had|is|was|were|are)\s+(?:the\s+)?", re.IGNORECASE),
    re.compile(r"^\s*(?:what|how\s+much)\s+(?:was|were|is|are|did|does|do)\s+(?:the\s+)?", re.IGNORECASE),
    re.compile(r"^\s*(?:show|give|tell)\s+(?:me\s+)?(?:the\s+)?", re.IGNORECASE),
)
_TAIL = re.compile(r"\s*(?:,\s*)?\b(?:compare[sd]?|stack\s+up|differ|vs\.?|versus|compared\s+(?:to|with)|against|"
                   r"respectively|each|with|to)\s*$", re.IGNORECASE)
_OVER_PERIODS = re.compile(r"\b(?:change[sd]?|growth|grew|grow|increase[sd]?|decrease[sd]?|decline[sd]?|rise|fall|drop|"
                           r"difference|variance|movement|cagr)\b", re.IGNORECASE)
"""Words of a measure that is itself taken over periods, though the grammar left it a line ("real change in sales")."""
_PERIOD_LEAD = r"(?:\b(?:in|for|during|at|as\s+of|of|on|between|from)\s+)?(?:the\s+)?(?:(?:fiscal|financial|calendar)\s+(?:year\s+)?)?"


@dataclass(frozen=True)
class Comparison:
    """A question that sets figures of one measure against each other."""

    question: str
    by: str
    """``ISSUER`` (the figures are of several issuers) or ``PERIOD`` (of several periods)."""
    measure: str
    """The measure, as the question says it ("net income")."""
    subjects: tuple[str, ...]
    """What each figure is of, as the question says it: issuers ("Northgate", "Alder") or periods ("2019")."""
    when: str = ""
    """For issuers: the period they are compared in, with its preposition ("in 2020"), or ""."""
    owner: str = ""
    """For periods: whose measure it is ("Boeing"), or ""."""
    rank: str = ""
    """"max" or "min" where it asks which is highest or lowest; "" where it asks them compared."""
    years: tuple[int, ...] = ()
    """For periods: the year of each subject."""

    def questions(self) -> list[str]:
        """One question per figure, as the normal pipeline reads a question of one document."""
        if self.by == ISSUER:
            return [_question(subject, self.measure, self.when) for subject in self.subjects]
        return [_question(self.owner, self.measure, f"in {subject}") for subject in self.subjects]

    @property
    def heading(self) -> str:
        """The table's column heading: the measure with the period ("Net income in 2020") or whose it is."""
        if self.by == ISSUER:
            return _capital(f"{self.measure} {self.when}".strip())
        return _capital(f"{self.owner}'s {self.measure}" if self.owner else self.measure)


def comparison_of(reading: QuestionReading, issuers: Sequence[Sequence[str]]) -> Comparison | None:
    """The comparison ``reading`` asks for, or None. ``issuers``: for each issuer the library knows, the names a
    question may call it by (``core.search.routing.issuer_names``)."""
    if reading.explains or reading.kind == kinds.TITLE:
        return None
    text = " ".join(reading.text.split()).rstrip(" ?.!")
    named = _named_issuers(text, issuers)
    known = [name for names in issuers for name in names]
    if len(named) >= 2:
        found = _across_issuers(reading.text, text, named)
    elif _VERSUS.search(text) and reading.measure is not None and not reading.compares \
            and reading.measure.op not in m.OVER_PERIODS - {m.TOTAL}:  # "total assets in 2019 vs 2020" is no sum
        found = _across_periods(reading.text, text, named)
    else:
        return None
    if found is None or not found.measure or re.search(r"['\u2019]s\b|^(?:and|or)\b", found.measure, re.IGNORECASE):
        return None  # no measure left, or another issuer's name in it (one the library does not know)
    for question in found.questions():  # each part must read as a measure of one document
        part = read(question, known)
        if part.measure is None or not any(leaf.words for leaf in part.measure.leaves()):
            return None
    return found


def _across_issuers(question: str, text: str, named: Sequence[tuple[int, int, str]]) -> Comparison | None:
    marked = re.sub(_JOINED, " ", _marked(text, [(start, end) for start, end, _ in named]),
                    flags=re.IGNORECASE).lstrip(" ,:;")
    rank = ""
    which = _WHICH.match(marked)
    if which is not None:
        rank = _SUPERLATIVE[which.group("sup").lower()]
        marked = marked[which.end():]
    phrase = _phrase(marked)
    periods = find_periods(phrase)
    measure, when = _without_periods(phrase, periods)
    return Comparison(question, ISSUER, measure, tuple(said for _, _, said in named), when, rank=rank)


def _across_periods(question: str, text: str, named: Sequence[tuple[int, int, str]]) -> Comparison | None:
    periods = find_periods(text)
    years = [p.year for p in periods]
    if len(set(years)) < 2 or len(periods) != len(set(years)):
        return None
    owner = named[0][2] if named else ""
    marked = _marked(text, [(p.start, p.end) for p in periods])
    marked = re.sub(rf"{_PERIOD_LEAD}{_MARK}(?:\s*(?:,\s*(?:and\s+)?|\band\b|\bor\b|&|\bvs\.?|\bversus\b|\bagainst\b|"
                    rf"\bcompared\s+(?:to|with)\b|\bto\b|\bwith\b)\s*(?:(?:that|those)\s+(?:of|in|for)\s+)?{_PERIOD_LEAD}{_MARK})+",
                    " ", marked, flags=re.IGNORECASE)
    if _MARK in marked:  # periods not all in one run
        return None
    run = re.search(rf"{_MARK}.*{_MARK}", _marked(text, [(p.start, p.end) for p in periods]))
    if not (run and re.search(r"\b(?:vs\.?|versus|compared|against)\b", run.group(0), re.IGNORECASE)
            or re.search(r"\bcompar(?:e|ed|es|ing|ison)\b", text, re.IGNORECASE)):
        return None  # "X against Y in 2019 and 2020": the periods are not what is set against each other
    if owner:
        marked = re.sub(rf"(?:\b(?:of|for|at|by|from)\s+(?:the\s+)?)?(?<![\w]){re.escape(owner)}{_LEGAL}{_POSSESSIVE}(?![\w])",
                        " ", marked, flags=re.IGNORECASE)
    measure = _phrase(marked)
    if _OVER_PERIODS.search(measure):
        return None  # "the change in X in 2023 vs 2022" is one figure over both periods, not one per period
    return Comparison(question, PERIOD, measure, tuple(p.said for p in periods), owner=owner, years=tuple(years))


def _named_issuers(text: str, issuers: Sequence[Sequence[str]]) -> list[tuple[int, int, str]]:
    """The distinct issuers ``text`` names, in its order: (start, end of the mention with its possessive and legal
    form, the name as written)."""
    found: list[tuple[int, int, str]] = []
    for names in issuers:
        for name in sorted(names, key=len, reverse=True):
            match = re.search(rf"(?<![\w]){re.escape(name)}{_LEGAL}(?![\w])", text, re.IGNORECASE)
            if match is None:
                continue
            end = match.end()
            possessive = re.match(_POSSESSIVE, text[end:])
            span = (match.start(), end + (possessive.end() if possessive else 0))
            if all(span[1] <= s or span[0] >= e for s, e, _ in found):
                found.append((*span, text[match.start(): match.end()].rstrip(" ,")))
            break
    return sorted(found)


def _marked(text: str, spans: Sequence[tuple[int, int]]) -> str:
    out, last = [], 0
    for start, end in sorted(spans):
        out += [text[last:start], _MARK]
        last = end
    return "".join(out) + text[last:]


def _phrase(text: str) -> str:
    """What is left of a comparison once its issuers or periods are out: the measure (with its period)."""
    text = " ".join(text.split())
    for frame in _FRAMES:
        text = frame.sub("", text, count=1)
    previous = None
    while previous != text:
        previous = text
        text = _TAIL.sub("", text).strip(" ,")
    text = re.sub(r"^(?:the|a|an)\s+", "", text.strip(" ,:;"), flags=re.IGNORECASE)
    return " ".join(text.replace(" :", " ").replace(" ;", " ").split()).strip(" ,:;")


def _without_periods(phrase: str, periods: Sequence[PeriodMention]) -> tuple[str, str]:
    """The measure without its periods, and the periods with their preposition ("in 2020")."""
    if not periods:
        return phrase, ""
    lead = re.search(rf"{_PERIOD_LEAD}$", phrase[: periods[0].start], re.IGNORECASE)
    start = lead.start() if lead is not None and lead.group(0) else periods[0].start
    when = phrase[start: periods[-1].end].strip()
    measure = " ".join((phrase[:start] + " " + phrase[periods[-1].end:]).split()).strip(" ,")
    return measure, when if start < periods[0].start else f"in {when}"


def _question(owner: str, measure: str, when: str) -> str:
    whose = f"{owner}'s " if owner else "the "
    return f"What was {whose}{measure}{' ' + when if when else ''}?"


def _capital(text: str) -> str:
    return text[:1].upper() + text[1:]


# -- one answer of several -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Figure:
    subject: str
    answer: Answer
    amount: float | None
    """In units (the scale applied), None where the answer states no figure."""
    scale: str
    currency: str
    percent: bool
    citation: int = 0
    """The number of its first citation in the combined answer (0: none)."""


def _figure(subject: str, answer: Answer) -> _Figure:
    parsed = parse_report_number(answer.value) if answer.status != "refused" and answer.value else None
    if parsed is None or parsed.scale not in SCALE_FACTORS:
        return _Figure(subject, answer, None, "", "", False)
    return _Figure(subject, answer, parsed.value * SCALE_FACTORS[parsed.scale], parsed.scale, parsed.currency,
                   parsed.percent)


def combine(comparison: Comparison, answers: Sequence[Answer]) -> Answer:
    """One answer of the parts' answers (one per ``comparison.questions()``, in order): each figure with its
    sources, and the comparison computed here."""
    citations: list[Citation] = []
    figures: list[_Figure] = []
    for subject, answer in zip(comparison.subjects, answers):
        first = 0
        for citation in answer.citations:
            if citation not in citations:
                citations.append(citation)
            if not first or (citation.cells and not citations[first - 1].cells):
                first = citations.index(citation) + 1
        figures.append(replace(_figure(subject, answer), citation=first))
    found = [f for f in figures if f.amount is not None]
    comparable = len(found) >= 2 and len({(f.currency, f.percent) for f in found}) == 1
    sentence, value, worked = _sentence(comparison, figures, found) if comparable else (_missing(comparison, figures), "", "")
    table = _table(comparison, figures, found if comparable else [])
    statuses = {a.status for a in answers}
    status = "refused" if statuses == {"refused"} else "conflict" if "conflict" in statuses else \
        "checked" if statuses == {"checked"} else "unchecked"
    usage = sum((a.usage for a in answers), Usage())
    tasks: dict[str, tuple[int, int]] = {}
    for answer in answers:
        for kind, calls, tokens in answer.task_usage:
            had = tasks.get(kind, (0, 0))
            tasks[kind] = (had[0] + calls, had[1] + tokens)
    step = Step(subquery=f"Compare: {'; '.join(comparison.questions())}", intermediate_answer=worked or sentence,
                answer_type=kinds.COMPUTED)
    steps = tuple(s for a in answers for s in a.steps) + (step,)
    return Answer(comparison.question, f"{sentence}\n\n{table}", tuple(citations), steps, usage,
                  mode="tablerag", model=next((a.model for a in answers if a.model), ""), status=status, value=value,
                  answer_type=kinds.ROW_LABELS if comparison.rank and value else kinds.COMPUTED,
                  parts=tuple(f.answer.value for f in figures if f.amount is not None),
                  task_usage=tuple((k, c, t) for k, (c, t) in tasks.items()))


def _sentence(comparison: Comparison, figures: Sequence[_Figure], found: Sequence[_Figure]) -> tuple[str, str, str]:
    """The comparison in one sentence, its bare value, and the computation as worked."""
    scale = _display_scale(found)
    missing = [f.subject for f in figures if f.amount is None]
    gap = f" No figure was found for {_listed(missing)}." if missing else ""
    if comparison.by == PERIOD:
        ordered = sorted(found, key=lambda f: comparison.years[comparison.subjects.index(f.subject)])
        old, new = ordered[0], ordered[-1]
        change = _amount(new.amount - old.amount if new.amount is not None and old.amount is not None else 0.0, new,
                         scale, signed=True, gap=True)
        whose = f"{comparison.owner}'s {comparison.measure}" if comparison.owner else _capital(comparison.measure)
        listed = ", ".join(f"{_amount(f.amount, f, scale)} in {f.subject}" for f in reversed(ordered[:-1]))
        relative = _relative(old, new)
        sentence = (f"{whose} was {_amount(new.amount, new, scale)} in {new.subject} against {listed}: "
                    f"{'a change of ' + change if new.amount != old.amount else 'no change'}"
                    f"{' (' + relative + ')' if relative else ''} from {old.subject} to {new.subject}.{gap}")
        value = _amount(new.amount - old.amount if new.amount is not None and old.amount is not None else 0.0, new,
                        scale, gap=True)
        worked = f"{_amount(new.amount, new, scale)} - {_amount(old.amount, old, scale)} = {value}"
        return sentence, value, worked
    if comparison.rank or len(found) > 2:
        descending = comparison.rank != "min"
        ordered = sorted(found, key=lambda f: f.amount or 0.0, reverse=descending)
        top, rest = ordered[0], ordered[1:]
        word = "highest" if descending else "lowest"
        when = f" {comparison.when}" if comparison.when else ""
        others = _listed([f"{f.subject} ({_amount(f.amount, f, scale)})" for f in rest])
        sentence = (f"{top.subject} had the {word} {comparison.measure}{when}: {_amount(top.amount, top, scale)}, "
                    f"{'ahead of' if descending else 'below'} {others}.{gap}")
        worked = "; ".join(f"{i}. {f.subject} {_amount(f.amount, f, scale)}" for i, f in enumerate(ordered, 1))
        return sentence, top.subject, worked
    first, second = found
    assert first.amount is not None and second.amount is not None
    difference = first.amount - second.amount
    when = f" {comparison.when}" if comparison.when else ""
    if difference == 0:
        sentence = f"{first.subject}'s and {second.subject}'s {comparison.measure}{when} were the same: " \
                   f"{_amount(first.amount, first, scale)}.{gap}"
    else:
        ratio = first.amount / second.amount if first.amount > 0 and second.amount > 0 else None
        sentence = (f"{first.subject}'s {comparison.measure}{when} was {_amount(first.amount, first, scale)}, "
                    f"{_amount(abs(difference), first, scale, gap=True)} {'higher' if difference > 0 else 'lower'} than "
                    f"{second.subject}'s ({_amount(second.amount, second, scale)})"
                    f"{f', {format_number(ratio)} times as much' if ratio is not None and not first.percent else ''}.{gap}")
    value = _amount(difference, first, scale, gap=True)
    worked = f"{_amount(first.amount, first, scale)} - {_amount(second.amount, second, scale)} = {value}"
    return sentence, value, worked


def _missing(comparison: Comparison, figures: Sequence[_Figure]) -> str:
    """Why nothing could be compared: the figures missing, or stated in units that do not compare."""
    missing = [f.subject for f in figures if f.amount is None]
    if len(missing) < len(figures) - 1:
        return (f"The figures for {_listed([f.subject for f in figures])} are stated in different units "
                f"({_listed(sorted({f.answer.value for f in figures if f.amount is not None}))}), so they were not "
                f"compared.")
    have = [f for f in figures if f.amount is not None]
    said = f" Found: {_listed([f'{f.subject} ({f.answer.value})' for f in have])}." if have else ""
    return f"No comparison: no figure of {comparison.measure} was found for {_listed(missing)}.{said}"


def _table(comparison: Comparison, figures: Sequence[_Figure], found: Sequence[_Figure]) -> str:
    """The figures, each with its source, then what was computed: a small Markdown table."""
    rows = [_row("", comparison.heading, "Source"), "|---|---:|---|"]
    scale = _display_scale(found) if found else ""
    for figure in figures:
        shown = _amount(figure.amount, figure, scale) if figure.amount is not None and found else \
            (figure.answer.value or "not found")
        rows.append(_row(figure.subject, shown, f"[{figure.citation}]" if figure.citation else ""))
    if len(found) == 2 and comparison.by == ISSUER and not comparison.rank:
        first, second = found
        assert first.amount is not None and second.amount is not None
        rows.append(_row("Difference", _amount(first.amount - second.amount, first, scale, signed=True, gap=True)))
        if first.amount > 0 and second.amount > 0 and not first.percent:
            rows.append(_row("Ratio", format_number(first.amount / second.amount)))
    elif len(found) >= 2 and comparison.by == PERIOD:
        ordered = sorted(found, key=lambda f: comparison.years[comparison.subjects.index(f.subject)])
        old, new = ordered[0], ordered[-1]
        assert old.amount is not None and new.amount is not None
        rows.append(_row(f"Change, {old.subject} to {new.subject}",
                         _amount(new.amount - old.amount, new, scale, signed=True, gap=True)))
        if relative := _relative(old, new):
            rows.append(_row("Change in %", relative))
    return "\n".join(rows)


def _row(*cells: str) -> str:
    """A Markdown table row of three cells, the missing ones empty."""
    cells = (*cells, *("",) * (3 - len(cells)))
    return "|" + "|".join(f" {cell} " if cell else " " for cell in cells) + "|"


def _relative(old: _Figure, new: _Figure) -> str:
    if old.percent or old.amount is None or new.amount is None or old.amount <= 0:
        return ""
    return f"{(new.amount - old.amount) / old.amount * 100:+.1f}%"


def _display_scale(figures: Sequence[_Figure]) -> str:
    """The scale the figures are shown in: theirs when they share one, else the smallest of them (no figure
    loses a digit: "$4,898 million" and "$2.7 billion" are compared as $4,898 and $2,700 million)."""
    scales = [f.scale for f in figures]
    return scales[0] if len(set(scales)) == 1 else min(scales, key=lambda s: SCALE_FACTORS[s])


def _amount(amount: float | None, like: _Figure, scale: str, signed: bool = False, gap: bool = False) -> str:
    """A figure in ``scale`` with the currency and percent of ``like`` ("$4,898 million", "15.41%"); a ``gap``
    between percentages in percentage points; ``signed``: "+" before a rise."""
    if amount is None:
        return "not found"
    if like.percent:
        text = format_number(amount)
        return ("+" if signed and amount > 0 else "") + text + (" percentage points" if gap else "%")
    figure = amount / SCALE_FACTORS[scale]
    text = format_number(abs(figure))
    sign = "-" if figure < 0 else "+" if signed and figure > 0 else ""
    currency = like.currency if like.currency and not like.currency.isalpha() else ""
    word = f" {like.currency}" if like.currency and like.currency.isalpha() else ""
    return f"{sign}{currency}{text}{' ' + scale if scale else ''}{word}"


def _listed(items: Sequence[str]) -> str:
    items = list(items)
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]
