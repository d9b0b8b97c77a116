"""arena/engine/_amounts.py: exact amounts (ints while whole, Fractions after an odd svara halving)."""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from arena.engine import exact, format_amount, parse_amount


def test_exact_makes_whole_fractions_ints_and_keeps_the_rest() -> None:
    assert exact(Fraction(10, 2)) == 5 and type(exact(Fraction(10, 2))) is int
    assert exact(Fraction(15, 2)) == Fraction(15, 2) and type(exact(Fraction(15, 2))) is Fraction
    assert exact(7) == 7 and type(exact(7)) is int
    assert exact(Fraction(-4, 2)) == -2 and type(exact(Fraction(-4, 2))) is int


def test_amounts_are_written_as_rationals_in_lowest_terms() -> None:
    assert format_amount(5) == "5"
    assert format_amount(Fraction(15, 2)) == "15/2"
    assert format_amount(Fraction(30, 4)) == "15/2"
    assert format_amount(Fraction(-3, 1)) == "-3"
    assert format_amount(Fraction(-45, 6)) == "-15/2"
    assert format_amount(0) == "0"


@pytest.mark.parametrize(
    ("text", "value"),
    [("15/2", Fraction(15, 2)), ("-4", -4), ("0", 0), ("-1/3", Fraction(-1, 3)), ("18", 18)],
)
def test_parse_amount_reads_canonical_text(text: str, value: object) -> None:
    parsed = parse_amount(text)
    assert parsed == value and type(parsed) is type(value)


@pytest.mark.parametrize(
    "text",
    ["", "1.5", "7.0", "10/2", "5/1", "3/-2", "1/0", "1/2/3", "a", "0/1", "-0/1", " 5/2", "15/ 2"]
    + [" 5", "+5", "-0", "1_000", "\u0665", "5 "],
)
def test_parse_amount_refuses_anything_but_canonical_text(text: str) -> None:
    with pytest.raises(ValueError):
        parse_amount(text)


@pytest.mark.parametrize("value", [5, 5.0, Fraction(1, 2), None, b"5"])
def test_parse_amount_refuses_non_strings(value: object) -> None:
    with pytest.raises(ValueError):
        parse_amount(value)  # type: ignore[arg-type]


@given(st.fractions())
def test_format_and_parse_round_trip(value: Fraction) -> None:
    text = format_amount(value)
    assert parse_amount(text) == value
    assert format_amount(parse_amount(text)) == text
    assert type(parse_amount(text)) is (int if value.denominator == 1 else Fraction)
