"""Table extraction: finds the tables on PDF pages and returns them as ``ExtractedTable`` values.

``TableExtractor`` reads one page at a time (pymupdf's ruled-table finder and camelot's lattice and
stream parsers, each run only where it can help, the best result kept per table region);
``stitch_tables`` joins a table continued on the next page; ``extract_tables`` does a whole document.
"""

from core.ingest.extraction.extractor import TableExtractor, extract_tables
from core.ingest.extraction.stitch import stitch_tables

__all__ = ["TableExtractor", "extract_tables", "stitch_tables"]
