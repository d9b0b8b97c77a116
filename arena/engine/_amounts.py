"""Exact chip amounts: ints while they are whole, `Fraction` once a svara halves an odd pot."""

from __future__ import annotations

from fractions import Fraction
from typing import TypeAlias

Amount: TypeAlias = int | Fraction
"""A number of chips, exact. Whole amounts stay `int` because int arithmetic is several times faster."""


def exact(value: Amount) -> Amount:
    """Normalise an amount so that whole numbers are `int`.

    >>> from fractions import Fraction
    >>> exact(Fraction(10, 2)), exact(Fraction(15, 2))
    (5, Fraction(15, 2))
    """
    if type(value) is int:  # the common case, without isinstance's slow check against the numbers ABCs
        return value
    if isinstance(value, Fraction) and value.denominator == 1:
        return value.numerator
    return value


def format_amount(value: Amount) -> str:
    """The canonical text of an amount: a rational in lowest terms.

    >>> from fractions import Fraction
    >>> format_amount(5), format_amount(Fraction(15, 2)), format_amount(Fraction(-3, 1))
    ('5', '15/2', '-3')
    """
    return str(exact(value))


def parse_amount(text: str) -> Amount:
    """Read an amount written by `format_amount`; raise `ValueError` on anything else.

    >>> parse_amount("15/2"), parse_amount("-4")
    (Fraction(15, 2), -4)
    """
    if not isinstance(text, str):
        raise ValueError(f"an amount must be a string such as '15/2', not {text!r}")
    numerator, slash, denominator = text.partition("/")
    try:
        value = Fraction(int(numerator), int(denominator)) if slash else Fraction(int(numerator))
    except (ValueError, ZeroDivisionError):
        raise ValueError(f"not an exact amount: {text!r}") from None
    if format_amount(value) != text:
        raise ValueError(f"amount {text!r} is not written canonically (write {format_amount(value)!r})")
    return exact(value)
