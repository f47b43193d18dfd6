"""What a report says and how it says it: pure rules, no storage.

``values`` reads numbers, null marks, years, periods, scales and currencies as reports print them;
``table_typing`` turns a grid of cell texts into a typed table; ``table_naming`` names tables and columns;
``table_facts`` finds a table's scale, row hierarchy, totals and column periods; ``document_metadata`` and
``document_title`` read what a document is (issuer, form, period, title).

May import nothing of the engine but ``core.errors``: extraction, the library and answering all read it.
"""
