"""`seka-arena check-bot` passes the Go sample bot (sample_bots/go_bot, built by `make go_bot`) on
every profile and its options: with Python and JavaScript, the protocol is tested in three languages."""

from __future__ import annotations

import pytest

from ..sdk._launch import needs_go_bot
from .test_check_bot import _check, _check_profile, _conforms, _conforms_to_profile

GO_BOT = "sample_bots/go_bot/go_bot"

PROFILES = [
    ("georgian", "--dark", "true", "--tie", "split", "--deck", "32"),
    ("classic",),
    ("classic", "--open", "multiway", "--cards", "2", "--wild", "black7", "--dark", "true"),
    ("classic", "--wild", "none", "--deck", "24", "--tie", "split"),
    ("seka36",),
    ("seka36", "--dark", "true", "--tie", "split", "--stack", "100"),
    ("svara32",),
    ("seka21", "--dark", "true", "--stack", "20"),
]


def test_the_go_sample_bot_conforms() -> None:
    needs_go_bot()
    _conforms(_check(GO_BOT))  # at the default level: sandbox where there is one


@pytest.mark.parametrize("options", PROFILES, ids=["-".join(options).replace("--", "") for options in PROFILES])
def test_the_go_sample_bot_conforms_to_every_profile(options: tuple[str, ...]) -> None:
    needs_go_bot()
    lines = _conforms_to_profile(_check_profile(("--profile", *options), GO_BOT))
    assert sum(line.startswith("PASS  turn") for line in lines) >= 3, lines
    if "--dark" in options:
        assert any("carried notices: look" in line for line in lines)  # it looked, and was asked again
