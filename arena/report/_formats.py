"""How every page writes a number or a time: the report's and the service's pages alike, one rule each.

Chips (balances, chip rates, net chips) read as signed decimals of two places, the exact value rounded
to the nearest, ties to even, with the exact amount in the tooltip; a replay's amounts (what was paid,
each step's balances) read exactly, as decimals where they have one; ratings have one decimal; a time
reads to the minute in UTC, its full ISO text in the tooltip.
"""

from __future__ import annotations

from datetime import UTC, datetime
from fractions import Fraction

import markupsafe

from ..engine import format_amount

CHIP_DECIMALS = 2
RATING_DECIMALS = 1


def chips_text(amount: Fraction | int | float) -> str:
    """An amount of chips as a signed decimal of two places, rounded to the nearest, ties to even.

    >>> from fractions import Fraction
    >>> chips_text(Fraction(463, 48)), chips_text(Fraction(-1, 8)), chips_text(Fraction(1, 800)), chips_text(-0.004)
    ('+9.65', '-0.12', '+0.00', '+0.00')
    """
    rounded = round(Fraction(amount), CHIP_DECIMALS)
    return f"{float(rounded):+.{CHIP_DECIMALS}f}"  # a Fraction rounds to 0, never to -0


def exact_text(amount: Fraction | int) -> str:
    """An amount exactly, as a decimal when it has one (the halves of a svara's re-entry, a dark bet's
    factors), else as its fraction: the replay shows what was paid, to the last fraction of a chip.

    >>> from fractions import Fraction
    >>> exact_text(Fraction(5, 2)), exact_text(Fraction(-1, 8)), exact_text(7), exact_text(Fraction(1, 3))
    ('2.5', '-0.125', '7', '1/3')
    """
    exact = Fraction(amount)
    denominator, places = exact.denominator, 0
    for factor in (2, 5):
        while denominator % factor == 0:
            denominator //= factor
            places += 1
    if denominator != 1:
        return format_amount(exact)
    # 10**places is a multiple of every denominator of 2s and 5s with `places` factors in all
    scaled = exact * 10**places
    digits = f"{abs(scaled.numerator):0{places + 1}d}"
    text = digits if places == 0 else f"{digits[:-places]}.{digits[-places:]}".rstrip("0").rstrip(".")
    return f"-{text}" if exact < 0 else text


def chips(amount: Fraction | int | str) -> markupsafe.Markup:
    """An exact amount as `chips_text` writes it, the exact value (`format_amount`'s text) in its tooltip.

    >>> from fractions import Fraction
    >>> str(chips(Fraction(463, 48)))
    '<span class="num" title="exactly 463/48">+9.65</span>'
    """
    exact = Fraction(amount)
    return markupsafe.Markup('<span class="num" title="exactly {}">{}</span>').format(format_amount(exact),
                                                                                      chips_text(exact))


def rating_text(value: float) -> str:
    """A rating (or a rating's bound) with one decimal.

    >>> rating_text(1523.449), rating_text(1500)
    ('1523.4', '1500.0')
    """
    return f"{value:.{RATING_DECIMALS}f}"


def when(iso: str | None) -> markupsafe.Markup:
    """A stored time read at a glance (minutes, UTC), the whole ISO text in its tooltip (nothing for None).

    >>> str(when("2026-12-04T17:05:09.123+00:00"))
    '<time datetime="2026-12-04T17:05:09.123+00:00" title="2026-12-04T17:05:09.123+00:00">2026-12-04 17:05 UTC</time>'
    """
    if not iso:
        return markupsafe.Markup("")
    moment = datetime.fromisoformat(iso)
    if moment.tzinfo is not None:
        moment = moment.astimezone(UTC)
    shown = moment.strftime("%Y-%m-%d %H:%M UTC")
    return markupsafe.Markup('<time datetime="{}" title="{}">{}</time>').format(iso, iso, shown)
