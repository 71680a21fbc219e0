"""math_equiv's answer forms of red-team round 5 (issues 21 and 22), each closed as a class.

Attack-first: every table holds more near misses (0.0) than equal pairs (1.0), under every final-answer rule,
and the rows are variants written for this file, not the red team's rows. What is ambiguous stays refused.
"""

from __future__ import annotations

import pytest

from .test_equiv_value_forms import RULES, _value  # the same scoring of one table row

LONG = "How many meters long is the cable?"

Row = tuple[str | None, str, str]
TABLES: dict[str, tuple[list[Row], list[Row]]] = {
    # an answer object's own fields: a nested {"value": ...} is read like the object, a unit field is the
    # answer's unit, a field named twice is a hedge, a negative verdict or a zero confidence withdraws it
    "json_answer_object": (
        [
            (None, "12", '{"answer": {"value": 12}}'),
            (None, "12", '{"final_answer": {"result": "12"}, "confident": true}'),
            (LONG, "12", '{"answer": 12, "unit": "m"}'),
            (LONG, "12", '{"answer": {"value": 12, "unit": "meters"}}'),
            (None, "12", '{"answer": 12, "confidence": 0.4}'),
            (None, "12", '{"answer": 12, "is_correct": true, "status": "final"}'),
        ],
        [
            (None, "12", '{"answer": 12, "answer": 12}'),
            (None, "12", '{"answer": 9, "Answer": 12}'),
            (None, "12", '{"answer": {"value": 9, "value": 12}}'),
            (None, "12", '{"answer": 12, "is_correct": false}'),
            (None, "12", '{"answer": 12, "valid": "no"}'),
            (None, "12", '{"answer": 12, "verdict": "incorrect"}'),
            (None, "12", '{"answer": {"value": 12, "correct": false}}'),
            (None, "12", '{"answer": {"value": 12, "status": "draft"}}'),
            (None, "12", '{"answer": 12, "confidence": 0}'),
            (None, "12", '{"answer": 12, "confidence": "0%"}'),
            (LONG, "12", '{"answer": 12, "unit": "cm"}'),
            (LONG, "12", '{"answer": {"value": 12, "unit": "ft"}}'),
            (LONG, "12", '{"answer": 12, "unit": "m", "units": "km"}'),
            (None, "12", '{"answer": {"value": 12, "answer": 13}}'),
        ],
    ),
    # sets written out: an element that is a set is never the value it holds, a repeat is one element, and a
    # union of sets written out is the set of their elements
    "set_elements": (
        [
            (None, "\\{2,4,6\\}", "$\\boxed{\\{2, 4\\} \\cup \\{6\\}}$"),
            (None, "\\{2,4,6\\}", "$\\boxed{\\{6\\} \\cup \\{4, 2, 6\\}}$"),
            (None, "\\{2,4,6\\}", "$\\boxed{\\{2, 4, 4, 6\\}}$"),
            (None, "\\{\\{1\\},3\\}", "$\\boxed{\\{3, \\{1\\}\\}}$"),
        ],
        [
            (None, "\\{2,4,6\\}", "$\\boxed{\\{2, \\{4\\}, 6\\}}$"),
            (None, "\\{2,4,6\\}", "$\\boxed{\\{\\{2\\}, \\{4\\}, \\{6\\}\\}}$"),
            (None, "\\{2,4,6\\}", "$\\boxed{\\{\\{2, 4, 6\\}\\}}$"),
            (None, "\\{2,4,6\\}", "$\\boxed{\\{2, 4, 4\\}}$"),
            (None, "\\{2,4,6\\}", "$\\boxed{\\{2, 4\\} \\cup \\{4\\}}$"),
            (None, "\\{2,4,6\\}", "$\\boxed{\\{2, 4\\} \\cup \\{6, 8\\}}$"),
            (None, "\\{2,4,6\\}", "$\\boxed{\\{2, 4\\} \\cup \\{\\{6\\}\\}}$"),
            (None, "\\{\\{1\\},3\\}", "$\\boxed{\\{3, 1\\}}$"),
            (None, "\\{\\{1\\},3\\}", "$\\boxed{\\{1\\} \\cup \\{3\\}}$"),
        ],
    ),
}


@pytest.mark.parametrize("rule", RULES)
@pytest.mark.parametrize("name", sorted(TABLES))
def test_round5_value_forms_score_1(name: str, rule: str) -> None:
    wrong = [row for row in TABLES[name][0] if _value(row, rule) != 1.0]
    assert not wrong, wrong


@pytest.mark.parametrize("rule", RULES)
@pytest.mark.parametrize("name", sorted(TABLES))
def test_round5_value_form_near_misses_score_0(name: str, rule: str) -> None:
    wrong = [row for row in TABLES[name][1] if _value(row, rule) != 0.0]
    assert not wrong, wrong


def test_tables_hold_more_near_misses_than_equivalents() -> None:
    for name, (equal, misses) in TABLES.items():
        assert len(misses) > len(equal), name
