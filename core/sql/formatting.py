"""SQL laid out for people to read: clauses on their own lines, long subqueries indented, one selected
item per line. Only whitespace changes, so what is shown is exactly what ran (a pretty-printer that
rewrites the statement, as sqlglot's does with ``IS NOT NULL``, would show something else)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

INDENT = "  "
INLINE_CHARS = 100
"""A parenthesised group this short stays on one line."""

_TOKEN = re.compile(r"""'(?:[^']|'')*'|"(?:[^"]|"")*"|`[^`]*`|\[[^\]]*\]|\s+|\w+|<=|>=|<>|!=|\|\||.""", re.DOTALL)
_CLAUSES = ("WITH", "SELECT", "FROM", "WHERE", "GROUP", "ORDER", "HAVING", "LIMIT", "UNION", "INTERSECT", "EXCEPT",
            "WINDOW", "JOIN", "LEFT", "INNER", "CROSS")
_JOIN_PREFIXES = ("LEFT", "INNER", "CROSS")


@dataclass
class _Group:
    items: list[str | _Group] = field(default_factory=list)


def _tree(sql: str) -> _Group:
    root = _Group()
    stack = [root]
    for token in _TOKEN.findall(sql):
        if token.isspace():
            token = " "
        if token == "(":
            group = _Group()
            stack[-1].items.append(group)
            stack.append(group)
        elif token == ")" and len(stack) > 1:
            stack.pop()
        else:
            stack[-1].items.append(token)
    return root


def _inline(items: list[str | _Group]) -> str:
    return "".join(f"({_inline(i.items)})" if isinstance(i, _Group) else i for i in items).strip()


def _select_has_list(items: list[str | _Group], start: int) -> bool:
    """Whether the SELECT at ``items[start]`` selects several items (a comma before its next clause)."""
    for item in items[start + 1:]:
        if isinstance(item, str) and item.upper() in _CLAUSES:
            return False
        if item == ",":
            return True
    return False


def _render(items: list[str | _Group], depth: int) -> list[str]:
    lines: list[str] = []
    current = ""
    line_depth = depth
    in_list = False
    previous_word = ""

    def end_line(next_depth: int) -> None:
        nonlocal current, line_depth
        if current.strip():
            lines.append(INDENT * line_depth + current.strip())
        current = ""
        line_depth = next_depth

    for index, item in enumerate(items):
        if isinstance(item, _Group):
            text = _inline(item.items)
            if len(text) <= INLINE_CHARS:
                current += f"({text})"
            else:
                current += "("
                here = line_depth
                end_line(here + 1)
                lines.extend(_render(item.items, here + 1))
                line_depth = here
                current = ")"
            continue
        word = item.upper()
        starts_clause = word in _CLAUSES and not (word == "JOIN" and previous_word in _JOIN_PREFIXES)
        if starts_clause:
            in_list = False
            if current.strip():
                end_line(depth)
            line_depth = depth
        if word.strip():
            previous_word = word
        if item == " " and not current.strip():
            continue  # no space at the start of a line
        current += item
        if word == "SELECT" and _select_has_list(items, index):
            in_list = True
            end_line(depth + 1)
        elif item == "," and in_list:
            end_line(depth + 1)
    end_line(depth)
    return lines


def format_sql(sql: str) -> str:
    """``sql`` with line breaks and indentation; the same tokens in the same order."""
    if not sql.strip():
        return ""
    return "\n".join(_render(_tree(sql.strip()).items, 0))
