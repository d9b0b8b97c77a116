"""Deal seeds no bot can derive from a typed `--seed`: the text combined with a fresh 128-bit key.

The shuffle is public (`arena.engine.deck_order`), so a seed a person types (`7`, `demo`) is one a
bot can find again: it tries likely seeds until one deals it the three cards it holds, and then
knows every hand at the table. `play` and `sprt` therefore deal from `keyed_seed(text, key)` with a
fresh key (`new_deal_key`): the key is printed and the combined seed is each history's `seed`, so
`replay` re-derives every deal, and passing the key back (`--deal-key`) deals the same cards again.
"""

from __future__ import annotations

import re
import secrets

DEAL_KEY_BYTES = 16
"""128 bits: no search over keys can finish, whatever the text it is combined with."""
_DEAL_KEY = re.compile(rf"[0-9a-f]{{{2 * DEAL_KEY_BYTES}}}\Z")


def new_deal_key() -> str:
    """A fresh deal key: 32 lowercase hex digits from the operating system's random source."""
    return secrets.token_hex(DEAL_KEY_BYTES)


def deal_key_problem(text: str) -> str | None:
    """What is wrong with a deal key given back (`--deal-key`), or None.

    >>> deal_key_problem("0123456789abcdef0123456789abcdef") is None
    True
    >>> deal_key_problem("7")
    "must be the 32 hex digits a run printed (a 128-bit key), not '7'"
    """
    if _DEAL_KEY.match(text):
        return None
    return f"must be the {2 * DEAL_KEY_BYTES} hex digits a run printed (a 128-bit key), not {text!r}"


def keyed_seed(text: str, key: str) -> str:
    """The deal seed of typed `text` and deal `key`: what the history records as its `seed`.

    >>> keyed_seed("7", "0123456789abcdef0123456789abcdef")
    '7/key-0123456789abcdef0123456789abcdef'
    """
    return f"{text}/key-{key}"
