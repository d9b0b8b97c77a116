"""What both ends of the bot protocol share: names, the launch contract, exact amounts in messages."""

from __future__ import annotations

from fractions import Fraction

from ._proto.seka.v1 import seka_pb2 as pb
from .engine import Amount, exact

PROTOCOL_VERSION = "seka.v1"
"""The protocol version both ends speak."""
SERVICE_NAME = pb.DESCRIPTOR.services_by_name["SekaBot"].full_name
"""`"seka.v1.SekaBot"`: a ready bot's health service reports SERVING for it and for `""`."""
ADDRESS_ENV = "SEKA_BOT_ADDRESS"
"""The environment variable that tells a launched bot where to listen (`--address` wins over it)."""


def amount_from_proto(message: pb.Amount) -> Amount:
    """The exact value of an `Amount`; a denominator of 0 means 1, a negative one is malformed.

    >>> amount_from_proto(pb.Amount(numerator=15, denominator=2)), amount_from_proto(pb.Amount(numerator=4))
    (Fraction(15, 2), 4)
    """
    denominator = message.denominator or 1
    if denominator < 0:
        raise ValueError(f"an amount's denominator cannot be negative: {message.numerator}/{message.denominator}")
    return exact(Fraction(message.numerator, denominator))


def amount_to_proto(value: Amount) -> pb.Amount:
    """An exact amount as an `Amount` message in lowest terms.

    >>> amount_to_proto(Fraction(15, 2))
    numerator: 15
    denominator: 2
    <BLANKLINE>
    """
    message = pb.Amount()
    put_amount(message, value)
    return message


def put_amount(message: pb.Amount, value: Amount) -> None:
    """Write an exact amount into `message`, a field of the message being built, in lowest terms.

    Setting a field in place costs about half of building an `Amount` and copying it in.

    >>> turn = pb.TurnRequest()
    >>> put_amount(turn.pot, Fraction(3, 2)); put_amount(turn.balances.add(), -4)
    >>> turn.pot.numerator, turn.pot.denominator, turn.balances[0].denominator
    (3, 2, 1)
    """
    kind = type(value)
    if kind is int:
        message.numerator = value  # type: ignore[assignment]  # narrowed by `type(value) is int`
        message.denominator = 1
    elif kind is Fraction or (isinstance(value, (int, Fraction)) and not isinstance(value, bool)):
        message.numerator = value.numerator
        message.denominator = value.denominator
    else:
        raise TypeError(f"an amount is an int or a fractions.Fraction, not {value!r}")
