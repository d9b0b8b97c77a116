"""The `seka-arena` command: thin wrappers that call one library function each."""

from __future__ import annotations

import argparse
import errno
import importlib.metadata
import json
import os
import random
import resource
import secrets
import shlex
import signal
import sys
import tempfile
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any, TypeVar

import trio
from rich.console import Console
from rich.markup import escape

from .audit import audit_results
from .checkbot import check_bot, print_check
from .engine import GEORGIAN, ArenaError, Event, Rules, SessionState, check_seats, profile
from .executor import ClusterCertificates, cluster_problem
from .history import write_history, write_resources
from .integrity import FLAGGING, folder_collusion
from .isolation import Isolation, default_isolation, lowered_defaults_warning, verify_isolation
from .match import deal_key_problem, keyed_seed, new_deal_key, public_session_id, run_session, session_key
from .policies import Policy, RandomPolicy, ThresholdPolicy, play_in_process
from .ratings import Sprt
from .replay import describe_event, replay_file
from .report import Audience, SessionHistory, write_report, write_session_replay
from .storage import FaultReason
from .tournament import (
    MAX_DEALS,
    LiveProgress,
    PairResult,
    TournamentRunner,
    crosstable_table,
    faults_table,
    limit_problem,
    load_config,
    make_deal_book,
    plan,
    recompute_results,
    run_sprt,
    standings_table,
)
from .transport import BotSpec, TimeLimit, is_address, with_our_python

_T = TypeVar("_T")
_E = TypeVar("_E", bound=BaseException)

_SIGPIPE_STATUS = 128 + signal.SIGPIPE
"""The exit status when the reader of our output goes away (`... | head`): the one a shell reports for a
program that SIGPIPE ends, such as `yes` in `yes | head -1`, so that `set -o pipefail` and PIPESTATUS
checks treat us like any Unix tool; 1 would claim that the command itself failed."""


def _demo(args: argparse.Namespace) -> int:
    """Play one session among built-in in-process policies, write its history, then re-check it.

    Example: seka-arena demo --seed 7 --out demo-out
    Another profile: seka-arena demo --profile classic --open multiway --dark true
    """
    rules = _rules(args)
    rng = random.Random(args.seed)
    policies: list[Policy] = [ThresholdPolicy(evaluator=rules.evaluator), RandomPolicy(random.Random(rng.random())),
                              ThresholdPolicy(call_from=15, name="loose-threshold", evaluator=rules.evaluator)]
    # The three seats of the demo, or as many as the profile allows (the stake profiles are heads-up).
    state = play_in_process(rules, policies[: rules.max_seats], seed=str(args.seed), session="demo")
    path = write_history(Path(args.out) / "demo-session.jsonl", state.events)
    result = replay_file(path)
    print("\n".join(result.account))
    print(f"\nHistory: {path} ({len(state.events)} events), re-checked against the rules: OK")
    return 0


def _replay(args: argparse.Namespace) -> int:
    """Re-check a hand history against the rules and print it pot by pot (exit 1 at the first break).

    A history whose cards were chosen (dealing: stacked, as check-bot's) is checked against the rules
    only, and the verdict says that its deals were not checked against a seed. With --results DIR,
    check every history of a tournament against the rules, its seed, the revealed secret, the
    commitment and the stored results instead, listing every disagreement (exit 1 if any).
    Example: seka-arena replay results/demo/histories/s0001.jsonl  (or: seka-arena replay --results results/demo)
    """
    if (args.history is None) == (args.results is None):
        raise ArenaError("give a history file, or --results with a tournament's results folder (not both)")
    if args.results is not None:
        return _audit(Path(args.results), commitment=args.commitment, deals=args.deals)
    result = replay_file(args.history)
    if not args.quiet:
        print("\n".join(result.account))
    unchecked = ("" if result.seeded else "; its deals were NOT checked against a seed: it says its cards were chosen "
                 "(dealing: stacked)")
    print(f"{args.history}: {len(result.state.events)} events, every rule holds{unchecked}")
    return 0


def _deals(args: argparse.Namespace) -> int:
    """Write a new deal book: COUNT deal seeds drawn from the system's secure random source, as YAML.

    A tournament that names it (`deals: FILE`) deals its block b from the book's seed b, and its
    SHA-256 joins the seed commitment; tournaments that share a book meet the same deals
    (docs/tournaments.md, "Deal books"). Keep it as secret as a tournament secret until the last
    tournament that uses it is over.
    Example: seka-arena deals make 48 > tournaments/book.yaml
    """
    sys.stdout.write(make_deal_book(args.count))
    return 0


def _deal_count(text: str) -> int:
    try:
        count = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a whole number, not {text!r}") from None
    if not 1 <= count <= MAX_DEALS:
        raise argparse.ArgumentTypeError(f"a book holds 1 to {MAX_DEALS} deals, not {count}")
    return count


def _error_rate(text: str) -> float:
    try:
        rate = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a number, not {text!r}") from None
    if not 0 < rate < 1:
        raise argparse.ArgumentTypeError(f"an error rate is between 0 and 1 (exclusive), not {rate:g}")
    return rate


def _audit(results: Path, *, commitment: str | None, deals: str | None) -> int:
    audit = audit_results(results, commitment=commitment, deals=deals)
    print(f"{audit.folder}: tournament {audit.tournament}, {audit.planned} sessions planned, "
          f"{audit.planned - audit.unfinished} finished")
    published = " (the published one)" if commitment is not None else ""
    if audit.tournament is not None:
        print(f"Commitment: {audit.binds}")
    if audit.secret_checked:
        print(f"Commitment {audit.commitment}{published}: the revealed secret hashes to it, and every session's "
              "seating and seed follow from it and the definition")
    elif not audit.secret_revealed and audit.tournament is not None:
        print(f"Commitment {audit.commitment}{published}: the secret is not revealed yet ({audit.unfinished} "
              "sessions unfinished), so the seeds could NOT be checked against it")
    elif audit.tournament is not None:
        print(f"Commitment {audit.commitment}{published}: the secret, the seeds or the plan do not follow from it "
              "(below)")
    print(f"{audit.checked} histories replayed: each against the rules and the cards its seed deals, and against "
          "the stored seed, bots, balances, winners and faults")
    for note in audit.notes:
        print(f"Note: {note}")
    for problem in audit.problems:
        print(f"  {problem}")
    if audit.problems:
        print(f"{len(audit.problems)} problem{'s' if len(audit.problems) != 1 else ''}: the results do not agree")
        return 1
    print("Everything agrees.")
    return 0


def bot_specs(arguments: Sequence[str], *, limit: TimeLimit, isolation: Isolation = Isolation.NONE) -> list[BotSpec]:
    """Bot specs from `play` arguments: `[NAME=]COMMAND` or `[NAME=]ADDRESS`, names made unique.

    >>> [(spec.name, spec.command or spec.address) for spec in bot_specs(  # doctest: +ELLIPSIS
    ...     ["python3 sample_bots/random_bot.py", "me=unix:/tmp/b.sock", "node sample_bots/js_bot/index.js",
    ...      "python3 sample_bots/random_bot.py"], limit=TimeLimit())]  # doctest: +NORMALIZE_WHITESPACE
    [('random_bot', (..., 'sample_bots/random_bot.py')), ('me', 'unix:/tmp/b.sock'),
     ('js_bot', ('node', 'sample_bots/js_bot/index.js')), ('random_bot-2', (..., 'sample_bots/random_bot.py'))]
    """
    specs: list[BotSpec] = []
    taken: set[str] = set()
    for argument in arguments:
        name, equals, rest = argument.partition("=")
        if not equals or " " in name or not name:
            name, rest = "", argument
        if is_address(rest):
            spec_name = name or rest.replace("unix:", "").rsplit("/", 1)[-1]
            specs.append(BotSpec(name=spec_name, address=rest, limit=limit))
        else:
            words = tuple(shlex.split(rest))
            if not words:
                raise ArenaError(f"empty bot command: {argument!r}")
            script = next((word for word in reversed(words) if "/" in word or "." in word), words[0])
            stem = Path(script).stem
            spec_name = name or (Path(script).parent.name if stem == "index" else stem)
            specs.append(BotSpec(name=spec_name, command=with_our_python(words), limit=limit, isolation=isolation))
        unique, number = specs[-1].name, 2
        while unique in taken:
            unique, number = f"{specs[-1].name}-{number}", number + 1
        taken.add(unique)
        if unique != specs[-1].name:
            specs[-1] = replace(specs[-1], name=unique)
    return specs


_PROFILE_OPTIONS = {
    "wild": "classic: the wild cards, 7c (default), black7 or none",
    "cards": "classic: cards per hand, 3 (default) or 2",
    "deck": "georgian: 36 (default) or 32; classic: 36 (default) or 24",
    "open": "classic: heads_up (default) or multiway",
    "dark": "georgian, classic, stake profiles: true to allow dark play (default false)",
    "tie": "svara (default) or split (georgian, classic, seka36)",
    "stack": "stake profiles: each seat's starting chips (default 50)",
}
"""The options of the rule profiles (docs/rules.md), each a flag of `play` and `check-bot`."""


def _add_profile_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--profile", default=GEORGIAN.name,
                        help="the rule profile: georgian (default), classic, seka36, svara32 or seka21")
    for name, meaning in _PROFILE_OPTIONS.items():
        parser.add_argument(f"--{name}", metavar="VALUE", help=meaning)


def _rules(args: argparse.Namespace) -> Rules:
    """The profile and options the command line names; the engine checks both."""
    options = {name: getattr(args, name) for name in _PROFILE_OPTIONS if getattr(args, name) is not None}
    return profile(args.profile, options)


def _play(args: argparse.Namespace) -> int:
    """Play one session among bots given as commands or addresses, with a live pot-by-pot account.

    Example: seka-arena play "python3 sample_bots/random_bot.py" "python3 sample_bots/strong_bot.py" --seed 7
    Another profile: seka-arena play BOT BOT --profile seka36 --dark true --stack 100
    """
    rules = _rules(args)
    check_seats(rules, len(args.bots))
    limit = TimeLimit(decision_ms=args.decision_ms, time_bank_ms=args.time_bank_ms, start_ms=args.start_ms)
    specs = bot_specs(args.bots, limit=limit, isolation=_isolation(args))
    text, key = _seed_and_key(args)
    seed = keyed_seed(text, key)
    session_id = f"play-{text}"
    # The bots are told an id keyed by a secret of this run only: `play-<seed>` would give them the deals.
    public_id = public_session_id(session_key(), session_id)
    out = Path(args.out)

    def show(state: SessionState, events: Sequence[Event]) -> None:
        if args.quiet:
            return
        for event in events:
            line = describe_event(event.to_json(), state.bots)
            if line is not None:
                print(line, flush=True)

    history = out / f"{session_id}.jsonl"
    result = _run_trio(lambda: run_session(rules, specs, seed=seed, session_id=session_id, public_id=public_id,
                                          log_dir=out / "logs" / session_id, on_events=show, hidden=[history]))
    path = write_history(history, result.events)
    write_resources(path, result.resources())
    reasons = {report.bot: [FaultReason(kind, reason, count) for kind, reason, count in report.fault_reasons]
               for report in result.seats if report.fault_reasons}
    page = write_session_replay(out, SessionHistory(session_id, path, logs=out / "logs" / session_id,
                                                    fault_reasons=reasons))
    print(f"\nSeed {text}, deal key {key}: the deals come from both (deal them again with "
          f"{_seed_options(text, key)}). History: {path}. Replay: {page} (open it in a browser). "
          f"Bot logs: {out / 'logs' / session_id}. The bots were told session id {public_id}.")
    for report in result.seats:
        telemetry = report.telemetry
        latency = telemetry["latency_ms"]
        faults = ", ".join(f"{kind} {count}" for kind, count in telemetry["faults"].items()) or "no faults"
        dead = f"; {report.dead}" if report.dead else ""
        decisions = telemetry["decisions"]
        # A bot that answered nothing has no latency to show (the telemetry holds None).
        timing = (f"{decisions} decision{'s' if decisions != 1 else ''}, median {latency['median']} ms, "
                  f"p99 {latency['p99']} ms" if decisions else "no decisions")
        print(f"  seat {report.seat} {report.bot}: balance {result.balances[report.seat]}, {timing}, {faults}{dead}")
    return 0


def _seed_and_key(args: argparse.Namespace) -> tuple[str, str]:
    """The typed `--seed` (or a random one) and the deal key (`--deal-key`, or a fresh one).

    A typed seed alone is one a bot can find again from its own cards (the shuffle is public):
    every deal comes from it combined with a 128-bit key, printed so that the run can be repeated.
    """
    text = args.seed if args.seed is not None else secrets.token_hex(8)
    return text, args.deal_key if args.deal_key is not None else new_deal_key()


def _seed_options(text: str, key: str) -> str:
    return f"--seed {shlex.quote(text)} --deal-key {key}"


def _check_bot(args: argparse.Namespace) -> int:
    """Check that a bot speaks the protocol: scripted deals through every edge case, one line per check.

    Exit status 0 only when every check passes. With --profile (and its options), the scenarios
    are that profile's: its deals, and its edge cases (dark turns, looks, short stacks, multiway
    opens, splits) where it has them.
    Example: seka-arena check-bot -- python3 sample_bots/random_bot.py
    Another profile: seka-arena check-bot --profile svara32 -- python3 sample_bots/random_bot.py
    """
    rules = _rules(args)
    command = [word for word in args.bot_command if word != "--"] if args.bot_command else []
    if bool(command) == bool(args.address):
        raise ArenaError("give the bot's command after -- , or --address HOST:PORT (not both)")
    limit = TimeLimit(decision_ms=args.decision_ms, start_ms=args.start_ms)
    spec = (BotSpec(name="bot", address=args.address, limit=limit) if args.address
            else bot_specs([shlex.join(command)], limit=limit, isolation=_isolation(args))[0])
    log_dir = Path(args.logs or tempfile.mkdtemp(prefix="seka-check-logs-"))
    passed = _run_trio(lambda: check_bot(spec, report=print_check, log_dir=log_dir, rules=rules))
    print(f"{'conforms' if passed else 'does NOT conform'}; bot logs in {log_dir}")
    return 0 if passed else 1


def _run(args: argparse.Namespace) -> int:
    """Run (or resume) a tournament from its YAML file, with live progress, then print the standings.

    Writes results/<tournament>/ under --out: tournament.sqlite, standings.json, crosstable.csv,
    histories/, logs/ and the HTML report in report/ (unless --no-report). A first Ctrl-C (or SIGTERM)
    lets the sessions in flight finish, writes the standings so far and exits 0; a second stops at
    once. Running the same command again after either resumes it.
    Example: seka-arena run tournaments/demo.yaml
    """
    console = _console()
    runner = TournamentRunner.from_file(args.tournament, out=Path(args.out), cluster=args.cluster,
                                        certificates=_cluster_certificates(args))
    try:
        config = runner.config
        console.print(f"Tournament [bold]{config.name}[/]: {len(runner.plan)} sessions of "
                      f"{config.rules.pots_per_session} pots, {len(config.participants)} bots, "
                      f"tables of {config.table_size}, "
                      f"{'duplicate' if config.duplicate else 'independent'} deals, {runner.executor.describe()}")
        console.print(f"Seed commitment ({runner.commitment_binds}): {runner.commitment}", highlight=False)
        if runner.isolation_warning is not None:
            console.print(f"[bold yellow]Warning:[/] {escape(runner.isolation_warning)}", highlight=False)
        if (lowered := lowered_defaults_warning(runner.isolation)) is not None:
            console.print(f"[bold yellow]Warning:[/] {escape(lowered)}", highlight=False)
        if (warning := runner.mirror_warning()) is not None:
            console.print(f"[bold yellow]Warning:[/] {escape(warning)}", highlight=False)
        stop = trio.Event()

        def stopping(number: int) -> None:
            console.print(f"[bold yellow]{signal.Signals(number).name}:[/] stopping: the sessions in flight "
                          "finish, no new one starts; a second Ctrl-C or SIGTERM stops at once", highlight=False)
            stop.set()

        with LiveProgress(console, config.name) as live:
            complete = _run_trio(lambda: runner.run(on_progress=live.update, stop=stop), on_first_signal=stopping)
        # Stopped before any session ended: no standings to write yet.
        path = runner.write_results() if runner.store.tally()[0] or not stop.is_set() else None
    finally:
        runner.close()
    if path is not None:
        _print_results(console, path)
    if path is not None and not args.no_report:
        try:
            _print_report(console, write_report(path.parent))
        except ArenaError as error:  # the results stand; only their pages are missing
            console.print(f"[bold yellow]Warning:[/] the report was not written: {escape(str(error))}; "
                          f"write it with: seka-arena report {path.parent}", highlight=False, soft_wrap=True)
    if not complete and stop.is_set():
        console.print("stopped: run the same command to resume")
        return 0
    if not complete:
        console.print("Not every session finished: run the same command again to resume.")
        return 1
    return 0


def _print_report(console: Console, index: Path) -> None:
    console.print(f"Report: {index.parent}/ (open {index.resolve().as_uri()} in a browser)", highlight=False,
                  soft_wrap=True)


def _report(args: argparse.Namespace) -> int:
    """Write a tournament's report: a static site of standings, charts, bot pages and session replays.

    It opens from file:// with no network; the results folder is only read. `--audience public`
    writes the copy to publish: each session as a spectator saw it, no bot's logs.
    Example: seka-arena report results/demo  (then open results/demo/report/index.html)
    """
    out = Path(args.out) if args.out is not None else None
    _print_report(_console(), write_report(Path(args.results), out=out, audience=Audience(args.audience)))
    return 0


class _Console(Console):
    """A rich console on which a closed stdout ends the command as it does for print (see `main`)."""

    def on_broken_pipe(self) -> None:
        # rich's own answer, SystemExit(1), would escape a trio nursery as a traceback and exit with 1; an older
        # rich without this hook (13.0) lets the BrokenPipeError through, as this does.
        self.quiet = True  # what rich still draws while the command unwinds (a live display's end) is dropped
        raise BrokenPipeError(errno.EPIPE, os.strerror(errno.EPIPE))


def _console() -> Console:
    # Tables need more than the 80 columns rich assumes when output is not a terminal.
    return _Console() if sys.stdout.isatty() else _Console(width=140)


def _print_results(console: Console, standings_path: Path) -> None:
    document = json.loads(standings_path.read_text(encoding="utf-8"))
    _show_results(console, document, (standings_path.parent / "crosstable.csv").read_text(encoding="utf-8"),
                  standings_path.parent)


def _show_results(console: Console, document: dict[str, Any], crosstable: str, folder: Path) -> None:
    console.print(standings_table(document))
    if (faults := faults_table(document)) is not None:
        console.print(faults)
    console.print(crosstable_table(crosstable))
    secret = document["secret"]
    console.print(f"Seed commitment {document['seed_commitment']}; "
                  + (f"secret revealed: {secret}" if secret else "secret kept until the tournament ends"),
                  highlight=False)
    console.print(f"Results: {folder}")


def _schedule(args: argparse.Namespace) -> int:
    """Print the sessions a tournament file plans, without playing them: a line each, printed as the
    plan computes it, so a plan of millions starts at once in little memory and `| head` ends it.

    Example: seka-arena schedule tournaments/demo.yaml
    """
    config = load_config(args.tournament)
    sessions = plan(config)  # lazy: each session is computed as it is read
    print(f"{config.name}: {len(sessions)} sessions")
    last = sessions[-1]
    names = max(len(participant.name) for participant in config.participants)
    widths = [max(len("session"), len(last.id)), max(len("block"), len(last.block)), len("mirror"),
              *(max(len(f"seat {seat}"), names) for seat in range(config.table_size))]

    def line(cells: Sequence[str]) -> str:
        return "  ".join(cell.ljust(width) for cell, width in zip(cells, widths, strict=True)).rstrip()

    print(line(["session", "block", "mirror", *(f"seat {seat}" for seat in range(config.table_size))]))
    for session in sessions:
        print(line([session.id, session.block, str(session.mirror), *session.table]))
    return 0


def _ratings(args: argparse.Namespace) -> int:
    """Recompute the standings and crosstable of a tournament from its stored results, and print them.

    Rewrites standings.json and crosstable.csv, except with --print-only, or when the folder cannot
    be written (read-only) or a run holds it: then the results file is only read, nothing in the
    folder changes, and the output says why.
    Example: seka-arena ratings results/demo
    """
    path = Path(args.results)
    results, kept = recompute_results(path, write=not args.print_only)
    console = _console()
    _show_results(console, results.standings, results.crosstable, path if path.is_dir() else path.parent)
    if kept is not None:
        console.print(f"standings.json and crosstable.csv not rewritten: {kept}", highlight=False, soft_wrap=True)
    return 0


def _collusion(args: argparse.Namespace) -> int:
    """Test every pair of a tournament's bots for collusion: soft play and chip dumping flag; chip flow and a
    duplicate-paired test are evidence.

    Replays every finished history (the folder is only read), runs the tests of docs/integrity.md on every
    ordered pair and corrects the flagging tests' p-values together (Holm). Prints the flagged pairs with their
    evidence (session ids and event indices, a history line being index + 1); --json writes every test,
    the uncalibrated flow tests too (each Holm-adjusted over the pairs on its own, never a flag). Exit status 0
    whether or not a pair is flagged.
    Example: seka-arena collusion results/demo
    """
    report = folder_collusion(Path(args.results), alpha=args.alpha)
    if args.json:
        Path(args.json).write_text(json.dumps(report.as_json(), indent=1) + "\n", encoding="utf-8")
    family = sum(test.test in FLAGGING for test in report.tests)
    print(f"{len(report.shared_sessions)} pairs of bots, {family} tests (soft play on folds and on raises, chip "
          f"dumping), family-wise error rate at most {args.alpha:g} (Holm); chip flow and duplicate-paired tests "
          f"are evidence only (--json, each Holm-adjusted over the pairs on its own), never flags: their null is "
          f"not calibrated")
    if not report.flagged:
        print("no pair flagged")
    for test in report.flagged:
        print(f"FLAGGED {test.giver} -> {test.receiver}: {test.test.replace('_', ' ')}, z = {test.statistic:.2f}, "
              f"p = {test.p_value:.3g}, Holm-adjusted {test.adjusted:.3g}, over {test.observations} observations")
        for item in test.evidence:
            print(f"    {item.session} event {item.index}: {item.what}")
    return 0


def _sprt(args: argparse.Namespace) -> int:
    """Play a new bot against an old one in heads-up duplicate pairs until an SPRT decides.

    H0: the new bot is elo0 stronger; H1: it is elo1 stronger. Each pair plays the same cards twice
    with the seats swapped and scores 1, 1/2 or 0 for the new bot's net chips (or, with --adjusted, its
    adjusted result: docs/ratings.md).
    Example: seka-arena sprt "python3 sample_bots/strong_bot.py" "python3 sample_bots/threshold_bot.py" --elo1 50
    """
    limit = TimeLimit(decision_ms=args.decision_ms)
    new, old = bot_specs([args.new, args.old], limit=limit, isolation=_isolation(args))
    sprt = Sprt(args.elo0, args.elo1, alpha=args.alpha, beta=args.beta)
    text, key = _seed_and_key(args)
    seed = keyed_seed(text, key)
    out = Path(args.out) / f"sprt-{text}"
    print(f"SPRT {new.name} vs {old.name}: H0 elo {args.elo0:g}, H1 elo {args.elo1:g}, alpha {args.alpha:g}, "
          f"beta {args.beta:g}; bounds {sprt.lower:.3f} .. {sprt.upper:.3f}; seed {text}, deal key {key} "
          f"(the deals come from both: deal them again with {_seed_options(text, key)})")

    def report(pair: PairResult, test: Sprt) -> None:
        adjusted = "" if pair.adjusted is None else f", adjusted {pair.adjusted}"
        print(f"pair {pair.number:4d}: score {pair.score:g} (chips {pair.chips}{adjusted}); "
              f"W-D-L {test.wins}-{test.draws}-{test.losses}, LLR {test.llr:+.3f}", flush=True)

    _run_trio(lambda: run_sprt(new, old, rules=GEORGIAN, sprt=sprt, seed=seed, max_pairs=args.max_pairs,
                              concurrency=args.concurrency, out=out, on_pair=report, adjusted=args.adjusted))
    verdict = {"H1": f"H1 accepted: {new.name} is at least {args.elo1:g} Elo stronger",
               "H0": f"H0 accepted: {new.name} is not {args.elo1:g} Elo stronger",
               None: f"no decision after {sprt.games} pairs (cap {args.max_pairs})"}[sprt.decision]
    print(f"{verdict}. Histories: {out}")
    return 0


def _serve(args: argparse.Namespace) -> int:
    """Run the arena as a web service: bot submissions, checks, the ladder and scheduled tournaments.

    One process until SIGTERM or Ctrl-C; run it again and it resumes what was in flight. See
    docs/service.md for the configuration file.
    Example: seka-arena serve tournaments/service.yaml --bind 127.0.0.1:8080
    """
    # The service's libraries are the optional extra `service`: imported only by its commands.
    from .service import load_service_config, serve

    config = load_service_config(args.config)
    trio.run(lambda: serve(config, bind=args.bind))
    return 0


def _token(args: argparse.Namespace) -> int:
    """Print a new API token for an author (only its hash is stored: copy it now), list the tokens given,
    or revoke one.

    Example: seka-arena token tournaments/service.yaml --author alice --expires-days 90
    Others: seka-arena token tournaments/service.yaml --list
            seka-arena token tournaments/service.yaml --revoke 3f2a9c0d1b7e
    """
    from .service import ServiceStore, load_service_config
    from .tournament import name_problem

    if sum((args.author is not None, args.list, args.revoke is not None)) != 1:
        raise ArenaError("say one of --author NAME (a new token), --list, or --revoke ID")
    if args.author is not None and (problem := name_problem(args.author)) is not None:
        raise ArenaError(f"--author {problem}")
    if args.expires_days is not None and (args.author is None or not 0 < args.expires_days <= 3650):
        raise ArenaError("--expires-days goes with --author, and is a number of days from 1 to 3650")
    config = load_service_config(args.config)
    store = ServiceStore.open(config.data / "service.sqlite")
    try:
        if args.list:
            for record in store.tokens():
                state = (f"revoked {record.revoked_at}" if record.revoked_at else
                         f"expires {record.expires_at}" if record.expires_at else "valid until revoked")
                print(f"{record.id}  {record.author}{' (organiser)' if record.organiser else ''}  "
                      f"created {record.created_at}  {state}")
        elif args.revoke is not None:
            revoked = store.revoke_token(args.revoke)
            print(f"token {revoked.id} of {revoked.author} revoked on {revoked.revoked_at}")
        else:
            expires = None if args.expires_days is None else store.clock() + args.expires_days * 86400
            token = store.create_token(args.author, organiser=args.organiser, expires_at=expires)
            given = store.token_record(token)
            assert given is not None
            print(token)
            print(f"token {given.id} for {given.author}: "
                  f"{'expires ' + given.expires_at if given.expires_at else 'valid until revoked'}", file=sys.stderr)
    finally:
        store.close()
    return 0


def _submit(args: argparse.Namespace) -> int:
    """Pack a bot's folder (with bot.yaml at its root) and submit it as a new version; print its check.

    The token comes from the environment variable SEKA_ARENA_TOKEN, or from the file --token-file
    names (never from the command line, which other users of the machine can read).
    Exit status 0 when the version is accepted.
    Example: seka-arena submit --server http://127.0.0.1:8080 --token-file ~/.seka-token --name mybot bots/mybot
    """
    from .service import read_token, submit_folder

    token = read_token(Path(args.token_file) if args.token_file else None)
    version = submit_folder(args.server, token, args.name, Path(args.folder), wait=args.wait,
                            on_status=print)
    if version.get("report"):
        print(version["report"])
    if version.get("stderr"):
        print("-- the bot's stderr during the check:\n" + version["stderr"].rstrip())
    print(f"{args.name} v{version['id']}: {version['status']}")
    return 0 if version["status"] == "accepted" else 1


_OVERVIEW = """\
Start with `seka-arena demo`, then `seka-arena check-bot -- YOUR-BOT-COMMAND`. `seka-arena COMMAND --help`
gives a command's options and an example. The docs are README.md and docs/ in the source: protocol.md
(write a bot, in any language), tournaments.md (tournament files), service.md (the web service),
rules.md (the game and its profiles), isolation.md (the sandbox)."""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="seka-arena", description="A tournament arena for Seka bots.",
                                     usage="%(prog)s [-h] [--version] COMMAND ...",
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", action="version", version=f"%(prog)s {_version()}",
                        help="print the installed version and exit")
    # Not required: `seka-arena` alone prints the commands (see `main`), not an argparse error.
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", help=argparse.SUPPRESS)

    demo = commands.add_parser("demo", help="play a demo session of built-in policies", description=_demo.__doc__)
    demo.add_argument("--seed", default="1", help="the session seed (default 1)")
    demo.add_argument("--out", default=".", help="folder for the history (default: current)")
    _add_profile_arguments(demo)
    demo.set_defaults(run=_demo)

    play = commands.add_parser("play", help="play one session among bot programs", description=_play.__doc__)
    play.add_argument("bots", nargs="+", metavar="BOT",
                      help="a bot: a shell-style command, or host:port / unix:PATH; NAME=... names it")
    play.add_argument("--seed", help="the session seed (default: random, printed); the deals come from it and a "
                                     "fresh deal key, so that no bot can find the seed from its cards")
    _deal_key_option(play)
    play.add_argument("--out", default=".", help="folder for the history and bot logs (default: current)")
    play.add_argument("--decision-ms", type=_limit("decision_ms"), default=1000,
                      help="time per decision (default 1000)")
    play.add_argument("--time-bank-ms", type=_limit("time_bank_ms"), default=0,
                      help="extra time per session (default 0)")
    play.add_argument("--start-ms", type=_limit("start_ms"), default=10000,
                      help="time for a bot to become ready (default 10000)")
    play.add_argument("--quiet", action="store_true", help="print only the result")
    _add_profile_arguments(play)
    _isolation_option(play)
    play.set_defaults(run=_play)

    check = commands.add_parser("check-bot", help="check that a bot follows the protocol",
                                description=_check_bot.__doc__)
    check.add_argument("--address", help="check a bot already running at HOST:PORT or unix:PATH")
    check.add_argument("--decision-ms", type=_limit("decision_ms"), default=1000, help="time per call (default 1000)")
    check.add_argument("--start-ms", type=_limit("start_ms"), default=10000,
                       help="time to become ready (default 10000)")
    check.add_argument("--logs", help="folder for the bot's stdout/stderr logs (default: a new temporary one)")
    _add_profile_arguments(check)
    _isolation_option(check)
    # dest `bot_command`: `command` is the subcommand's name, which error messages start with.
    check.add_argument("bot_command", metavar="COMMAND", nargs=argparse.REMAINDER,
                       help="-- then the command that starts the bot")
    check.set_defaults(run=_check_bot)

    run = commands.add_parser("run", help="run or resume a tournament", description=_run.__doc__)
    run.add_argument("tournament", help="the tournament's YAML file")
    run.add_argument("--out", default=".",
                     help="folder under which results/<tournament>/ is written (default: current)")
    run.add_argument("--no-report", action="store_true",
                     help="do not write the HTML report (results/<tournament>/report/) at the end")
    run.add_argument("--cluster", metavar="ADDRESS", type=_cluster,
                     help="play the sessions on a Dask cluster (the extra seka-arena[dask]): local:N starts N "
                          "worker processes on this machine (mutual TLS among the run's own processes); "
                          "tls://HOST:PORT is a running scheduler (bots then run in the sandbox), tcp://HOST:PORT "
                          "one on loopback; overrides the file's `executor`; see docs/scaling.md")
    for option, what in (("ca", "the CA certificate that signed the cluster's certificates"),
                         ("cert", "this driver's certificate"), ("key", "this driver's private key (mode 0600)")):
        run.add_argument(f"--cluster-{option}", metavar="FILE",
                         help=f"with --cluster tls://...: {what} (PEM); all three, or Dask's configuration's")
    run.set_defaults(run=_run)

    report = commands.add_parser("report", help="write a tournament's HTML report", description=_report.__doc__)
    report.add_argument("results", help="results/<tournament> folder (or its tournament.sqlite)")
    report.add_argument("--out", metavar="DIR", help="the report's folder (default: RESULTS/report)")
    report.add_argument("--audience", choices=[audience.value for audience in Audience],
                        default=Audience.ORGANISERS.value,
                        help="organisers (default): every hand, each seat's view, the bots' logs and fault reasons; "
                             "public: each session as a spectator saw it (the hands shown at showdowns), no seed, "
                             "logs nor fault reasons; public-hands: every hand, still no logs nor fault reasons")
    report.set_defaults(run=_report)

    schedule = commands.add_parser("schedule", help="print a tournament's planned sessions",
                                   description=_schedule.__doc__)
    schedule.add_argument("tournament", help="the tournament's YAML file")
    schedule.set_defaults(run=_schedule)

    ratings = commands.add_parser("ratings", help="recompute standings from stored results",
                                  description=_ratings.__doc__)
    ratings.add_argument("results", help="results/<tournament> folder (or its tournament.sqlite)")
    ratings.add_argument("--print-only", action="store_true",
                         help="only print the standings: write nothing (a read-only folder, or one a run "
                              "holds, is only read anyway)")
    ratings.set_defaults(run=_ratings)

    collusion = commands.add_parser("collusion", help="test every pair of a tournament's bots for collusion",
                                    description=_collusion.__doc__)
    collusion.add_argument("results", help="results/<tournament> folder (or its tournament.sqlite)")
    collusion.add_argument("--alpha", type=_error_rate, default=0.01,
                           help="family-wise error rate over the soft-play tests of every pair (default 0.01)")
    collusion.add_argument("--json", metavar="FILE", help="also write every test, with its evidence, to FILE")
    collusion.set_defaults(run=_collusion)

    sprt = commands.add_parser("sprt", help="SPRT of a new bot against an old one", description=_sprt.__doc__)
    sprt.add_argument("new", help="the new bot: command or address")
    sprt.add_argument("old", help="the old bot: command or address")
    sprt.add_argument("--elo0", type=float, default=0.0, help="Elo difference under H0 (default 0)")
    sprt.add_argument("--elo1", type=float, default=20.0, help="Elo difference under H1 (default 20)")
    sprt.add_argument("--alpha", type=float, default=0.05, help="false H1 rate (default 0.05)")
    sprt.add_argument("--beta", type=float, default=0.05, help="false H0 rate (default 0.05)")
    sprt.add_argument("--max-pairs", type=int, default=500, help="stop after this many pairs (default 500)")
    sprt.add_argument("--concurrency", type=int, default=4, help="pairs in flight (default 4)")
    sprt.add_argument("--adjusted", action="store_true",
                      help="score each pair on the adjusted results (docs/ratings.md): less the luck of svara "
                           "re-deals and of draws from announced distributions, so fewer pairs decide")
    sprt.add_argument("--decision-ms", type=_limit("decision_ms"), default=1000,
                      help="time per decision (default 1000)")
    sprt.add_argument("--seed", help="seed of the pairs' deals (default: random, printed); the deals come from it "
                                     "and a fresh deal key, so that no bot can find the seed from its cards")
    _deal_key_option(sprt)
    sprt.add_argument("--out", default=".", help="folder for histories and logs (default: current)")
    _isolation_option(sprt)
    sprt.set_defaults(run=_sprt)

    serve = commands.add_parser("serve", help="run the arena as a web service", description=_serve.__doc__)
    serve.add_argument("config", help="the service's YAML file (tournaments/service.yaml)")
    serve.add_argument("--bind", default="127.0.0.1:8080", help="HOST:PORT to listen on (default 127.0.0.1:8080)")
    serve.set_defaults(run=_serve)

    token = commands.add_parser("token", help="give, list or revoke API tokens", description=_token.__doc__)
    token.add_argument("config", help="the service's YAML file")
    token.add_argument("--author", help="a new token for this author (printed once: only its hash is kept)")
    token.add_argument("--organiser", action="store_true", help="a token for organiser actions too")
    token.add_argument("--expires-days", type=float, help="the new token expires after this many days "
                       "(default: valid until revoked)")
    token.add_argument("--list", action="store_true", help="list the tokens given: id, author, expiry, revocation")
    token.add_argument("--revoke", metavar="ID", help="revoke a token, by the id --list shows (or the token itself)")
    token.set_defaults(run=_token)

    submit = commands.add_parser("submit", help="submit a bot's folder to a service", description=_submit.__doc__,
                                 allow_abbrev=False)  # `--token T` is no abbreviation of --token-file
    submit.add_argument("--server", required=True, help="the service's URL (http://127.0.0.1:8080)")
    submit.add_argument("--token-file", help="a file holding your API token (default: the environment "
                        "variable SEKA_ARENA_TOKEN)")
    submit.add_argument("--name", required=True, help="the bot's name")
    submit.add_argument("--wait", type=float, default=120.0, help="seconds to wait for the check (default 120)")
    submit.add_argument("folder", help="the bot's folder, with bot.yaml at its root")
    submit.set_defaults(run=_submit)

    replay = commands.add_parser("replay", help="re-check a hand history, or a tournament's results, against the rules",
                                 description=_replay.__doc__)
    replay.add_argument("history", nargs="?", help="a .jsonl hand history")
    replay.add_argument("--results", metavar="DIR",
                        help="check every history of a tournament instead: its results folder (or tournament.sqlite)")
    replay.add_argument("--commitment", metavar="HEX",
                        help="with --results: the seed commitment published before the tournament, to compare")
    replay.add_argument("--deals", metavar="FILE",
                        help="with --results: the deal book as published, to compare with the one the tournament kept")
    replay.add_argument("--quiet", action="store_true", help="print only the verdict")
    replay.set_defaults(run=_replay)

    deals = commands.add_parser("deals", help="make a deal book for tournaments to share", description=_deals.__doc__)
    deals.add_argument("action", choices=["make"], help="make: write a new book to standard output")
    deals.add_argument("count", type=_deal_count, help=f"how many deals (1 to {MAX_DEALS}): at least the blocks of "
                                                      "the largest tournament that will use it")
    deals.set_defaults(run=_deals)
    # The commands one a line, then where to go next (argparse's own list breaks lines at 14 columns).
    width = max(len(choice.dest) for choice in commands._choices_actions)
    parser.epilog = "\n".join(["commands:", *(f"  {choice.dest:<{width}}  {choice.help}"
                                              for choice in commands._choices_actions), "", _OVERVIEW])
    return parser


def _version() -> str:
    """The installed package's version (its metadata), or a note when it is not installed."""
    try:
        return importlib.metadata.version("seka-arena")
    except importlib.metadata.PackageNotFoundError:
        return "(not installed: run `make setup`)"


def _limit(key: str) -> Callable[[str], int]:
    """An option's parser that applies the tournament file's rule for the limit `key` (ranges included)."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"must be a whole number of milliseconds, not {text!r}") from None
        problem = limit_problem(key, value)
        if problem is not None:
            raise argparse.ArgumentTypeError(problem)
        return value

    return parse


def _cluster(text: str) -> str:
    problem = cluster_problem(text)
    if problem is not None:
        raise argparse.ArgumentTypeError(problem)
    return text


def _deal_key_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--deal-key", metavar="HEX", type=_deal_key,
                        help="the deal key a run printed (32 hex digits), to deal its cards again with its --seed "
                             "(default: a fresh random key, printed)")


def _deal_key(text: str) -> str:
    problem = deal_key_problem(text)
    if problem is not None:
        raise argparse.ArgumentTypeError(problem)
    return text


def _cluster_certificates(args: argparse.Namespace) -> ClusterCertificates | None:
    """The driver's certificates for `--cluster tls://...`: --cluster-ca, --cluster-cert and --cluster-key."""
    given = {option: getattr(args, f"cluster_{option}") for option in ("ca", "cert", "key")}
    if not any(given.values()):
        return None
    if not all(given.values()):
        missing = ", ".join(f"--cluster-{option}" for option, path in given.items() if not path)
        raise ArenaError(f"--cluster-ca, --cluster-cert and --cluster-key go together: {missing} missing")
    if args.cluster is None or not args.cluster.startswith("tls://"):
        raise ArenaError("--cluster-ca, --cluster-cert and --cluster-key are for --cluster tls://HOST:PORT")
    return ClusterCertificates(Path(given["ca"]).resolve(), Path(given["cert"]).resolve(), Path(given["key"]).resolve())


def _isolation_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--isolation", choices=[level.value for level in Isolation], default=None,
                        help="fence launched bots in: none, limits (resource limits, cgroups) or sandbox "
                             "(limits + bubblewrap); default: sandbox where the machine provides it, else none "
                             "with a warning; see docs/isolation.md")


def _isolation(args: argparse.Namespace) -> Isolation:
    """The level asked for (checked against the machine), or the machine's default, warning on stderr
    when that is less than `sandbox`."""
    if args.isolation is not None:
        isolation = Isolation(args.isolation)
        verify_isolation(isolation)
        return isolation
    isolation, warning = default_isolation()
    if warning is not None:
        print(f"seka-arena {args.command}: warning: {warning}", file=sys.stderr)
    return isolation


def _run_trio(function: Callable[[], Awaitable[_T]], *,
              on_first_signal: Callable[[int], object] | None = None) -> _T:
    """Run `function` under trio with SIGTERM handled like Ctrl-C: tasks unwind and bots are stopped.

    With `on_first_signal`, the first SIGINT or SIGTERM only calls it (with the signal's number), and
    the next one interrupts.
    """

    async def guarded() -> _T:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(_interrupt_on_signals, on_first_signal)
            result = await function()
            nursery.cancel_scope.cancel()
        return result

    return trio.run(guarded)


async def _interrupt_on_signals(on_first: Callable[[int], object] | None) -> None:
    # Without `on_first`, SIGINT keeps trio's own handling (a KeyboardInterrupt wherever the run is).
    with trio.open_signal_receiver(signal.SIGTERM, *([signal.SIGINT] if on_first else [])) as signals:
        async for number in signals:
            if on_first is None:
                raise KeyboardInterrupt
            on_first(number)
            on_first = None


def _first(error: BaseException, kind: type[_E]) -> _E | None:
    # Errors from trio nurseries arrive wrapped in (nested) exception groups.
    if isinstance(error, kind):
        return error
    if isinstance(error, BaseExceptionGroup):
        for inner in error.exceptions:
            if (found := _first(inner, kind)) is not None:
                return found
    return None


def _too_many_files(error: OSError) -> str:
    # The arena's own limit, not a bot's: each bot costs it several descriptors (pipes, logs, a socket).
    if error.errno == errno.ENFILE:
        return "the machine's table of open files is full (ENFILE); close some programs and run the command again"
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    return (f"too many open files: this process may open only {soft} (ulimit -n), too few to run its bots; raise "
            "it (ulimit -n 1024) and run the same command again (a tournament resumes where it stopped)")


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:  # `seka-arena` alone: what it can do, not a usage error
        parser.print_help()
        return 0
    try:
        status = int(args.run(args))
        # Flushed here, not at exit, so that a reader gone by now is caught below like one gone earlier.
        sys.stdout.flush()
        return status
    except BaseException as error:
        if _first(error, BrokenPipeError) is not None:
            # The reader of our output went away (`... | head`): end quietly, as Unix tools do. SIGPIPE stays
            # ignored (Python's default): its default action would kill us in the middle of writing a results
            # file. What is still buffered for stdout goes to /dev/null, so that the flush at exit cannot raise
            # again ("Note on SIGPIPE" in the documentation of Python's signal module).
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
            os.close(devnull)
            return _SIGPIPE_STATUS
        if _first(error, KeyboardInterrupt) is not None:
            resume = " (run the same command again to resume)" if args.command == "run" else ""
            print(f"seka-arena {args.command}: interrupted{resume}", file=sys.stderr)
            return 130
        if (arena_error := _first(error, ArenaError)) is not None:
            print(f"seka-arena {args.command}: {arena_error}", file=sys.stderr)
            return 1
        if (os_error := _first(error, OSError)) is not None and os_error.errno in (errno.EMFILE, errno.ENFILE):
            print(f"seka-arena {args.command}: {_too_many_files(os_error)}", file=sys.stderr)
            return 1
        raise


if __name__ == "__main__":
    sys.exit(main())
