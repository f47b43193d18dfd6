"""Follow-up questions: a question of a conversation read against the questions asked before it.

People ask the way they talk: "and in 2017?", "what about its net income?", "and for Coca-Cola?", "why did it
fall?". Such a question leaves out what the conversation already fixed (the issuer, the period, the measure).
``understood`` writes it out in full from the most recent earlier question ("What was Boeing's research and
development expense in 2017?"), which the normal pipeline then reads once more; or it says the question stands
alone (None), and nothing is carried over.

Whether a question leans on the one before is decided from its reading and its own words, never from a list of
example questions:

- it opens on a connective ("and", "what about", "how about", "same for");
- it has no asking clause of its own and names only a period, an issuer or a measure ("In 2017?", "Net income?");
- a pronoun stands where an issuer or a measure would be ("it", "they", "that"; "its", "their", "the
  company's"), or a period is said relative to the earlier one ("the year before").

What the question names itself wins; what it leaves out comes from the earlier question, by substitution into
that question's own words (a period for its periods, an issuer for its issuer, a line for its line), so the
operation asked before (a change, a margin, a comparison) carries over with them. A question that lacks nothing
the earlier one fixed (a full question) carries nothing over, and the first question of a conversation has
nothing to carry.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from core.answering import measures as m
from core.answering.comparison import ISSUER, Comparison, comparison_of
from core.answering.reading import QuestionReading, read
from core.reports.values import PeriodMention, find_periods

_CONNECTIVE = re.compile(
    r"^\s*(?:(?:and|also|then|now|but|so|ok(?:ay)?)\b[\s,]*)*"
    r"(?:(?:what|how)\s+about\b|what\s+of\b|(?:the\s+)?same\s+(?:thing\s+|question\s+)?(?:for|in|with|about|of)\b"
    r"|(?:likewise|similarly)\s+(?:for|in)\b)?[\s,]*", re.IGNORECASE)
"""Words that open a question continuing the one before ("and", "what about", "same for")."""
_ASKS = re.compile(
    r"^(?:what|which|how|why|when|where|who|whose|is|are|was|were|did|does|do|has|have|had|can|could|will|would|"
    r"should|calculate|compute|find|give|tell|show|list|name|compare|explain|describe)\b", re.IGNORECASE)
"""An asking clause of the question's own (against a fragment: "in 2017?", "for Coca-Cola?")."""
_OWNER = re.compile(r"\b(?:its|their)\b|\b(?:the\s+)?(?:company|firm|group|business|issuer|organi[sz]ation)['\u2019]s\b",
                    re.IGNORECASE)
"""A pronoun standing for the issuer."""
_IT = re.compile(
    r"\b(?:it|they|them)\b|\b(?:that|this)\b(?=\s*(?:[?.!,]|$)|\s+(?:in|for|during|at|from|by|over|compared|vs\.?|versus|"
    r"than|happen\w*|change\w*|fall|fell|rise|rose|grow|grew|drop\w*|decline\w*|increase\w*|decrease\w*|go|went|"
    r"improve\w*|worsen\w*)\b)", re.IGNORECASE)
"""A pronoun standing for the measure asked before, or for the issuer when the question names its own measure."""
_BEFORE = re.compile(r"\b(?:(?:in\s+|for\s+)?the\s+)?(?:year|period)\s+(?:before|earlier|prior)\b|\b(?:(?:in\s+|for\s+)?the\s+)?"
                     r"(?:previous|prior|preceding)\s+(?:year|period)\b|\ba\s+year\s+(?:earlier|before)\b", re.IGNORECASE)
_AFTER = re.compile(r"\b(?:(?:in\s+|for\s+)?the\s+)?(?:following|next|subsequent)\s+(?:year|period)\b|\ba\s+year\s+later\b|"
                    r"\b(?:(?:in\s+|for\s+)?the\s+)?year\s+after\b", re.IGNORECASE)
_PERIOD_MARK = "\x00"
_PERIOD_LEAD = (r"(?:\b(?:in|for|during|at|as\s+of|from|to|between|and|of|on|by|over|through|vs\.?|versus|than)\s+)?"
                r"(?:the\s+)?(?:end\s+of\s+)?(?:(?:fiscal|financial|calendar)\s+(?:year\s+)?)?")
_FILLER = frozenset({
    "the", "a", "an", "in", "for", "of", "at", "during", "on", "by", "from", "to", "same", "one", "ones", "too", "also",
    "then", "please", "figure", "figures", "number", "numbers", "value", "values", "amount", "amounts", "thing",
    "question", "as", "well", "with", "about", "and", "or", "its", "their", "it", "they", "them", "that", "this",
    "company's", "firm's", "group's", "year", "period", "s", "what", "how", "was", "were", "is", "are", "did", "does",
    "do", "has", "have", "had", "much", "many", "there", "so", "now", "ok", "okay", "but", "again", "instead",
})
"""Words that name nothing of the measure: left out when reading what measure a question names."""
_ASKING_WORDS = frozenset({
    "why", "when", "where", "who", "which", "can", "could", "will", "would", "should", "explain", "describe", "tell",
    "me", "show", "give", "happen", "happened", "change", "changed", "fall", "fell", "rise", "rose", "grow", "grew",
    "drop", "dropped", "decline", "declined", "increase", "increased", "decrease", "decreased", "go", "went", "up",
    "down", "improve", "improved", "worsen", "worsened", "higher", "lower", "more", "less", "than", "compare",
    "compared", "calculate", "compute", "find", "list", "name", "reason", "reasons", "cause", "caused", "behind",
    "explains", "drove", "driven", "doing", "did", "much",
})
"""Words of an asking clause that are not a measure ("why did it fall", "how did that change")."""
_NAME = r"[A-Z0-9][\w&.'\u2019-]*(?:\s+(?:[A-Z0-9][\w&.'\u2019-]*|of|and|&|de))*"
_NAME_AFTER = re.compile(rf"^\s*(?:(?:for|of|at|by|from|with)\s+(?:the\s+)?)(?P<name>{_NAME})\s*$")
_POSSESSIVE = re.compile(rf"^\s*(?P<name>{_NAME})['\u2019]s\b")


@dataclass(frozen=True)
class _Own:
    """What a question says of its own, read against nothing earlier."""

    text: str
    """The question without its opening connective."""
    lead: bool
    """It opened on a connective ("and", "what about")."""
    asks: bool
    """It has an asking clause of its own ("why did it fall?"), not a bare fragment ("in 2017?")."""
    issuer: str
    """The issuer it names, as it writes it, or ""."""
    periods: tuple[PeriodMention, ...]
    """The periods it names, at their places in ``text``."""
    shift: int
    """A period said relative to the earlier one: -1 for "the year before", 1 for "the following year"."""
    measure: str
    """The measure it names, in its own words, or ""."""
    owner: bool
    """An issuer pronoun ("its", "their", "the company's")."""
    it: bool
    """A pronoun that stands for something named before ("it", "they", "that")."""


def understood(reading: QuestionReading, earlier: Sequence[QuestionReading | str],
               issuers: Sequence[str] = ()) -> str | None:
    """``reading``'s question written out in full against ``earlier`` (the conversation's earlier questions,
    as understood, most recent last), or None when it stands alone. ``issuers`` are the names the library
    knows, as ``core.answering.reading.read`` takes them."""
    if not earlier:
        return None
    base = _base(earlier, issuers)
    if base is None:
        return None
    base_text, base_reading = base
    own = _own(reading, issuers)
    base_issuer = _said(base_text, base_reading.issuer)
    base_periods = find_periods(base_text)
    compared = comparison_of(base_reading, [[name] for name in issuers])
    base_measure = _measure_span(base_text, base_reading, compared)
    lacks_issuer = not own.issuer and bool(base_issuer)
    lacks_period = not own.periods and not own.shift and bool(base_periods)
    lacks_measure = not own.measure and base_measure is not None
    if not (lacks_issuer or lacks_period or lacks_measure):
        return None  # a full question: nothing to carry
    if own.asks:
        if not (own.lead or own.it or own.owner or own.shift):
            return None  # a question of its own, though it leaves a field open: asked of the library as it stands
        if lacks_measure and not own.it:
            return None  # nothing stands for the measure it would need
        written = _asking(own, base_text, base_measure, base_issuer, base_periods)
    else:
        if not (own.measure or own.issuer or own.periods or own.shift):
            return None
        if not own.lead and not own.text.rstrip().endswith("?") and not (own.issuer or own.periods or own.shift):
            return None  # a remark, not a question: "Thanks", "Hello there"
        if own.issuer and compared is not None and compared.by == ISSUER:
            # after a comparison of issuers, "and for C?" asks C's figure of the measure compared
            when = _period_phrase(own.text, own.periods) if own.periods else compared.when
            return _written(own.measure or compared.measure, own.issuer, when)
        written = _fragment(own, base_text, base_measure, base_issuer)
    if written is None or _plain(written) == _plain(reading.text):
        return None
    return written


# -- what the question says itself ---------------------------------------------------------------------------


def _own(reading: QuestionReading, issuers: Sequence[str]) -> _Own:
    question = " ".join(reading.text.split())
    lead = _CONNECTIVE.match(question)
    rest = question[lead.end():] if lead else question
    led = bool(lead and lead.group(0).strip(" ,"))
    asks = bool(_ASKS.match(rest))
    issuer = _said(rest, reading.issuer) if reading.issuer else ""
    periods = tuple(find_periods(rest))
    shift = -1 if _BEFORE.search(rest) else 1 if _AFTER.search(rest) else 0
    without_issuer = _drop_name(rest, issuer) if issuer else rest
    if not asks and not issuer and not periods:  # "for Acme Corp?", "Acme's?": a name the library does not know
        named = _NAME_AFTER.match(without_issuer.rstrip(" ?.!")) or _POSSESSIVE.match(without_issuer)
        if named is not None and m.named(named.group("name")) is None:
            issuer = named.group("name")
            without_issuer = _drop_name(rest, issuer)
    residue = _residue(without_issuer, asks)
    if asks and reading.measure is not None:
        leaves = " ".join(leaf.words for leaf in reading.measure.leaves())
        residue = _residue(_drop_name(leaves, issuer) if issuer else leaves, asks)
    owner = bool(_OWNER.search(rest))
    it = bool(_IT.search(_OWNER.sub(" ", rest)))
    return _Own(rest, led, asks, issuer, periods, shift, residue, owner, it)


def _residue(text: str, asks: bool) -> str:
    """The words of ``text`` that name a measure: without periods, relative periods, pronouns and fillers (and,
    for an asking clause, its asking words), in the question's order and case."""
    text = _BEFORE.sub(" ", _AFTER.sub(" ", text))
    marked = _marked(text, find_periods(text))
    marked = re.sub(_PERIOD_LEAD + _PERIOD_MARK, " ", marked, flags=re.IGNORECASE).replace(_PERIOD_MARK, " ")
    marked = _OWNER.sub(" ", marked)
    words = re.findall(r"[\w&'\u2019%-]+", marked)
    dropped = _FILLER | (_ASKING_WORDS if asks else frozenset())
    kept = [w for w in words if w.lower().replace("\u2019", "'") not in dropped]
    while kept and kept[-1].lower() in ("in", "for", "of", "and"):
        kept.pop()
    if kept and kept[0][:1].isupper() and kept[0][1:].islower():
        kept[0] = kept[0].lower()  # "Net income?": capitalised only because it opens the question
    return " ".join(kept)


# -- the question written out --------------------------------------------------------------------------------


def _fragment(own: _Own, base_text: str, span: tuple[int, int] | None, base_issuer: str) -> str | None:
    """A fragment ("and in 2017?", "what about its net income?", "and for Coca-Cola?") put into the earlier
    question in place of what it names."""
    text = base_text
    if own.measure:
        if span is None:
            return _written(own.measure, own.issuer or base_issuer, _period_phrase(base_text, find_periods(base_text)))
        text = text[: span[0]] + own.measure + text[span[1]:]
    if own.issuer:
        text = _with_issuer(text, base_issuer, own.issuer)
    if own.periods:
        text = _with_periods(text, find_periods(text), own.text, list(own.periods))
    elif own.shift:
        text = _shifted(text, find_periods(text), own.shift)
    return _tidy(text)


def _asking(own: _Own, base_text: str, span: tuple[int, int] | None, base_issuer: str,
            base_periods: Sequence[PeriodMention]) -> str | None:
    """A question of its own whose pronouns stand for what the earlier one named ("why did it fall?"): the
    pronouns replaced by it, and the earlier period added where it names none."""
    text = own.text
    issuer = own.issuer or base_issuer
    if own.owner and not own.issuer and base_issuer:
        text = _OWNER.sub(f"{base_issuer}'s", text, count=1)
    if own.it:
        target = _IT.search(_OWNER.sub(lambda g: " " * len(g.group(0)), text))
        if target is not None:
            if not own.measure:
                if span is None:
                    return None
                phrase = base_text[span[0]: span[1]]
                named = f"{issuer}'s {phrase}" if issuer else f"the {phrase}"
            elif not own.issuer and base_issuer:
                named = base_issuer
            else:
                named = target.group(0)
            text = text[: target.start()] + named + text[target.end():]
            if not own.measure:  # "why did that happen?": what happened to a measure is its change
                text = re.sub(r"\b(?:happen(?:ed)?|occur(?:red)?)\b", "change", text, count=1, flags=re.IGNORECASE)
    elif own.lead and not own.issuer and not own.owner and base_issuer and own.measure:
        at = re.search(rf"(?:\bthe\s+)?{_loose(own.measure)}", text, re.IGNORECASE)
        text = (text[: at.start()] + f"{base_issuer}'s {own.measure}" + text[at.end():]) if at is not None else \
            _before_end(text, f" for {base_issuer}")
    if own.shift and base_periods:
        year = max(p.year for p in base_periods) + own.shift
        found = _BEFORE.search(text) or _AFTER.search(text)
        if found is not None:
            text = text[: found.start()] + f"in {year}" + text[found.end():]
    elif not own.periods and base_periods:
        text = _before_end(text, " " + _period_phrase(base_text, base_periods))
    return _tidy(text)


def _written(measure: str, issuer: str, when: str) -> str:
    """A plain question from its parts, where the earlier question's words give no place to put them."""
    owner = f"{issuer}'s " if issuer else "the "
    return _tidy(f"What was {owner}{measure}{' ' + when if when else ''}?")


def _with_issuer(text: str, old: str, new: str) -> str:
    if old:
        found = re.search(rf"(?<![\w]){re.escape(old)}(?![\w])", text, re.IGNORECASE)
        if found is not None:
            return text[: found.start()] + new + text[found.end():]
    return _before_end(text, f" for {new}")


def _with_periods(text: str, old: Sequence[PeriodMention], said: str, new: Sequence[PeriodMention]) -> str:
    """The earlier question with the periods a follow-up names: one for one where it names as many; the whole
    earlier window moved to a single new period ("from 2017 to 2018", then "and 2019?": from 2018 to 2019);
    else the earlier periods' phrase replaced by the follow-up's."""
    if not old:
        return _before_end(text, " " + _period_phrase(said, new))
    if len(new) == len(old):
        for before, after in sorted(zip(old, new), key=lambda pair: -pair[0].start):
            text = text[: before.start] + after.said + text[before.end:]
        return text
    if len(new) == 1:
        return _shifted(text, old, new[0].year - max(p.year for p in old))
    start = _phrase_start(text, old[0])
    return text[:start] + _period_phrase(said, new) + text[old[-1].end:]


def _shifted(text: str, periods: Sequence[PeriodMention], by: int) -> str:
    """Every period moved by ``by`` years, each written as the text wrote it ("FY18" -> "FY19")."""
    for period in sorted(periods, key=lambda p: -p.start):
        said = period.said
        full, short = str(period.year), f"{period.year % 100:02d}"
        if full in said:
            said = said.replace(full, str(period.year + by))
        elif said.endswith(short):
            said = said[: -2] + f"{(period.year + by) % 100:02d}"
        text = text[: period.start] + said + text[period.end:]
    return text


def _period_phrase(text: str, periods: Sequence[PeriodMention]) -> str:
    """The periods with the words that introduce them ("in 2018", "from FY2017 to FY2018"); "in ..." where
    they stand bare."""
    if not periods:
        return ""
    start = _phrase_start(text, periods[0])
    phrase = text[start: periods[-1].end].strip(" ,")
    return phrase if start < periods[0].start else f"in {phrase}"


def _phrase_start(text: str, first: PeriodMention) -> int:
    lead = re.search(r"(?:\b(?:in|for|during|at|as\s+of|from|between|of|on|by|over|through)\s+)(?:the\s+)?(?:end\s+of\s+)?"
                     r"(?:(?:fiscal|financial|calendar)\s+(?:year\s+)?)?$", text[: first.start], re.IGNORECASE)
    return lead.start() if lead is not None else first.start


def _measure_span(text: str, reading: QuestionReading, compared: Comparison | None) -> tuple[int, int] | None:
    """Where ``text`` names the measure its reading read: the line of a measure over one line (a change, an
    average), else the measure's whole phrase, else the measure a comparison sets figures of; None when the text
    names none."""
    measure = reading.measure
    if measure is None:
        return None
    leaves = measure.leaves()
    candidates: list[str] = []
    if len(leaves) == 1 and (measure.op in (m.LINE, m.NAMED, m.DEFINED) or measure.op in m.OVER_PERIODS
                             or measure.op == m.DAYS):
        candidates += [leaves[0].said, leaves[0].words]
    candidates += [measure.said, reading.subject]
    candidates += [compared.measure] if compared is not None else []
    for candidate in candidates:
        candidate = candidate.strip(" ,.?")
        if not candidate or not re.search(r"[A-Za-z]", candidate):
            continue
        found = re.search(rf"(?<![\w]){_loose(candidate)}(?![\w])", text, re.IGNORECASE)
        if found is not None:
            return found.span()
    return None


# -- small helpers -------------------------------------------------------------------------------------------


def _base(earlier: Sequence[QuestionReading | str], issuers: Sequence[str]) -> tuple[str, QuestionReading] | None:
    """The most recent earlier question that fixed anything (a measure, an issuer or a period)."""
    for item in reversed(earlier):
        base = item if isinstance(item, QuestionReading) else read(item, issuers)
        text = " ".join(base.text.split())
        if text and (base.measure is not None or base.issuer or base.periods):
            return text, base
    return None


def _said(text: str, name: str) -> str:
    """``name`` as ``text`` writes it (its case), or "" when the text does not."""
    if not name:
        return ""
    found = re.search(rf"(?<![\w]){re.escape(name)}(?![\w])", text, re.IGNORECASE)
    return found.group(0) if found is not None else ""


def _drop_name(text: str, name: str) -> str:
    return re.sub(rf"(?:\b(?:for|of|at|by|from|with|in)\s+(?:the\s+)?)?(?<![\w]){re.escape(name)}(?:['\u2019]s)?(?![\w])",
                  " ", text, flags=re.IGNORECASE)


def _marked(text: str, periods: Sequence[PeriodMention]) -> str:
    out, last = [], 0
    for period in periods:
        out += [text[last: period.start], _PERIOD_MARK]
        last = period.end
    return "".join(out) + text[last:]


def _loose(phrase: str) -> str:
    """A pattern for ``phrase`` that any spacing matches."""
    return r"\s+".join(re.escape(word) for word in phrase.split())


def _before_end(text: str, addition: str) -> str:
    stripped = text.rstrip(" ?.!")
    return stripped + addition + text[len(stripped):]


def _tidy(text: str) -> str:
    text = " ".join(text.split())
    text = re.sub(r"\s+([?.!,])", r"\1", text).strip(" ,")
    text = re.sub(r"['\u2019]s['\u2019]s\b", "'s", text)
    if not text:
        return text
    text = text[0].upper() + text[1:]
    asks = re.match(r"(?:what|which|how|why|when|where|who|whose|is|are|was|were|did|does|do|has|have|had|can|could|"
                    r"will|would|should)\b", text, re.IGNORECASE)
    return text if text.endswith(("?", ".", "!")) or not asks else text + "?"


def _plain(text: str) -> str:
    return " ".join(re.findall(r"[\w&%]+", text.lower()))
