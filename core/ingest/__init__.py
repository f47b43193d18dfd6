"""The way in: a file becomes one complete document in the library, or nothing.

``ingestor`` is the job (hash, check, read every page, type and store the tables, chunk, embed, commit);
``pdf_reader`` opens PDFs and reads pages, ``ocr`` reads scanned ones, ``page_pool`` finds tables in worker
processes, ``extraction/`` finds and reads the tables of a page, ``spreadsheets`` reads sheets and CSV files,
``chunking`` cuts retrieval chunks, ``page_render`` draws a page for the evidence preview.

May import: ``core.reports``, ``core.library`` (and ``core.jobs``, ``core.errors``). Nothing imports this room
but ``app/``; the window imports it lazily (it loads pymupdf, camelot and OpenCV).
"""
