"""Helpers for tests that tamper with hand histories."""

from __future__ import annotations

from typing import Any


def unshown_deal(records: list[dict[str, Any]]) -> int:
    """The line of a deal whose pot ends without any hand shown: its cards decide nothing recorded,
    so a history may change them and still replay when it does not say they came from its seed."""
    for index, record in enumerate(records):
        for later in records[index + 1:] if record["event"] == "deal" else ():
            if later["event"] in ("showdown", "reveal", "deal"):
                break
            if later["event"] == "pot_won":
                return index + 1
    raise LookupError("no deal ends unshown")
