"""Conversations kept in the library: questions, and answers stored whole as Answer JSON.

Owns the ``conversations`` and ``messages`` tables (created by migration m002) and the lossless
round trip between ``models.types.Answer`` and the JSON kept in ``messages.answer_json``, so a past
answer comes back with its citations, cells and steps and can be shown and clicked again.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from core.library.db import Connection, inserted_id, write_transaction
from core.library.store import now_iso
from models.types import Alternative, Answer, CellEvidence, Citation, Step, Usage

TITLE_CHARS = 60


@dataclass(frozen=True)
class Conversation:
    id: int
    title: str
    created_at: str
    updated_at: str
    message_count: int = 0


@dataclass(frozen=True)
class Message:
    id: int
    conversation_id: int
    role: str  # "user" | "assistant"
    content: str
    created_at: str
    answer: Answer | None = None


def _box(value: Any) -> tuple[float, float, float, float] | None:
    if value is None:
        return None
    x0, y0, x1, y1 = (float(v) for v in value)
    return (x0, y0, x1, y1)


def answer_to_json(answer: Answer) -> str:
    """``Answer.to_json()`` plus what it leaves out (document ids, boxes, usage) so nothing is lost."""
    payload = answer.to_json()
    payload["citations"] = [
        citation.to_json() | {"document_id": citation.document_id, "boxes": [list(b) for b in citation.boxes]}
        for citation in answer.citations
    ]
    payload["seconds"] = answer.usage.seconds
    return json.dumps(payload, ensure_ascii=False)


def answer_from_json(text: str) -> Answer:
    data = json.loads(text)
    citations = []
    for c in data.get("citations", []):
        cells = tuple(
            CellEvidence(cell["table"], int(cell["row"]), cell["column"], cell["text"], int(cell["page"]),
                         _box(cell["bbox"]) or (0.0, 0.0, 0.0, 0.0), cell.get("sheet", ""), cell.get("cell", ""))
            for cell in c.get("cells", [])
        )
        citations.append(
            Citation(
                kind=c["kind"], document=c["document"], document_id=int(c.get("document_id") or 0),
                page=int(c["page"]), bbox=_box(c.get("bbox")), snippet=c.get("snippet", ""),
                boxes=tuple(b for b in (_box(v) for v in c.get("boxes", [])) if b is not None),
                table=c.get("table"), sql=c.get("sql"), columns=tuple(c.get("columns", [])),
                result=tuple(tuple(row) for row in c.get("result", [])), cells=cells,
                sheet=c.get("sheet", ""), cell_range=c.get("cell_range", ""),
                label=c.get("label", ""),
            )
        )
    steps = tuple(
        Step(
            subquery=s["subquery"], chunk_ids=tuple(s.get("retrieved_chunk_ids", [])), sql=s.get("sql"),
            sql_columns=tuple(s.get("sql_columns", [])), sql_result=tuple(tuple(r) for r in s.get("sql_result", [])),
            sql_error=s.get("sql_error"), intermediate_answer=s.get("intermediate_answer", ""),
            conflict=s.get("conflict", "") or "", answer_type=s.get("answer_type", "") or "",
            failures=tuple(s.get("failures", [])),
        )
        for s in data.get("steps", [])
    )
    usage = Usage(int(data.get("llm_calls", 0)), int(data.get("prompt_tokens", 0)),
                  int(data.get("completion_tokens", 0)), float(data.get("seconds", 0.0)),
                  reused_tokens=int(data.get("reused_tokens", 0)))
    return Answer(question=data["question"], text=data["answer"], citations=tuple(citations), steps=steps,
                  usage=usage, mode=data.get("mode", "tablerag"), model=data.get("model", ""),
                  status=data.get("status", "unchecked"), value=data.get("value", ""),
                  answer_type=data.get("answer_type", "") or "", parts=tuple(data.get("parts", [])),
                  alternatives=tuple(Alternative(int(a["document_id"]), str(a["name"]))
                                     for a in data.get("alternatives", [])),
                  task_usage=tuple((str(t[0]), int(t[1]), int(t[2])) for t in data.get("task_usage", [])),
                  read_as=str(data.get("read_as", "") or ""))


def title_from_question(question: str) -> str:
    words = " ".join(question.split())
    return words if len(words) <= TITLE_CHARS else words[: TITLE_CHARS - 1].rstrip() + "\u2026"


class ConversationStore:
    """Reads and writes conversations on one library connection (one store per thread)."""

    def __init__(self, conn: Connection) -> None:
        self.conn = conn

    def create(self, title: str = "New conversation") -> Conversation:
        now = now_iso()
        cur = self.conn.execute(
            "INSERT INTO conversations (title, created_at, updated_at) VALUES (?, ?, ?)", (title, now, now)
        )
        return Conversation(inserted_id(cur), title, now, now, 0)

    def conversations(self) -> list[Conversation]:
        """Every conversation, the most recently used first."""
        rows = self.conn.execute(
            "SELECT c.id, c.title, c.created_at, c.updated_at, "
            "(SELECT COUNT(*) FROM messages m WHERE m.conversation_id = c.id) "
            "FROM conversations c ORDER BY c.updated_at DESC, c.id DESC"
        ).fetchall()
        return [Conversation(*row) for row in rows]

    def get(self, conversation_id: int) -> Conversation | None:
        return next((c for c in self.conversations() if c.id == conversation_id), None)

    def rename(self, conversation_id: int, title: str) -> None:
        self.conn.execute("UPDATE conversations SET title = ? WHERE id = ?", (title, conversation_id))

    def delete(self, conversation_id: int) -> None:
        self.conn.execute("DELETE FROM conversations WHERE id = ?", (conversation_id,))

    def messages(self, conversation_id: int) -> list[Message]:
        rows = self.conn.execute(
            "SELECT id, conversation_id, role, content, created_at, answer_json FROM messages "
            "WHERE conversation_id = ? ORDER BY id",
            (conversation_id,),
        ).fetchall()
        return [Message(r[0], r[1], r[2], r[3], r[4], answer_from_json(r[5]) if r[5] else None) for r in rows]

    def questions(self, conversation_id: int) -> list[str]:
        """The conversation's questions as they were understood (a follow-up in the full wording its answer
        records, ``Answer.read_as``), oldest first."""
        asked: list[str] = []
        for message in self.messages(conversation_id):
            if message.role == "user":
                asked.append(message.content)
            elif message.answer is not None and message.answer.read_as and asked:
                asked[-1] = message.answer.read_as
        return asked

    def add_question(self, conversation_id: int, question: str) -> Message:
        """Record a question; the first one also names a conversation still called by its default title."""
        message = self._add(conversation_id, "user", question, None)
        count = self.conn.execute(
            "SELECT COUNT(*) FROM messages WHERE conversation_id = ? AND role = 'user'", (conversation_id,)
        ).fetchone()[0]
        if count == 1:
            self.rename(conversation_id, title_from_question(question))
        return message

    def add_answer(self, conversation_id: int, answer: Answer) -> Message:
        return self._add(conversation_id, "assistant", answer.text, answer)

    def _add(self, conversation_id: int, role: str, content: str, answer: Answer | None) -> Message:
        now = now_iso()
        with write_transaction(self.conn, "The conversation was not saved"):
            cur = self.conn.execute(
                "INSERT INTO messages (conversation_id, role, content, answer_json, created_at) VALUES (?, ?, ?, ?, ?)",
                (conversation_id, role, content, answer_to_json(answer) if answer else None, now),
            )
            self.conn.execute("UPDATE conversations SET updated_at = ? WHERE id = ?", (now, conversation_id))
        return Message(inserted_id(cur), conversation_id, role, content, now, answer)
