"""Deal books (`deals: FILE`): two tournaments that name one book meet the same deals, whatever their
bots are called and whatever their secrets, on every profile; the book's SHA-256 is in the commitment
and `replay --results` checks it; bad books are refused at their file, line and field."""

from __future__ import annotations

import hashlib
import html
import json
import os
import shutil
import subprocess
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path

import pytest

from arena.cli import main
from arena.history import read_history
from arena.storage import commitment_of
from arena.tournament import (
    BOOK_NAME,
    MAX_DEALS,
    TournamentConfigError,
    make_deal_book,
    parse_config,
    plan,
    value_function,
)

from ..sdk._launch import RunningBot, launched
from ._support import rows

PROFILES = [("georgian", "dark: true"), ("classic", "open: multiway"), ("seka36", "stack: 20"), ("svara32", ""),
            ("seka21", "")]
_TOURNAMENT = """\
name: {name}
participants:
  - {{name: {first}, address: "{a}"}}
  - {{name: {second}, address: "{b}"}}
  - {{name: {third}, address: "{c}"}}
profile: {profile}
table: {{pots: 2{options}}}
sessions_per_table: 1
seed: {seed}
deals: {deals}
concurrency: 1
"""


@pytest.fixture(scope="module")
def field(tmp_path_factory: pytest.TempPathFactory) -> Iterator[list[RunningBot]]:
    folder = tmp_path_factory.mktemp("field")
    with ExitStack() as stack:
        yield [stack.enter_context(launched(name, f"unix:{folder / f'{name}.sock'}", folder / f"{name}.log"))
               for name in ("call", "threshold", "strong")]


def _definition(folder: Path, field: list[RunningBot], *, name: str, names: tuple[str, str, str], seed: str,
                profile: str, options: str, deals: str) -> Path:
    path = folder / f"{name}.yaml"
    path.write_text(_TOURNAMENT.format(name=name, first=names[0], second=names[1], third=names[2],
                                       a=field[0].address, b=field[1].address, c=field[2].address, profile=profile,
                                       options=f", {options}" if options else "", seed=seed, deals=deals))
    return path


def _deals_by_block(results: Path) -> dict[str, list[object]]:
    """Each block's deals, as its first session's history records them: the hands by seat slot."""
    found: dict[str, list[object]] = {}
    for row in rows(results):
        if row["mirror"] == 0:
            records = read_history(results / str(row["history_path"]))
            found[str(row["block"])] = [record["hands"] for record in records if record["event"] == "deal"]
    return found


@pytest.mark.parametrize(("profile", "options"), PROFILES, ids=[profile for profile, _ in PROFILES])
def test_two_tournaments_that_name_one_book_meet_the_same_deals(field: list[RunningBot], tmp_path: Path,
                                                               capsys: pytest.CaptureFixture[str], profile: str,
                                                               options: str) -> None:
    assert main(["deals", "make", "3"]) == 0
    book = tmp_path / "book.yaml"
    book.write_text(capsys.readouterr().out)
    seeds = [line.split('"')[1] for line in book.read_text().splitlines() if line.startswith("  - ")]
    assert len(seeds) == 3
    # Another secret and other names (a re-run after the bots were renamed, or another tournament).
    first = _definition(tmp_path, field, name="one", names=("a", "b", "c"), seed="5477080635db037329b74afb07035ec4",
                        profile=profile, options=options, deals="book.yaml")
    second = _definition(tmp_path, field, name="two", names=("x", "y", "z"), seed="9c1d8e2b7a3f6045e18d2c9b7f3a6e51",
                         profile=profile, options=options, deals=str(book))
    dealt = []
    for definition in (first, second):
        assert main(["run", str(definition), "--out", str(tmp_path / "out"), "--no-report"]) == 0
        out = " ".join(capsys.readouterr().out.split())  # the console wraps long lines
        results = tmp_path / "out" / "results" / definition.stem
        secret = str(parse_config(definition.read_text(), base_dir=tmp_path).seed)
        book_hash = hashlib.sha256(book.read_bytes()).hexdigest()
        assert f"SHA-256 of the secret, the deal book {book_hash[:12]}... and the value function" in out
        committed = commitment_of(secret, book_hash, value_function())
        assert f": {committed}" in out and committed != commitment_of(secret, None, value_function())
        assert (results / BOOK_NAME).read_bytes() == book.read_bytes()
        stored = rows(results)
        assert [row["seed"] for row in stored] == [seed for seed in seeds for _ in range(2)]  # block b: seed b
        assert main(["replay", "--results", str(results), "--deals", str(book),
                     "--commitment", committed]) == 0, capsys.readouterr().out
        assert "Everything agrees." in capsys.readouterr().out
        dealt.append(_deals_by_block(results))
    assert dealt[0] == dealt[1] and len(dealt[0]) == 3


def test_replay_results_checks_the_book(field: list[RunningBot], tmp_path: Path,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    book = tmp_path / "book.yaml"
    book.write_text(make_deal_book(3))
    definition = _definition(tmp_path, field, name="t", names=("a", "b", "c"), seed="5477080635db037329b74afb07035ec4",
                             profile="georgian", options="", deals="book.yaml")
    assert main(["run", str(definition), "--out", str(tmp_path / "out"), "--no-report"]) == 0
    results = tmp_path / "out" / "results" / "t"
    # The standings page's one-line check of the commitment, run as printed, gives it.
    assert main(["report", str(results), "--out", str(tmp_path / "report")]) == 0
    page = (tmp_path / "report" / "index.html").read_text()
    check = html.unescape(page.split('id="verify-command">', 1)[1].split("</code>", 1)[0])
    printed = subprocess.run(["bash", "-c", check], capture_output=True, text=True, check=True).stdout
    stored = json.loads((results / "standings.json").read_text())["seed_commitment"]
    assert printed.split()[0] == stored and "deal book" in page
    capsys.readouterr()
    other = tmp_path / "other.yaml"
    other.write_text(make_deal_book(3))
    # Another book given as the published one.
    assert main(["replay", "--results", str(results), "--deals", str(other)]) == 1
    assert f"the deal book {other} (SHA-256 " in capsys.readouterr().out
    # The kept copy swapped for another book: the commitment no longer holds, nor do the seeds.
    copy = tmp_path / "copy"
    shutil.copytree(results, copy)
    shutil.copy(other, copy / BOOK_NAME)
    assert main(["replay", "--results", str(copy)]) == 1
    out = capsys.readouterr().out
    assert "the revealed secret and deal book do not hash to the commitment" in out
    assert "seating, block or seed of s0001" in out
    # The copy gone.
    (copy / BOOK_NAME).unlink()
    assert main(["replay", "--results", str(copy)]) == 1
    assert f"its copy {copy / BOOK_NAME} cannot be read" in capsys.readouterr().out
    # A resumed run with the book changed in place is refused: the commitment binds the first book.
    book.write_text(make_deal_book(3))
    assert main(["run", str(definition), "--out", str(tmp_path / "out"), "--no-report"]) == 1
    assert "is not the one this tournament began with" in capsys.readouterr().err


_NAMED = """\
name: t
participants: [{name: a, address: "h:1"}, {name: b, address: "h:2"}, {name: c, address: "h:3"}]
deals: book.yaml
"""
_SEED = "c04c7bcc7acd96787753664a0bf248e67d038158ba6afe2400fe0e7ebaf9bfba"


@pytest.mark.parametrize(("book", "problems"), [
    (f'deals:\n  - "{_SEED}"\n  - 12345\n  - "{"0" * 64}"\n  - "{_SEED}"\n  - "{_SEED.upper()}"\n', [
        "book.yaml:3: deals[1]: must be 64 lowercase hex digits",
        "book.yaml:4: deals[2]: a deal seed deals every card, so it must be drawn at random: 00000000...",
        "book.yaml:5: deals[3]: the same deal as deals[0]",
        "book.yaml:6: deals[4]: must be 64 lowercase hex digits"]),
    ("seeds: []\n", ["book.yaml:1: seeds: unknown key", "book.yaml:1: deals: required"]),
    ("deals: {a: 1}\n", ["book.yaml:1: deals: must be a non-empty list of deal seeds, not a mapping"]),
    ("", ["book.yaml:1: deals: the deal book is empty"]),
    ("deals: [\n", ["book.yaml:2: YAML syntax error"]),
    (f'deals: ["{_SEED}"]\n', ["t.yaml:3: deals: the book holds 1 deal and this tournament plays 3 blocks, each "
                               "dealing from one: make a book of 3 or more (seka-arena deals make 3 > FILE)"]),
    (None, ["t.yaml:3: deals: cannot read the deal book book.yaml: No such file or directory"]),
    ("#" * (8 << 20) + "\n", ["t.yaml:3: deals: the deal book book.yaml is larger than 8388608 bytes (a book holds "
                              f"at most {MAX_DEALS} deals)"]),
    ("fifo", ["t.yaml:3: deals: the deal book book.yaml is not a regular file"]),
], ids=["seeds", "no-deals", "not-a-list", "empty", "not-yaml", "too-short", "missing", "too-large", "fifo"])
def test_a_bad_book_is_refused_at_its_file_line_and_field(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                         book: str | None, problems: list[str]) -> None:
    monkeypatch.chdir(tmp_path)
    if book == "fifo":  # a named pipe nobody writes to: reading it would wait for ever
        os.mkfifo(tmp_path / "book.yaml")
    elif book is not None:
        (tmp_path / "book.yaml").write_text(book)
    with pytest.raises(TournamentConfigError) as caught:
        parse_config(_NAMED, filename="t.yaml", base_dir=tmp_path)
    found = [str(problem) for problem in caught.value.problems]
    assert len(found) == len(problems), found
    assert all(line.startswith(want) for line, want in zip(found, problems, strict=True)), found


def test_a_book_made_by_the_command_deals_the_plans_blocks_in_order(tmp_path: Path,
                                                                    capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["deals", "make", "4"]) == 0
    (tmp_path / "book.yaml").write_text(capsys.readouterr().out)
    config = parse_config(_NAMED, filename="t.yaml", base_dir=tmp_path)
    assert config.deals is not None and len(config.deals.seeds) == 4
    assert [(session.block, session.seed) for session in plan(config)] == [
        (f"b000{block}", config.deals.seeds[block - 1]) for block in (1, 2, 3) for _ in range(2)]
    with pytest.raises(SystemExit):
        main(["deals", "make", str(MAX_DEALS + 1)])
    assert f"a book holds 1 to {MAX_DEALS} deals" in capsys.readouterr().err
