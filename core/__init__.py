"""The engine, pure Python and no Qt. Its folders are the pipeline a document and a question go through:

- ``ingest/``: the way in. A dropped file becomes pages, text blocks, tables and chunks (PDF reading, OCR,
  the page pool, table extraction, spreadsheets, chunking), written to the library; page rendering for previews.
- ``reports/``: what a report says and how it says it: report values (numbers, nulls, periods, scales), table
  typing, naming and facts, document metadata and titles. Pure rules; ingestion and answering both read them.
- ``library/``: the SQLite library (connection, schema migrations, the store of documents, tables, chunks
  and embeddings, conversations) and the facts kept beside its tables.
- ``search/``: finding what a question is about: routing to documents, hybrid retrieval, the vector index.
- ``sql/``: running SQL a person or a model wrote, read-only and bounded, and laying it out for reading.
- ``answering/``: the TableRAG loop and everything it decides with.

``jobs.py`` (progress and cancellation) and ``errors.py`` (what a person can fix) serve every room.
Rooms import one way: answering -> search, sql -> library -> reports; ingest -> library, reports
(``tests/test_architecture.py`` checks it).
"""
