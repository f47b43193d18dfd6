"""What kind of answer a question wants, decided once per question.

A question asking "in which year was X highest" wants a column header ("2017"), not the figure SQL
selected; "what are the respective values in 2019 and 2018" wants both figures, never their
difference; "what are the types of X" wants row labels; "how is X recognised" wants a sentence from the
text. The loop computes a figure for all of them unless told otherwise, so this module decides the
answer type first: by wording rules (``type_from_wording``), then by the table's structure (a question
whose words no table label covers is not a lookup in a table), and only then, when the wording leaves
it open, by the model choosing among ``ANSWER_TYPES`` through a JSON-schema enum (``decide``).

Each type says which TAT-QA answer type it corresponds to (``GOLD_KIND``), so the benchmark can print
the confusion between the type decided and the gold type.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from core.answering import operations as ops
from core.reports.values import YEAR_WORD

LOOKUP = "lookup"
"""One figure read from a table cell (or stated in a passage)."""
FIGURES = "figures"
"""Several figures, each with its label, in the order asked ("the respective values in 2019 and 2018")."""
COMPUTED = "computed"
"""A figure no single cell holds: a change, a sum, an average, a ratio, a percentage."""
ROW_LABELS = "row_labels"
"""One row label or several ("which component is the greatest", "what are the types of X")."""
COLUMN_HEADERS = "column_headers"
"""One column header or several ("in which year was X highest", "which years does the table cover")."""
TITLE = "title"
"""What a table is about: its title or subject ("what data does the table contain")."""
TEXT = "text"
"""A sentence or phrase from the text ("how is X recognised", "why did X decrease")."""
YES_NO = "yes_no"
"""Yes or no, with the evidence."""
COUNT = "count"
"""A count of rows or columns ("how many types of X are there", "how many years did X exceed N")."""

ANSWER_TYPES: tuple[str, ...] = (LOOKUP, FIGURES, COMPUTED, ROW_LABELS, COLUMN_HEADERS, TITLE, TEXT, YES_NO, COUNT)
MODEL_CHOICES: tuple[str, ...] = (LOOKUP, COMPUTED, FIGURES, ROW_LABELS, COLUMN_HEADERS, TEXT)
"""The types the model may pick when the wording leaves the choice open (the others have unmistakable wording)."""

GOLD_KIND: dict[str, str] = {
    LOOKUP: "span", FIGURES: "multi-span", COMPUTED: "arithmetic", ROW_LABELS: "span", COLUMN_HEADERS: "span",
    TITLE: "span", TEXT: "span", YES_NO: "span", COUNT: "count",
}
"""The TAT-QA answer type each answer type corresponds to (several labels or headers are a multi-span)."""

_TIME = r"(?:fiscal\s+|financial\s+|calendar\s+)?(?:years?|periods?|quarters?|months?|dates?)"
_COLUMN_QUESTION = re.compile(
    rf"\b(?:in|for|during|on|at|of)?\s*(?:which|what)\s+(?:of\s+the\s+)?{_TIME}\b|\bwhich\s+{_TIME}['\u2019]?\s|\bwhen\s+(?:was|were|did)\b.*"
    r"\b(?:highest|lowest|largest|smallest|higher|lower|larger|smaller|greater|less|more|most|least|negative|positive)\b",
    re.IGNORECASE)
_COUNT_QUESTION = re.compile(
    r"\bhow\s+many\s+(?:(?:different|distinct|separate)\s+)?(?:years?|periods?|quarters?|months?|types?|kinds?|"
    r"categories|category|classes|components?|items?|countries|regions?|segments?|sources?|groups?|"
    r"line\s+items?|tables?|columns?|rows?)\b|\bhow\s+many\b.*\b(?:are|were)\s+(?:there|listed|shown|included)\b",
    re.IGNORECASE)
_COUNT_OF_PERIODS = re.compile(r"\bhow\s+many\s+(?:years?|periods?|quarters?|months?)\b", re.IGNORECASE)
_RESPECTIVE = re.compile(r"\brespective(?:ly)?\b|\beach\s+of\s+(?:the\s+)?(?:years|periods)\b", re.IGNORECASE)
_LABEL_NOUN = (r"(?:types?|kinds?|categories|category|classes|components?|items?|countries|regions?|segments?|"
               r"sources?|groups?|scopes?|elements?|line\s+items?|businesses|business|divisions?|products?|"
               r"currenc(?:y|ies)|departments?|units?|assets?|accounts?|markets?|geograph(?:y|ies)|locations?|"
               r"entities|entity|subsidiaries|instruments?|classes\s+of\s+\w+)")
_LABEL_LIST = re.compile(
    rf"^\s*(?:what|which)\s+(?:are|were)\s+(?:the\s+)?(?:\w+\s+){{0,3}}?{_LABEL_NOUN}\b"
    rf"|^\s*(?:what|which)\s+{_LABEL_NOUN}\s+(?:are|were|is|was)\s+(?:shown|listed|included|presented|disclosed|"
    rf"covered|reported)\b"
    rf"|\b(?:in|of|for)\s+which\s+{_LABEL_NOUN}\b"
    rf"|^\s*(?:what|which)\s+{_LABEL_NOUN}\s+(?:of\s+)?(?:\w+\s+){{0,4}}(?:are|were)\s+there\b"
    rf"|^\s*which\s+(?!{_TIME}\b)\w+(?:\s+\w+)?\s+(?:is|was|has|had|are|were)\s+(?:the\s+)?"
    r"(?:highest|lowest|largest|smallest|greatest|biggest|least|most|top|bottom)\b",
    re.IGNORECASE)
_TITLE = re.compile(
    r"\bwhat\s+(?:data|information|details?)\s+(?:does|do|is|are)\s+(?:the|this)\s+table\b"
    r"|\bwhat\s+(?:does|do)\s+(?:the|this)\s+table\s+(?:show|contain|present|provide|describe|display|represent)\b"
    r"|\bwhat\s+is\s+(?:the|this)\s+table\s+(?:about|showing)\b|\b(?:title|subject)\s+of\s+(?:the|this)\s+table\b",
    re.IGNORECASE)
_YES_NO = re.compile(r"^\s*(?:is|are|was|were|does|do|did|has|have|had|can|could|will|would|should)\s+(?!there\b)"
                     r"(?!.*\b(?:how|which|what|when|why)\b)", re.IGNORECASE)
_TEXT = re.compile(
    r"^\s*(?:why|describe|explain|define|list\s+the\s+reasons|who|where|from\s+where|when)\b"
    r"|^\s*(?:is|are|was|were)\s+there\s+(?:any|an?)\b"  # "are there any requirements to ...": what they are
    r"|^\s*what\s+(?:is|are|was|were)\s+(?:being\s+)?excluded\b"
    r"|^\s*what\s+(?:led\s+to|caused|causes|drove|drives|resulted\s+in|results\s+in|contributed\s+to)\b"
    r"|^\s*how\s+(?:is|are|was|were|does|often|will|would|can|should)\b(?!.*\b(?:change|changed|increase|"
    r"decrease|grow|grew|compare|much|many)\b)"
    r"|\b(?:based\s+(?:up)?on|consists?\s+of|comprised?\s+of|comprises?|influenced\s+by|attributable\s+to|due\s+to|"
    r"driven\s+by|caused\s+by|used\s+for|defined\s+as|recogni[sz]ed|determined|measured|calculated)\s*\??\s*$"
    r"|^\s*what\s+(?:is|are|was|were)\s+(?:the\s+)?(?:plan|implications?|purpose|reasons?|nature|basis|definition|"
    r"meaning|objectives?|policy|policies|methods?|approach|strateg(?:y|ies)|terms?|conditions?|criteria|"
    r"assumptions?|factors?|risks?|requirements?|impact|effects?|treatment)\b(?!.*\b(?:in|for|of)\s+\d{4}\b)"
    r"|^\s*what\s+(?:does|do|did)\s+.+\s+(?:include|mean|represent|consist|comprise|refer|relate|cover)\b",
    re.IGNORECASE)
_COMPUTED = frozenset({"difference", "percent_change", "sum", "average", "ratio", "percentage", "product"})
_SEVERAL_PERIODS = re.compile(r"\byears\b|\bperiods\b|\bquarters\b|\bmonths\b", re.IGNORECASE)


@dataclass(frozen=True)
class AnswerType:
    """The kind of answer a question wants, how it was decided, and whether it wants one part or several."""

    kind: str
    decided_by: str
    """"wording", "table" or "model": what settled it."""
    several: bool = False
    """Several labels or headers ("which years", "what are the types") rather than one."""

    @property
    def gold_kind(self) -> str:
        """The TAT-QA answer type this corresponds to."""
        if self.kind in (ROW_LABELS, COLUMN_HEADERS) and self.several:
            return "multi-span"
        return GOLD_KIND[self.kind]

    def describe(self) -> str:
        return f"{self.kind}{' (several)' if self.several else ''}, by {self.decided_by}"


def years_in(question: str) -> list[str]:
    """The years a question names, in the order it names them, each once."""
    return list(dict.fromkeys(YEAR_WORD.findall(question)))


def counts_periods(question: str) -> bool:
    """A count question about periods ("how many years did X exceed N"), not rows."""
    return _COUNT_OF_PERIODS.search(question) is not None


def type_from_wording(question: str) -> AnswerType | None:
    """The answer type the question's wording settles, or None when it leaves it open (a plain "what
    was X in 2019" may be a cell, a passage's figure or a computation the wording does not name)."""
    q = " ".join(question.split())
    if _TITLE.search(q):
        return AnswerType(TITLE, "wording")
    if _COUNT_QUESTION.search(q):
        return AnswerType(COUNT, "wording")
    if _COLUMN_QUESTION.search(q):
        several = bool(_SEVERAL_PERIODS.search(q.split("?")[0][:60])) and not re.search(
            r"\b(highest|lowest|largest|smallest|most|least)\b", q, re.IGNORECASE)
        return AnswerType(COLUMN_HEADERS, "wording", several)
    if _RESPECTIVE.search(q):
        return AnswerType(FIGURES, "wording", True)
    if ops.asks_for_explanation(q) or _TEXT.search(q):
        return AnswerType(TEXT, "wording")
    hint = ops.operation_hint(q)
    if _LABEL_LIST.search(q) or hint in ops.RANKINGS:
        several = not re.search(r"\b(highest|lowest|largest|smallest|greatest|biggest|least|most|top|bottom|grew|rose|"
                                r"increased|fell|declined|decreased)\b", q, re.IGNORECASE)
        return AnswerType(ROW_LABELS, "wording", several)
    if _YES_NO.search(q):
        return AnswerType(YES_NO, "wording")
    if hint == "sum" and not re.search(r"\b(sum|combined|altogether|in all)\b", q, re.IGNORECASE) \
            and len(years_in(q)) < 2:
        hint = None  # "total" is as often part of the row's label ("Total assets in 2019") as a sum asked for
    if hint in _COMPUTED:
        return AnswerType(COMPUTED, "wording")
    if hint in ("max", "min"):
        return AnswerType(COMPUTED, "wording")
    if hint == "count":  # "how many shares were granted": a figure the report prints (row counts matched above)
        return AnswerType(LOOKUP, "wording")
    if re.match(r"^\s*(what|how\s+much|how\s+many)\b", q, re.IGNORECASE) and years_in(q):
        return AnswerType(LOOKUP, "wording")
    return None


def type_from_tables(question: str, label_words: Sequence[set[str]]) -> AnswerType | None:
    """What the tables' structure says when the wording did not: a question that names a year and whose
    subject a table's labels mostly cover is a lookup; one whose subject no table's label names at all is
    answered from the text. None when neither is clear."""
    asked = {w for w in ops.words(question) if not YEAR_WORD.fullmatch(w)}
    if not asked:
        return None
    best = max((len(asked & labels) / len(asked) for labels in label_words), default=0.0)
    if best >= 0.6 and years_in(question):
        return AnswerType(LOOKUP, "table")
    if best == 0:
        return AnswerType(TEXT, "table")
    return None


def model_schema() -> dict[str, Any]:
    """The constrained choice the model makes when wording and tables leave the type open."""
    return {"type": "object", "properties": {"answer_type": {"type": "string", "enum": list(MODEL_CHOICES)}},
            "required": ["answer_type"]}


MODEL_TASK = (
    "What kind of answer does the QUESTION want? lookup: one figure as printed; computed: a figure to "
    "calculate (change, total, average, ratio, percentage); figures: several figures; row_labels: names of "
    "rows (items, categories); column_headers: years or periods; text: a sentence or phrase from the text. "
    "Reply with JSON.")


def decide(question: str, label_words: Sequence[set[str]] = (),
           ask_model: Callable[[str, dict[str, Any]], dict[str, Any]] | None = None) -> AnswerType:
    """The question's answer type: wording first, the tables' labels next, the model (a choice among
    ``MODEL_CHOICES``) only when both leave it open; a lookup when no model may be asked or it fails."""
    found = type_from_wording(question) or type_from_tables(question, label_words)
    if found is not None:
        return found
    if ask_model is not None:
        try:
            reply = ask_model(MODEL_TASK, model_schema())
        except ValueError:  # the model's reply was not the JSON asked for (ModelOutputError is a ValueError)
            reply = {}
        kind = str(reply.get("answer_type", ""))
        if kind in MODEL_CHOICES:
            return AnswerType(kind, "model", kind == FIGURES)
    return AnswerType(LOOKUP, "default")
