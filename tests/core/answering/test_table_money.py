"""Money asked of a register in the asker's words ("how much did Ortega donate", "the average donation") over a
table that names its columns in another language and prints sums of money beside other figures (registration
numbers): the column printing money is the one meant. A ruled table is drawn, ingested for real and asked with no
model call."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from core.library.store import Library
from tests.core.answering.test_table_precision import _drawn
from tests.core.answering.test_table_query import ask_without_model

pytestmark = pytest.mark.unit

# surname, first name, registration number, amount (made up)
DONORS = [("ORTEGA", "LUCIA", "30111222", "$ 12.500,00"), ("VIDAL", "TOMAS", "28444555", "$ 5.000,00"),
          ("ROJAS", "ELENA", "31777888", "$ 7.500,00"), ("PAZ", "MARCOS", "27999000", "$ 5.000,00")]


@pytest.fixture(scope="module")
def donors(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Library]:
    rows = [["Apellido", "Nombre", "Registro", "Importe"]] + [list(row) for row in DONORS]
    yield from _drawn(tmp_path_factory, "Aportes de campaña 2013", rows, [40, 160, 300, 400, 520])


def test_how_much_a_person_gave_is_read_from_the_column_of_money(donors: Library) -> None:
    answer = ask_without_model(donors, "how much did Ortega donate?")
    assert answer.value == "$12,500", answer.text  # not the registration number


def test_the_average_gift_is_taken_over_the_column_of_money(donors: Library) -> None:
    answer = ask_without_model(donors, "what was the average donation?")
    assert answer.value == "$7,500", answer.text  # (12,500 + 5,000 + 7,500 + 5,000) / 4
