"""A question read once: what kind of answer it wants, the measure it asks for as a tree, its periods, the
unit, scale and rounding it asks for, the definitions it gives, and what it only says around the question.

``read`` makes a ``QuestionReading`` by a small grammar, not by phrases of known questions:

1. Sentences that define ("X is defined as ...", "Define X as ...") are definitions; the sentence (or clause
   after a colon or comma) that asks ("what is ...", "how much ...", "calculate ...") is the question; every
   other sentence is said around it ("Assume you are an analyst.", "Answer in USD millions.") and is read only
   for what it fixes: statements named, a scale, decimals, a percent.
2. The asking clause's frame says what kind of answer is wanted ("in which year" -> a column header, "what
   are the types of" -> row labels, "respective" -> several figures, "why" -> a passage, "is ... higher" ->
   yes or no, "how many years" -> a count) and may carry an operation ("by how much did X grow" -> a change,
   "how much larger is X than Y" -> a difference).
3. What is left is the measure, read outside in: periods tied to it ("from 2018 to 2019"), operations over
   periods ("the 3-year average of", "the change in", "% change", "CAGR"), then shares and ratios ("X as a %
   of Y", "X to Y", "X % margin"), arithmetic between lines ("X less Y", "X plus Y"), and at the leaves a
   measure of ``core.answering.measures.CATALOGUE`` named by its whole name, a measure the question defines,
   or a line in the question's own words. Nothing is matched by a part of a phrase, so no modifier is dropped.

Every content word of the asking clause ends up in a field; what the grammar could not compose (a line whose
words still hold an operator, "net debt to EBITDA" read as one line) is listed in ``doubts``, so the answer
checks it against the tables (a report may print such a line) and the model may read the question instead
(``model_reading``). The reading names every part it could not compute rather than answering another measure.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from core.answering import answer_types as kinds
from core.answering import maturities
from core.answering import measures as m
from core.answering.maturities import Span
from core.answering.measures import Measure
from core.answering.operations import words as ops_words
from core.answering.vocabulary import (
    COUNT_ASKED,
    ENTITY_KINDS,
    EXTREME_VERBS,
    OUTPUT_VERBS,
    PART_OF_VERBS,
    RECEIVED_VERBS,
    SHARE_WORDS,
    SIZE_ASKED,
    TOTAL_AFTER,
    TOTAL_ASKED,
    statements_asked,
    verb_base,
)
from core.reports.values import PeriodMention, find_periods

PERIOD = "\u27e8P{}\u27e9"
"""What a period mention becomes in the text the grammar reads: ⟨P0⟩, ⟨P1⟩..."""
_P = r"\u27e8P(\d+)\u27e9"

# -- what is said around the question -------------------------------------------------------------------------

_DEFINED = re.compile(
    r"(?:^|[.?:;]\s+|\b)(?:define\s+(?P<a>[^.?]{2,60}?)\s+as:?\s+(?P<abody>.+?)"
    r"|(?P<b>[A-Za-z][\w&'() %-]{1,60}?)\s+(?:here\s+)?(?:is|are)\s+(?:defined|calculated|computed)\s+as:?\s*(?P<bbody>.+?)"
    r"|(?P<c>[A-Za-z][\w&'() %-]{1,80}?),\s+(?:which\s+is\s+)?(?:defined|calculated|computed)\s+as:?\s*(?P<cbody>.+?)"
    r"|(?:^|(?<=[.?;:,])\s*|(?<=[.?;:,]\s)|\b(?:where|with|and)\s+)(?P<e>[A-Za-z][\w&'() -]{0,60}?)\s*=\s*(?P<ebody>.+?))"
    r"(?=\.\s+[A-Z]|\.\s*$|\?\s|\?$|$|;\s|,\s+(?:and\s+)?[A-Za-z][\w&' -]{0,40}?\s*=)",
    re.IGNORECASE)
_ASKING_START = re.compile(
    r"(?:^|(?<=[:;,]\s)|(?<=[:;,]))\s*(?P<q>(?:what|which|how|why|when|where|who|whose|is|are|was|were|does|do|did|has|"
    r"have|had|can|could|will|would|should|calculate|compute|find|give|tell|show|list|name|identify|determine|estimate|"
    r"provide|in\s+(?:which|what)|for\s+(?:which|what)|during\s+(?:which|what)|by\s+how\s+much|according\s+to|"
    r"(?:in|for|as\s+of|at)\s+" + _P + r",\s+(?:what|how|which))\b.*)",
    re.IGNORECASE)
_INSTRUCTION = re.compile(
    r"^\s*(?:assume|answer|round|give|provide|respond|please|base|basing|using|use|rely|relying|we\s|you\s|here|"
    r"note|express|report|state|only|do\s+not|don'?t|ignore|consider|taking|looking|drawing|according|in\s+agreement)\b",
    re.IGNORECASE)
_SCALE_ASKED = re.compile(
    r"\b(?:in|into)\s+(?:units\s+of\s+)?(?:(?:usd|us\$|\$|eur|gbp|dollars?|euros?|pounds?|us\s+dollars?)\s+)?"
    r"(?P<scale>thousands?|millions?|billions?|mn|bn|k)\b(?:\s+of\s+(?:us\s+)?(?:dollars|usd|euros?))?"
    r"|\(\s*(?:usd|us\$|\$)\s*(?P<scale2>thousands?|millions?|billions?|mn|bn|m|b|k)\s*\)"
    r"|\b(?:in|into)\s+(?:usd|us\$|\$)\s*(?P<scale4>mn|bn|m|b|k)\b"
    r"|,\s*(?:in\s+)?(?:usd|us\$|\$)\s*(?P<scale3>thousands?|millions?|billions?|mn|bn|m|b|k)\b(?=\s*[?.!]?\s*$)", re.IGNORECASE)
"""The scale asked: "in $ millions", "in $m", "($m)", or after a comma at the end ("MMM FCF in 2018, $ millions?")."""
_PERCENT_ASKED = re.compile(r"\(?\b(?:in\s+(?:units\s+of\s+)?(?:percents?|percentages?|%)|as\s+(?:a\s+)?(?:%|percent(?:age)?))"
                            r"(?!\s+of\b)\)?|,\s*%\s*(?=[?.!]?\s*$)", re.IGNORECASE)
_DECIMALS = re.compile(r"\b(?:round(?:ed)?|rounding)\s+(?:your\s+|the\s+)?(?:answer\s+|result\s+|it\s+)?(?:to\s+)?"
                       r"(?:the\s+nearest\s+)?(?P<n>one|two|three|four|zero|no|\d)\s+decimal(?:\s+places?|\s+points?|s)?"
                       r"|(?:\bto\s+)?(?:\bthe\s+)?\bnearest\s+(?P<whole>whole\s+number|integer|unit)\b"
                       r"|(?:\bto\s+)?\b(?P<places>one|two|three|four|\d)\s+(?:decimal(?:\s+places?|\s+points?|s)?|d\.?p\.?s?)(?!\w)",
                       re.IGNORECASE)
_BASIS_POINTS = re.compile(r",?\s*\b(?:(?:in|as)\s+)?(?:bps|basis\s+points?)\b", re.IGNORECASE)
_NUMBER_WORDS = {"zero": 0, "no": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
                 "eight": 8, "nine": 9, "ten": 10, "twelve": 12, "fifteen": 15, "twenty": 20}
_K = r"(\d{1,2}(?![\d.,%])|two|three|four|five|six|seven|eight|nine|ten|twelve|fifteen|twenty)"
_PARENTHESES = re.compile(r"\s*\(((?:[^()]|\([^()]*\))*)\)")
"""A bracket, with brackets inside it one deep ("((cash + receivables) / current liabilities)")."""
_AFTER_A_PERIOD = re.compile(r"(?:\b(?:19|20)\d\d|\bFY\s?'?\d{2}|\b(?:19|20)\d\d\s*(?:to|-|through)\s*(?:19|20)?\d\d)\s*$",
                             re.IGNORECASE)
"""A bracket after a year says how or which, never part of a line's name ("R&D in 2020 (research and engineering)")."""

# -- the asking clause's frame ---------------------------------------------------------------------------------

_TIME = r"(?:fiscal\s+|financial\s+|calendar\s+)?(?:years?|periods?|quarters?|months?|dates?)(?:\(s\))?"
_OF_THE_TIMES = rf"(?:of\s+the\s+)?{_TIME}(?:\s+(?:shown|presented|listed|reported|in\s+the\s+table))?"
"""The periods a count is over: "years", "of the years shown", "quarters in the table"."""
_SUPERLATIVE = (r"highest|lowest|largest|smallest|greatest|biggest|least|most|top|bottom|maximum|minimum|peak|"
                r"higher|lower|larger|smaller|greater|bigger|fewer|fewest|less|more")
_LABEL_NOUN = (r"(?:types?|kinds?|categories|category|classes|components?|items?|countries|country|regions?|segments?|"
               r"sources?|groups?|scopes?|elements?|line\s+items?|businesses|business|divisions?|products?|"
               r"currenc(?:y|ies)|departments?|units?|accounts?|markets?|geograph(?:y|ies)|locations?|entities|entity|"
               r"subsidiaries|instruments?|states?|cities|city|counties|county|companies|company|employers?|parties|"
               r"party|candidates?|months?|districts?|sectors?|industries|industry|airports?|airlines?|crops?|"
               r"programs?|programmes?|projects?|offen[cs]es?|crimes?|agencies|agency|provinces?|municipalities|"
               r"names?|members?|persons?|people)")
ROW_NOUN = (r"(?:" + _LABEL_NOUN + "|"
             + "|".join(rf"{re.escape(noun)}s?" for kind in ENTITY_KINDS for noun in sorted(kind) if " " not in noun) + ")")
"""A label noun, or a noun for a kind of row the vocabulary knows ("firms", "employers", "towns"): what "which firm
obtained permit 2021-016" asks for, where the noun is said before its verb (before another noun, "corporation
income tax receipts", it names no row)."""
_OR_MORE_SAID = (r"(?<![\w.])(?P<n>-?\d[\d,]*(?:\.\d+)?)\s*(?P<unit>%|percent|thousands?|millions?|billions?|"
                 r"(?<=\d)(?:k|m|bn)(?![a-z]))?(?:\s+[a-z/-]+){0,4}?\s+or\s+"
                 r"(?P<dir>more|above|higher|greater|over|less|below|lower|fewer|under)\b")
"""A threshold said after its figure: "100 kg a year or more", "60% or above", "5 or fewer" (not "aged 60 and over",
which names an age group)."""
_EQUAL_FIGURE = (r"(?:\b(?:a|an)\s+(?:[a-z][\w-]*\s+){1,3}?of\s+(?:exactly\s+|just\s+)?|\bexactly\s+)(?P<n>-?\d[\d,]*(?:\.\d+)?|zero|nil)(?![\d,.]*\d)\s*(?P<unit>%|percent)?"
               r"(?!\s*(?:or\s+(?:more|less|above|below|higher|lower|fewer|over|under)|to\s+\d|-\s*\d|\u2013))")
_EQUAL_SAID = r"(?:\b(?:had|has|have|having|with|showed|recorded|reported|scored|got)\s+|(?=\bexactly\s+\d))" + _EQUAL_FIGURE
"""A figure a row had exactly: "had a budget of zero", "with a weight of 15%", "exactly 3" (not "of 15% or more", a
threshold)."""
_EQUAL = re.compile(_EQUAL_SAID, re.IGNORECASE)
_EQUAL_COUNT = re.compile(
    r"\b(?:had|has|have|having|with|needs?|needed|needing|requires?|required|requiring)\s+"
    r"(?P<n>(?!(?:19|20)\d\d\b)\d{1,3}(?:,\d{3})*(?![\d,])|(?!(?:19|20)\d\d\b)\d{4,6}|one|two|three|four|five|six|seven|"
    r"eight|nine|ten|eleven|twelve)"
    r"\s+(?=[a-z][a-z-]{2,}s\b)(?!(?:years?|months?|weeks?|days?|hours?|minutes?|times?|percent|points?|thousands?|"
    r"millions?|billions?|more|less|fewer|or)\b)", re.IGNORECASE)
"""A count of things each row has, said as "boats with 4 masts", "how many farms have two tractors", "the surveys that
need 1,500 homes": the rows whose
column of that thing holds the figure (not a span of time, a unit, or "5 or more", a bound)."""
_OR_MORE_PLAIN = re.sub(r"\?P<\w+>", "?:", _OR_MORE_SAID)
_EQUAL_COUNT_PLAIN = re.sub(r"\?P<\w+>", "?:", _EQUAL_COUNT.pattern)
BOUND_WORDS = (r"(?:more|greater|higher|larger|bigger|less|fewer|lower|smaller)\s+than|at\s+(?:least|most)|above|below|"
               r"over|under|exceed(?:ed|s|ing)?")
"""The words that set a bound ("more than", "at least", "under", "exceeded"), spelled once for every pattern of one."""
_PAST_A_THRESHOLD = (r".*(?:\b(?:" + BOUND_WORDS + r")\s+(?:[$\u20ac\u00a3\u00a5]|US\$|rs\.?)?\s*-?\d|" + _OR_MORE_PLAIN + "|"
                     + re.sub(r"\?P<\w+>", "?:", _EQUAL_FIGURE) + ")")
_SIGN_SAID = r".*\b(?:an?\s+(?:[a-z]+\s+)?(?:deficit|surplus|loss|profit|gain)|negative|positive|in\s+(?:deficit|surplus))\b"
"""A sign asked of a figure ("had a trade deficit", "made a loss", "was negative"): the rows on that side of zero."""
_VERSUS_SAID = (r"(?<!\bmany\s)(?<!\bmuch\s)\b(?P<cmp>more|fewer|less|higher|lower|greater|larger|smaller|bigger)\s+"
                r"(?P<first>(?:(?!than\b)[\w'/\u27e8\u27e9-]+\s+){0,5}?)than\s+(?!(?:[$\u20ac\u00a3\u00a5]|US\$|rs\.?)?\s*-?\d|"
                r"(?:a|an)\s|(?:one\s+)?(?:half|third|quarter|fifth|tenth)\b|(?:one|two|three|four|five|six|seven|eight|nine|ten|"
                r"twenty|hundred|thousand)\b)(?P<second>[^?.;]+)")
"""A figure compared with another of the same row ("fewer girls than boys", "lower in 2020 than in
2019", "more yes votes than no votes"), not with a number or a span ("more than 20", "more than half", "more than a
year ago"), nor a difference asked ("how many more"): the rows where the first side's column is above (below) the
second's."""
VERSUS = re.compile(_VERSUS_SAID, re.IGNORECASE)
_ROWS_ASKED = re.compile(r"\s*(?:(?:in|for|of|at|from|on)\s+)?(?:which|list|name|how\s+many)\b", re.IGNORECASE)
"""A question asking rows (which, how many): a comparison it makes keeps rows ("was X higher in 2019 than in 2018"
asks yes or no of one)."""
VERSUS_KINDS = ("above_another", "below_another")
"""The criteria of a figure compared with another column of its row (``VERSUS``)."""
_FRAMES: tuple[tuple[str, re.Pattern[str]], ...] = tuple((kind, re.compile(p, re.IGNORECASE)) for kind, p in (
    (kinds.TITLE, (r"\bwhat\s+(?:data|information|details?)\s+(?:does|do|is|are)\s+(?:the|this)\s+table\b"
                  r"|\bwhat\s+(?:does|do)\s+(?:the|this)\s+table\s+(?:show|contain|present|provide|describe|display|represent)\b"
                  r"|\bwhat\s+is\s+(?:the|this)\s+table\s+(?:about|showing)\b|\b(?:title|subject)\s+of\s+(?:the|this)\s+table\b")),
    ("count_periods", rf"^\s*(?:in\s+)?how\s+many\s+{_OF_THE_TIMES}\b"),
    # "what share of the boats have two masts", "what percentage of the towns had a turnout over 60%": the rows
    # that pass a bound (or hold a count), as a share of all the rows
    ("share_rows", (rf"^\s*(?:what|which)\s+(?:share|percent(?:age)?|proportion|fraction|part)\s+of\s+(?:all\s+)?(?:the\s+)?"
                   rf"(?!{_TIME}\b)(?:[\w-]+\s+){{0,3}}?[a-z-]+[^s\W]s\s+(?:(?:of|in|on|at|from|among|listed|shown)\s+"
                   rf"(?:[\w-]+\s+){{0,3}}?)?(?=(?:had|have|has|were|are|did|do|got|saw|showed|recorded|reported|received|"
                   rf"scored|made|[a-z]{{2,}}ed|with)\b(?:{_PAST_A_THRESHOLD}|{_SIGN_SAID})|{_EQUAL_COUNT_PLAIN})")),
    ("count_rows", (rf"^\s*how\s+many\s+(?:(?:different|distinct|separate|unique)\s+)?{_LABEL_NOUN}\b(?:\s+of\b|\s+(?:are|were)"
                   rf"\s+(?:there|listed|shown|included|presented|named|in\s+the\s+table))"
                   r"|^\s*how\s+many\s+(?:different|distinct|separate|unique)\s+"
                   r"|^\s*how\s+many\s+(?:line\s+items?|rows?|columns?|tables?|entries|records)\b"
                   r"|^\s*how\s+many\b.*\b(?:are|were)\s+(?:there|listed|shown|included)\b"
                   # "in how many member states did X reach 20%": the rows where it did, counted
                   rf"|^\s*(?:in|for|at|on|from)\s+how\s+many\s+(?:of\s+(?:the|these|those)\s+)?(?:[\w-]+\s+){{0,3}}?{_LABEL_NOUN}\b"
                   # any plural noun so asked ("for how many substances did more than 95% say ..."), not a time
                   rf"|^\s*(?:in|for|at|on|from)\s+how\s+many\s+(?:of\s+(?:the|these|those)\s+)?(?!{_TIME}\b)(?:[\w-]+\s+){{0,3}}?"
                   rf"[a-z-]+[^s\W]s\b"
                   # "how many depots had running costs above 50,000", "how many of the city depots had ...": the rows
                   # past the bound
                   rf"|^\s*how\s+many\s+(?:of\s+(?:the|these|those)\s+)?(?!{_TIME}\b)(?:[\w-]+\s+){{0,2}}?[a-z-]+[^s\W]s\s+"
                   r"(?:had|have|were|are|did|"
                   rf"showed|saw|got|recorded|reported)\b(?={_PAST_A_THRESHOLD}|.*{_VERSUS_SAID})"
                   # "how many of the modules in the survey table need 1,800 homes": the rows holding that count
                   rf"|^\s*how\s+many\s+(?:of\s+(?:the|these|those)\s+)?(?!{_TIME}\b)(?:[\w-]+\s+){{0,2}}?[a-z-]+[^s\W]s\s+"
                   rf"(?:(?:in|of|on|listed|shown)\s+(?:[\w-]+\s+){{0,4}}?)?(?={_EQUAL_COUNT_PLAIN})")),
    (kinds.COLUMN_HEADERS, (rf"^\s*(?:in|for|during|on|at|of)?\s*(?:which|what)\s+(?:of\s+the\s+)?{_TIME}\b"
                           # "what were the quarters presented": the periods a table prints
                           r"|^\s*what\s+(?:are|were)\s+the\s+(?:fiscal\s+|financial\s+)?(?:years|periods|quarters)\s+"
                           r"(?:included|shown|presented|covered|listed|reported)\b"
                           rf"|^\s*which\s+{_TIME}['\u2019]?\s|^\s*when\s+(?:was|were|did)\b.*\b(?:{_SUPERLATIVE}|negative|positive)\b"
                           # "was revenue bigger in 2018 or in 2019": a choice between the periods, not yes or no
                           rf"|^\s*(?:was|were|is|are|did)\b.*\b(?:{_SUPERLATIVE})\b.*{_P}\s*,?\s*or\s+(?:in\s+)?{_P}")),
    (kinds.FIGURES, (r"\brespective(?:ly)?\b|\beach\s+of\s+(?:the\s+)?(?:years|periods)\b"
                     # "current state tax: the 2018 and 2019 figures": one figure a period
                     rf"|{_P}\s*(?:,|and|&)\s*{_P}\s+(?:figures|values|amounts|numbers)\b")),
    (kinds.TEXT, r"^\s*(?:why|describe|explain|define|who|where|from\s+where|when|list\s+the\s+reasons)\b"
                 r"|^\s*(?:is|are|was|were)\s+there\s+(?:any|an?)\b"
                 r"|^\s*what\s+(?:is|are|was|were)\s+(?:being\s+)?excluded\b"
                 r"|^\s*what\s+(?:led\s+to|caused|causes|drove|drives|resulted\s+in|results\s+in|contributed\s+to|"
                 r"impacted|affected)\b"
                 # "what could result in ...", "what would cause ...": a cause asked in any mood
                 r"|^\s*what\s+(?:could|would|might|may|can|will)\s+(?:lead\s+to|cause|drive|result\s+in|contribute\s+to|"
                 r"impact|affect)\b"
                 # "what was the main cause of the drop in 2021": a reason is never a figure, whatever period it is for
                 r"|^\s*what\s+(?:is|are|was|were)\s+(?:the\s+)?(?:main\s+|primary\s+|key\s+)?(?:reasons?|causes?|purpose|"
                 r"meaning|definition)\s+(?:for|of|behind|why)\b"
                 r"|^\s*how\s+(?:is|are|was|were|does|often|will|would|can|should|do)\b(?!.*\b(?:change|changed|increase|"
                 r"decrease|grow|grew|compare|much|many)\b)"
                 r"|\b(?:based\s+(?:up)?on|consists?\s+of|comprised?\s+of|comprises?|influenced\s+by|attributable\s+to|"
                 r"due\s+to|driven\s+by|caused\s+by|used\s+for|defined\s+as|recogni[sz]ed|determined|measured|calculated)\s*\??\s*$"
                 r"|^\s*what\s+(?:is|are|was|were)\s+(?:the\s+)?(?:main\s+|primary\s+|key\s+)?(?:plan|implications?|purpose|"
                 r"reasons?|nature|basis|definition|meaning|objectives?|policy|policies|methods?|approach|strateg(?:y|ies)|"
                 r"terms?|conditions?|criteria|assumptions?|factors?|risks?|requirements?|impact|effects?|treatment|"
                 r"drivers?|causes?|outlook|forecast)\b(?!.*" + _P + r")"
                 r"|^\s*what\s+(?:does|do|did)\s+.+\s+(?:include|mean|represent|consist|comprise|refer|relate|cover)\b"),
    ("labels", (rf"^\s*(?:what|which)\s+(?:are|were)\s+(?:the\s+)?(?:(?!among\b)\w+\s+){{0,3}}?{_LABEL_NOUN}\b(?!')"
               # "list the top 3 boats by masts", "name the five largest ports": so many things, ranked
               rf"|^\s*(?:list|name|give|show)\s+(?:me\s+)?(?:the\s+)?(?:(?:top|bottom)\s+{_K}|{_K}\s+(?:[\w-]+\s+)?"
               rf"(?:{_SUPERLATIVE}|[a-z]{{3,}}est)\s+(?:[\w-]+\s+)?[a-z-]+s)\b"
               # "name the 4 coastal towns with the most visitors": so many things, ranked, whatever they are
               rf"|^\s*(?:list|name|give|show)\s+(?:me\s+)?(?:the\s+)?(?:top\s+)?(?:{_K})\s+(?:[\w'/-]+\s+){{1,4}}?"
               rf"(?:with|by|having|that\s+had|which\s+had)\s+(?:the\s+)?(?:{_SUPERLATIVE})\b"
               rf"|^\s*(?:what|which)\s+{_LABEL_NOUN}\s+(?:are|were|is|was)\s+(?:shown|listed|included|presented|disclosed|"
               rf"covered|reported)\b|\b(?:in|of|for)\s+which\s+{_LABEL_NOUN}\b"
               rf"|^\s*(?:list|name)\s+(?:all\s+)?(?:the\s+)?(?:\w+\s+){{0,2}}?{_LABEL_NOUN}\b"
               # (not a ranking that only scopes a row the question names: "X's turnover among the top 20 grocers")
               rf"|^\s*(?:which|what|who)\b(?!\s+{_TIME}\b)(?:\s+(?!among\b)[\w'/-]+){{1,5}}?\s+(?:the\s+)?(?:\w+\s+)?"
               rf"(?:highest|lowest|largest|smallest|greatest|biggest|least|most|top|bottom|maximum|minimum|fewest)\b"
               rf"|^\s*(?:which|what|who)\b(?!\s+{_TIME}\b).*\b(?:grew|rose|increased|fell|declined|decreased)\s+the\s+most\b"
               # "which factor affected the work of the most students", "what were the three illnesses pupils had most
               # often": a ranking however far its superlative is said from the rows asked for
               rf"|^\s*(?:which|what\s+(?:are|were)\s+the\s+{_K})\b(?!\s+{_TIME}\b)(?:\s+[\w'/-]+){{1,9}}?\s+(?:the\s+)?"
               rf"(?:most|least|fewest|highest|lowest|largest|smallest)\b(?!\s+(?:recent|recently)\b)"
               rf"|^\s*(?:which|what)\s+(?!(?:percent(?:age)?|share|proportion|fraction|number|amount|total|average|"
               rf"sum|value|level|rate)\b)(?:\w+,?\s+){{0,3}}?{ROW_NOUN}\s+(?:had|has|have|saw|received|got|recorded|reported|"
               rf"come|comes|came|fall|falls|fell|belong|belongs|belonged|(?:(?:was|were)\s+)?[a-z]{{2,}}ed)\b"
               # "which services come under the Highways Directorate": the rows printed under a heading
               rf"|^\s*(?:which|what)\s+(?!{_TIME}\b)(?:[\w-]+\s+){{0,2}}?[a-z-]+[^s\W]s\s+(?:come|fall|belong|sit|are|were)\s+"
               rf"(?:under|within)\b"
               rf"|^\s*(?:what|which)\s+(?:are|were)\s+the\s+top\s+\w+"
               # "which of the leading retailers had a share below 15%": the rows that had, named
               r"|^\s*which\s+of\s+the\s+(?:[\w-]+\s+){1,4}?(?:had|has|have|saw|received|recorded|reported|was|were|"
               r"is|are)\b"
               # "in which courses were more than half of the participants women": any plural noun asked for, then
               # its verb, and a threshold: the rows past it, named
               rf"|^\s*(?:(?:in|of|for|at|from)\s+)?which\s+(?!{_TIME}\b)(?:[\w-]+,?\s+){{0,4}}?[a-z-]+[^s\W]s\s+"
               rf"(?:(?:of|in|on|at|from|among)\s+(?:[\w-]+\s+){{1,4}}?)?(?:had|have|were|are|did|do|grew|rose|fell|ran|"
               rf"made|saw|got|showed|"
               # (or a verb in the present, "which complaint types account for under 5 of the calls")
               rf"[a-z]{{2,}}ed|[a-z]{{3,}}(?:\s+(?:for|up))?)\b(?={_PAST_A_THRESHOLD}|{_SIGN_SAID}|.*{_VERSUS_SAID})"
               # "list the reasons for complaint that no tenant gave": a plural noun, what it is of, and a clause
               rf"|^\s*(?:list|name)\s+(?:all\s+)?(?:the\s+)?(?:[\w-]+\s+){{0,2}}?[a-z-]+[^s\W]s\s+"
               rf"(?:(?:of|in|on|at|from|among)\s+(?:[\w-]+\s+){{1,3}}?)?"
               rf"(?:(?:where|that|which|whose|who|in\s+which)\b|with\b(?={_PAST_A_THRESHOLD})|(?={_EQUAL_COUNT_PLAIN}))"
               # "which boats have 4 masts": the rows holding that count of a thing
               rf"|^\s*(?:which|what)\s+(?!{_TIME}\b)(?:[\w-]+,?\s+){{0,4}}?[a-z-]+[^s\W]s\s+(?={_EQUAL_COUNT_PLAIN})")),
    (kinds.YES_NO, (r"^\s*(?:is|are|was|were|does|do|did|has|have|had|can|could|will|would|should)\s+(?!there\b)"
                   r"(?!.*\b(?:how|which|what|when|why)\b)")),
))
_EXPLANATION = re.compile(
    r"^\s*(?:why\b|how\s+(?:is|are|was|were|does|often|will|would|can|should)\b"
    r"|(?:what|which)\s+(?:is|are|was|were)\s+the\s+(?:implication|purpose|reasons?|nature|basis|definition|objective|policy|"
    r"method)s?\b|describe\b|explain\b|define\b"
    r"|what\s+(?:does|do|did)\s+.+\s+(?:include|mean|represent|consist|comprise)"
    r"|what\s+(?:is|are|was|were)\s+.+\s+(?:defined|determined|measured|calculated|recogni[sz]ed)\s*\??\s*$)",
    re.IGNORECASE)
"""Why, how something is done, what something means: the text explains it, and no figure answers it."""
_SEVERAL = re.compile(r"\b(?:years|periods|quarters|months|dates)\b", re.IGNORECASE)
_THRESHOLD = re.compile(r"\b(?:" + BOUND_WORDS + r")\s+(?:[$\u20ac\u00a3\u00a5]|US\$|rs\.?)?\s*-?\d|" + _OR_MORE_PLAIN,
                        re.IGNORECASE)
_OR_MORE = re.compile(_OR_MORE_SAID, re.IGNORECASE)
ALL_OR_NONE = re.compile(r"\b(?:all\s+(?:of\s+)?(?:their|its)|every(?!\s+(?:year|month|quarter|period)s?\b)|"
                          r"(?P<none>none\s+of\s+(?:their|its|the)|"
                          r"\bno\s+(?:one|[a-z]{3,})\s+(?:[a-z]{3,}ed|said|had|was|were|felt|chose|gave|got)))\b",
                          re.IGNORECASE)
"""A share asked as the whole or none of something ("all of their cases", "every case", "none of its sales", "that no
pupil reported")."""
_BOUND = re.compile(r"\bat\s+(?:least|most)\b", re.IGNORECASE)
"""A bound ("at least every week", "at most twice"), never the superlative that ranks: the least is not asked."""
_ONE_OF = re.compile(rf"\b(?:{_SUPERLATIVE}|grew|rose|increased|fell|declined|decreased)\b", re.IGNORECASE)
_TOP_K = re.compile(rf"\b(?:top|bottom|first|last|largest|smallest|highest|lowest|biggest)\s+{_K}\b"
                    rf"|^\s*(?:which|what|name|list|who)\s+(?:(?:are|were)\s+)?(?:the\s+)?{_K}\s+(?!of\b|per\b|percent\b|%)",
                    re.IGNORECASE)
_LEAD = re.compile(
    r"^\s*(?:(?:so|and|then|now|ok(?:ay)?|please|also)\s*,?\s+)*"
    r"(?:(?:can|could|would)\s+you\s+(?:please\s+)?(?:tell\s+me|give\s+me|show\s+me|calculate|compute|find)\s+|"
    r"(?:please\s+)?(?:tell\s+me|give\s+me|show\s+me|give|show|calculate|compute|find|determine|estimate|provide|identify|"
    r"state|report|list|name)\s+|i\s+(?:want|need)\s+(?:to\s+know\s+)?)?"
    r"(?:(?:what|which)\s+(?:is|was|are|were|has\s+been|had\s+been|would\s+be|will\s+be)\s+|how\s+much\s+(?:is|was|are|were|"
    r"did|does|do|has|have|had)?\s*|how\s+many\s+(?:days|weeks|months|years|times)\s+(?:is|was)\s+|how\s+many\s+|what\s+|"
    r"which\s+)?"  # "how many days was the cash conversion cycle": the unit is the answer's, the rest the measure
    r"(?:the\s+|a\s+|an\s+)?(?:value|amount|figure|number|level|size)?(?:\s+of)?\s*(?:the\s+)?",
    re.IGNORECASE)

# -- operations over the measure -------------------------------------------------------------------------------

_PERIOD_TAIL = re.compile(
    rf"(?P<tail>(?:\s*,)?\s*(?:\b(?:from|between|for|in|during|over|across|as\s+(?:of|at)|at|on|of|by|since|through|"
    rf"to|until|vs\.?|versus|compared\s+(?:to|with)|against|and)\s+)?(?:both\s+)?(?:the\s+)?(?:end\s+of\s+)?"
    rf"(?:(?:fiscal\s+|financial\s+|calendar\s+)?(?:years?|periods?|quarters?)\s+(?:ended|ending)?\s*)?"
    rf"(?:{_P})(?:\s+year[\s-]+ends?(?:ed)?)?(?:\s*(?:,|and(?:\s+in)?|or(?:\s+in)?|to|through|thru|-|\u2013|&|vs\.?|versus|compared\s+(?:to|with)|"
    rf"against|from|over|relative\s+to|as\s+well\s+as)\s*(?:(?:the\s+)?(?:fiscal\s+|financial\s+)?(?:years?\s+)?)?(?:{_P})"
    rf"(?:\s+year[\s-]+ends?(?:ed)?)?)*"
    rf"(?:\s*(?:,\s*)?(?:respectively|combined|altogether|in\s+total|together|year[\s-]+end|year[\s-]+ended|"
    rf"fiscal\s+year|year))*)\s*$", re.IGNORECASE)
_ALL_PERIODS = re.compile(r"\s*,?\s*\b(?:across|over|for|in|during|of)\s+(?:all\s+)?(?:the\s+|these\s+)?(?:(?P<n>\d+|two|three|four|five)\s+)?"
                          r"(?:fiscal\s+)?(?:years|periods)(?:\s+(?:shown|presented|reported|listed|given))?\s*$", re.IGNORECASE)
ACROSS_ROWS = re.compile(rf"\s*,?\s*\b(?:across|over|for|of)\s+(?:all\s+(?:the\s+|these\s+)?|the\s+(?:(?P<n>{_K})\s+)?|"
                         rf"these\s+(?:(?P<n2>{_K})\s+)?)(?:[a-z-]+\s+)?[a-z-]+s\s+(?:listed|shown|given|named|included|"
                         rf"in\s+the\s+table)\s*[?.!]?\s*$"
                         rf"|^\s*(?:across|over|for|of)\s+(?:all\s+)?(?:the|these)\s+(?P<n3>{_K})\s+[a-z-]+s\s*,"
                         rf"|^\s*(?:across|over)\s+(?:all\s+)?(?:the|these)\s+[a-z-]+s(?:\s+(?:listed|shown|in\s+the\s+table))?"
                         rf"\s*,", re.IGNORECASE)
"""The rows an average or a total runs over, said at the end ("across all the grounds listed", "over the six
species listed", "of the negative feelings listed") or first ("Across the ten regions, ...", "Across all the grounds
in the table, ..."): every row of the table, no part of the measure's name."""
_RANGE_JOINT = re.compile(r"\b(?:to|through|thru)\b|[-\u2013]|\bfrom\b.*\bto\b", re.IGNORECASE)
_REVERSED_PAIR = re.compile(rf"{_P}\s*(?:,\s*)?(?:from|compared\s+(?:to|with)|against|relative\s+to|over|vs\.?|versus)\s+{_P}",
                            re.IGNORECASE)
_N_YEARS = re.compile(r"\b(?P<n>\d+|two|three|four|five|ten)[\s-]+(?:fiscal[\s-]+)?years?(?:'|\u2019)?\b", re.IGNORECASE)
_AVERAGE = re.compile(r"^(?:(?P<n>\d+|two|three|four|five|ten)[\s-]+(?:fiscal[\s-]+)?years?\s+)?(?:annual\s+)?"
                      r"(?:average|mean)\s+(?:annual\s+|yearly\s+)?(?:of\s+|value\s+(?:of|for)\s+|for\s+)?(?:the\s+)?(?P<x>.+)$"
                      r"|^(?P<x2>.+?),?\s+(?:(?P<n2>\d+|two|three|four|five|ten)[\s-]+(?:fiscal[\s-]+)?years?\s+)?"
                      r"(?:average|on\s+average|averaged)$", re.IGNORECASE)
_SUM_OVER = re.compile(r"^(?:total|sum|combined|aggregate)\s+(?:(?:value|amount)\s+)?(?:of\s+)?(?:the\s+)?(?P<x>.+)$",
                       re.IGNORECASE)
_CAGR = re.compile(r"^(?:(?P<n>\d+|two|three|four|five|ten)[\s-]+(?:fiscal[\s-]+)?years?\s+)?(?:total\s+)?(?P<x>.+?)\s+cagr$"
                   r"|^(?:(?P<n2>\d+|two|three|four|five|ten)[\s-]+(?:fiscal[\s-]+)?years?\s+)?(?:cagr|compound(?:ed)?\s+annual\s+"
                   r"growth(?:\s+rate)?)\s+(?:of|in|for)\s+(?:the\s+)?(?P<x2>.+)$", re.IGNORECASE)
_PERCENT_BETWEEN = re.compile(r"^(?:percent(?:age)?|%|relative)\s+(?:difference|change|gap)\s+between\s+(?:the\s+)?(?P<x>.+?)\s+and\s+"
                              r"(?:the\s+)?(?P<y>.+)$", re.IGNORECASE)
_PERCENT_CHANGE = re.compile(
    r"^(?:(?:percent(?:age)?|%|relative)\s+(?:change|increase|decrease|decline|growth|difference|rise|fall|drop)|growth\s+rate|"
    r"rate\s+of\s+(?:change|increase|growth|decline)|(?:year[\s-]+(?:over|on)[\s-]+year|yoy|annual)\s+(?:percent(?:age)?\s+)?"
    r"(?:growth|change)(?:\s+rate)?)"
    r"(?:\s*/\s*\(?(?:increase|decrease)\)?)?\s+(?:in|of|for)\s+(?:the\s+)?(?P<x>.+)$"
    r"|^(?P<x2>.+?)\s+(?:(?:percent(?:age)?|%)\s+(?:change|increase|decrease|growth)|growth\s+rate|growth)$",
    re.IGNORECASE)
_CHANGE = re.compile(
    r"^(?:(?P<nominal>nominal|net|absolute|total)\s+|(?P<part>global|domestic|international|foreign|worldwide)\s+)?"
    r"(?P<verb>change|increase|decrease|decline|difference|growth|rise|fall|"
    r"drop|movement|variance|variation)(?:\s*/\s*\(?(?:increase|decrease)\)?)?\s+(?:in|of|for|between)\s+(?:the\s+)?(?P<x>.+)$"
    r"|^(?!(?:.*\s)?rates?\s+of\s)(?P<x2>.+?)\s+(?:change|increase|decrease|movement)$", re.IGNORECASE)
"""A change in a line ("the change in X", "X increase"). "The rate of salary increase" (of compensation, of price
increase) is a line of its own, an assumption a pension note prints, not a change in a rate."""
_SHARE = re.compile(
    r"^(?P<x>.+?)\s+(?:expressed\s+|stated\s+|measured\s+)?as\s+(?:a\s+)?(?:%|percent(?:age)?|proportion|share|fraction|ratio)"
    r"\s+(?:of|to)\s+(?:the\s+)?(?P<y>.+)$"
    # "what share of net sales in 2020 was cost of sales": the whole, then the part it was (two words or more)
    r"|^(?:(?:percent(?:age)?|proportion|share|fraction|portion|part)\s+of\s+(?:the\s+)?(?P<y6>.+?)\s+(?:was|were|is|are)\s+"
    r"(?!(?:the|a|an)\s+(?:\w+\s+)?(?:largest|smallest|biggest|highest|lowest)\b)"
    r"(?!(?:made|comprised|composed|generated|from|accounted|represented|due|attributable|held|invested|classified|spent|"
    r"used|paid|allocated|derived|related)\b)(?:in\s+)?(?:the\s+)?(?P<x6>(?![\w-]+(?:ed|en)\s*$)[\w&-]+(?:\s+[\w&-]+){0,5}(?:,\s*net)?"
    r"(?:\s+(?:in|for|during)\s+\u27e8P\d+\u27e9)?))$"
    r"|^(?:(?:percent(?:age)?|proportion|share|fraction)\s*(?:,?\s*in\s+(?:%|percent(?:age)?)\s*,?)?\s+(?:(?:of\s+)?constitution\s+)?"
    r"of\s+(?:the\s+)?(?P<x2>.+?)\s+(?:in(?!\s+\u27e8P\d+\u27e9\s+(?:came|went)\s)|among|out\s+of|within|to|over|relative\s+to|compared\s+to)\s+(?:the\s+)?"
    r"(?P<y2>.+))$"
    r"|^(?:(?:percent(?:age)?|proportion|share|fraction|portion|part)\s+of\s+(?:the\s+)?(?P<y4>.+?)\s+(?:that\s+)?"
    r"(?:went\s+(?:to|on|into)|was\s+spent\s+on|came\s+from|(?:was|were)\s+(?:paid\s+(?:to|as|in)|used\s+(?:for|on)))\s+"
    r"(?:the\s+)?(?P<x4>.+))$"
    # "how much of revenue was spent on marketing, as a percentage": a part of a whole, asked in percent
    r"|^of\s+(?:the\s+)?(?P<y7>.+?)\s+(?:that\s+)?(?:went\s+(?:to|on|into)|(?:was|were)\s+(?:spent\s+on|paid\s+(?:to|as|in)|"
    r"used\s+(?:for|on)))\s+(?:the\s+)?(?P<x7>.+?),?\s+(?:as\s+a\s+(?:percent(?:age)?|share|proportion)|in\s+(?:%|percent(?:age)?))$"
    r"|^(?:(?:percent(?:age)?|proportion|share|fraction)\s+of\s+(?:the\s+)?(?P<y3>.+?)\s+(?:that\s+)?(?:is|was|are|were)\s+"
    r"(?:made\s+up\s+of|(?:comprised|composed)\s+of|generated\s+(?:from|by)|from|accounted\s+for\s+(?:by|using|under|with|through|as)|represented\s+by|"
    r"due\s+to|attributable\s+to|held\s+(?:in|by|as)|invested\s+in|classified\s+as)\s+"
    r"(?:the\s+)?(?P<x3>.+))$"
    # "the percentage of the cases (that) were imported", "the share of employees affected by closures": the part is
    # what the whole's rows are said to be
    r"|^(?:(?:percent(?:age)?|proportion|share|fraction)\s+of\s+(?:the\s+)?(?P<y5>.+?)\s+(?:that\s+|who\s+)?"
    r"(?:is|was|are|were)\s+(?!(?:the|a|an)\b)(?P<x5>[a-z][\w-]*(?:\s+(?:by|in|from|at|to|with|for|as|on)\s+.+)?))$",
    re.IGNORECASE)
_RATIO = re.compile(
    r"^(?:the\s+)?ratio\s+(?:of|between)\s+(?:the\s+)?(?P<x>.+?)\s+(?:to|and|over|versus|vs\.?)\s+(?:the\s+)?(?P<y>.+)$"
    r"|^(?P<x2>.+?)\s*(?:-to-|\s+to\s+|/)\s*(?P<y2>.+?)(?:\s+ratio|\s+multiple)?$"
    r"|^(?P<x3>.+?)\s+(?:divided\s+by|over(?!\s+(?:the\s+)?(?:years?|periods?|time|months?|quarters?|the\s+course|"
    r"the\s+(?:last|past|next)))(?!\s+(?:all\s+)?(?:the\s+|these\s+)?" + _K + r"\s)|per)\s+(?:the\s+)?(?P<y3>.+)$",
    re.IGNORECASE)
"""A ratio; "over the six species listed" is what an average or a total runs across, no divisor."""
_RATIO_OF_YEARS = re.compile(
    r"^(?:the\s+)?ratio\s+(?:of|between)\s+(?:the\s+)?(?P<x>(?:(?!\b(?:to|over|versus|vs|divided|per)\b|/).)+?)\s*,?\s+"
    r"(?:(?:in|for|during|at|as\s+of|of|between)\s+)?(?:the\s+)?(?:(?:fiscal|financial|calendar)\s+)?(?:years?\s+)?\u27e8P(?P<a>\d+)\u27e9\s*,?\s*"
    r"(?P<joint>to|over|versus|vs\.?|and|compared\s+(?:to|with)|against|relative\s+to)\s+(?:the\s+)?"
    r"(?:(?:fiscal|financial|calendar)\s+)?(?:years?\s+)?\u27e8P(?P<b>\d+)\u27e9\s*$", re.IGNORECASE)
"""One line's ratio between two years, the line said once: "the ratio of X in 2019 to 2018", "the ratio of X in
fiscal 2019 to fiscal 2018" (the year said first over the year said last)."""
_GAP_BETWEEN_ITEMS = re.compile(
    r"^(?:(?:nominal|absolute)\s+)?(?:difference|gap)\s+in\s+(?:the\s+)?(?P<x>(?:(?!\bbetween\b).)+?)"
    r"(?:\s+(?:in|for|during|as\s+of|at)\s+(?:the\s+)?(?:(?:fiscal|financial)\s+)?(?:year\s+)?\u27e8P(?P<p>\d+)\u27e9)?"
    r"\s+between\s+(?:the\s+)?(?P<a>(?:(?!\band\b).)+?)\s+and\s+(?:the\s+)?(?P<b>.+)$", re.IGNORECASE)
"""One line's difference between two of its items: "the difference in net sales in 2019 between Europe and Asia" (the
item said first less the item said last)."""
_MARGIN = re.compile(r"^(?P<x>.+?)\s*(?:%|percent(?:age)?)?\s*margins?(?:\s*%|\s+percent(?:age)?|\s+ratio)?$", re.IGNORECASE)
_PART_OF_COMPANY = re.compile(rf"^(?P<part>(?:the\s+)?.+?\s{m.PART_WORDS})\s+(?P<rest>.+)$", re.IGNORECASE)
"""A measure of a part of the company: "Pet segment EBITDA", "the Europe region operating" (the part, then the rest)."""
_MARGIN_OF_PART = re.compile(rf"^(?P<x>.+?\s*margins?)\s+(?:of|for|in|at)\s+(?:the\s+|its\s+|their\s+)?"
                             rf"(?P<part>.+?\s{m.PART_WORDS})$", re.IGNORECASE)
_SIGNED = (r"(?:loss|losses|profit|income|gain|gains|expense|expenses|increase|decrease|benefit|charge|credit|surplus|"
           r"deficit|inflow|outflow|receivable|payable|asset|liability)")
_ONE_LINE_SLASH = re.compile(rf"\)/|/\(|\b{_SIGNED}/{_SIGNED}\b|\band/or\b", re.IGNORECASE)
"""A slash inside one line's name, as reports print signed lines: "(Loss)/profit before taxation", "Income/(expense)",
"gain/loss on disposal", or "and/or" ("on maturity and/or termination"): no ratio of two lines."""
_CAPITALS_SLASH = re.compile(r"\b([A-Z]{2,})/([A-Z]{2,})\b")


def _one_line_slash(text: str) -> bool:
    """A slash that joins the words of one line's name (see ``_ONE_LINE_SLASH``), or two names in capitals that
    are no measures ("HIV/AIDS"; "EBIT/EBITDA" is a ratio)."""
    return bool(_ONE_LINE_SLASH.search(text)) or any(
        not (m.named(a) or m.named(b)) for a, b in _CAPITALS_SLASH.findall(text))

_DAYS = re.compile(r"^(?P<x>.+?)\s+(?:in|as)\s+days$|^(?P<x2>.+?)\s+days$", re.IGNORECASE)
_DIFFERENCE = re.compile(r"^(?P<x>.+?)\s+(?:less|minus|net\s+of|excluding|after\s+deducting)\s+(?:the\s+)?(?P<y>.+)$"
                         r"|^difference\s+between\s+(?:the\s+)?(?P<x2>.+?)\s+and\s+(?:the\s+)?(?P<y2>.+)$", re.IGNORECASE)
_SUM = re.compile(r"^(?:(?:the\s+)?(?:sum|total|combined\s+value)\s+of\s+)(?:the\s+)?(?P<x>.+?)\s+(?:and|plus|&)\s+(?:the\s+)?(?P<y>.+)$"
                  r"|^(?P<x2>.+?)\s+(?:plus|added\s+to)\s+(?:the\s+)?(?P<y2>.+)$"
                  r"|^(?P<x3>.+?)\s+and\s+(?P<y3>.+?)\s+(?:combined|together|altogether|in\s+total)$", re.IGNORECASE)
_TOTAL_OF_PARTS = re.compile(r"^(?:total|combined|sum\s+of(?:\s+the)?)\s+(?P<x>.+\s(?:and|&)\s.+)$", re.IGNORECASE)
_HOW_MUCH_MORE = re.compile(
    r"^\s*(?:by\s+)?how\s+much\s+(?P<cmp>larger|bigger|greater|higher|more|less|lower|smaller|fewer)\s+(?:is|was|are|were)\s+"
    r"(?:the\s+)?(?P<x>.+?)\s+than\s+(?:that\s+of\s+|the\s+)?(?P<y>.+?)\s*\??$"
    r"|^\s*how\s+much\s+(?:did|does|do|has|have|had|would|will)\s+(?:the\s+)?(?P<x2>.+?)\s+exceed\s+(?:the\s+)?(?P<y2>.+?)\s*\??$"
    r"|^\s*by\s+how\s+much\s+(?:did|does|do|has|have|had)\s+(?:the\s+)?(?P<x3>.+?)\s+exceed\s+(?:the\s+)?(?P<y3>.+?)\s*\??$"
    r"|^\s*(?:the\s+)?(?P<x4>.+?)\s+exceed(?:s|ed)?\s+(?:the\s+)?(?P<y4>.+?)\s+by\s+how\s+much\s*\??$"
    r"|^\s*how\s+much\s+(?P<cmp2>more|less|larger|higher|lower|greater|smaller)\s+(?P<n>.+?)\s+(?:came|comes|come|was|were|is|"
    r"are|did)\s+(?:(?:from|in|for|generated\s+(?:by|in|from)|earned\s+(?:by|in))\s+)?(?:the\s+)?(?P<a>.+?)\s+"
    r"(?:than|as\s+compared\s+(?:to|with)|compared\s+(?:to|with)|versus|vs\.?|relative\s+to)\s+(?:that\s+(?:of|from|in)\s+)?"
    r"(?:the\s+)?(?P<b>.+?)\s*\??$"
    # "by how much was the yield of plot B below the control plot": the gap between the two, the lower taken away
    r"|^\s*by\s+how\s+much\s+(?:is|was|are|were)\s+(?:the\s+)?(?P<x5>.+?)\s+(?P<cmp3>below|under|behind|above|ahead\s+of)\s+"
    r"(?:that\s+of\s+|those\s+of\s+|the\s+)?(?P<y5>.+?)\s*\??$",
    re.IGNORECASE)
_FIGURES_OF = re.compile(
    rf"^(?P<x>[^:]+?)\s*:\s*(?:the\s+)?(?P<ps>{_P}(?:\s*(?:,|and|&)\s*{_P})+)\s+(?:figures|values|amounts|numbers)\s*\??$"
    rf"|^(?:the\s+)?(?P<ps2>{_P}(?:\s*(?:,|and|&)\s*{_P})+)\s+(?:figures|values|amounts|numbers)\s+(?:for|of)\s+(?:the\s+)?"
    rf"(?P<x2>.+?)\s*\??$", re.IGNORECASE)
"""A line's figures of several periods said around it ("current state tax: the 2018 and 2019 figures", "the 2018 and
2019 values of X"): the line, in those periods."""
_AVERAGE_FIRST = re.compile(r"^\s*(?P<how>on\s+average|in\s+total|combined)\s*,?\s*how\s+(?:much|(?P<many>many))\s+"
                            r"(?P<aux>(?:was|were|is|are|did)\s+)?(?:the\s+)?(?P<x>.+)$", re.IGNORECASE)
""""On average, how much were X in 2018 and 2019?": the average of X in those years (or, "in total", their total);
"on average, how many pupils are enrolled a year": the average number of them."""
_LINE_YIELDED = re.compile(r"\b(?P<how>[Hh]ow\s+much)\s+(?:did|does|do|will|would)\s+"
                           r"(?P<x>(?:the\s+)?[a-z][\w'&-]*(?:\s+[a-z][\w'&-]*){0,4}?)\s+"
                           r"(?:bring\s+in|yield|raise|generate|contribute|cost|fetch)\b")
""""how much did harbour dues bring in", "how much did the fuel levy raise": the line that yielded the figure is
the one asked (its subject, said in lower case, is no company: "how much did Acme raise" is Acme's)."""


_ACTORS = frozenset().union(*ENTITY_KINDS) | {"government", "state", "it", "they", "we", "group", "department",
                                              "agency", "council", "ministry"}
"""Subjects that name who acts, not a line of figures."""


def _an_actor(subject: str) -> bool:
    """Whether a verb's subject names who acts ("the company", "the state", "they"), not a line of figures."""
    last = subject.split()[-1].lower().rstrip("s")
    return last in _ACTORS or last + "s" in _ACTORS


_TABLE_NAMED = re.compile(r",?\s+(?:in|from|of|per)\s+(?:the\s+)?table\s+(?=[\w.-]*\d)[A-Z]?[\w.]*(?:[-\u2013][\w.]+)?\b",
                          re.IGNORECASE)
"""A table named by its number ("in Table B-2", "from table 2.1"): which table, no word of a line."""
_OPERATION_AFTER = re.compile(
    r"^(?P<x>[^:]{3,80}?)\s*:\s*(?:the\s+)?(?P<op>(?:%|percent(?:age)?)\s+(?:change|increase|decrease|growth)|change|increase|"
    r"decrease|growth|average|mean|total)\b(?P<rest>.*)$", re.IGNORECASE)
"""The line first, then what to compute of it after a colon ("domestic discount rate: % change from 2018 to 2019")."""
_HOW_MUCH_CHANGE = re.compile(
    r"^\s*(?:by\s+)?(?:how\s+(?:much|many)|what\s+(?:percent(?:age)?|%))(?:\s+(?:in\s+)?(?:percent(?:age)?(?:\s+points?)?|%|"
    r"points?))?\s+(?:did|does|do|has|have|had|would|will|(?P<be>is|are|was|were))\s+"
    # "by how much is enrolment projected to grow": a change foreseen
    r"(?:the\s+)?(?P<x>.+?)\s+(?(be)(?:projected|expected|forecast|predicted|estimated|set|likely)\s+to\s+|)(?P<verb>differ|change|changed|increase|increased|decrease|decreased|grow|grown|rise|risen|fall|fallen|"
    r"decline|declined|drop|dropped|go\s+up|go\s+down|improve|improved|move|moved)\b(?:\s+by)?(?P<tail>.*?)\s*\??$"
    r"|^\s*how\s+did\s+(?:the\s+)?(?P<x2>.+?)\s+(?P<verb2>change|move|develop|evolve|trend)(?P<tail2>.*?)\s*\??$",
    re.IGNORECASE)
_STATEMENT_SAID = re.compile(
    rf"\s+\b(?:on|in|from|per|according\s+to)\s+(?:its|the|their|his|her)\s+(?P<p>{_P})?\s*(?:consolidated\s+)?"
    rf"(?:balance\s+sheets?|income\s+statements?|cash[\s-]+flows?\s+statements?|statements?\s+of\s+(?:financial\s+position|"
    rf"cash\s+flows?|income|operations|earnings))(?=[\s,?.]|$)", re.IGNORECASE)
"""A statement named inside the phrase ("... on its Dec 31 2018 balance sheet"): kept in ``statements``, its period
moved to the end of the phrase."""
_TIMES_COVER = re.compile(
    r"^\s*how\s+many\s+times\s+(?:did|does|do|has|have|had|is|was|were|would|could|can)\s+(?:the\s+)?(?P<x>.+?)\s+"
    r"(?:cover|exceed|fit\s+into|go\s+into|pay\s+for|cover\s+for)\s+(?:the\s+|its\s+|their\s+)?(?P<y>.+?)\s*$", re.IGNORECASE)
_PER_DOLLAR = re.compile(
    r"^\s*how\s+many\s+(?:dollars?|euros?|pounds?|units?|cents?|\$)\s+(?:of|in)\s+(?P<x>.+?)\s+(?:did|does|do|was|were|is|are|"
    r"had|has|have)\b.*?\b(?:for|per)\s+(?:each|every|one|a)?\s*(?:dollar|euro|pound|unit|\$)s?\s+(?:of|in)\s+(?:the\s+)?"
    r"(?P<y>.+?)\s*$", re.IGNORECASE)
_HOW_FAST = re.compile(r"^\s*how\s+(?:fast|quickly)\s+(?:did|does|do|has|have|had)\s+(?:the\s+)?(?P<x>.+?)\s+"
                       r"(?:grow|grown|rise|risen|increase|increased|decline|declined|fall|fallen|shrink|shrunk)\b(?P<tail>.*)$",
                       re.IGNORECASE)
_TRAILING_NAME = re.compile(rf"\s+(?:of|for|at|by)\s+(?:[A-Z][\w&.'-]*)(?:\s+[A-Z][\w&.'-]*){{0,3}}"
                            rf"(?P<rest>\s+(?:in|for|during|at|as\s+of)\s+(?:the\s+)?(?:fiscal\s+(?:year\s+)?)?{_P}.*|\s*)$")
_HOW_MUCH_HAVE = re.compile(
    r"^\s*how\s+(?:much|many)\s+(?:in\s+)?(?P<x>.+?)\s+(?:did|does|do|has|have|had|will|would)\s+(?:the\s+)?(?:\w+\s+){0,3}?"
    r"(?:have|hold|report|record|spend|pay|generate|earn|make|receive|invest|incur|owe|book|sell|buy|raise|return|issue|"
    r"repurchase|collect|borrow|lose|post|see|carry|show)(?:\s+(?:in|on|for|from|as|at))?\b(?P<tail>.*)$"
    r"|^\s*how\s+much\s+(?:did|does|do|has|have|had|will|would)\s+(?:the\s+)?(?:\w+\s+){0,3}?(?:spend|pay|invest|earn|"
    r"generate|make|receive|incur|owe|borrow|raise|return|lose|collect|record|report)\s+(?:on|in|for|from|as|at|by|through)?"
    r"\s*(?:the\s+)?(?P<x2>.+?)$", re.IGNORECASE)
_OPERATOR_WORDS = frozenset({"per", "over", "margin", "margins", "ratio", "conversion", "coverage", "turnover", "days",
                             "average", "mean", "change", "growth", "cagr", "%", "percent", "percentage", "share",
                             "proportion", "less", "minus", "plus", "divided", "times", "versus", "vs", "compare",
                             "compared"})
"""Words that make a measure of its neighbours: left inside a line's words, the grammar did not compose them."""
_LINE_NOISE = re.compile(
    r"^(?:(?:the|a|an|its|their|his|her|our|this|that|these|those|company(?:'s|\u2019s)?|firm(?:'s|\u2019s)?|group(?:'s|\u2019s)?|"
    r"reported|total\s+value\s+of|values?\s+of|amounts?\s+of|figures?\s+(?:for|of)|number\s+of\s+the|level\s+of|balance\s+of|"
    r"unadjusted|gaap|overall|respective|year[\s-]+end(?:ed)?|end\s+of\s+(?:the\s+)?year|"
    r"(?:amount|value|figure|balance)\s+(?:for|in))\s+)+|(?:(?<!carrying)(?<!principal)(?<!notional)(?<!face)(?<!recoverable)"
    r"(?<!contractual)(?<!nominal)(?<!gross)(?<!net)(?<!total)(?<!fair)(?<!book)(?<!market)(?<!residual)(?<!present)"
    r"(?<!intrinsic)(?<!par)\s+(?:amount|value)|\s+(?:figure|level|reported|for\s+the\s+year|"
    r"for\s+the\s+period|at\s+(?:the\s+)?(?:year|period)[\s-]+end|at\s+(?:the\s+)?end\s+of\s+(?:the\s+)?(?:year|period)|"
    r"year[\s-]+end|as\s+(?:of|at)\s+(?:the\s+)?end\s+of\s+(?:the\s+)?(?:year|period)|in\s+total|respectively|"
    r"altogether|combined|\(\s*\))\s*)+$", re.IGNORECASE)
_FORESEEN = re.compile(r"\s+(?:is|are|was|were)\s+(?:projected|expected|estimated|forecast|budgeted|planned)(?:\s+to\s+be)?\b"
                       r"|\s+(?:per|a|each)\s+year$|\s+(?:yearly|annually)$", re.IGNORECASE)
""""Toll revenue is projected", "pupils are projected in state schools", "fares on average per year": what
a projection or an average says of a line, not its name (a table of projections prints "Toll revenue")."""
_POSSESSIVE_NAME = re.compile(r"\b(?:[A-Z][\w.&-]*(?:\s+[A-Z][\w.&-]*){0,3}|\d[A-Z][\w&]*)['\u2019]s\b")
_FOR_NAME = re.compile(r"\s+(?:for|of|by)\s+(?:the\s+)?(?P<name>(?:[A-Z0-9][\w.&'\u2019-]*)(?:\s+(?:[A-Z0-9][\w.&'\u2019-]*|"
                       r"of|and|&|de))*)\s*$")
_WORD = re.compile(r"[a-z0-9]+(?:[&.'][a-z0-9]+)*|%", re.IGNORECASE)
_FILLER = frozenset({
    "the", "a", "an", "of", "in", "for", "to", "and", "or", "is", "was", "are", "were", "be", "been", "what", "which",
    "how", "much", "many", "did", "does", "do", "has", "have", "had", "at", "on", "by", "as", "with", "from", "that",
    "this", "these", "those", "its", "it", "their", "there", "than", "then", "can", "could", "would", "will", "should",
    "you", "me", "please", "tell", "give", "show", "find", "calculate", "compute", "value", "amount", "figure", "number",
    "s", "company", "company's", "year", "years", "fiscal", "end", "ended", "ending", "period", "during", "between",
    "respectively", "respective", "total", "reported", "report", "according", "based", "each", "all", "both", "about", "against",
    "into", "onto", "upon", "within", "among", "per"})
"""Words that ask or link rather than name anything: never counted as a content word left unread."""


THRESHOLD_KINDS = ("above", "below", "equal")
"""The criteria that keep the rows whose figure passes a threshold (or is it: "had a budget of zero")."""


@dataclass(frozen=True)
class Criterion:
    """What selects a period or a row: "max", "min", "negative", "positive", "above" or "below" a threshold
    (in the question's scale), "above_another" or "below_another" column of the row (``VERSUS``), or "all"."""

    kind: str = "all"
    threshold: float = 0.0
    scale: str = ""
    counted: str = ""
    """For an "equal" count of things each row has ("need 1,800 homes"): the things' noun ("homes")."""


@dataclass(frozen=True)
class TableQuery:
    """A question over the rows of one table (a register, a statistics table): an aggregate of a column over the
    rows a filter keeps, perhaps by group ("which month had the most", "how many notices did X file").

    ``operation`` is one of ``QUERY_OPERATIONS``; "how_many" is a count of rows or a sum of a count column,
    which the table decides. ``target`` is what is counted, summed or ranked, in the question's words;
    ``group`` what the answer names ("month", "party"); ``limit`` the k of a top-k. The question's other words
    (``words``) may name rows: the plan matches them to the table's real values."""

    operation: str
    target: str = ""
    group: str = ""
    limit: int = 1
    descending: bool = True
    words: str = ""


QUERY_OPERATIONS = ("lookup", "how_many", "count", "sum", "average", "max", "min", "top", "list", "share")


_MONEY_NOUN = re.compile(r"\b(?:dollars?|euros?|pounds?|yen|yuan|rupees?|francs?|money|cash|amounts?|values?|"
                         r"revenues?|sales|costs?|expenses?|income|profits?|payments?|proceeds|fees?|prices?)\b",
                         re.IGNORECASE)
_NUMBER_OF = re.compile(r"^\s*(?:what|how)\s+(?:is|was|were|are)\s+the\s+(?:total\s+)?number\s+of\s+(?P<x>[\w-]+)",
                        re.IGNORECASE)


@dataclass(frozen=True)
class QuestionReading:
    """A question as every stage of answering reads it, made once (``read``) and never re-parsed."""

    text: str
    kind: str
    """The answer wanted: one of ``core.answering.answer_types.ANSWER_TYPES``."""
    several: bool = False
    """Several labels or headers rather than one."""
    measure: Measure | None = None
    periods: tuple[PeriodMention, ...] = ()
    """Every period the question names, in order."""
    statements: frozenset[str] = frozenset()
    """The statements it names ("cash_flows", "balance_sheet", "income")."""
    scale: str = ""
    """The scale it wants the answer in ("million"), or ""."""
    percent: bool = False
    """It wants a percentage."""
    decimals: int | None = None
    criterion: Criterion = Criterion()
    query: TableQuery | None = None
    definitions: tuple[tuple[str, str], ...] = ()
    """(name, definition in words) the question gives, each name also by its abbreviation."""
    asked: str = ""
    """The clause that asks, as said."""
    subject: str = ""
    """What it asks about, as said (the measure's phrase, without its periods)."""
    issuer: str = ""
    """The company or body it names, as said ("3M", "Best Buy"), or ""."""
    noise: tuple[str, ...] = ()
    """What is said around the question: instructions, roles, where to look."""
    doubts: tuple[str, ...] = ()
    """Lines whose words still hold an operator the grammar did not compose ("net debt to ebitda")."""
    unused: tuple[str, ...] = ()
    """Content words of the asking clause no field holds."""
    content: tuple[str, ...] = ()
    """Every content word of the asking clause, in order (those ``unused`` among them): what a plan over a table
    must bind, each to the table, a column, a row, a filter or a unit, before code answers by it."""
    explains: bool = False
    """It asks why or how, or what something means: the text answers it."""
    source: str = "rules"
    """"rules" or "model": who made the reading."""
    notes: tuple[str, ...] = field(default=())
    """Asides in brackets inside the asking clause ("(using total cash dividends paid)")."""
    settled: bool = False
    """The asking clause's frame settled the answer kind ("in which year", "respective", "why"); False where the
    kind follows only from the measure (a lookup of a line, a computed measure)."""
    frame: str = ""
    """The frame of the asking clause that settled the kind ("count_periods", "count_rows", "labels", ...), or ""."""
    basis_points: bool = False
    """It wants a change of a percentage in basis points ("in bps"): points times 100."""
    rank: int = 1
    """The place asked for in a ranking: 2 for "the second highest", 1 where none is said (the top)."""
    compares: bool = False
    """It asks how far apart two figures are in so many words ("how much larger is A than B", "by how much did
    X exceed Y"): a difference, never a sum or a ranking."""
    horizons: tuple[Span, ...] = ()
    """Ranges of time ahead it asks about, in the order said ("between 2 to 4 years", "due within 3 years"): the
    columns of a maturity table that make them up (``core.answering.maturities``); () where it names none."""
    within: QuestionReading | None = None
    """With ``horizons``: the question read without them (the line asked about, the answer kind), else None."""

    @property
    def counts_things(self) -> bool:
        """It asks how many of something that is no money ("how many stores", "the number of staff"): its
        figure is a count, whatever currency the table's other lines are in."""
        query = self.query
        if query is not None and query.operation == "how_many":
            return bool(query.target) and not _MONEY_NOUN.search(query.target)
        said = _NUMBER_OF.match(self.text)
        return said is not None and not _MONEY_NOUN.search(said.group("x"))

    @property
    def words(self) -> frozenset[str]:
        """Its content words (``operations.words``)."""
        return frozenset(ops_words(self.text))

    @property
    def topic(self) -> frozenset[str]:
        """What it asks about: its content words without years, figures and asking words."""
        return topic_of(self.text)

    @property
    def operation(self) -> str | None:
        """The table operation (``operations.OPERATIONS``) its reading points to, or None: a change is a
        difference, a share a percentage, "which ... highest" a ranking."""
        measure = self.measure
        if self.kind == kinds.ROW_LABELS and self.criterion.kind in ("max", "min"):
            return "top_row" if self.criterion.kind == "max" else "bottom_row"
        if self.kind == kinds.COLUMN_HEADERS and self.criterion.kind in ("max", "min"):
            return self.criterion.kind
        if self.query is not None and self.query.operation == "how_many":
            return "count"
        if measure is not None:
            return {m.CHANGE: "difference", m.GAP: "difference", m.DIFFERENCE: "difference",
                    m.PERCENT_CHANGE: "percent_change", m.SHARE: "percentage", m.RATIO: "ratio", m.AVERAGE: "average",
                    m.SUM: "sum", m.TOTAL: "sum"}.get(measure.op)
        if self.query is not None:
            return {"count": "count", "how_many": "count", "sum": "sum", "average": "average"}.get(self.query.operation)
        return None

    @property
    def complete(self) -> bool:
        """Every content word is in a field and every operator was composed."""
        return not self.unused and not self.doubts

    @property
    def years(self) -> list[int]:
        """The years named, in order, each once."""
        return list(dict.fromkeys(p.year for p in self.periods))

    @property
    def year(self) -> int | None:
        """The year asked about: the latest named (a change from 2018 to 2019 is read in 2019's report)."""
        return max(self.years) if self.years else None

    @property
    def computed(self) -> bool:
        """Its answer is a figure no single cell holds."""
        return self.measure is not None and self.measure.op not in (m.LINE,)

    def describe(self) -> str:
        """The reading in one line, as the steps show it ("Read as: share(named(ebitda), line(revenue)), FY2019")."""
        parts = [self.kind + (" (several)" if self.several else "")]
        if self.measure is not None:
            parts.append(self.measure.describe())
        if self.query is not None:
            q = self.query
            parts.append(f"{q.operation}({q.target or '-'}{', by ' + q.group if q.group else ''})")
        if self.periods:
            parts.append(", ".join(p.label for p in self.periods))
        if self.issuer:
            parts.append(self.issuer)
        if self.scale or self.percent:
            parts.append(f"in {'%' if self.percent else self.scale}")
        if self.decimals is not None:
            parts.append(f"{self.decimals} decimals")
        if not self.complete:
            parts.append("unsure: " + ", ".join([*self.doubts, *self.unused]))
        return "; ".join(parts)


_ASKING_WORDS = frozenset(ops_words(
    "much many more most less least larger largest smaller smallest higher highest lower lowest grew grow growth "
    "change changed increase decrease difference than compared between there give tell show list listed percent "
    "percentage average sum ratio all any each per number can you me about according report document please "
    "table tables respective respectively above below first second third based values items components "
    "proportion share portion rate"))
"""Words a question uses for how it asks, not for what it asks about: they make no passage relevant."""


def topic_of(text: str) -> frozenset[str]:
    """What a text asks about: its content words without years, figures and asking words."""
    return frozenset({w for w in ops_words(text) if not any(ch.isdigit() for ch in w)} - _ASKING_WORDS)


# -- reading ---------------------------------------------------------------------------------------------------


_FRACTIONS = {"half": "50", "a half": "50", "one half": "50", "a third": "33.3", "one third": "33.3",
              "two thirds": "66.7", "a quarter": "25", "one quarter": "25", "three quarters": "75"}
_FRACTION_THRESHOLD = re.compile(
    r"\b((?:more|greater|higher|less|fewer|lower)\s+than|at\s+(?:least|most)|over|under|above|below)\s+"
    r"(" + "|".join(sorted((k.replace(" ", r"\s+") for k in _FRACTIONS), key=len, reverse=True)) + r")\s+of\b",
    re.IGNORECASE)
"""A threshold said as a fraction ("more than half of the cases"): read as the percentage it is ("more than 50%")."""


def read(question: str, issuers: Sequence[str] = ()) -> QuestionReading:
    """The question read by the grammar. ``issuers`` are names the library knows (from its documents'
    metadata): a question naming one is read with that name set aside as the issuer."""
    text = " ".join(question.replace("\u2019", "'").replace("\u201c", '"').replace("\u201d", '"').split())
    text = re.sub(r"\b(what|how|which|who|where|when)(?:'s|s)\b", r"\1 is", text, flags=re.IGNORECASE)
    text = re.sub(r"^(\s*(?:(?:what|how)\s+(?:is|was|were|are)\s+the\s+)?)avg\b\.?", r"\1average", text,
                  flags=re.IGNORECASE)  # "avg outlay per state" (a formula's "avg AP" is read as it is)
    text = re.sub(r"(^|[,:]\s*)what\s+number\s+of\s+(?:(?P<the>the|these|those)\b)?",
                  lambda g: f"{g.group(1)}how many {'of ' + g.group('the') if g.group('the') else ''}", text,
                  flags=re.IGNORECASE)  # "what number of (the) X": how many (of the) X
    text = _in_question_order(text)
    text = _LINE_YIELDED.sub(lambda g: g.group(0) if _an_actor(g.group("x")) else f"{g.group('how')} were {g.group('x')}",
                             text)
    text = _AVERAGE_FIRST.sub(lambda g: f"What was the {'average' if g.group('how').lower().startswith('on') else 'total'} "
                              f"{'number of ' if g.group('many') and not g.group('aux') else ''}{g.group('x')}", text)
    text = _FRACTION_THRESHOLD.sub(lambda g: f"{g.group(1)} {_FRACTIONS[' '.join(g.group(2).lower().split())]}% of", text)
    text = _retold(text)
    definitions = _definitions(text)
    sentences = _sentences(text)
    asking, around = _asking_clause(sentences, definitions)
    said_around = " ".join(around)
    statements = frozenset(statements_asked(text))
    scale = _scale(f"{asking} {said_around}")
    decimals = _decimals(text)
    percent = bool(_PERCENT_ASKED.search(f"{asking} {said_around}"))
    basis_points = bool(_BASIS_POINTS.search(f"{asking} {said_around}"))
    issuer = _issuer(asking, issuers) or _issuer(said_around, issuers)

    clause, notes = _without_asides(_strip_instructions(asking))
    # "ROE using year-end equity": balances at the end of the year, not averaged (an aside or said in the clause)
    year_end = _YEAR_END_BASIS.search(asking)
    clause = _YEAR_END_BASIS.sub("", clause).strip()
    for note in notes:  # a formula in brackets after a name is how to compute what it names
        if note.startswith("= "):
            named, _, formula_words = note[2:].partition(" = ")
            named = _PERIOD_END_SAID.sub("", named)  # "quick ratio at FY2017 year end (= ...)": the quick ratio's
            for key in (_names_of(named) if named else ["it"]):
                definitions.setdefault(key, _full_years(formula_words))
    notes = [n for n in notes if not n.startswith("= ")]
    comma = _COMMA_FORMULA.match(clause)
    if comma and _ARITHMETIC.search(comma.group("body")) and len(comma.group("body").split()) >= 3 \
            and not re.search(rf"{_P}|\b(?:19|20)\d\d\b", comma.group("body")):
        if not re.match(r"(?:(?:where|with|and)\s+)?[^=]{1,40}=", comma.group("body"), re.IGNORECASE):
            definitions.setdefault("it", _full_years(comma.group("body")))  # "X for 2022, EBIT divided by interest"
        clause = comma.group("head")  # ", where EBIT = ...": a definition of its own name, read with the others
    after = _OPERATION_AFTER.match(clause)
    if after is not None and not re.search(r"\b(?:times|divided|plus|minus|multiplied)\b|[*/+]", after.group("rest")):
        joiner = "of" if after.group("op").lower() in ("average", "mean", "total") else "in"
        clause = f"{after.group('op')} {joiner} {after.group('x')}{after.group('rest')}"
    colon = re.match(r"^(?P<head>[^:?]{3,120}):\s+(?P<body>.+?)[\s?.]*$", clause)
    if colon and _ARITHMETIC.search(colon.group("body")) and len(colon.group("body").split()) >= 4:
        definitions.setdefault("it", _full_years(colon.group("body")))  # "DPO for 2020: average AP times 365, ..."
        clause = colon.group("head")
    headline = re.match(r"^(?P<head>[^:?]{1,40}):\s+(?P<tail>.+)$", clause)
    if headline and not _ASKING_START.match(headline.group("head")):  # "Adobe 2017: net cash ... divided by ..."
        clause = f"{headline.group('tail').rstrip(' ?.')} for {headline.group('head')}"
    # "What was X in 2023, defined as A divided by B between 2022 and 2023?": the definition is a field of its own
    clause = re.sub(r",?\s+(?:which\s+is\s+|here\s+|is\s+)?(?:defined|calculated|computed)\s+as\b.*$", "", clause,
                    flags=re.IGNORECASE).strip()
    # "over the four year period from 2020 to 2023": the years named say which; no word of the line
    if len(find_periods(clause)) >= 2:
        clause = _N_YEAR_PERIOD.sub("", clause).strip()
    # "... in Table B-2": which table, said for the table's choice (read from the whole text), no word of a line
    clause = _TABLE_NAMED.sub("", clause).strip()
    periods = find_periods(clause)
    marked = _mark_periods(clause, periods)
    marked = _without_issuer(marked, issuer)
    kind, several, frame = _frame(marked)
    settled = bool(kind)
    explains = kind == kinds.TEXT and bool(_EXPLANATION.search(marked))
    criterion = _criterion(marked)
    measure: Measure | None = None
    query: TableQuery | None = None
    subject = ""
    if kind == kinds.TITLE:  # "what does the table show about segment assets": the table it is about, if any
        subject = re.sub(r"^\s*(?:show|contain|present|provide|describe|display|represent|list)s?\b", " ",
                         dict(_FRAMES)[kinds.TITLE].sub(" ", marked), flags=re.IGNORECASE).strip(" ?.!")
    elif kind != kinds.TEXT:
        measure, query, subject = _measure_of(marked, kind, frame, periods, definitions)
        if frame in ("count_rows", "share_rows", "labels"):
            measure = None  # a question over a table's rows: its query says what it counts or lists
    if measure is not None and measure.op == m.CHANGE and _PERCENT_ASKED.search(f"{asking} {said_around}") \
            and not re.search(r"\bpoints?\b", text, re.IGNORECASE):
        measure = replace(measure, op=m.PERCENT_CHANGE)  # "how much did X grow in 2022, in %?"
    if measure is not None and measure.op == m.PERCENT_CHANGE and scale and not percent \
            and not re.search(r"percent|%|\bgrowth\b|\brate\b", asking, re.IGNORECASE):
        measure = replace(measure, op=m.CHANGE)  # "the y/y change in X, in $m": an amount, not a percentage
    if year_end is not None and measure is not None:
        for leaf in measure.leaves():
            body = m.CATALOGUE.get(leaf.words, "") if leaf.op == m.NAMED else ""
            if _AVERAGED_BALANCE.search(body):
                definitions.setdefault(leaf.words, _AVERAGED_BALANCE.sub(r"\g<x> in FY{y}", body))
    kind, several = _final_kind(kind, several, measure, query, marked)
    doubts = _doubts(measure)
    reading = QuestionReading(
        text=text, kind=kind, several=several, measure=measure, periods=tuple(find_periods(text) if not periods else periods),
        statements=statements, scale=scale,
        percent=percent or frame == "share_rows" or (measure is not None and _is_percent(measure)),
        decimals=decimals, criterion=criterion, query=query, definitions=tuple(definitions.items()), asked=asking,
        subject=_unmark(subject, periods), issuer=issuer, noise=tuple(around), doubts=doubts, explains=explains,
        notes=tuple(notes), settled=settled, frame=frame, basis_points=basis_points, rank=_rank(marked),
        compares=(bool(_HOW_MUCH_MORE.search(marked.rstrip(" ?.!,;:"))) or bool(re.search(
            r"\bexceed(?:s|ed)?\b.*\bby\b|\bdifference\s+between\b|\bby\s+how\s+much\b(?!\s+(?:percent|%))|"
            r"\b(?:grow|grew|grown|rise|rose|risen|increased?|decreased?|fall|fell|fallen|declined?|dropped?)\s+by\b",
            marked, re.IGNORECASE))) and not re.search(r"\bpercent|%", marked, re.IGNORECASE)
        and measure is not None and measure.op in (m.DIFFERENCE, m.GAP, m.CHANGE))
    reading = replace(reading, unused=_unused(reading, marked, periods), content=_content(reading, marked))
    scopes = [said for said in around if _SCOPE_LEAD.match(said)]
    if scopes and reading.content:
        # "In the housing section, how many ...": the section is part of what is asked, not a lead-in to leave out
        scoped = [w for said in scopes for w in _words_in_order(_SCOPE_LEAD.sub(r"\g<x>", said)) if w not in _FILLER]
        reading = replace(reading, content=tuple(dict.fromkeys((*reading.content, *scoped))),
                          noise=tuple(said for said in reading.noise if said not in scopes))
    horizons, rest = maturities.asked(text)
    if horizons:  # "the crane leases due within 3 years": the line read alone, its columns by their ranges
        reading = replace(reading, horizons=horizons, within=read(rest, issuers))
    return reading


_SCOPE_LEAD = re.compile(r"^\s*(?:in|within|under|among|for)\s+(?:the\s+)?(?P<x>[^,;:?]{2,80}?)\s+(?:section|part|group|"
                         r"category|panel|block|heading|chapter)s?\s*$", re.IGNORECASE)
"""A lead-in naming the part of a table the question is about ("In the housing section, ...")."""
_N_YEAR_PERIOD = re.compile(r",?\s*\b(?:across|over|during|for|in)\s+the\s+(?:\d+|two|three|four|five)[\s-]+"
                            r"(?:fiscal\s+|financial\s+)?years?\s+period\b", re.IGNORECASE)
_YEAR_END_BASIS = re.compile(
    r",?\s*\b(?:using|on|with|based\s+on|taking|from)\s+(?:the\s+)?(?:(?:(?:fiscal\s+)?year|period)[\s-]*end(?:ing)?|ending|"
    r"closing|end[\s-]of[\s-](?:the[\s-])?(?:year|period))\s+(?:balances?|figures?|amounts?|values?|[a-z&']+(?:\s+(?!and\b)[a-z&']+)?)"
    r"(?:\s+and\s+(?:the\s+)?(?:year's\s+)?(?:cost\s+of\s+(?:sales|goods\s+sold|revenues?)|cogs|(?:net\s+)?(?:sales|revenues?))"
    r"(?=\s*(?:[(?,.]|$)))?"  # "using closing receivables and revenue": the flow a days measure is taken over
    r"(?:\s*\(\s*(?:x|\u00d7|times)\s*36[05]\s*\))?"
    r"(?:\s+(?:only|rather\s+than\s+(?:the\s+)?averages?|instead\s+of\s+(?:the\s+)?averages?|not\s+(?:the\s+)?averages?))?",
    re.IGNORECASE)
"""A measure asked on the year's closing balances ("ROE using year-end equity", "based on ending balances"), where
its usual definition averages the opening and closing ones."""
_AVERAGED_BALANCE = re.compile(r"\(average (?P<x>[^()]+?) between FY\{p\} and FY\{y\}\)")


_ORDINALS = {"second": 2, "2nd": 2, "third": 3, "3rd": 3, "fourth": 4, "4th": 4, "fifth": 5, "5th": 5}
_RANKED_PLACE = re.compile(rf"\b({'|'.join(_ORDINALS)})[\s-]+(?:{_SUPERLATIVE}|best|worst|\w+est)\b", re.IGNORECASE)


def _rank(marked: str) -> int:
    """The place a ranking asks for ("the second-largest segment": 2), 1 where it names none."""
    said = _RANKED_PLACE.search(marked)
    return _ORDINALS[said.group(1).lower()] if said else 1


_BASE_VERB = {"rose": "rise", "grew": "grow", "fell": "fall", "increased": "increase", "decreased": "decrease",
              "declined": "decline", "dropped": "drop", "changed": "change", "improved": "improve", "moved": "move"}
_VERB_FIRST = re.compile(rf"^\s*(?P<x>[^,?;:]+?)\s+(?P<v>{'|'.join(_BASE_VERB)})\s+(?:by\s+)?how\s+much\b(?P<rest>.*)$",
                         re.IGNORECASE)
""""Net income rose how much in 2021?": the verb before "how much"."""
_EITHER_WAY = re.compile(
    r"^\s*did\s+(?P<x>.+?)\s+(?:rise|grow|increase|go\s+up|improve)\s+or\s+(?:fall|decline|decrease|drop|(?:go\s+)?down|shrink)\b"
    r"(?P<rest>[^?]*?)\s*,?\s*(?:and\s+)?(?:by\s+)?how\s+much\b(?P<tail>.*)$", re.IGNORECASE)
""""Did X rise or fall in 2017 vs 2016, and by how much?": the change, whose sign says which."""
_SPENT_MORE = re.compile(
    r"^\s*(?P<how>(?:by\s+)?how\s+much)\s+(?P<cmp>more|less)\s+(?:did|does|do|has|have|had)\s+(?P<s>.+?)\s+"
    r"(?:spend|spent|pay|paid|invest|invested)\s+(?:on|in|for)\s+(?P<x>.+?)\s+than\s+(?:(?:it|they|he|she)\s+(?:did\s+)?)?"
    r"(?:on|in|for)?\s*(?P<y>.+)$", re.IGNORECASE)
""""How much more did Acme spend on SG&A than on R&D?": how much more one line was than another."""
_MOVED_NOUN = re.compile(
    r"^(?P<lead>.*?\b(?:what\s+(?:is|was)\s+)?)(?:the\s+)?(?P<x>(?:[\w&'\u2019.-]+\s+){0,4}?(?:margin|rate|ratio|share|yield|return))"
    r"\s+(?:expansion|contraction|compression|improvement|deterioration|erosion)\b(?P<rest>.*)$", re.IGNORECASE)
""""Operating margin expansion in 2021 vs 2020": the change in the margin (its sign says which way it moved)."""
_SHARE_TAKEN = re.compile(
    r"^(?P<lead>[^:?]{1,80}:\s+)?\s*what\s+(?:share|percent(?:age)?|proportion|portion|fraction|part)\s+of\s+(?P<x>.+?)\s+"
    r"(?:did|does|do)\s+(?:(?P<s>.+?)\s+(?:(?:spend|pay|invest)\s+on|(?:keep|retain|convert|turn)\s+(?:as|into))\s+(?P<y>.+?)|"
    r"(?P<y2>.+?)\s+(?:take(?:\s+up)?|account\s+for|make\s+up|represent|absorb|consume|eat\s+up))(?P<rest>\s*[?.!]?)$"
    r"|^(?P<lead3>[^:?]{1,80}:\s+)?\s*what\s+(?:share|percent(?:age)?|proportion|portion|fraction|part)\s+of\s+(?P<x3>.+?)\s+"
    r"(?:(?:was|were)\s+(?:spent|used|paid|returned|distributed|kept|retained|invested)(?:\s+(?:out|back))?"
    r"(?:\s+to\s+(?:its\s+|the\s+)?(?:shareholders|stockholders|investors|owners))?\s+(?:to|on|into|for|as|in)|(?:went|goes|go)\s+(?:to|into|on|for)|(?:falls?|fell|comes?|came)\s+(?:under|within))\s+(?P<y3>.+?)(?P<rest3>\s*[?.!]?)$"
    r"|^(?P<y4>[^,?:]{3,80}?),\s+what\s+(?:share|percent(?:age)?|proportion|portion|fraction|part)\s+of\s+(?P<x4>[^,?]+?)"
    r"(?P<rest4>\s*[?.!]?)$",
    re.IGNORECASE)
""""What share of 2021 sales did SG&A take?", "what % of revenue did Acme spend on R&D?", "what share of net sales went
to cost of sales?": the part as a % of the whole."""
_FORESEEN_SHARE = re.compile(
    r"\b(?:(?:is|are|was|were)\s+(?:projected|expected|estimated|forecast|planned|budgeted|set|likely|due)\s+to|will|would|"
    r"should|shall|is\s+to|are\s+to)\s+(?P<v>come|go)\s+(?P<p>from|to|into)\b|\b(?P<v2>comes|goes)\s+(?P<p2>from|to|into)\b",
    re.IGNORECASE)
""""Is projected to come from", "will go to", "comes from": a part of a whole said in the future or the present,
read as the past the share frames read ("came from", "went to")."""
_MADE_FROM = re.compile(r"^\s*how\s+much\s+(?P<x>cash|money|revenues?|income|profit)\s+did\s+(?P<s>.+?)\s+(?:generate|produce|"
                        r"bring\s+in|earn|make|take\s+in)\s+(?P<p>from|in|on)\s+(?P<y>.+)$", re.IGNORECASE)
""""How much cash did A generate from operations in 2020?": the cash from operations, A its issuer."""
_AFTER_OUTLAY = re.compile(r"\bafter\s+(cap(?:ital)?\s*ex(?:penditures?)?|capital\s+expenditures?|dividends(?:\s+paid)?)\b",
                           re.IGNORECASE)
""""Operating cash flow after capex": what is left once the outlay is paid, the line less it."""
_TICKER_SAID = re.compile(r"\s*\(\s*(?:NYSE|NASDAQ|Nasdaq|AMEX|LSE|TSX|ASX|ticker|symbol)(?:\s+American)?\s*:\s*[A-Za-z.]{1,6}\s*\)")
_NUMERIC_DATE = re.compile(r"\b(?P<m>\d{1,2})/(?P<d>\d{1,2})/(?P<y>(?:19|20)\d\d)\b")
""""12/31/2018", month first as US filings write it."""
_MONTH_NAMES = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
                "November", "December")
_WANT_SAID = re.compile(r"^(?:[^,.?]{3,80},\s+)?(?:I|we)\s+(?:need|want|would\s+like|'d\s+like)\s+(?:to\s+(?:know|see|get)\s+)?",
                        re.IGNORECASE)
""""As a credit analyst preparing a memo, I need X ...": the request for X."""
_ANNUALISED = re.compile(r"\b(?:annuali[sz]ed|compound(?:ed)?)\s+(?:annual\s+)?(?:growth|increase)(?:\s+rate)?\s+(?:of|in)\s+",
                         re.IGNORECASE)
""""Annualized growth of X", "compounded growth in X": X's CAGR."""
_SHORT_YEAR_ON_YEAR = re.compile(r"\b(?:y/y|yoy|y-o-y|year[\s-]+(?:over|on)[\s-]+year)\b", re.IGNORECASE)
_MOVED_YEAR_ON_YEAR = re.compile(rf"\b(?P<v>{'|'.join(list(_BASE_VERB) + list(_BASE_VERB.values()))}|grown|risen|fallen|growth)"
                                 r"\s+year-over-year\b", re.IGNORECASE)


def _words_of(said: Sequence[str]) -> str:
    """A word class as one alternation of its phrases, longest first, each word apart by any space."""
    return "|".join(r"\s+".join(re.escape(w) for w in phrase.split()) for phrase in sorted(said, key=len, reverse=True))


_ASKS = r"(?:(?:in|for|at|on|from|during|by)\s+(?=what\b|which\b|how\b))?(?:what|which|how|who|whose|list|name|give|tell|show)\b"
_SHARE_SAID = _words_of([w for w in SHARE_WORDS if w != "%"]) + "|%"
_NO_PLACE = r"(?:average|total|all|sum|short|brief|general|particular|the\s+whole|balance|aggregate|addition)\b"
"""Words after a preposition that say how to read the question ("on average", "in total"), not where or when."""
_FRONTED = re.compile(
    rf"^\s*(?P<prep>in|on|for|during|from|between|at|of)\s+(?!{_NO_PLACE})(?P<x>[^,?:;]{{1,80}}?)\s*,\s*(?P<q>{_ASKS}[^?]*?)"
    r"\s*(?P<end>[?.!]*)\s*$"
    rf"|^\s*(?P<prep2>in|on|for|during)\s+(?P<x2>(?:[\w-]+\s+){{0,3}}?(?:19|20)\d\d(?:[-/]\d{{2,4}})?)\s+(?P<q2>{_ASKS}[^?,]*?)"
    r"\s*(?P<end2>[?.!]*)\s*$", re.IGNORECASE)
"""A place, a period or the whole a part is of, said before the question ("In 2003, how many ...", "Of all the
notices, what share ..."): said after it, where the grammar reads it."""
_SOURCE_NAMED = re.compile(r"\b(?:balance\s+sheets?|statements?|cash\s+flows?|10-?k|filings?|reports?|accounts|notes?)\b",
                           re.IGNORECASE)
_OF_WHOLE = re.compile(rf"^(?P<w>(?:what|which)(?:\s+(?:{_SHARE_SAID}))?|how\s+(?:many|much))\b(?P<r>.*)$", re.IGNORECASE)
_IN_PLACE = re.compile(
    r"^\s*(?P<s>(?!(?:what|which|how|who|whose|why|when|where|is|are|was|were|do|does|did|in|on|for|of|from|list|name)\b)"
    r"[^,?;:]{2,80}?)\s+(?P<v>[a-z]{3,}ed)\s+(?P<p>(?:in|during|on|at|for|to|from|by|up)\s+)?"
    r"(?P<wh>how\s+many|how\s+much|what|which)\b(?P<rest>[^?]*?)\s*(?P<end>[?.!]*)\s*$", re.IGNORECASE)
"""The asking words left where the answer goes ("notice 17 affected how many workers?", "A accounted for what share
of X?", "X peaked in which year?")."""
_COUNT_START = re.compile(
    r"^\s*(?:what\s+(?:is|was|are|were)\s+the\s+total\s+|what\s+|(?:give|tell)\s+(?:me\s+)?the\s+|the\s+)?"
    rf"(?:{_words_of([w for w in COUNT_ASKED if w.endswith(' of')])})\s+(?!times\b|years\b|periods\b)"
    r"|^\s*(?:please\s+)?count\s+(?:up\s+)?(?:all\s+)?(?:the\s+)?", re.IGNORECASE)
"""A count asked by a noun or an imperative ("what number of X", "the number of X", "count the X"): how many X. "What
is the number of X" is left as it is said: statements print a line named so ("Number of options granted")."""
_TOTAL_START = re.compile(rf"^\s*(?:please\s+)?(?:{_words_of(TOTAL_ASKED)})\s+(?:all\s+)?(?:the\s+)?(?=\w)", re.IGNORECASE)
_TOTAL_AFTER = re.compile(rf",?\s+\b(?:{_words_of([w for w in TOTAL_AFTER if w != 'in total'])})\b", re.IGNORECASE)
_COUNTED_NOUN = re.compile(r"^(?P<n>\s*how\s+many\s+(?:[\w-]+\s+){0,3}?[\w-]+?)(?P<r>\s+(?:were|was|are|is|did|do|does|had|have|"
                           r"has|in|from|by|across|over|[a-z]+ed)\b.*)$", re.IGNORECASE)
_TOP_BY = re.compile(r"^\s*(?:the\s+)?(?P<dir>top|bottom)\s+(?:(?P<k>\d{1,2}|two|three|four|five|six|seven|eight|nine|ten)\s+)?"
                     r"(?P<g>[\w-]+(?:\s+[\w-]+)?)\s+(?:by|for|in\s+terms\s+of|on)\s+(?P<t>.+?)\s*(?P<end>[?.!]*)\s*$",
                     re.IGNORECASE)
"""A ranking said as a heading ("top 3 regions by sales in 2020"): which 3 regions had the highest sales."""
_WHICH_DID_AT = re.compile(r"^\s*which\s+(?P<n>(?:[\w-]+\s+){0,2}?[a-z-]+[^s\W]s)\s+(?P<q>(?:did|do|does|were|was|are)\s+.+?)\s+"
                           r"(?P<p>in|at|from|for|to|under)\s*(?P<end>[?.!]*)\s*$", re.IGNORECASE)
"""The rows asked for, their preposition said last ("which cities did A file notices in?"): in which cities did A."""
_WHICH_DID = re.compile(r"^\s*which\s+(?P<n>(?:[\w-]+\s+){0,2}?[a-z-]+[^s\W]s)\s+(?P<v>[a-z]{3,}ed)\s+(?P<rest>[^?]+?)\s*(?P<end>[?.!]*)\s*$",
                        re.IGNORECASE)
"""Rows named by what they did ("which companies filed notices in A?"): the rows that did, listed."""


_WHO_DID = re.compile(r"^\s*who\s+(?=(?:[a-z]{2,}ed|won|made|got|had|paid|sent|gave|took|sold|bought|laid|cut|ran|"
                      r"led|held|spent|lost|brought|kept)\b)", re.IGNORECASE)
"""A question asking who did something: the name of the row it is said of, where the rest names that row by a
number or a ranking (``_in_question_order``)."""


def _in_question_order(text: str) -> str:
    """The question retold in the order the grammar reads, whatever the order it was said in: what it asks first
    (a place or period said before it goes after it; asking words left where the answer goes come first), and
    each operation by the one word class that names it (a count by "how many", a total by "in total" or
    "combined", a share by "what share of X came from A", a ranking by "which k ... had the highest")."""
    if _WHO_DID.match(text) and re.search(rf"\d|\b(?:{_SUPERLATIVE})\b", text, re.IGNORECASE):
        # "who obtained licence 2019-118", "who won the most votes": the name a row prints, asked as "which name"
        text = _WHO_DID.sub("Which name ", text, count=1)
    fronted = _FRONTED.match(text)
    if fronted is not None and _SOURCE_NAMED.search(fronted.group("x") or fronted.group("x2") or ""):
        fronted = None  # "From X's balance sheet, what were ...": the statement read, said where the grammar reads it
    if fronted is not None:
        prep, place = fronted.group("prep") or fronted.group("prep2"), fronted.group("x") or fronted.group("x2")
        asked, end = fronted.group("q") or fronted.group("q2"), fronted.group("end") or fronted.group("end2") or ""
        of_whole = _OF_WHOLE.match(asked) if prep.lower() == "of" else None
        if of_whole is not None:
            text = f"{of_whole.group('w')} of {place}{of_whole.group('r')}{end}"
        elif prep.lower() != "of":
            text = f"{asked} {prep.lower()} {place}{end}"
    in_place = _IN_PLACE.match(text)
    if in_place is not None:
        subject, verb, prep = in_place.group("s").strip(), in_place.group("v"), (in_place.group("p") or "").strip()
        wh, rest, end = in_place.group("wh"), in_place.group("rest"), in_place.group("end")
        phrasal = f"{verb_base(verb).lower()} {prep.lower()}".strip()
        of_share = re.match(rf"^\s*(?:{_SHARE_SAID})\s+of\s+(?P<whole>.+)$", rest, re.IGNORECASE)
        if of_share is not None and wh.lower() == "what" and phrasal in PART_OF_VERBS:
            text = f"What share of {of_share.group('whole')} came from {subject}{end}"
        elif prep.lower() in ("in", "during", "on", "at") and verb_base(verb).lower() in EXTREME_VERBS:
            text = f"{prep.capitalize()} {wh.lower()}{rest} was the {EXTREME_VERBS[verb_base(verb).lower()]} {subject}{end}"
        elif prep.lower() in ("in", "during", "on", "at"):
            text = f"{prep.capitalize()} {wh.lower()}{rest} did {subject} {verb_base(verb)}{end}"
        elif not prep or prep.lower() == "by":
            text = f"{wh.capitalize()}{rest} {'were' if wh.lower() == 'how many' else 'was'} {verb} by {subject}{end}"
    received = re.match(rf"^\s*what\s+(?P<sh>{_SHARE_SAID})\s+of\s+(?P<whole>.+?)\s+(?:did|does|do|will|would)\s+(?P<s>.+?)\s+"
                        rf"(?:{_words_of(RECEIVED_VERBS)})\s*(?P<end>[?.!]*)\s*$", text, re.IGNORECASE)
    if received is not None:  # "what % of X did A receive": the part of X that went to A
        text = f"What {received.group('sh')} of {received.group('whole')} went to {received.group('s')}{received.group('end')}"
    count = _COUNT_START.match(text)
    if count is not None:  # "the total number of X": how many X in total
        text = "How many " + text[count.end():] + (" altogether" if re.search(r"\btotal\b", count.group(0), re.IGNORECASE) else "")
    text = _TOTAL_START.sub("What was the combined ", text, count=1)
    if re.match(r"^\s*how\s+many\b", text, re.IGNORECASE) and _TOTAL_AFTER.search(text) \
            and not re.search(r"\bin\s+total\b", text, re.IGNORECASE):
        counted = _COUNTED_NOUN.match(_TOTAL_AFTER.sub("", re.sub(r"([?.!]*)\s*altogether$", r" altogether\1", text)))
        if counted is not None:  # "how many X ... altogether": how many X in total
            text = f"{counted.group('n')} in total{counted.group('r')}"
    late = re.match(r"^\s*(?P<q>how\s+(?:many|much)\b.*?)\s*,?\s+on\s+average\b(?P<r>.*)$", text, re.IGNORECASE)
    if late is not None:
        # "how many X did a region have on average": the average number of X per region
        asked = re.sub(r"\b(?:did|does|do|would|will)\s+(?:a|an|each|every|one|the\s+average)\s+(?P<r>[\w-]+)\s+(?:have|hold|keep|get|"
                       r"receive|see|record|report|count|affect|employ)\b", r"per \g<r>", late.group("q"), flags=re.IGNORECASE)
        text = f"On average, {asked}{late.group('r')}"
    # "the three towns with the highest rents", "the district with the most schools" (a noun phrase asked): which
    # three towns had the highest rents
    text = re.sub(rf"^\s*the\s+(?:{_K}\s+)?(?=(?:[a-z-]+\s+){{0,2}}?[a-z-]+\s+(?:with|having)\s+the\s+(?:{_SUPERLATIVE})\b)",
                  lambda k: f"Which {k.group(1) + ' ' if k.group(1) else ''}", text, count=1, flags=re.IGNORECASE)
    text = re.sub(rf"^(?P<rows>Which\s+(?:{_K}\s+)?(?:[a-z-]+\s+){{0,2}}?[a-z-]+)\s+(?:with|having)\s+"
                  rf"(?P<most>the\s+(?:{_SUPERLATIVE})\b)", r"\g<rows> had \g<most>", text, count=1, flags=re.IGNORECASE)
    # "on average, what was the growth rate of the states": the average growth rate of the states
    # "on average, what score did the teams get": the average score of the teams
    text = re.sub(r"^\s*on\s+average\s*,?\s*what\s+(?P<x>[\w\s-]+?)\s+(?:did|do|does)\s+(?:the\s+)?(?P<rows>[\w\s-]+?)\s+"
                  r"(?:get|have|receive|achieve|reach|record|score|earn|make|see|show|gain)\b",
                  r"What was the average \g<x> of the \g<rows>", text, flags=re.IGNORECASE)
    text = re.sub(r"^\s*on\s+average\s*,?\s*what\s+(is|was|are|were)\s+(?:the\s+)?", r"What \1 the average ", text,
                  flags=re.IGNORECASE)
    # "together, what share of the staff do the two units make up": the share of both, said without the adverb
    text = re.sub(r"^\s*(?:together|combined|jointly|between\s+them)\s*,?\s*(?=what\s+(?:share|percentage|percent|proportion|"
                  r"fraction)\b)", "", text, flags=re.IGNORECASE)
    # "on average, what percentage of pupils walk to school": the average percentage of them
    text = re.sub(r"^\s*on\s+average\s*,?\s*what\s+(?=(?:percentage|percent|share|proportion|fraction)\s+of\b)",
                  "What is the average ", text, flags=re.IGNORECASE)
    text = re.sub(rf"^(\s*)how\s+(?:{_words_of(SIZE_ASKED)})\s+(is|was|are|were)\b", r"\1What \2", text, flags=re.IGNORECASE)
    made = re.match(rf"^\s*how\s+much\s+(?P<x>[\w\s-]{{1,40}}?)\s+(?:did|does|do|will|would)\s+(?P<s>.+?)\s+"
                    rf"(?P<v>{_words_of(list(OUTPUT_VERBS))})\b(?P<rest>.*)$", text, re.IGNORECASE)
    if made is not None and m.named(made.group("x")) is None and \
            not re.match(r"\s*(?:from|by|through|out\s+of)\b", made.group("rest"), re.IGNORECASE):
        # "how much barley did A produce": the barley production of A ("how much FCF did A generate" asks for the
        # measure itself, which the catalogue names; "how much cash did A generate from operations" the cash from them)
        text = f"What was {made.group('x')} {OUTPUT_VERBS[made.group('v').lower()]} in {made.group('s')}{made.group('rest')}"
    top_doing = re.match(r"^\s*(?:the\s+)?(?P<dir>top|leading|biggest|largest)\s+(?P<x>[\w-]+(?:\s+[\w-]+)?)[\s-]+(?P<v>[a-z]{3,}ing)\s+"
                         r"(?P<n>[a-z-]+)\b(?P<rest>.*)$", text, re.IGNORECASE)
    if top_doing is not None:  # "top oat growing region": which region grew the most oats
        text = (f"Which {top_doing.group('n')} {top_doing.group('v')[:-3]}ed the most {top_doing.group('x')}"
                f"{top_doing.group('rest')}")
    top = _TOP_BY.match(text)
    if top is not None:
        k = f" {top.group('k')}" if top.group("k") else ""
        most = "highest" if top.group("dir").lower() == "top" else "lowest"
        text = f"Which{k} {top.group('g')} had the {most} {top.group('t')}{top.group('end')}"
    at = _WHICH_DID_AT.match(text)
    if at is not None:
        text = f"{at.group('p').capitalize()} which {at.group('n')} {at.group('q')}{at.group('end')}"
    # "what companies filed ...": "what" asks for rows as "which" does where the noun is a kind of row
    text = re.sub(rf"^(\s*)what(?=\s+(?:[\w-]+\s+)?{_LABEL_NOUN}\s+[a-z]{{3,}}ed\b)", r"\1Which", text, flags=re.IGNORECASE)
    did = _WHICH_DID.match(text)
    if did is not None and not _ONE_OF.search(text) and not _THRESHOLD.search(text):
        text = f"List the {did.group('n')} that {did.group('v')} {did.group('rest')}{did.group('end')}"
    return text


_MEASURE_OF_HOW = {"far": "distance", "tall": "height", "heavy": "weight", "old": "age", "deep": "depth", "wide": "width"}
"""What "how <adjective>" asks: "how far" asks a distance, "how heavy" a weight."""
_HOW_MEASURED = re.compile(rf"^\s*how\s+(?P<adj>{'|'.join(_MEASURE_OF_HOW)})\s+(?:away\s+)?"
                           r"(?:(?P<from>(?:from|away\s+from)\s+[^?]+?)\s+)?"
                           r"(?P<aux>is|are|was|were)\s+(?P<x>[^?]+?)(?=\s*\?|\s*$)", re.IGNORECASE)
COMPARATIVE_MEASURES: dict[str, tuple[str, bool]] = {
    "farther": ("distance", True), "further": ("distance", True), "closer": ("distance", False),
    "nearer": ("distance", False), "faster": ("speed", True), "quicker": ("speed", True), "slower": ("speed", False),
    "older": ("age", True), "younger": ("age", False), "heavier": ("weight", True), "lighter": ("weight", False),
    "taller": ("height", True), "longer": ("length", True), "wider": ("width", True), "narrower": ("width", False),
    "deeper": ("depth", True), "shallower": ("depth", False), "cheaper": ("price", False), "dearer": ("price", True),
    "hotter": ("temperature", True), "warmer": ("temperature", True), "colder": ("temperature", False)}
"""What a comparative with a bound measures, and whether it keeps what is above the bound ("nearer than 8": a
distance below 8; "quicker than 30": a speed above it)."""
_HAVE_FOR = {"are": "have", "is": "has", "be": "have", "lie": "have", "lies": "has", "move": "have", "moves": "has",
             "travel": "have", "travels": "has", "was": "had", "were": "had", "lay": "had", "moved": "had",
             "travelled": "had", "traveled": "had"}
"""The verb a comparative's bound is said with, as "have" ("are closer than": have a distance below); a participle
("drifting quicker than") reads "with"."""
_COMPARED_BY_ADJECTIVE = re.compile(
    r"(?P<verb>\b(?:are|is|was|were|be|lie|lies|lay|located|situated|move|moves|moved|travel(?:s|l?ed)?|[a-z]{3,}ing)\s+)?"
    rf"\b(?P<adj>{'|'.join(COMPARATIVE_MEASURES)})\s+than\s+(?=[-\u2212+$\u20ac\u00a3]?\d)", re.IGNORECASE)


def _retold(text: str) -> str:
    """The frames people type retold in the frames the grammar reads: "y/y" is "year-over-year" (and after a verb
    of change, the change from the year before, which the verb already says); "X rose how much" is "how much did X
    rise"; "did X rise or fall ..., and by how much" asks for X's change; "how much more did A spend on X than on
    Y" asks how much more X was than Y."""
    text = _SHORT_YEAR_ON_YEAR.sub("year-over-year", text)
    text = _TICKER_SAID.sub("", text)  # "3M (NYSE: MMM)": the listing, no word of the question
    text = re.sub(r"\b((?:FY\s?'?)?(?:19|20)\d\d)[AE]\b", r"\1", text)  # "FY2021A" (actual), "2024E" (estimate)
    text = _NUMERIC_DATE.sub(lambda g: f"{_MONTH_NAMES[int(g.group('m')) - 1]} {int(g.group('d'))}, {g.group('y')}"
                             if 1 <= int(g.group("m")) <= 12 else g.group(0), text)
    text = _WANT_SAID.sub(lambda g: "What was ", text)  # "As an analyst ..., I need X": what was X
    # "more than a 4x gain": a gain of more than 4 (a multiple, as a column of them prints it: "4.10x")
    text = re.sub(r"\b(?P<cmp>(?:more|less|greater|higher|lower|bigger|smaller)\s+than)\s+an?\s+(?P<n>\d+(?:\.\d+)?)\s*[x\u00d7]\s+"
                  r"(?P<what>[a-z-]+)\b", r"a \g<what> of \g<cmp> \g<n>", text, flags=re.IGNORECASE)
    # ("4x", "4.1x", "a multiple of 4 x.", not "365 x mean payables": a product)
    text = re.sub(r"(?<=\d)(?:[x\u00d7](?=\s|[?.,;]|$)|\s[x\u00d7](?=\s*(?:[?.,;]|$)))", "", text)
    # "the most distant stations": the farthest; "nearer than 8", "drifting quicker than 30": a distance below 8, a
    # speed above 30
    text = re.sub(r"\b(?P<m>most|least)\s+distant\b", lambda g: "farthest" if g.group("m").lower() == "most" else "closest",
                  text, flags=re.IGNORECASE)
    text = _COMPARED_BY_ADJECTIVE.sub(lambda g: f"{_HAVE_FOR.get((g.group('verb') or '').strip().lower(), 'with')} a "
                                      f"{COMPARATIVE_MEASURES[g.group('adj').lower()][0]} "
                                      f"{'above' if COMPARATIVE_MEASURES[g.group('adj').lower()][1] else 'below'} ", text)
    # "how far is X from Y": the distance of X from Y; "how tall was X": its height
    text = _HOW_MEASURED.sub(lambda g: f"What {g.group('aux')} the {_MEASURE_OF_HOW[g.group('adj').lower()]} of "
                             f"{g.group('x')}{(' ' + g.group('from')) if g.group('from') else ''}", text)
    text = _ANNUALISED.sub("compound annual growth rate of ", text)
    text = re.sub(r"\bat\s+the\s+close\s+of\b", "at the end of", text, flags=re.IGNORECASE)
    text = re.sub(r"(\b(?:what|how\s+much)\s+(?:was|were|is|are)\s+[^?]+?)\s+worth\b", r"\1", text,
                  flags=re.IGNORECASE)  # "what were inventories worth at ...": the balance of inventories
    if re.search(r"\bcompound\s+annual\s+growth\b|\bcagr\b", text, re.IGNORECASE):
        text = re.sub(r"\s*\(\s*compound(?:ed)?\s*\)", "", text, flags=re.IGNORECASE)
    text = re.sub(r"\bincl\.?(?=\s)", "including", re.sub(r"\bexcl\.?(?=\s)", "excluding", text, flags=re.IGNORECASE),
                  flags=re.IGNORECASE)
    if not re.search(r"[=(]", text):  # "cash + short-term investments": arithmetic between lines, said in symbols
        text = re.sub(r"(?<=[A-Za-z])\s+\+\s+(?=[A-Za-z])", " plus ", text)
    text = re.sub(r"(^|[:,]\s+)(\s*(?:what|which)\s+)%(?=\s+of\b)", r"\1\2percentage", text,
                  flags=re.IGNORECASE)  # "what % of X ...", also after a headline or the line it is of
    if re.search(r"\b(?:share|percent(?:age)?|proportion|fraction|portion)\s+of\b", text, re.IGNORECASE):
        text = _FORESEEN_SHARE.sub(lambda g: ("came " if (g.group("v") or g.group("v2")).lower().startswith("c") else "went ")
                                   + (g.group("p") or g.group("p2")).lower(), text)
    asked, mark, after = text.partition("?")  # ("... come under Repairs? Round to 1 decimal.": the question is the frame's)
    taken = _SHARE_TAKEN.match(asked + mark)
    if taken is not None:
        part = taken.group("y") or taken.group("y2") or taken.group("y3") or taken.group("y4")
        whole = taken.group("x") or taken.group("x3") or taken.group("x4")
        rest = taken.group("rest") or taken.group("rest3") or taken.group("rest4") or ""
        when = re.search(r"\s+(?:on\s+average\s+)?(?:in|for|during|over|across|between|from)\s+(?:the\s+)?"
                         r"(?:fiscal\s+(?:years?\s+)?|FY\s?'?)?\d{2,4}\b.*$", part)
        if when is not None:  # the period after the part is the whole's too: said last
            part = part[: when.start()]
        lead = taken.group("lead") or taken.group("lead3") or ""
        text = f"{lead}What was {part} as a percentage of {whole}{when.group(0) if when else ''}{rest}{after}"
    made = _MADE_FROM.match(text)
    if made is not None:  # "how much cash did A generate from operations ...": the cash from operations
        owner = made.group("s").strip()
        owner = "" if owner.lower() in ("it", "they", "the company", "we") else f"{owner}'s "
        text = f"What was {owner}{made.group('x')} {made.group('p').lower()} {made.group('y')}"
    text = _AFTER_OUTLAY.sub(lambda g: f"less {g.group(1)}", text)
    verb_first = _VERB_FIRST.match(text)
    if verb_first is not None and not _ASKING_START.match(verb_first.group("x")):
        text = f"How much did {verb_first.group('x')} {_BASE_VERB[verb_first.group('v').lower()]}{verb_first.group('rest')}"
    either = _EITHER_WAY.match(text)
    if either is not None:
        text = f"By how much did {either.group('x')} change{either.group('rest').rstrip(' ,')}{either.group('tail')}"
    moved = _MOVED_NOUN.match(text)
    if moved is not None:
        text = f"{moved.group('lead')}the change in {moved.group('x')}{moved.group('rest')}"
    spent = _SPENT_MORE.match(text)
    if spent is not None:
        owner = spent.group("s").strip()
        owner = owner if owner.lower() in ("it", "they", "the company") else f"{owner}'s"
        text = f"{spent.group('how')} {spent.group('cmp')} was {owner} {spent.group('x')} than {spent.group('y')}"
    return _MOVED_YEAR_ON_YEAR.sub(lambda g: g.group("v"), text)


def _sentences(text: str) -> list[str]:
    """Sentences: after a full stop before a capital, or after a question mark whatever follows ("... in FY18? answer
    in $ millions")."""
    return [s for s in re.split(r"(?<=[.!])\s+(?=[A-Z(\"'])|(?<=\?)\s+(?=\S)", text) if s.strip()]


_STRONG_ASK = re.compile(
    r"^(?:(?:what|which|how|who|whose|where|when|why)(?:'s)?\s+(?:is|was|are|were|did|does|do|has|have|had|much|many|can|"
    r"could|would|will|should|percent|percentage|proportion|portion|share|ratio|year|years|[\w'-]+\s+(?:is|was|were|are|"
    r"did|does|do|had|has))\b|(?:calculate|compute|find|give|tell|show|list|name|determine|estimate)\b|by\s+how\s+much\b"
    r"|in\s+(?:which|what)\b)", re.IGNORECASE)
"""A clause start that asks beyond doubt ("what is", "how much", "calculate"), against a lead-in that only opens with
an asking word ("When primarily referencing the income statement, what is ...")."""


def _asking_start(sentence: str) -> re.Match[str] | None:
    """Where a sentence's question starts: the last clause start that asks beyond doubt, else the first one."""
    first: re.Match[str] | None = None
    strong: re.Match[str] | None = None
    position = 0
    while (match := _ASKING_START.search(sentence, position)) is not None:
        first = first or match
        if _STRONG_ASK.match(match.group("q")):
            strong = match
        position = match.start("q") + 1
    return strong or first


def _asking_clause(sentences: Sequence[str], definitions: dict[str, str]) -> tuple[str, list[str]]:
    """The clause that asks, and the sentences (and lead-ins) said around it."""
    best: tuple[int, int, str, list[str]] | None = None
    for index, sentence in enumerate(sentences):
        if _DEFINED.search(sentence) and not sentence.rstrip().endswith("?"):
            continue
        match = _asking_start(sentence)
        if match is None:
            continue
        lead = sentence[: match.start("q")].strip(" ,:;")
        clause = match.group("q").strip()
        score = (2 if sentence.rstrip().endswith("?") else 0) + (0 if _INSTRUCTION.match(clause) else 1)
        around = [s for i, s in enumerate(sentences) if i != index] + ([lead] if lead else [])
        if best is None or score > best[0]:
            best = (score, index, clause, around)
    if best is None:
        asking = next((s for s in sentences if not _DEFINED.search(s)), sentences[0] if sentences else "")
        return asking, [s for s in sentences if s is not asking]
    return best[2], best[3]


_SETTING = re.compile(r"(?:^|\s)[A-Za-z]{1,2}\s*=\s*-?\d[\d,]*(?:\.\d+)?(?:\s+(?:for|in|with|at|under|of|on|and)\b.*)?$",
                      re.IGNORECASE)
"""A setting the question names a row by, not a definition: a symbol of a letter or two equal to a number ("the error
when m = 40", "at k = 5")."""


def _definitions(text: str) -> dict[str, str]:
    """name (lower case, and its abbreviation) -> definition in words, as the question gives them."""
    found: dict[str, str] = {}
    for match in _DEFINED.finditer(text):
        name = (match.group("a") or match.group("b") or match.group("c") or match.group("e") or "").strip()
        body = (match.group("abody") or match.group("bbody") or match.group("cbody") or match.group("ebody") or
                "").strip().rstrip(".")
        name = re.sub(r"^(?:what\s+(?:is|was|were|are)\s+)?(?:and|the|here|where|with)?\s*", "", name, flags=re.IGNORECASE)
        name = re.sub(r"\s+(?:in|for|of)\s+(?:FY\s?)?\d{4}$|\s+(?:FY\s?)?\d{4}$|^(?:FY\s?)?\d{4}\s+", "", name,
                      flags=re.IGNORECASE)
        if not name or not body or _SETTING.search(f"{name} = {body}"):
            continue
        for key in _names_of(name):
            found.setdefault(key, _full_years(body))
    for match in _DIVIDES.finditer(text):  # "where DSO divides average receivables by revenue less ...": A / (B)
        for key in _names_of(re.sub(r"^(?:where|with|and)\s+", "", match.group("n").strip(), flags=re.IGNORECASE)):
            found.setdefault(key, _full_years(f"{match.group('a').strip()} / ({match.group('b').strip()})"))
    for match in _USE_FORMULA.finditer(text):  # "Use 365 times average AP over COGS": how to compute what is asked
        if _ARITHMETIC.search(match.group("body")):
            found.setdefault("it", _full_years(match.group("body").strip().rstrip(".")))
    return found


_DIVIDES = re.compile(r"(?:^|[,;:]\s*|\b(?:where|with|and)\s+)(?P<n>[A-Za-z][\w&'-]*(?:\s+[\w&'-]+){0,3}?)\s+divides\s+"
                      r"(?P<a>[^,;.]+?)\s+by\s+(?P<b>[^,;.]+?)(?=\s*(?:[,;.?]|$))", re.IGNORECASE)
"""A definition said with a verb: "where DSO divides average receivables by revenue"."""
_NAMED_BEFORE = re.compile(r"(?:^|[,;:]\s*|\b(?:of|for|is|was|the|what|i\.e\.)\s+)(?P<name>[\w&'./ -]{2,60}?)\s*$", re.IGNORECASE)
"""The words naming what a bracketed formula defines: back from the bracket to a comma or a linking word."""
_COMMA_FORMULA = re.compile(r"^(?P<head>[^,]{3,120}?),\s+(?:i\.?e\.?,?\s+|that\s+is,?\s+|namely\s+|defined\s+as\s+|"
                            r"computed\s+as\s+|calculated\s+as\s+)?(?!(?:minus|plus|less|times|divided|over|multiplied)\b)"
                            r"(?P<body>[^,]+?)[\s?.]*$", re.IGNORECASE)
"""A measure, then how to compute it after a comma: "3M's interest coverage for 2022, EBIT divided by interest expense"."""
_USE_FORMULA = re.compile(r"(?:^|[.?;]\s+)(?:please\s+)?(?:use|using|take|give|report|compute\s+it\s+as|calculate\s+it\s+as)\s+"
                          r"(?P<body>(?:[^.?;,:(]|\([^)]*\))+)", re.IGNORECASE)
"""How to compute what is asked, said as an instruction: "Use 365 times avg AP (FY19, FY20) over COGS ..." (to the
end of its clause; commas inside brackets stay)."""
_ARITHMETIC = re.compile(r"\b(?:times|over|divided\s+by|plus|minus|less|x|adjusted\s+for)\b|[*/+]|"
                         r"\bas\s+an?\s+(?:%|percent(?:age)?|share|proportion)\s+of\b", re.IGNORECASE)


def _full_years(text: str) -> str:
    """A definition with its years written whole ("avg AP (FY19, FY20)" -> "avg AP (FY2019, FY2020)"), as the
    formula reader expects them, and without the rounding or scale asked after it ("..., 2 dp")."""
    text = _strip_instructions(text)
    out, last = [], 0
    for mention in find_periods(text):
        out.append(text[last:mention.start])
        out.append(f"FY{mention.year}" if mention.fiscal or not mention.said.isdigit() else str(mention.year))
        last = mention.end
    out.append(text[last:])
    return "".join(out)


def _names_of(name: str) -> list[str]:
    """"Days payable outstanding (DPO)" -> ["days payable outstanding (dpo)", "days payable outstanding", "dpo"]."""
    lowered = name.lower().strip()
    out = [lowered]
    abbreviation = re.search(r"\(([a-z&]{2,8})\)", lowered)
    if abbreviation:
        out.append(re.sub(r"\s*\([^)]*\)", "", lowered).strip())
        out.append(abbreviation.group(1))
    if lowered.endswith(" here"):
        out.append(lowered[: -len(" here")])
    return [o for o in out if o]


def _strip_instructions(clause: str) -> str:
    """The asking clause without the unit, scale and rounding it asks for (kept in their fields)."""
    clause = _DECIMALS.sub(" ", clause)
    clause = _SCALE_ASKED.sub(" ", clause)
    clause = _BASIS_POINTS.sub(" ", clause)
    clause = re.sub(r"\(\s*(?:in\s+)?(?:units\s+of\s+)?(?:percents?|%|percentage)\s*(?:,?\s*(?:and\s+)?)?\)", " ", clause,
                    flags=re.IGNORECASE)
    clause = re.sub(r"\(\s*(?:as\s+a\s+)?(?:%|percent(?:age)?)\s*\)", " ", clause, flags=re.IGNORECASE)
    clause = re.sub(r"\(\s*(?:and\s+)?\)", " ", clause)
    clause = re.sub(r",\s*%\s*(?=[?.!]?\s*$)", " ", clause)  # "revenue growth in 2022, %?"
    clause = re.sub(r"\b(?:in|as\s+a)\s+(?:units\s+of\s+)?(?:percents?|%)(?=\s*(?:\?|$|,|\band\b))", " ", clause,
                    flags=re.IGNORECASE)
    return " ".join(clause.split()).strip(" ,;")


_YEARS_ONLY = re.compile(r"(?:FY\s?'?)?\d{2,4}\s*(?:-|\u2013|to|through)\s*(?:FY\s?'?)?\d{2,4}", re.IGNORECASE)
_DATE_AFTER = re.compile(r"(?:\s+(?:at|as\s+of|on|for|in|ended|ending)(?:\s+the)?(?:\s+end\s+of)?(?:\s+the)?"
                         r"(?:\s+(?:fiscal|financial))?(?:\s+year(?:\s+end(?:ed|ing)?)?)?)?\s+(?:[A-Za-z]{3,9}\.?\s+\d{1,2},?\s+)?(?:FY\s?'?)?"
                         r"\d{2,4}$", re.IGNORECASE)
"""A date or year said after a measure's name ("debt to equity at May 31, 2021"): not part of the name."""
_PERIOD_END_SAID = re.compile(r"\s+(?:at|as\s+of)\s+(?:the\s+)?(?:end\s+of\s+(?:the\s+)?)?(?:fiscal\s+)?(?:year|FY\s?\d{2,4}|"
                              r"(?:19|20)\d\d)(?:[\s-]+end)?$", re.IGNORECASE)


def _without_asides(clause: str) -> tuple[str, list[str]]:
    """Asides in brackets that say how (``notes``: "(using total cash dividends paid ...)"), taken out; a
    bracket that is part of a name ("Other income (expense), net", "(DPO)") stays."""
    notes: list[str] = []

    def aside(match: re.Match[str]) -> str:
        inner = match.group(1).strip()
        if re.search(r"(?:[-+*/\u00d7]|\b(?:divided\s+by|times|multiplied\s+by|plus|minus|less|over|x))\s*$",
                     clause[: match.start()], re.IGNORECASE):
            return match.group(0)  # "A / (B + C)": a bracket after an operator is an operand of the formula
        if _YEARS_ONLY.fullmatch(inner):
            return f" {inner}"  # "(FY2019-FY2021)": the years the measure is asked for, said in brackets
        equals = re.match(r"^(?P<n>[A-Za-z][\w&' .-]{0,40}?)\s*=\s*(?P<b>.+)$", inner)
        if equals is not None:  # "(EBITDA = operating profit + D&A)": a definition of its own
            notes.append(f"= {equals.group('n').strip()} = {equals.group('b').strip()}")
            return " "
        if _ARITHMETIC.search(inner) and len(inner.split()) >= 3:  # "free cash flow (CFO minus capex)"
            before = _NAMED_BEFORE.search(_DATE_AFTER.sub("", clause[: match.start()]))
            named = _plain(re.sub(r"\s+(?:in|for|during|of)\s+(?:fiscal\s+(?:year\s+)?|FY\s?)?\d{2,4}$|\s+(?:FY\s?)?\d{2,4}$", "",
                                  before.group("name"))) if before else ""
            notes.append(f"= {named} = {inner}")
            return " "
        if _AFTER_A_PERIOD.search(clause[: match.start()]) and len(inner.split()) > 1:
            notes.append(inner)
            return " "
        if re.match(r"^(?:using|based\s+on|from|as\s+reported|as\s+shown|i\.e\.|e\.g\.|excluding|including|see|which|"
                     r"that|or\s+exact|rounded|answer|expressed|in\s+the|per\s+the|according|"
                     r"(?:on\s+)?(?:an?\s+)?(?:average|avg\.?|year[\s-]+end|ending|closing|opening)\b)", inner, re.IGNORECASE) \
                or len(inner.split()) > 6:
            notes.append(inner)  # "(using ...)", "(average equity)": how, not what
            return " "
        return match.group(0)
    clause = _PARENTHESES.sub(aside, clause)
    # ", using average total assets" after what is asked: how to compute it, said as a clause of its own
    method = re.search(r",\s*(?P<how>(?:using|based\s+on|taking|with)\s+(?:the\s+)?(?:an?\s+)?(?:average|avg\.?|year[\s-]+end|"
                       r"ending|closing|opening)\b[^,;?]*)\s*(?=[?.]?\s*$)", clause, re.IGNORECASE)
    if method is not None:
        notes.append(method.group("how").strip())
        clause = clause[: method.start()]
    return " ".join(clause.split()), notes


def _scale(text: str) -> str:
    match = _SCALE_ASKED.search(text)
    if match is None:
        return ""
    word = (match.group("scale") or match.group("scale2") or match.group("scale3") or match.group("scale4") or "").lower()
    return {"k": "thousand", "mn": "million", "m": "million", "bn": "billion", "b": "billion"}.get(word, word.rstrip("s"))


def _decimals(text: str) -> int | None:
    match = _DECIMALS.search(text)
    if match is None:
        return None
    if match.group("whole"):
        return 0
    word = (match.group("n") or match.group("places") or "").lower()
    return int(word) if word.isdigit() else _NUMBER_WORDS.get(word)


def _issuer(text: str, issuers: Sequence[str]) -> str:
    """The company or body the text names: one the library knows, else a capitalised name in a possessive
    ("Nike's") or after a closing "for"/"of" ("... for Best Buy")."""
    lowered = text.lower()
    for name in sorted(issuers, key=len, reverse=True):
        # (a name said after "per", "each" or an article is a common noun: "per harbour" beside a "Harbour Office")
        if name and re.search(rf"(?<![\w])(?<!\bper )(?<!\beach )(?<!\bevery )(?<!\ba )(?<!\ban )"
                              rf"{re.escape(name.lower())}(?![\w])", lowered):
            return name
    ticker = re.match(r"^\s*([A-Z]{2,5})\s+(?=\S)", text)
    if ticker and not _NOT_A_NAME.match(ticker.group(1)) and ticker.group(1) not in ("WHAT", "HOW", "THE", "IS", "DID"):
        return ticker.group(1)
    for ticker in re.findall(r"\b(?:did|does|do|has|have|had|will|would|was|is)\s+([A-Z]{2,5})\s+(?=[a-z])", text):
        # "how much FCF did GIS generate": a ticker in the subject's place
        if not _NOT_A_NAME.match(ticker) and m.named(ticker) is None and ticker not in ("I", "A", "THE", "WHAT", "HOW"):
            return ticker
    possessive = _POSSESSIVE_NAME.search(text)
    if possessive and not re.match(r"(?:What|Which|How|Is|Was|The|It|This|That|Company|Group)['\u2019]s$",
                                   possessive.group(0)):
        return possessive.group(0)[:-2]
    trailing = _FOR_NAME.search(text.rstrip(" ?."))
    if trailing and _looks_like_company(trailing.group("name")):
        return trailing.group("name")
    return ""


_COMPANY_WORDS = re.compile(r"\b(?:inc|incorporated|corp|corporation|co|company|plc|ltd|limited|llc|lp|ag|sa|nv|se|group|"
                            r"holdings)\b\.?$", re.IGNORECASE)
_NOT_A_NAME = re.compile(r"^(?:FY\s?)?\d{2,4}$|^Q[1-4]$|^(?:US|USD|GAAP|EBITDA|EBIT|COGS|SG&A|R&D|PP&E|D&A|FCF|CCC|DPO|DSO|DIO|"
                         r"ROE|ROA|EPS|CAGR|YOY|TTM|LTM)$"
                         # regions reports break their figures into ("net sales for EMEA"): a segment, no issuer
                         r"|^(?:EMEA|APAC|APJ|APJC|JAPAC|LATAM|AMER|AMERICAS|NA|EU|UK|ROW|MEA|CEE|ANZ)$", re.IGNORECASE)


def _looks_like_company(name: str) -> bool:
    """A name after a closing "for" that reads as a company's, not a line's ("3M", "MMM", "Acme Corp"; not
    "Cloud Services", which may be a segment): a legal suffix, or a ticker-like token."""
    if _NOT_A_NAME.match(name):
        return False
    return bool(_COMPANY_WORDS.search(name)) or bool(re.fullmatch(r"[A-Z0-9][A-Z0-9&.]{1,5}", name))


def _without_issuer(text: str, issuer: str) -> str:
    """The text without the issuer it names, with the preposition that introduced it ("... for Best Buy")."""
    if not issuer:
        return text
    legal = r"(?:,?\s+(?:inc|incorporated|corp|corporation|co|company|plc|ltd|limited|llc|group|holdings)\b\.?)?"
    name = re.escape(issuer) + legal
    text = re.sub(rf"(?<!\w){name}(?:'s|\u2019s|(?<=s)'|(?<=s)\u2019)(?!\w)", " ", text, flags=re.IGNORECASE)  # "of Nike's X"
    text = re.sub(rf"(?:\s+(?:for|of|at|by|from)\s+(?:the\s+)?)?(?<!\w){name}(?!\w)", " ", text, flags=re.IGNORECASE)
    return " ".join(text.split())


def _mark_periods(text: str, periods: Sequence[PeriodMention]) -> str:
    out, last = [], 0
    for index, period in enumerate(periods):
        out.append(text[last:period.start])
        out.append(PERIOD.format(index))
        last = period.end
    out.append(text[last:])
    return "".join(out)


def _unmark(text: str, periods: Sequence[PeriodMention]) -> str:
    return " ".join(re.sub(_P, lambda g: periods[int(g.group(1))].said, text).split())


def _frame(marked: str) -> tuple[str, bool, str]:
    """The answer kind the asking clause's frame settles (or "" when it leaves it to the measure), whether it
    wants several parts, and the frame's name."""
    for kind, pattern in _FRAMES:
        if pattern.search(marked):
            if kind == "count_periods":
                return kinds.COUNT, False, kind
            if kind == "count_rows":
                return kinds.COUNT, False, kind
            if kind == "share_rows":
                return kinds.COMPUTED, False, kind
            if kind == kinds.COLUMN_HEADERS:
                several = bool(_SEVERAL.search(marked.split("?")[0][:60])) and not _ONE_OF.search(marked)
                return kinds.COLUMN_HEADERS, several, kind
            if kind == kinds.FIGURES:
                return kinds.FIGURES, True, kind
            if kind == "labels":
                several = not _ONE_OF.search(marked) or bool(_TOP_K.search(marked))
                return kinds.ROW_LABELS, several, kind
            return kind, False, kind
    return "", False, ""


_HAD_A = r"an?\s+(?:(?!(?:higher|lower|larger|smaller|bigger|greater)\b)[a-z]+\s+)?"
"""The article before a sign word, with one word between ("a loss", "a rice deficit", not "a larger deficit")."""


_FALL_VERBS = r"fell|fall|falls|fallen|declined?|declines|decreased?|decreases|drop(?:ped|s)?|shr[iau]nk|reduced?|worsened"
_RISE_VERBS = r"grew|grow|grows|grown|rose|rise|rises|risen|increased?|increases|improved?|improves"
"""Verbs that say a figure went down or up (alternations for a criterion's direction)."""


def _criterion(marked: str) -> Criterion:
    text = re.sub(_P, " ", marked)
    threshold = re.search(
        r"\b(?P<dir>" + BOUND_WORDS + r")\s*"
        r"(?:[$\u20ac\u00a3\u00a5]|US\$|rs\.?)?\s*(?P<n>-?\d[\d,]*(?:\.\d+)?)\s*(?P<unit>%|percent|thousands?|millions?|"
        r"billions?|(?<=\d)(?:k|m|bn)(?![a-z]))?", text, re.IGNORECASE) or _OR_MORE.search(text)
    if threshold is not None:
        # "more than 20%", "at least 5k"; "100 kg a year or more", "60% or above": the threshold said after its figure
        unit = (threshold.group("unit") or "").lower()
        scale = "%" if unit in ("%", "percent") else {"k": "thousand", "m": "million", "bn": "billion"}.get(unit, unit.rstrip("s"))
        below = re.match(r"less|lower|below|under|smaller|fewer|at\s+most", threshold.group("dir"), re.IGNORECASE)
        return Criterion("below" if below else "above", float(threshold.group("n").replace(",", "")), scale)
    equal = _EQUAL.search(text)
    if equal is not None:
        # "which depots had a backlog of zero", "with a delay rate of 4.5%": the rows holding that figure exactly
        said = equal.group("n").lower()
        figure = 0.0 if said in ("zero", "nil") else float(said.replace(",", ""))
        return Criterion("equal", figure, "%" if equal.group("unit") else "")
    counted = _EQUAL_COUNT.search(text)
    if counted is not None and not re.match(r"\s*[a-z-]+\s+or\s+(?:more|less|fewer|above|below|over|under)\b",
                                            text[counted.end():], re.IGNORECASE):
        said = counted.group("n").lower().replace(",", "")
        noun = re.match(r"\s*([a-z][a-z-]+)", text[counted.end():], re.IGNORECASE)
        return Criterion("equal", float(said) if said.isdigit() else float(_NUMBER_WORDS[said]), "",
                         noun.group(1) if noun else "")
    versus = VERSUS.search(text) if _ROWS_ASKED.match(text) else None
    if versus is not None:
        # "which complaints did fewer girls than boys report": each row's figure against its other one
        above = versus.group("cmp").lower() in ("more", "higher", "greater", "larger", "bigger")
        return Criterion(VERSUS_KINDS[0] if above else VERSUS_KINDS[1])
    text = _BOUND.sub(" ", text)
    if re.search(rf"\b(negative|{_HAD_A}(?:loss|deficit)|in\s+deficit|below\s+zero)\b", text, re.IGNORECASE):
        return Criterion("negative")
    if re.search(rf"\b(positive|{_HAD_A}(?:profit|gain|surplus)|in\s+surplus|above\s+zero)\b", text, re.IGNORECASE):
        return Criterion("positive")
    # a superlative says the direction over a comparative printed in a name ("the highest share with at most lower
    # secondary education")
    lowest = re.search(r"\b(?:lowest|smallest|(?<!at\s)least|fewest|minimum)\b", text, re.IGNORECASE)
    highest = re.search(r"\b(?:highest|largest|greatest|(?<!at\s)most|biggest|maximum)\b", text, re.IGNORECASE)
    moved = re.search(rf"\b(?:{_FALL_VERBS}|{_RISE_VERBS})\b", text, re.IGNORECASE)  # ("fell the most": the verb's way)
    if bool(lowest) != bool(highest) and not moved:
        return Criterion("min" if lowest else "max")
    if re.search(rf"\b(lower|lowest|smaller|smallest|less|least|fewer|fewest|minimum|min|bottom|{_FALL_VERBS})\b", text,
                 re.IGNORECASE):
        return Criterion("min")
    if re.search(rf"\b(higher|highest|larger|largest|greater|greatest|more|most|bigger|biggest|maximum|max|peak|top|"
                 rf"{_RISE_VERBS})\b", text, re.IGNORECASE):
        return Criterion("max")
    return Criterion()


_FALL = re.compile(r"\b(?:fall|fell|fallen|decrease[sd]?|decline[sd]?|drop(?:ped)?|shr[iau]nk|go\s+down|went\s+down|"
                   r"lose|lost|reduc(?:e|ed|tion))\b", re.IGNORECASE)


def asks_fall(reading: QuestionReading) -> bool:
    """"By how much did X fall": the question names the direction down, so the amount it fell by is the answer
    (7.7, not -7.7). "The increase/(decrease) in X" names both directions, and asks the signed change."""
    return bool(_FALL.search(reading.text)) and not _RISE.search(reading.text)


_RISE = re.compile(r"\b(?:increase[sd]?|rise|rose|risen|grow|grew|grown|gain(?:ed)?|go\s+up|went\s+up)\b\s*(?:/|or\b|and\b)",
                   re.IGNORECASE)
"""A rise said as one of two directions ("increase/(decrease)", "increase or decrease")."""


def _final_kind(kind: str, several: bool, measure: Measure | None, query: TableQuery | None,
                marked: str) -> tuple[str, bool]:
    if kind:
        return kind, several
    if query is not None:
        return (kinds.COMPUTED if query.operation not in ("lookup", "how_many") else kinds.LOOKUP), False
    if measure is None:
        return kinds.LOOKUP, False
    return (kinds.LOOKUP if measure.op == m.LINE else kinds.COMPUTED), False


# -- the measure -----------------------------------------------------------------------------------------------


def _measure_of(marked: str, kind: str, frame: str, periods: Sequence[PeriodMention],
                definitions: dict[str, str]) -> tuple[Measure | None, TableQuery | None, str]:
    """The measure the asking clause names (a tree), a query over a table's rows where it asks for one, and the
    phrase it named the measure by."""
    clause = re.split(r",?\s+and\s+(?=(?:what|why|how|which|who|when|where)\b)", marked.rstrip(" ?.!,;:"), maxsplit=1,
                      flags=re.IGNORECASE)[0]  # "how did X develop, and what explains it": the first question
    compared = _HOW_MUCH_MORE.search(clause)
    if compared is not None:
        x = compared.group("x") or compared.group("x2") or compared.group("x3") or compared.group("x4") or \
            compared.group("a") or compared.group("x5")
        y = compared.group("y") or compared.group("y2") or compared.group("y3") or compared.group("y4") or \
            compared.group("b") or compared.group("y5")
        y = _like_the_first(x, y)
        left, right = _phrase(x, periods, definitions), _phrase(y, periods, definitions)
        left, right = _share_periods(left, right)
        less = (compared.group("cmp") or compared.group("cmp2") or compared.group("cmp3") or "").lower() in (
            "less", "lower", "smaller", "fewer", "below", "under", "behind")
        parts = (right, left) if less else (left, right)
        measure = Measure(m.GAP if _same_line(left, right) else m.DIFFERENCE, parts=parts, periods=_years_of(left, right))
        return _defining(measure, definitions), None, f"{x} than {y}"
    moved = _HOW_MUCH_CHANGE.search(clause)
    if moved is not None:
        x = moved.group("x") or moved.group("x2")
        tail = moved.group("tail") or moved.group("tail2") or ""
        percent = bool(re.search(r"percent|%", clause[: moved.start("x") if moved.group("x") else 0] + tail, re.IGNORECASE)) \
            and not re.search(r"points?", clause, re.IGNORECASE)
        inner, years = _periods_tail(f"{x} {tail}", periods)
        measure = Measure(m.PERCENT_CHANGE if percent else m.CHANGE, parts=(_phrase(inner, periods, definitions),),
                          periods=years, said="")
        return measure, None, inner
    times = _TIMES_COVER.search(clause) or _PER_DOLLAR.search(clause)
    if times is not None:
        x, y = times.group("x"), times.group("y")
        inner_y, years = _periods_tail(y, periods)
        right = _with_periods(_phrase(inner_y, periods, definitions), years)
        between = clause[times.end("x"): times.start("y")]  # "... did Lockheed make in 2020 per dollar of ..."
        left = _with_periods(_phrase(x, periods, definitions),
                             tuple(periods[int(i)].year for i in re.findall(_P, between)))
        left, right = _share_periods(left, right)
        return _defining(Measure(m.RATIO, parts=(left, right)), definitions), None, f"{x} to {inner_y}"
    fast = _HOW_FAST.search(clause)
    if fast is not None:
        inner, years = _periods_tail(fast.group("x") + " " + fast.group("tail"), periods)
        inner = re.sub(r"\s*,?\s*(?:per\s+year|a\s+year|annually|each\s+year|compounded|on\s+average)\b,?", " ", inner,
                       flags=re.IGNORECASE).strip(" ,")
        compound = re.search(r"compound|per\s+year|a\s+year|annual|each\s+year", fast.group("tail"), re.IGNORECASE)
        op = m.CAGR if compound else m.PERCENT_CHANGE
        return Measure(op, parts=(_phrase(inner, periods, definitions),), periods=years), None, inner
    had = _HOW_MUCH_HAVE.search(clause) if not kind else None
    if had is not None:
        x = had.group("x") or had.group("x2")
        measure, said = _parse(f"{x} {had.group('tail') or ''}", periods, definitions)
        # "how many items does Carrefour carry": over a table's rows, a count column of the row named
        many = re.match(r"^\s*how\s+many\b", clause, re.IGNORECASE)
        return measure, (_query(clause, kind, frame) if many else None), said
    clause = _STATEMENT_SAID.sub(lambda g: f" in {g.group('p')}" if g.group("p") else " ", clause)
    body = _LEAD.sub("", clause, count=1).strip()
    body = re.sub(r"\brespective(?:ly)?\b\s*", "", body, flags=re.IGNORECASE).strip()
    body = _FIGURES_OF.sub(lambda g: f"{g.group('x') or g.group('x2')} in {g.group('ps') or g.group('ps2')}", body)
    if kind == kinds.COUNT and frame == "count_rows" or frame == "share_rows" or kind == kinds.ROW_LABELS:
        return None, _query(clause, kind, frame), body
    if kind in (kinds.COLUMN_HEADERS, kinds.COUNT, kinds.YES_NO):
        query = _query(clause, kinds.ROW_LABELS, frame) if kind == kinds.COLUMN_HEADERS else None
        # "In which year was X highest?", "How many years did X exceed 5,000?", "Did X rise in 2019?": the
        # line these read is what is left once the frame, the criterion and the periods are taken out.
        subject = _criterion_free(_frame_free(clause))
        inner = re.sub(rf"(?:\b(?:in|for|during|from|to|than|between|and|or|as\s+of|at|of|on|by|vs\.?|versus|over)\s+)*{_P}",
                       " ", subject, flags=re.IGNORECASE)
        inner = " ".join(inner.split()).strip(" ,")
        return (_phrase(inner, periods, definitions) if inner.strip() else None), query, inner
    if re.match(r"^\s*how\s+many\b", clause, re.IGNORECASE):
        query = _query(clause, kind, frame)
        inner, years = _periods_tail(body, periods)
        # "how many options were granted": the line is "options granted", as a statement of changes labels it
        inner = re.sub(r"^(?P<n>[\w-]+(?:\s+[\w-]+)?)\s+(?:were|was|are|is|have\s+been|has\s+been|had\s+been)\s+"
                       r"(?=[\w-]+(?:ed|en|ld|wn|ne)\b)", r"\g<n> ", inner, flags=re.IGNORECASE)
        return _with_periods(_phrase(inner, periods, definitions), years), query, inner
    measure, said = _parse(body, periods, definitions)
    named = _TRAILING_NAME.search(body)
    if named is not None and measure.op == m.LINE:
        # "the EBITDA % margin of Acme in 2021": a name the library does not know, after a measure the grammar
        # composes without it, is whose measure it is, not part of a line's name.
        without, said_without = _parse(body[: named.start()] + named.group("rest"), periods, definitions)
        if without.op != m.LINE:
            measure, said = without, said_without
    return _defining(measure, definitions), None, said


def _defining(measure: Measure, definitions: dict[str, str]) -> Measure:
    """A question that gives a definition asks for what it defines, though it names it in other words ("how much
    was spent per resident", defining "spending per resident"; "by how much did X exceed its budget", defining the
    overspend): the first definition, for the periods asked."""
    if not definitions or any(leaf.op == m.DEFINED for leaf in measure.leaves()):
        return measure
    if "it" in definitions:  # "Use 365 times average AP over COGS": how to compute what is asked, whatever it is
        return Measure(m.DEFINED, measure.said or "it", body=definitions["it"], said=measure.said,
                       periods=measure.periods or next((leaf.periods for leaf in measure.leaves() if leaf.periods), ()))
    if measure.op == m.NAMED and (own := _own_definition(measure.words, definitions)) is not None:
        # "ROA (net earnings / total assets)": the question's definition of a catalogue measure, not the textbook's
        return Measure(m.DEFINED, measure.words, body=own, said=measure.said, periods=measure.periods)
    if any(leaf.op == m.NAMED for leaf in measure.leaves()):
        return measure  # a catalogue measure whose parts the question defines ("CCC; DPO = ..."): they feed it
    # the definition no other one uses: "operating margin (EBIT / revenues), where EBIT = ..." defines the margin
    top = [(n, b) for n, b in definitions.items() if n != "it" and not any(
        re.search(rf"(?<![\w&]){re.escape(n)}(?![\w&])", other, re.IGNORECASE) for k, other in definitions.items() if k != n)]
    name, body = top[0] if top else next(iter(definitions.items()))
    periods = measure.periods or next((leaf.periods for leaf in measure.leaves() if leaf.periods), ())
    return Measure(m.DEFINED, name, body=body, said=measure.said, periods=periods)


def _own_definition(name: str, definitions: dict[str, str]) -> str | None:
    """The body of a definition the question gives of the catalogue measure ``name``, named by any of its names at
    the end of the definition's name ("acme dividend payout ratio", "the roa"), else None."""
    return next((body for key, body in definitions.items() if m.named_at_end(key) == name), None)


def _frame_free(clause: str) -> str:
    text = re.sub(rf"^\s*(?:in|for|during|on|at|of)?\s*(?:which|what)\s+(?:of\s+the\s+)?{_TIME}\s*(?:(?:is|was|are|were|"
                  rf"did|does|do|has|have|had)\s+)?", "", clause, flags=re.IGNORECASE)
    text = re.sub(rf"^\s*(?:in\s+)?how\s+many\s+{_OF_THE_TIMES}\s+(?:(?:is|was|are|were|did|does|do|has|have|had)\s+)?", "", text,
                  flags=re.IGNORECASE)
    text = re.sub(r"^\s*when\s+(?:was|were|did)\s+", "", text, flags=re.IGNORECASE)
    text = re.sub(r"^\s*(?:is|are|was|were|does|do|did|has|have|had)\s+", "", text, flags=re.IGNORECASE)
    return text


def _criterion_free(text: str) -> str:
    # (with its unit: "%", "thousand", "pg/L", "mm/day")
    text = re.sub(r"\b(?:" + BOUND_WORDS + r")\s*(?:[$\u20ac\u00a3\u00a5]|"
                  r"US\$|rs\.?)?\s*-?\d[\d,]*(?:\.\d+)?\s*(?:%|percent|thousands?|millions?|billions?|(?<=\d)(?:k|m|bn)(?![a-z])|"
                  r"[^\W\d_]{1,5}/[^\W\d_]{1,5}\b)?",
                  " ", text,
                  flags=re.IGNORECASE)
    text = _EQUAL.sub(_figure_unsaid, text)
    text = _EQUAL_COUNT.sub(lambda said: said.group(0)[: said.start("n") - said.start(0)], text)
    text = re.sub(r"\b(?:the\s+)?(?:higher|highest|larger|largest|greater|greatest|more|most|bigger|biggest|maximum|peak|"
                  r"lower|lowest|smaller|smallest|less|least|fewer|fewest|minimum|negative|positive|a\s+loss|a\s+profit|"
                  r"in\s+deficit|increase[sd]?|decrease[sd]?|rise|rose|fall|fell|grow|grew|decline[sd]?|improved?|"
                  r"than|compared\s+(?:to|with))\b", " ", text, flags=re.IGNORECASE)
    return " ".join(text.split())


_THAT_OF = re.compile(r"^(?:that|those|the\s+(?:one|figure|number|amount)s?)\s+(?P<at>in|of|for|at|from)\s+(?P<place>.+)$",
                      re.IGNORECASE)


def _like_the_first(first: str, second: str) -> str:
    """The second side of a comparison said as "that in Salem" (or "those of X"): the first side's measure, with its
    place ("in Ashland") changed for the second's; ``second`` as said otherwise."""
    alone = re.fullmatch(rf"(?:(?:in|for|during|at|as\s+of)\s+)?(?:the\s+)?(?:fiscal\s+(?:year\s+)?)?(?P<p>{_P})", second.strip(),
                         re.IGNORECASE)
    dated = re.match(rf"^(?P<what>.+?)\s+(?:in|for|during|at|as\s+of)\s+(?:the\s+)?(?:fiscal\s+(?:year\s+)?)?{_P}$",
                     first.strip(), re.IGNORECASE)
    if alone is not None and dated is not None:  # "X in 2019 than in 2018": the first side's measure in the second's year
        return f"{dated.group('what')} in {alone.group('p')}"
    one = re.fullmatch(r"(?:the\s+)?(?P<mod>[\w-]+)\s+ones?\b(?P<rest>.*)", second.strip(), re.IGNORECASE)
    words = first.strip().split()
    if one is not None and len(words) >= 2 and one.group("mod").lower() not in ("other", "same", "this", "that", "last"):
        # "the urban rate than the rural one": the first side's measure, its first word changed for the second's
        return f"{one.group('mod')} {' '.join(words[1:])}{one.group('rest')}"
    said = _THAT_OF.match(second.strip())
    if said is None:
        return second
    placed = re.match(rf"^(?P<what>.+?)\s+{said.group('at')}\s+(?P<place>[^,]+)$", first.strip(), re.IGNORECASE)
    if placed is None or bool(re.fullmatch(_P, placed.group("place").strip())) != \
            bool(re.fullmatch(_P, said.group("place").strip())):
        return second  # a period for a place, or a place for a period: not the same measure elsewhere
    return f"{placed.group('what')} {said.group('at')} {said.group('place')}"


def _figure_unsaid(said: re.Match[str]) -> str:
    """An exact figure's phrase without the figure ("had a budget of zero" -> "had a budget"): the column it names."""
    before = said.group(0)[: said.start("n") - said.start(0)]
    return re.sub(r"\s+(?:of\s+)?(?:exactly\s+|just\s+)?$|^\s*exactly\s+$", "", before, flags=re.IGNORECASE) + " "


def _query(clause: str, kind: str, frame: str) -> TableQuery:
    """A question over a table's rows: what it counts, sums or ranks, and by what."""
    text = re.sub(_P, " ", clause)
    top = _TOP_K.search(text)
    k = (top.group(1) or top.group(2)) if top else ""
    limit = int(k) if k.isdigit() else _NUMBER_WORDS.get(k.lower(), 1) if top else 1
    descending = not re.search(r"\b(lowest|smallest|least|fewest|bottom|minimum|fell|declined|decreased)\b",
                               _BOUND.sub(" ", text), re.IGNORECASE)
    ranked_by = next((SUPERLATIVE_MEASURES[w.lower()] for w in re.findall(r"[a-z]+est", text, re.IGNORECASE)
                      if w.lower() in SUPERLATIVE_MEASURES), None)
    if ranked_by is not None:  # "the warmest March minimum": the highest of the minimums, whatever noun follows
        descending = ranked_by[1]
    if kind == kinds.ROW_LABELS:
        lead = (rf"^\s*(?:(?:in|for|of|from|at|by)\s+)?(?:which|what|who|list|name)\s+(?:are\s+the\s+|were\s+the\s+|all\s+the\s+|"
                rf"of\s+the\s+|the\s+)?"
                rf"(?:top\s+)?(?:{_K}\s+)?")
        # (a second noun followed by "for" or "up" is a verb: "which categories account for ...")
        group = re.search(rf"{lead}(?P<g>(?:[\w/-]+\s+){{0,2}}?{_LABEL_NOUN}(?:\s+(?![a-z]+\s+(?:for|up)\b){_LABEL_NOUN})?)\b",
                          text, re.IGNORECASE)
        # "the 3 EU-12 towns with the most burglaries": whatever plural the ranking names, up to its "with"
        group = group or re.search(rf"{lead}(?P<g>(?:[\w/-]+\s+){{0,2}}?[\w-]+?s)\s+(?:with|by|having)\s+(?:the\s+)?"
                                   rf"(?:{_SUPERLATIVE})\b", text, re.IGNORECASE)
        # a noun phrase the list of nouns does not know ("which three French retailers had ..."): up to its verb
        group = group or re.search(rf"{lead}(?P<g>(?:[\w-]+,?\s+){{0,3}}?[\w-]+?)\s+(?:had|has|have|was|were|is|are|did|does|"
                                   rf"do|\w+ed)\b", text, re.IGNORECASE)
        group = group or re.search(rf"{lead}(?P<g>\w+)\b", text, re.IGNORECASE)
        group_words = group.group("g") if group else ""
        # "name the five largest ports by tonnage", "the three heaviest cars": so many rows ranked by what the
        # superlative says (the column after "by", else the adjective's own word)
        adjective = re.search(rf"{lead}(?!top\b|bottom\b)(?P<adj>{_SUPERLATIVE}|[a-z]{{3,}}est)\s+(?P<g>(?:[\w-]+\s+)?[a-z-]+s)\b"
                              rf"(?:\s+(?:by|in\s+terms\s+of)\s+(?:the\s+)?(?P<t>[\w\s-]+?))?\s*(?:\s+in\b.*)?$",
                              text, re.IGNORECASE) if top else None
        if adjective is not None:
            measured, largest = SUPERLATIVE_MEASURES.get(adjective.group("adj").lower(), (adjective.group("adj"), descending))
            said = adjective.group("t") or ("" if re.fullmatch(_SUPERLATIVE, adjective.group("adj"), re.IGNORECASE)
                                            else measured)
            return TableQuery("top", _clean(said), _clean(adjective.group("g")), limit,
                              descending if adjective.group("t") else largest, text)
        by = re.search(r"\b(?:top|bottom|first|last)\s+(?:\d+|two|three|four|five|ten)\s+(?P<g>[\w-]+(?:\s+[\w-]+)?)\s+(?:by|in\s+terms\s+of|"
                       r"for|with\s+the\s+(?:most|highest|largest|lowest|least))\s+(?:the\s+)?(?P<t>[\w\s-]+?)(?:\s+in\b|\s+for\b|"
                       r"\s+during\b|\?|$)", text, re.IGNORECASE)
        if by is not None:
            return TableQuery("top", _clean(by.group("t")), _clean(by.group("g")), limit, descending, text)
        ranked = re.search(rf"\b(?:{_SUPERLATIVE})\s+(?!than\b)(?:number\s+of\s+|amount\s+of\s+|total\s+)?(?P<t>[\w\s-]+?)(?:\s+in\b|\s+for\b|"
                           rf"\s+during\b|\s*[,;]|\?|$)", text, re.IGNORECASE)
        target = ranked.group("t") if ranked else ""
        if re.fullmatch(r"(?:\s*\b(?:in|or|and|than|during|for)\b)*\s*", target):
            target = ""  # "bigger in 2018 or in 2019": what is ranked is said before the comparative
        how_often = re.search(r"\b(?P<t>(?:[\w-]+\s+){1,4}?)(?:the\s+)?(?:most|least)\s+(?:often|frequently|commonly)\b", text,
                              re.IGNORECASE) if re.fullmatch(r"\s*(?:often|frequently|commonly)\s*", target) else None
        if how_often is not None:
            # "the complaints passengers reported most often": what is counted is said by the verb before it
            target = how_often.group("t")
        if not target:
            verb = re.search(r"\b(?:had|has|have|saw|received|got|recorded|reported|with)\s+(?:the\s+)?(?:\w+\s+)?"
                             rf"(?:{_SUPERLATIVE})?\s*(?P<t>[\w\s-]+?)(?:\?|$)", _criterion_free(text), re.IGNORECASE)
            target = verb.group("t") if verb else ""
        several = not _ONE_OF.search(text) or bool(top)
        # "which countries reported more than 10,000 cases": the rows past a threshold, listed, not ranked
        operation = "top" if _ONE_OF.search(text) and not _THRESHOLD.search(text) and not VERSUS.search(text) else "list"
        if several and operation == "top":
            operation = "top"
        # "list the buoys with a depth above 20", "... that have ...": the rows' noun ends before its clause
        group_words = re.sub(r"\s+(?:with|that|which|who|whose|having|where)(?:\s+(?:a|an|the))?$", "", group_words.strip(),
                             flags=re.IGNORECASE)
        return TableQuery(operation, _clean(target), _clean(group_words), limit if top else 1, descending, text)
    if frame == "share_rows":
        # "what share of the boats have ...": the rows past the bound are counted, then taken of all of them
        noun = re.search(r"\bof\s+(?:all\s+)?(?:the\s+)?(?P<n>(?:[\w-]+\s+){0,3}?[a-z-]+[^s\W]s)\b", text, re.IGNORECASE)
        return TableQuery("count", "", _clean(noun.group("n")) if noun else "", 1, True, text)
    if kind == kinds.COUNT and frame == "count_rows":
        # "in how many of the public transport items": the plural the rows are (its other words may name
        # the heading they are under)
        noun = re.search(r"\bhow\s+many\s+of\s+(?:the|these|those)\s+(?:[\w-]+\s+){0,3}?(?P<n>[a-z-]+[^s\W]s)\b", text,
                         re.IGNORECASE) or \
            re.search(r"\bhow\s+many\s+(?:different\s+|distinct\s+|separate\s+|unique\s+)?"
                      r"(?P<n>[\w-]+(?:\s+(?!(?:were|was|"
                         r"are|is|did|do|does|had|have|has|for|of|in|on|at|by|from|with|under)\b)[\w-]+)?)", text,
                         re.IGNORECASE)
        return TableQuery("count", "", _clean(noun.group("n")) if noun else "", 1, True, text)
    noun = re.search(r"\bhow\s+many\s+(?:(?:more|fewer|total|different|separate)\s+)?(?P<n>[\w-]+(?:\s+(?!(?:were|was|are|"
                     r"is|did|do|does|had|have|has|in|of|for|from|by|on|at|with|per|than|came|come|went|got|[a-z]+ed)\b)[\w-]+)?)",
                     text, re.IGNORECASE)
    target = _clean(noun.group("n")) if noun else ""
    return TableQuery("how_many", target, "", 1, True, text)


SUPERLATIVE_MEASURES: dict[str, tuple[str, bool]] = {
    "heaviest": ("weight", True), "lightest": ("weight", False), "longest": ("length", True),
    "shortest": ("length", False), "tallest": ("height", True), "fastest": ("speed", True), "slowest": ("speed", False),
    "widest": ("width", True), "narrowest": ("width", False), "deepest": ("depth", True), "shallowest": ("depth", False),
    "cheapest": ("price", False), "dearest": ("price", True), "hottest": ("temperature", True), "warmest": ("temperature", True),
    "coldest": ("temperature", False), "wettest": ("rainfall", True), "driest": ("rainfall", False),
    "farthest": ("distance", True), "furthest": ("distance", True), "closest": ("distance", False),
    "nearest": ("distance", False), "oldest": ("age", True), "youngest": ("age", False)}
"""What a superlative ranks by, and whether the largest come first ("the three heaviest cars": by weight, down)."""


def _clean(text: str) -> str:
    words = [w for w in re.findall(r"[\w&'-]+", text.lower()) if w not in ("the", "a", "an", "of", "total", "number")]
    return " ".join(words)


def _parse(body: str, periods: Sequence[PeriodMention], definitions: dict[str, str]) -> tuple[Measure, str]:
    """The measure a phrase names, with the periods at its end tied to it; and the phrase without them."""
    inner, years = _periods_tail(body, periods)
    if len(years) >= 2 and (total := _SUM_OVER.match(_plain(inner))) is not None and m.named(_plain(inner)) is None:
        # "the total X in 2018 and 2019": X summed over the years (a "Total X" line, if printed, is X)
        part = _phrase(total.group("x"), periods, definitions)
        if part.op not in (m.SHARE, m.RATIO, m.PERCENT_CHANGE, m.CAGR, m.DAYS):  # percentages do not add up
            return Measure(m.TOTAL, parts=(part,), periods=years), inner
    if (same := _RATIO_OF_YEARS.match(body.strip())) is not None and (
            same.group("joint").lower() != "and" or not re.search(r"\band\b|&", same.group("x"), re.IGNORECASE)):
        first, second = periods[int(same.group("a"))].year, periods[int(same.group("b"))].year
        line = _phrase(same.group("x"), periods, definitions)
        if first != second and line.op == m.LINE and not line.periods:
            return Measure(m.RATIO, parts=(_with_periods(line, (first,)), _with_periods(line, (second,))),
                           periods=(second,),
                           said=" ".join(re.sub(_P, lambda g: periods[int(g.group(1))].said, body).split())), inner
    # "X in 2019 to X in 2018": a year said inside the phrase and one at its end are two parts' years; the phrase reads
    # its own tail then, so the last part takes the year said last
    measure = _phrase(body if len(years) == 1 and re.search(_P, inner) else inner, periods, definitions)
    if measure.op == m.GAP and re.search(rf"\b(?:from|to)\s+(?:(?:the\s+)?(?:fiscal\s+)?(?:year\s+)?)?{_P}", body, re.IGNORECASE):
        measure = replace(measure, op=m.CHANGE)  # "the difference in X from 2018 to 2019" has a direction
    if years and measure.op in m.OVER_PERIODS and not measure.periods:
        measure = replace(measure, periods=years)
    elif years and measure.op not in m.OVER_PERIODS:
        measure = _with_periods(measure, years)
    return measure, inner


def _with_periods(measure: Measure, years: tuple[int, ...]) -> Measure:
    """Years asked for a measure that is no operation over periods: the leaves without a year of their own take
    them (one year: the measure in that year; several: the measure in each, as figures or a total)."""
    if not years:
        return measure
    if measure.op in m.OVER_PERIODS:
        return measure if measure.periods else replace(measure, periods=years)
    if measure.op in (m.LINE, m.NAMED, m.DEFINED):
        return measure if measure.periods else replace(measure, periods=years)
    return replace(measure, parts=tuple(_with_periods(p, years) for p in measure.parts),
                   periods=measure.periods or years)


_QUALIFIED = re.compile(rf"^(?P<x>.+?)(?P<run>\s+(?:in|for|during|from|between)\s+{_P}(?:\s*(?:,|and|to|from|over|vs\.?|versus|"
                        rf"compared\s+(?:to|with))\s*{_P})*)\s+(?P<q>(?:in|for|of|at|from)\s+(?!{_P})[^\u27e8]{{2,60}})$",
                        re.IGNORECASE)
_LEADING_RUN = re.compile(rf"^(?P<head>(?:(?:nominal|net|absolute|percent(?:age)?|%)\s+)?(?:change|difference|increase|decrease|"
                          rf"growth)\s+)(?P<run>(?:between|from)\s+{_P}(?:\s+year[\s-]+end)?\s*(?:and|to|-|\u2013)\s*{_P}"
                          rf"(?:\s+year[\s-]+end)?)\s+(?:(?:in|of)\s+)?(?:the\s+)?(?P<x>.+)$", re.IGNORECASE)


_SPAN_ENDED = re.compile(rf"\s*,?\s*\b(?:for|over|in|during|across)\s+(?:the\s+)?(?:last\s+|past\s+)?(?P<n>\d+|two|three|four|five|ten)"
                         rf"\s+(?:fiscal\s+|financial\s+)?years?\s+(?:ended|ending|through|to|up\s+to)\s+(?P<p>{_P})\s*$",
                         re.IGNORECASE)
_INNER_PERIOD = re.compile(rf"^(?:total|combined|sum\s+of|average|net|annual|aggregate|overall)\s+(?:the\s+)?(?P<p>{_P})\s+\w",
                           re.IGNORECASE)


_CHANGE_WORDS = re.compile(r"\b(?:growth|grow|grew|grown|cagr|compound(?:ed)?|annuali[sz]ed|changed?|increase[sd]?|"
                           r"decrease[sd]?|rise|rose|fall|fell)\b", re.IGNORECASE)
"""A change or growth from one period to another: its span's ends are the periods it compares, not every year."""


def _periods_tail(phrase: str, periods: Sequence[PeriodMention]) -> tuple[str, tuple[int, ...]]:
    """The phrase without the periods it ends on (or starts with), and those years in the order of a change:
    "X from 2018 to 2019" -> (X, (2018, 2019)); "X in 2019 from 2018" -> (X, (2018, 2019)); "X for 2017, 2018
    and 2019" -> (X, (2017, 2018, 2019)); "between 2017-2019" -> every year of the span."""
    text = phrase.strip()
    span = _SPAN_ENDED.search(text)
    if span is not None:  # "for the three years ended December 31, 2021": every year of the span
        count = count_said(span.group("n"))
        last = periods[int(re.findall(r"\d+", span.group("p"))[0])].year
        return text[: span.start()].strip(" ,"), tuple(range(last - count + 1, last + 1))
    if (lead := _LEADING_RUN.match(text)) is not None:  # "the change between 2018 and 2019 X"
        text = f"{lead.group('head')}in {lead.group('x')} {lead.group('run')}"
    elif (qualified := _QUALIFIED.match(text)) is not None:  # "X in 2019 over 2018 in Europe"
        text = f"{qualified.group('x')} {qualified.group('q')}{qualified.group('run')}"
    found: list[int] = []
    match = _PERIOD_TAIL.search(text)
    head = re.match(rf"^\s*(?:(?:in|for|during|as\s+of|at|from|between)\s+)?(?:the\s+)?(?:fiscal\s+(?:year\s+)?)?{_P}"
                    rf"(?:\s*(?:-|\u2013|to|through|and|&)\s*{_P})?\s*,?\s+(?!and\b|to\b)", text, re.IGNORECASE)
    if match is not None and match.group("tail").strip():
        tail = match.group("tail")
        indices = [int(i) for i in re.findall(_P, tail)]
        found = [periods[i].year for i in indices]
        reversed_pair = _REVERSED_PAIR.search(tail)
        if reversed_pair and len(indices) == 2:
            found = [periods[int(reversed_pair.group(2))].year, periods[int(reversed_pair.group(1))].year]
        elif len(found) == 2 and not _CHANGE_WORDS.search(text) and \
                (_RANGE_JOINT.search(joint := re.sub(_P, "", tail).strip(" ,")) and not re.search(
                r"\band\b|&|,", joint) or re.fullmatch(r"(?:in\s+|during\s+|for\s+)?(?:the\s+(?:years?|period)\s+)?between\s+and",
                                                        " ".join(joint.split()), re.IGNORECASE)):
            # "from 2001 to 2005", ", 2001-2005", "between 2001 and 2005": every year of the span
            low, high = sorted(found)
            found = list(range(low, high + 1)) if high - low <= 20 else [low, high]
        elif len(found) == 2 and not _CHANGE_WORDS.search(text) and re.search(r"\bbetween\b", tail, re.IGNORECASE) and \
                re.search(r"[-\u2013]", tail):
            low, high = sorted(found)
            found = list(range(low, high + 1))
        text = text[: match.start("tail")].strip(" ,")
    elif head is not None and not re.search(_P, text[head.end():]):
        found = [periods[int(i)].year for i in re.findall(_P, head.group(0))]
        if len(found) == 2 and re.search(r"-|\u2013|\bto\b|\bthrough\b", re.sub(_P, "", head.group(0))):
            found = list(range(min(found), max(found) + 1))
        text = text[head.end():].strip()
    elif len(re.findall(_P, text)) == 1 and (inner := _INNER_PERIOD.search(text)) is not None:
        # "the total 2019 spending on X and Y": a year said before the measure's noun is the whole phrase's
        found = [periods[int(re.findall(r"\d+", inner.group("p"))[0])].year]
        text = " ".join((text[: inner.start("p")] + text[inner.end("p"):]).split())
    return text, tuple(dict.fromkeys(found))


def _phrase(phrase: str, periods: Sequence[PeriodMention], definitions: dict[str, str], depth: int = 0) -> Measure:
    """A phrase with no periods left at its end, read outside in."""
    said = " ".join(re.sub(_P, lambda g: periods[int(g.group(1))].said, phrase).split())
    text = _plain(phrase)
    if depth > 6 or not text:
        return m.line(re.sub(_P, " ", text).strip(), said)
    own_years: tuple[int, ...] = ()
    inner, years = _periods_tail(text, periods)
    if years and inner:
        text, own_years = inner, years
    text = _plain(text)
    across = ACROSS_ROWS.search(text)
    if across is not None and across.start() > 0:
        text = text[: across.start()]  # "the average X over the six species listed": every row, no divisor

    def sub(x: str) -> Measure:
        return _phrase(x, periods, definitions, depth + 1)

    def done(measure: Measure) -> Measure:
        measure = replace(measure, said=measure.said or said)
        return _with_periods(measure, own_years) if own_years else measure

    defined = _defined(text, definitions)
    if defined is not None:
        return done(defined)
    catalogued = m.named(text)
    if catalogued is not None:
        return done(Measure(m.NAMED, catalogued))
    if not definitions and (part := _PART_OF_COMPANY.match(text)) is not None \
            and (named := m.named(part.group("rest"))) is not None and re.search(r"\b(?:segment|division|region)s?$", part.group("part"), re.IGNORECASE):
        # "the Europe region's days sales outstanding": the catalogue's definition, every line of it the region's
        return done(m.of_part(part.group("part"), named))
    # "the average X over the three fiscal years": over every period the line's table prints, not a ratio
    every = _ALL_PERIODS.search(text)
    if every is not None and every.start() > 0:
        rest = text[: every.start()]
        span = count_said(every.group("n"))
        if (g := _SUM_OVER.match(rest)) is not None:
            return done(Measure(m.TOTAL, parts=(sub(g.group("x")),), span=span or -1))
        if (g := _AVERAGE.match(rest)) is not None:
            return done(Measure(m.AVERAGE, parts=(sub(g.group("x") or g.group("x2")),), span=span or -1))
    if (g := _CAGR.match(text)) is not None:
        x = g.group("x") or g.group("x2")
        return done(Measure(m.CAGR, parts=(sub(x),), span=count_said(g.group("n") or g.group("n2"))))
    if (g := _AVERAGE.match(text)) is not None:
        x = g.group("x") or g.group("x2")
        return done(Measure(m.AVERAGE, parts=(sub(x),), span=count_said(g.group("n") or g.group("n2"))))
    if (g := _PERCENT_BETWEEN.match(text)) is not None:
        left, right = _share_periods(sub(g.group("x")), sub(g.group("y")))
        return done(Measure(m.PERCENT_CHANGE, parts=(left, right)))
    if (g := _PERCENT_CHANGE.match(text)) is not None:
        return done(Measure(m.PERCENT_CHANGE, parts=(sub(g.group("x") or g.group("x2")),)))
    if (g := _GAP_BETWEEN_ITEMS.match(text)) is not None and not re.search(_P, f"{g.group('a')} {g.group('b')}"):
        year = (periods[int(g.group("p"))].year,) if g.group("p") else ()
        left, right = (sub(f"{g.group('x')} for {item}") for item in (g.group("a"), g.group("b")))
        if left.op == m.LINE and right.op == m.LINE:
            items = (_with_periods(left, year), _with_periods(right, year)) if year else (left, right)
            return done(Measure(m.DIFFERENCE, parts=items))
    if (g := _CHANGE.match(text)) is not None:
        x = g.group("x") or g.group("x2")
        if g.group("part"):  # "the global change in Tamil films": the films under the global heading
            x = f"{g.group('part')} {x}"
        if g.group("x") and re.search(r"\bbetween\b", text[: g.start("x")], re.IGNORECASE) and re.search(r"\band\b", x):
            pass  # "the difference between X and Y": two lines, read below
        else:
            verb = (g.group("verb") or "").lower()
            size = verb == "difference" and (g.group("nominal") or "").lower() != "net"
            return done(Measure(m.GAP if size else m.CHANGE, parts=(sub(x),)))
    if (g := _SHARE.match(text)) is not None:
        x = g.group("x") or g.group("x2") or g.group("x3") or g.group("x4") or g.group("x5") or g.group("x6") \
            or g.group("x7")
        x = re.sub(r"^(?:(?:the\s+)?(?:percent(?:age)?|proportion|share|fraction)\s+of\s+)", "", x, flags=re.IGNORECASE)
        y = g.group("y") or g.group("y2") or g.group("y3") or g.group("y4") or g.group("y5") or g.group("y6") \
            or g.group("y7")
        left, right = _share_periods(*_tail_to_last(_amount(sub(x)), _amount(sub(y)), own_years))
        # "how much of revenue was spent on marketing, as a percentage" is said as the share it asks for
        return done(Measure(m.SHARE, parts=(left, right), said=" ".join(re.sub(_P, " ", f"{x} as a % of {y}").split()) if g.group("x7") else ""))
    if (g := _DIFFERENCE.match(text)) is not None:
        x, y = g.group("x") or g.group("x2"), g.group("y") or g.group("y2")
        left, right = _share_periods(*_tail_to_last(sub(x), sub(y), own_years))
        return done(Measure(m.GAP if _same_line(left, right) else m.DIFFERENCE, parts=(left, right)))
    if (g := _SUM.match(text)) is not None:
        x, y = g.group("x") or g.group("x2") or g.group("x3"), g.group("y") or g.group("y2") or g.group("y3")
        return done(Measure(m.SUM, parts=(sub(x), sub(y))))
    if own_years and len(own_years) >= 2 and (g := _SUM_OVER.match(text)) is not None and depth == 0:
        return replace(Measure(m.TOTAL, parts=(sub(g.group("x")),), periods=own_years), said=said)
    if (g := _SUM_OVER.match(text)) is not None and re.search(r"\b(?:sum|combined|aggregate)\b", text.split()[0], re.IGNORECASE):
        return done(Measure(m.TOTAL, parts=(sub(g.group("x")),)))
    if (g := _TOTAL_OF_PARTS.match(text)) is not None and not re.search(_P, text):
        parts = _and_parts(g.group("x"))
        if len(parts) >= 2:
            return done(Measure(m.SUM, parts=tuple(sub(part) for part in parts)))
    if (g := _MARGIN_OF_PART.match(text)) is not None:  # "the operating margin of the Pet segment"
        text = f"{g.group('part')} {g.group('x')}"
    if (g := _MARGIN.match(text)) is not None and g.group("x").strip():
        said_subject = g.group("x").strip()
        if (part := _PART_OF_COMPANY.match(said_subject)) is not None:
            # "Pet segment EBITDA margin": the segment's EBITDA over the segment's revenue, each line the segment's
            subject = m.margin_subject(part.group("rest"))
            named = m.named(subject)
            numerator = m.of_part(part.group("part"), named or subject)
            whole = m.line(f"{m.part_name(part.group('part'))} revenue")
            return done(Measure(m.SHARE, parts=(numerator, whole), said=said))
        subject = m.margin_subject(said_subject)
        numerator = sub(subject)
        if numerator.op == m.LINE and subject != _plain(said_subject).lower():
            numerator = replace(numerator, own=False)  # "operating" margin: operating income, by definition
        return done(Measure(m.SHARE, parts=(numerator, m.line("revenue", own=False)), said=said))
    if (g := _DAYS.match(text)) is not None:
        x = g.group("x") or g.group("x2")
        inner_measure = sub(x)
        if inner_measure.op == m.NAMED and "turnover" in inner_measure.words:
            return done(Measure(m.DAYS, parts=(inner_measure,)))
    if (g := _RATIO.match(text)) is not None and not _one_line_slash(text):
        x = g.group("x") or g.group("x2") or g.group("x3")
        y = g.group("y") or g.group("y2") or g.group("y3")
        if x and y and not re.search(r"\bshare\b", y, re.IGNORECASE) or (g.group("x") and g.group("y")):
            left, right = _share_periods(*_tail_to_last(sub(x), sub(y), own_years))
            if left.op != m.LINE or right.op != m.LINE or g.group("x") or re.search(
                    r"\bratio\b|-to-|/|\bdivided\s+by\b|\bover\b", text, re.IGNORECASE) \
                    or all(re.match(r"(?:the\s+)?total\s", side, re.IGNORECASE) for side in (x, y)) \
                    or _DENOMINATOR.fullmatch(re.sub(_P, " ", y).strip()) and not _DENOMINATOR.fullmatch(x.strip()):
                # "total liabilities to total assets": two totals, never one line's name; "long-term debt to
                # equity": an amount to one a ratio is taken of
                return done(Measure(m.RATIO, parts=(left, right)))
    return done(m.line(re.sub(_P, " ", text).strip(), said))


def _amount(measure: Measure) -> Measure:
    """An operand of a share as an amount: "the share of gross margin that went to R&D" takes the gross margin in
    money (gross profit), not the gross margin percentage, which has no share."""
    if measure.op == m.SHARE and re.search(r"\bmargins?$", measure.said, re.IGNORECASE) and measure.parts:
        return replace(measure.parts[0], periods=measure.periods or measure.parts[0].periods)
    return measure


_DENOMINATOR = re.compile(r"(?:total\s+)?(?:(?:shareholders'?|stockholders'?)\s+)?(?:equity|assets|sales|revenues?|"
                          r"capital|ebitda|liabilities)", re.IGNORECASE)
"""What a financial ratio is taken of, said alone after "to" ("long-term debt to equity", "net debt to EBITDA")."""


def _and_parts(text: str) -> list[str]:
    """"spending on roads and parks" -> ["spending on roads", "spending on parks"]; "roads, parks and schools" ->
    three; where the parts after the first are single words and the first is longer, they share its head."""
    pieces = [p.strip() for p in re.split(r"\s*,\s*|\s+(?:and|&)\s+", text) if p.strip()]
    if len(pieces) < 2:
        return []
    first = pieces[0].split()
    if len(first) > 1 and all(len(p.split()) == 1 for p in pieces[1:]):
        head = " ".join(first[:-1])
        return [pieces[0], *(f"{head} {p}" for p in pieces[1:])]
    return pieces


def _plain(text: str) -> str:
    """A phrase without the articles, possessives and filler around a measure's name."""
    text = re.sub(r"(?<![\w])(?:[A-Z][\w.&-]*)?['\u2019]s\s+(?=\w)", lambda g: "" if g.group(0)[:1].isupper() else g.group(0), text)
    text = re.sub(r"^(?:the\s+)?[a-z][\w-]*['\u2019]s\s+(?=\w)", "", text.strip(), flags=re.IGNORECASE)
    text = re.sub(r"\btotal\s+(?:amount|value|sum|figure)\s+of\s+(?:the\s+)?", "total ", text, flags=re.IGNORECASE)
    text = _FORESEEN.sub(" ", text)
    previous = None
    while previous != text:
        previous = text
        text = _LINE_NOISE.sub("", text.strip(" ,.?")).strip()
    return " ".join(text.split())


def _defined(text: str, definitions: dict[str, str]) -> Measure | None:
    key = text.lower().strip()
    for said in _names_of(key):
        for name, body in definitions.items():
            if said == name or re.fullmatch(rf"(?:the\s+)?{re.escape(name)}(?:\s+ratio)?", said):
                return Measure(m.DEFINED, name, body=body)
    if len(definitions) and key in ("it", "this", "that", "the ratio", "the measure", "the metric", "this ratio"):
        name, body = next(iter(definitions.items()))
        return Measure(m.DEFINED, name, body=body)
    return None


def count_said(word: str | None) -> int:
    """A count written in figures or in words ("4", "four"); 0 for none."""
    if not word:
        return 0
    return int(word) if word.isdigit() else _NUMBER_WORDS.get(word.lower(), 0)


def _tail_to_last(left: Measure, right: Measure, tail: tuple[int, ...]) -> tuple[Measure, Measure]:
    """Two parts of which the first names its own year and the phrase ends on another ("X in 2019 to X in 2018"): the
    year said last is the last part's, not the whole measure's (which the first part's would otherwise overrule)."""
    if tail and left.periods and not right.periods and right.op not in m.OVER_PERIODS:
        return left, _with_periods(right, tail)
    return left, right


def _share_periods(left: Measure, right: Measure) -> tuple[Measure, Measure]:
    """Two parts of which only one names its year ("X for 2019 as a % of total Y"): the other takes it too; from a
    part over several periods ("average total assets over 2019 and 2020"), the latest of them."""
    def own(part: Measure) -> tuple[int, ...]:
        return (max(part.periods),) if part.op in m.OVER_PERIODS and part.periods else part.periods
    if left.periods and not right.periods and right.op not in m.OVER_PERIODS:
        return left, _with_periods(right, own(left))
    if right.periods and not left.periods and left.op not in m.OVER_PERIODS:
        return _with_periods(left, own(right)), right
    return left, right


def _same_line(left: Measure, right: Measure) -> bool:
    return left.op == right.op == m.LINE and left.words.lower() == right.words.lower() and left.periods != right.periods


def _years_of(left: Measure, right: Measure) -> tuple[int, ...]:
    if _same_line(left, right):
        return (*left.periods, *right.periods)
    return ()


def _is_percent(measure: Measure) -> bool:
    return measure.op in (m.SHARE, m.PERCENT_CHANGE, m.CAGR)


def _unused(reading: QuestionReading, marked: str, periods: Sequence[PeriodMention]) -> tuple[str, ...]:
    """Content words of the asking clause that no field of the reading holds."""
    held: set[str] = set()
    if reading.measure is not None:
        for leaf in reading.measure.leaves():
            held |= _words(leaf.words) | _words(leaf.said)
        held |= _words(reading.measure.said) | _words(reading.subject)
    if reading.query is not None:
        held |= _words(f"{reading.query.target} {reading.query.group} {reading.query.words}")
    held |= _words(reading.issuer) | _words(" ".join(reading.notes))
    return tuple(w for w in _content(reading, marked) if w not in held)


def _content(reading: QuestionReading, marked: str) -> tuple[str, ...]:
    """The content words of the asking clause (periods marked), in order, each once: not filler, no operator and
    no criterion; () for a question the text answers."""
    if reading.kind in (kinds.TEXT, kinds.TITLE):
        return ()
    clause = re.sub(_P, " ", marked)
    return tuple(dict.fromkeys(w for w in _words_in_order(clause) if w not in _FILLER and w not in _OPERATOR_WORDS
                               and not _is_criterion_word(w)))


_CRITERION_WORDS = frozenset({
    "higher", "highest", "larger", "largest", "greater", "greatest", "more", "most", "bigger", "biggest", "maximum",
    "peak", "lower", "lowest", "smaller", "smallest", "less", "least", "fewer", "fewest", "minimum", "negative", "positive",
    "exceed", "exceeded", "exceeds", "above", "below", "under", "over", "than", "increase", "increased", "decrease",
    "decreased", "rise", "rose", "fall", "fell", "grow", "grew", "grown", "decline", "declined", "change", "changed",
    "exceeding", "top", "bottom", "yes", "no", "compared", "compare", "difference", "differ", "nominal",
    "percent", "percentage", "ratio", "average", "sum", "combined", "altogether", "types", "kinds", "items", "listed",
    "shown", "included", "many", "times", "by", "record", "recorded", "annual", "yearly", "million", "millions",
    "billion", "billions", "thousand", "thousands", "usd", "dollars", "us", "in", "units", "decimal", "place", "places",
    "have", "hold", "report", "spend", "spent", "pay", "paid", "generate", "generated", "earn", "earned", "make", "made",
    "receive", "received", "invest", "invested", "incur", "incurred", "owe", "book", "sell", "sold", "buy", "raise",
    "return", "issue", "repurchase", "collect", "borrow", "lose", "post", "see", "carry", "show", "cover", "covered",
    "dollar", "fast", "quickly", "compounded", "compound", "two", "three", "four", "five", "each", "every",
    "balance", "sheet", "statement", "statements", "income", "flow", "flows", "cash", "ends", "end",
    "go", "goes", "went", "gone", "up", "down", "move", "moved", "improve", "improved", "drop", "dropped",
    "figures", "values", "amounts", "numbers", "across"})


_NAMED_WITH_OPERATORS = re.compile(
    r"\bper\s+(?:ordinary\s+|common\s+|diluted\s+|basic\s+)?(?:share|unit|employee|day|tonne|ton|barrel|head|capita|"
    r"square|hour|month|year|customer|subscriber|user|store|resident|pupil)s?\b|\bshare[\s-]+(?:based|options?|price|"
    r"capital|premium|repurchases?|buy[\s-]?backs?|awards?|units?|count)\b|\bweighted[\s-]+average\b|\baverage\s+(?:price|rate|cost|"
    r"balance|number|age|remaining|exercise|selling|interest)\b|\bexchange\s+rate\b|\bchange\s+in\s+(?:fair\s+value|"
    r"accounting|estimate)|\bbetween\s+\d|\b(?:1|one|two|three|four|five)\s*(?:to|-)\s*(?:\d|one|two|three|four|five)"
    r"|\bless\s+than\b|\bdue\s+(?:to|in)\b|\brelated\s+to\b|\bprior\s+to\b|\bup\s+to\b|\bcontributed\s+to\b|"
    r"\battributable\s+to\b|\bas\s+(?:reported|adjusted|converted|a\s+result)\b", re.IGNORECASE)
"""Operator words that are part of how reports name their lines ("earnings per share", "share-based compensation",
"weighted average", "due within one to five years"), not operations left unread."""


def _doubts(measure: Measure | None) -> tuple[str, ...]:
    """Lines whose words still hold an operator the grammar did not compose ("net debt to ebitda")."""
    if measure is None:
        return ()
    found = []
    for leaf in measure.leaves():
        if leaf.op != m.LINE:
            continue
        words = {w.lower() for w in _WORD.findall(_NAMED_WITH_OPERATORS.sub(" ", leaf.words))}
        if _OPERATOR_WORDS & words:
            found.append(leaf.words)
    return tuple(found)


def _is_criterion_word(word: str) -> bool:
    return word in _CRITERION_WORDS or bool(re.fullmatch(r"\d[\d,.]*", word))


def _words(text: str) -> set[str]:
    return {w.lower() for w in _WORD.findall(text or "")}


def _words_in_order(text: str) -> list[str]:
    return [w.lower() for w in _WORD.findall(text)]


# -- the model's reading ---------------------------------------------------------------------------------------

MODEL_OPERATIONS = ("lookup", "change", "percent_change", "difference", "sum", "average", "ratio", "share", "margin",
                    "cagr", "count", "max", "min", "list")
MODEL_KINDS = ("figure", "figures", "label", "labels", "year", "yes_no", "passage", "count")
_MODEL_KIND = {"figure": kinds.LOOKUP, "figures": kinds.FIGURES, "label": kinds.ROW_LABELS, "labels": kinds.ROW_LABELS,
               "year": kinds.COLUMN_HEADERS, "yes_no": kinds.YES_NO, "passage": kinds.TEXT, "count": kinds.COUNT}


def model_schema() -> dict[str, Any]:
    """The reading a model fills, constrained: the answer kind, one operation over at most two measures named in
    the question's words (each a line, or a measure the model knows by name), the periods as said."""
    return {
        "type": "object",
        "properties": {
            "answer": {"type": "string", "enum": list(MODEL_KINDS)},
            "operation": {"type": "string", "enum": list(MODEL_OPERATIONS)},
            "items": {"type": "array", "minItems": 1, "maxItems": 2, "items": {"type": "string", "maxLength": 80}},
            "periods": {"type": "array", "maxItems": 4, "items": {"type": "string", "maxLength": 30}},
        },
        "required": ["answer", "operation", "items", "periods"],
    }


MODEL_TASK = (
    "Read the QUESTION as a query. answer: what kind of answer it wants (figure for one number). operation: the "
    "computation it asks for (lookup = a figure as printed; margin = the item as a % of revenue; share = the part as a "
    "% of the whole; ratio = first / second; difference = first - second; change = one item's change between two "
    "periods). items: the line items or measures it names, in its own words, without years; for share and ratio the "
    "part (numerator) first and the whole (denominator) second. periods: the years or periods it names, as written. "
    "Reply with JSON.")


def from_model(reply: dict[str, Any], question: str, issuers: Sequence[str] = ()) -> QuestionReading | None:
    """The model's reading, checked against the question: every item must be words of the question and every
    period one it names; None when the reply is unusable."""
    rules = read(question, issuers)
    answer = str(reply.get("answer", ""))
    operation = str(reply.get("operation", ""))
    items = [" ".join(str(i).split()) for i in reply.get("items") or [] if str(i).strip()]
    if answer not in MODEL_KINDS or operation not in MODEL_OPERATIONS or not items:
        return None
    said = _words(rules.text)
    if any(not _words(item) or not _words(item) <= said | {"%"} for item in items):
        return None  # an item the question does not name: the model made it up
    asked_years = {p.year for p in rules.periods}
    years: list[int] = []
    for period in reply.get("periods") or []:
        years.extend(p.year for p in find_periods(str(period)))
    if any(y not in asked_years for y in years):
        return None
    years = list(dict.fromkeys(years))
    leaves = [_leaf(item, dict(rules.definitions)) for item in items]
    measure: Measure
    if operation in ("change", "percent_change", "average", "cagr") and leaves:
        op = {"change": m.CHANGE, "percent_change": m.PERCENT_CHANGE, "average": m.AVERAGE, "cagr": m.CAGR}[operation]
        measure = Measure(op, parts=(leaves[0],), periods=tuple(sorted(years)))
    elif operation == "margin":
        measure = Measure(m.SHARE, parts=(leaves[0], m.line("revenue")))
    elif operation in ("share", "ratio", "difference", "sum") and len(leaves) == 2:
        op = {"share": m.SHARE, "ratio": m.RATIO, "difference": m.DIFFERENCE, "sum": m.SUM}[operation]
        measure = Measure(op, parts=tuple(leaves))
    elif operation == "lookup" or len(leaves) == 1:
        measure = leaves[0]
    else:
        return None
    if measure.op not in m.OVER_PERIODS and years:
        measure = _with_periods(measure, tuple(years))
    kind = _MODEL_KIND[answer]
    if kind == kinds.LOOKUP and measure.op != m.LINE:
        kind = kinds.COMPUTED
    reading = replace(rules, kind=kind, several=answer in ("labels", "figures"), measure=measure, source="model",
                      doubts=_doubts(measure))
    marked = _mark_periods(rules.asked, list(rules.periods))
    return replace(reading, unused=_unused(reading, marked, rules.periods), content=_content(reading, marked))


def _leaf(item: str, definitions: dict[str, str]) -> Measure:
    defined = _defined(item.lower(), definitions)
    if defined is not None:
        return defined
    catalogued = m.named(item)
    return Measure(m.NAMED, catalogued) if catalogued else m.line(_plain(item))


def better(first: QuestionReading, second: QuestionReading) -> QuestionReading:
    """Of two readings of one question, the one that accounts for more of it: fewer content words left unread,
    then fewer lines with an uncomposed operator; the first on a tie."""
    def left(r: QuestionReading) -> tuple[int, int]:
        return len(r.unused), len(r.doubts)
    return second if left(second) < left(first) else first
