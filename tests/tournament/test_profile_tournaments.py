"""A short tournament of the sample bots for every profile and option, each checked by `replay`.

`classic` at every table size from 3 to 8, each of its options once; `seka36`, `svara32` and
`seka21` with dark play off and on (and seka36's split ties); `georgian` with each of its options.
Every tournament must finish without a fault (the sample bots play every profile legally) and
`seka-arena replay --results` must find every history, result and seed in agreement. The bots are
real processes, started once and reached by address, so that a table of eight costs no starts.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path

import pytest

from arena.cli import main
from arena.engine import profile

from ..sdk._launch import RunningBot, launched

BOTS = [("strong", ()), ("threshold", ()), ("random", ("--seed", "1")), ("call", ()), ("minimal", ()),
        ("random", ("--seed", "2")), ("strong", ()), ("random", ("--seed", "3"))]
"""The field, in seating order: a table of n seats takes the first n."""

CASES: list[tuple[str, dict[str, object], int]] = [
    ("classic", {"wild": "black7"}, 3),
    ("classic", {"wild": "none"}, 4),
    ("classic", {"cards": 2}, 5),
    ("classic", {"open": "multiway", "tie": "split"}, 6),
    ("classic", {"dark": True}, 7),
    ("classic", {"deck": 24}, 8),  # Trynka's 24 cards deal exactly eight hands
    ("seka36", {}, 2),
    ("seka36", {"dark": True, "tie": "split", "stack": 20}, 2),
    ("svara32", {}, 2),
    ("svara32", {"dark": True}, 2),
    ("seka21", {}, 2),
    ("seka21", {"dark": True}, 2),
    ("georgian", {"deck": 32}, 3),
    ("georgian", {"dark": True}, 4),
    ("georgian", {"tie": "split"}, 2),
]


@pytest.fixture(scope="module")
def field(tmp_path_factory: pytest.TempPathFactory) -> Iterator[list[RunningBot]]:
    folder = tmp_path_factory.mktemp("field")
    with ExitStack() as stack:
        yield [stack.enter_context(launched(name, f"unix:{folder / f'{index}.sock'}", folder / f"{index}.log",
                                            extra_args=extra))
               for index, (name, extra) in enumerate(BOTS)]


def _yaml(value: object) -> str:
    return ("true" if value else "false") if isinstance(value, bool) else str(value)


@pytest.mark.parametrize(("name", "options", "seats"), CASES,
                         ids=[f"{name}-{seats}-" + "-".join(f"{k}={_yaml(v)}" for k, v in options.items())
                              for name, options, seats in CASES])
def test_a_short_tournament_of_the_profile_replays(field: list[RunningBot], tmp_path: Path, name: str,
                                                  options: dict[str, object], seats: int) -> None:
    participants = "".join(f"  - {{name: bot{index}, address: \"{bot.address}\"}}\n"
                           for index, bot in enumerate(field[:seats]))
    table = ", ".join(["pots: 2", *(f"{key}: {_yaml(value)}" for key, value in options.items())])
    definition = tmp_path / "t.yaml"
    definition.write_text(f"name: t\nparticipants:\n{participants}profile: {name}\ntable: {{{table}}}\n"
                          f"table_size: {seats}\nsessions_per_table: {seats}\nduplicate: false\n"
                          f"seed: {hashlib.sha256(name.encode()).hexdigest()[:32]}\n"
                          "concurrency: 1\n")
    assert main(["run", str(definition), "--out", str(tmp_path / "out"), "--no-report"]) == 0
    results = tmp_path / "out" / "results" / "t"
    standings = json.loads((results / "standings.json").read_text())
    assert standings["complete"] and standings["sessions"] == seats
    assert {row["name"]: row["faults"] for row in standings["standings"]} == {f"bot{n}": 0 for n in range(seats)}
    assert main(["replay", "--results", str(results)]) == 0
    # the histories were played by the profile with these options
    expected = profile(name, options)
    for history in sorted((results / "histories").glob("*.jsonl")):  # not their resources files
        start = json.loads(history.read_text().splitlines()[0])
        assert start["profile"] == name, start
        assert {key: start["options"][key] for key in options} == {k: expected.option_values[k] for k in options}
