"""Answering questions over the library: the TableRAG loop (``loop``) and what it decides with
(``planner``), its steps over a table (``table_step``) and over connected tables (``formula_step``), the
state they share (``run_state``); the NaiveRAG baseline (``naive``); the question analysed once
(``question``) and read into a formula (``metrics``, ``formula``, ``binding``, ``computation``); the
operation registry compiled to SQL (``operations``), prompts (``prompts``) and citations built from
provenance (``citations``); the answer type a question wants (``answer_types``), the answers composed to it
from a table (``compose``) and figures passages state outright (``text_facts``).

May import: ``core.search``, ``core.sql``, ``core.library``, ``core.reports`` (and ``core.errors``,
``core.jobs``); never ``core.ingest``."""

from core.answering.loop import Answerer
from core.answering.run_state import default_sql_style

__all__ = ["Answerer", "default_sql_style"]
