"""The library: one SQLite file per library, and everything kept in it.

``db`` opens connections (sqlite-vec, FTS5); ``migrations`` is the schema; ``store`` is the read side
(``Library``) and the write side (``DocumentWriter``) of documents, pages, tables, cells, chunks and
embeddings; ``facts`` computes and stores the facts kept beside tables and documents; ``sheet_cells`` is the
geometry of a spreadsheet cell as stored; ``conversations`` keeps questions and answers; ``export`` writes tables
out as CSV or Excel workbooks.

May import: ``core.reports`` (and ``core.errors``, ``core.jobs``).
"""
