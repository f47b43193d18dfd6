"""SQL a person or a model wrote: ``runner`` runs it read-only, one statement, bounded in time, rows, bytes
and memory; ``formatting`` lays it out for reading without changing a character that runs.

May import: ``core.library`` (its connection), ``core.reports`` (and ``core.errors``).
"""
