"""How strong a written tournament secret is: at least 128 bits, estimated conservatively.

Every deal follows from the secret through public steps (docs/tournaments.md), so a secret that can
be guessed (`seed: 42`, a word, a date) gives a bot every card once it finds it, by trying
candidates against its own cards. A written secret is therefore accepted only as random text of
a known alphabet with at least `SECRET_BITS` bits: decimal digits (3.3 bits each), hex (4), base32
(5, RFC 4648 upper case) or base64 (6, standard or URL-safe, both cases present), whose decoded
bytes also look random (varied bytes and varied steps between them: no repeats, runs or
patterns). Words and phrases are refused even when long: their entropy cannot be told from their
length. The check cannot prove randomness; it stops the secrets people make up.
"""

from __future__ import annotations

import base64
import binascii
import math
import re

SECRET_BITS = 128
"""Beyond any search: 2^128 candidates."""
HOW = ("write one drawn at random, such as the output of python3 -c 'import secrets; print(secrets.token_hex(16))' "
       "(32 hex digits), or leave `seed:` out to have one drawn and kept with the results")

_ALPHABETS: tuple[tuple[str, re.Pattern[str], str], ...] = (
    ("decimal digits", re.compile(r"[0-9]+"), "0123456789"),
    ("hex digits", re.compile(r"[0-9A-Fa-f]+"), "0123456789abcdef"),
    ("base32 characters", re.compile(r"[A-Z2-7]+=*"), "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"),
    ("base64 characters", re.compile(r"[A-Za-z0-9+/]+={0,2}|[A-Za-z0-9_-]+={0,2}"),
     "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"),
)


_URL_SAFE = str.maketrans("-_", "+/")


def secret_problem(text: str) -> str | None:
    """Why `text` is too weak a tournament secret, with how to write one; None when it is strong enough.

    >>> secret_problem("3f9c1a7e5b2d8c4f6a0e9b1d7c3f5a2e") is None
    True
    >>> print(secret_problem("42"))  # doctest: +ELLIPSIS
    a written secret needs at least 128 random bits, and '42' is 2 decimal digits (6 bits): write one ...
    >>> print(secret_problem("my-tournament"))  # doctest: +ELLIPSIS
    a written secret needs ... and 'my-tournament' is 13 base64 characters (78 bits): write one ...
    >>> print(secret_problem("0123456789abcdef" * 2))  # doctest: +ELLIPSIS
    a written secret needs ... does not look random (its bytes repeat or follow a pattern): write one ...
    """
    reason = _weakness(text)
    if reason is None:
        return None
    return f"a written secret needs at least {SECRET_BITS} random bits, and {reason}: {HOW}"


def _weakness(text: str) -> str | None:
    shown = repr(text) if len(text) <= 40 else repr(text[:37] + "...")
    for name, pattern, alphabet in _ALPHABETS:
        if pattern.fullmatch(text):
            symbols = text.rstrip("=")
            bits = len(symbols) * math.log2(len(alphabet))
            if bits < SECRET_BITS:
                return f"{shown} is {len(symbols)} {name} ({math.floor(bits)} bits)"
            if name == "base64 characters" and not (re.search("[a-z]", text) and re.search("[A-Z]", text)):
                case = "lower" if re.search("[a-z]", text) else "upper"
                return f"{shown} has only {case}-case letters, as words do"
            values = [alphabet.index(symbol) for symbol in symbols.lower().translate(_URL_SAFE)] \
                if name == "hex digits" else [alphabet.index(symbol) for symbol in symbols.translate(_URL_SAFE)]
            if not (_looks_random(values, len(alphabet)) and _looks_random(list(_decode(name, text)), 256)):
                return f"{shown} does not look random (its bytes repeat or follow a pattern)"
            return None
    if re.fullmatch(r"[a-z\s-]+", text):
        return f"{shown} has only lower-case letters, as words do"
    return f"{shown} is not random text: not decimal, hex, base32 or base64"


def _decode(name: str, text: str) -> bytes:
    """The bytes `text` stands for (for decimal digits, the number's); those of its characters if it does not decode."""
    try:
        if name == "decimal digits":
            number = int(text)
            return number.to_bytes(max(1, (number.bit_length() + 7) // 8), "big")
        if name == "hex digits":
            return bytes.fromhex(text if len(text) % 2 == 0 else "0" + text)
        padded = text.rstrip("=")
        if name == "base32 characters":
            return base64.b32decode(padded + "=" * (-len(padded) % 8))
        return base64.b64decode(padded.replace("-", "+").replace("_", "/") + "=" * (-len(padded) % 4))
    except (binascii.Error, ValueError):
        return text.encode()


def _looks_random(values: list[int], size: int) -> bool:
    """Whether `values` (each below `size`) show as many different values, and different steps between
    them, as random ones would: at least half the average.

    Random values seldom fall that short: 32 random hex digits show fewer than 7 of the 16 (or of the
    16 steps) less than once in 10^9 draws, 16 random bytes fewer than 8 values less than once in
    10^11 (no refusal in 300,000 draws of `secrets.token_hex(16)`); a repeated, counting or keyboard
    pattern shows few values, or few different steps.
    """
    steps = [(later - earlier) % size for earlier, later in zip(values, values[1:], strict=False)]
    return all(len(set(seen)) >= math.ceil(0.5 * _expected_distinct(len(seen), size)) for seen in (values, steps))


def _expected_distinct(count: int, size: int) -> float:
    """How many different values `count` uniformly random values below `size` show on average."""
    return size * (1 - (1 - 1 / size) ** count)
