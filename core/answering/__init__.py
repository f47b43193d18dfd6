"""Answering questions over the library: the TableRAG loop (``loop``), the NaiveRAG baseline
(``naive``), structured table operations compiled to SQL (``operations``), prompts (``prompts``) and
citations built from provenance (``citations``); the answer type a question wants (``answer_types``), the
answers composed to it from a table (``compose``) and figures passages state outright (``text_facts``)."""

from core.answering.loop import Answerer, default_sql_style

__all__ = ["Answerer", "default_sql_style"]
