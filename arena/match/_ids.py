"""The session id a bot is told: opaque, keyed by a secret that no bot ever sees.

Every deal comes from a seed through a public shuffle (`arena.engine.deck_order`), so an id from
which a bot could recover its session's seed, or even just which sessions share a seed, would show
it every hand at the table: `play-<seed>` did. Every entry point that plays bots (`play`,
`check-bot`, `sprt`, tournaments, a service) tells them `public_session_id(key, internal id)`
instead; histories, logs and file names keep the internal id, for the organiser.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets


def public_session_id(key: str | bytes, session_id: str) -> str:
    """The id sent to bots in every call of a session: 16 hex digits of HMAC-SHA256(key, session id).

    Args:
        key: a secret bots never see. A tournament uses its secret, revealed only once every
            session is over; a run without a secret of its own uses a fresh `session_key()`.
        session_id: the internal id (`s0001`, `play-7`), which the history keeps.

    >>> public_session_id("secret", "s0001")
    '231f847e29c4d7e0'
    >>> public_session_id(b"secret", "s0001") == public_session_id("secret", "s0001")
    True
    >>> public_session_id("secret", "s0001") != public_session_id("secret", "s0002")
    True
    """
    raw = key.encode("utf-8") if isinstance(key, str) else key
    return hmac.new(raw, f"session|{session_id}".encode(), hashlib.sha256).hexdigest()[:16]


def session_key() -> bytes:
    """A fresh random key for `public_session_id`, for a run that has no secret of its own.

    Kept in memory only: nothing a bot can read (a file, an argument, the environment) holds it.
    """
    return secrets.token_bytes(32)
