"""Finding what a question is about: ``routing`` chooses the documents (``subjects`` ranks them by what each is
about), ``retrieval`` finds chunks (BM25 over FTS5 fused with vector search), ``vector_index`` holds the vectors
in memory for fast nearest-neighbour search.

May import: ``core.library``, ``core.reports`` (and ``core.errors``, ``core.jobs``).
"""
