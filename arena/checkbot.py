"""`seka-arena check-bot`: scripted deals through every edge case, one verdict line per call.

Each scenario is a short session with cards chosen so that the edge cases happen: an opening turn,
a turn facing a bet, a heads-up show, a svara offer at a fractional price, a nested svara, the
action cap's forced reveal, and every kind of notice. The bot is asked at each of its seat's turns
and its answer is checked (well formed, legal, in time); the scripted decision is then played, so
every scenario reaches its edge cases whatever the bot answers. As in a session, the notices travel
inside the bot's next turn or svara offer, and at the end the session's end goes by Notify,
carrying the ones left.

For another profile (or `georgian` with options) the scenarios are built from what the profile
has, with hands chosen from its own deck: a heads-up deal to a comparison (show, open or call),
a tie (svara or split), and where the profile has them a dark turn without cards (a dark bet,
then a look before acting), a stack too short for the stake (short of chips, the session cut
short) and a multiway open. Their scripts name decisions by intent (`stay`, `raise`, `compare`,
...), resolved against the legal actions of the moment, so one script fits every profile.
"""

from __future__ import annotations

import json
import shlex
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from itertools import combinations
from pathlib import Path
from typing import TypeVar

from .engine import (
    DECK_36,
    GEORGIAN,
    Action,
    Bet,
    Call,
    Card,
    DarkBet,
    Event,
    Fold,
    LegalActions,
    Look,
    Mix,
    MultiwayOpen,
    Open,
    Phase,
    Raise,
    Rules,
    SessionState,
    Show,
    Support,
    SvaraAnswer,
    Tie,
    parse_cards,
    profile,
    seeded_shuffler,
    stacked_shuffler,
    svara_view,
    turn_view,
)
from .isolation import Stopped, Stopping, session_folder
from .match import public_session_id, session_key
from .protocol import PROTOCOL_VERSION, SERVICE_NAME
from .transport import (
    BotConnection,
    BotFault,
    BotSpec,
    IllegalReplyError,
    MalformedReplyError,
    NoticeBoard,
    Notices,
    TimeLimit,
    open_bot,
    verify_reply,
)

_T = TypeVar("_T")


@dataclass(frozen=True)
class Scenario:
    title: str
    seats: int
    bot_seat: int
    hands: dict[tuple[int, int], dict[int, str]]
    """(pot, replay) → seat → cards, so that ties and showdowns happen where the script needs them."""
    script: tuple[str, ...]
    """The decisions played, in order: `fold`, `bet N`, `show`, `enter`, `decline`, or by intent
    (`stay`, `raise`, `raise N`, `compare`, `dark`, `look`, `multiway`), resolved against the legal
    actions of the moment. When the script runs out, each turn compares if it may, else stays."""
    max_actions: int = GEORGIAN.max_actions
    rules: Rules | None = None
    """The scenario's rules (pots and cap set), or None: `georgian` with one pot and `max_actions`."""
    first_dealer: int = 0
    expects: tuple[str, ...] = field(default=())
    """Notice kinds the bot must have been sent by the scenario's end (its edge cases happened)."""


SCENARIOS: tuple[Scenario, ...] = (
    Scenario(
        "heads-up", seats=2, bot_seat=1,
        hands={(1, 0): {0: "9c 8d 7s", 1: "Ah Kh Qh"}},
        script=("bet 1", "bet 3", "bet 5", "bet 5", "show"),
    ),
    Scenario(
        "three players, svara at 11/2, nested svara at 39/4", seats=3, bot_seat=1,
        hands={(1, 0): {0: "Ac As 6d", 1: "6c 7d 8h", 2: "Ad Ah 7c"},
               (1, 1): {0: "Kc Qc 6h", 1: "9s 7h 6d", 2: "Kd Qd 6s"},
               (1, 2): {0: "As Ks Qs", 2: "6c 7c 8d"}},
        script=("fold", "bet 2", "bet 3", "show", "enter", "bet 1", "bet 1", "fold", "show", "decline",
                "bet 1", "fold"),
    ),
    Scenario(
        "action cap reached: forced reveal", seats=3, bot_seat=1, max_actions=4,
        hands={(1, 0): {0: "Tc 9c 6d", 1: "Ah Kh 7c", 2: "Jd 8s 7s"}},
        script=("bet 1", "bet 2", "bet 2", "bet 10"),
    ),
)


@dataclass(frozen=True)
class Check:
    passed: bool
    what: str
    detail: str
    warning: bool = False
    """Passed, but not as docs/protocol.md asks: a WARN line, which does not fail the check."""

    def line(self) -> str:
        verdict = "FAIL" if not self.passed else "WARN" if self.warning else "PASS"
        return f"{verdict}  {self.what}: {self.detail}"


def _scripted(word: str, state: SessionState) -> Action:
    verb, _, amount = word.partition(" ")
    fixed: dict[str, Fold | Show | SvaraAnswer] = {"fold": Fold(), "show": Show(), "enter": SvaraAnswer(True),
                                                   "decline": SvaraAnswer(False)}
    if verb in fixed:
        return fixed[verb]
    if verb == "bet":
        return Bet(int(amount))
    if state.phase is Phase.SVARA_OFFER:
        return SvaraAnswer(True)
    return _by_intent(verb, int(amount) if amount else None, state.legal_actions())


def _by_intent(verb: str, amount: int | None, legal: LegalActions) -> Action:
    """The action a scripted intent means now, whatever the profile: the first of its choices allowed.

    `stay` pays the least that passes the turn (a bet, a support, or unseen a dark bet), so that a
    script's turns line up in every profile; only `look` keeps the turn.
    """
    compare = (Show() if legal.can_show else Open() if legal.open_amount is not None
               else Call() if legal.call_amount is not None else None)
    stay = (Bet(legal.min_bet) if legal.can_bet
            else Support() if legal.support_amount is not None
            else DarkBet(legal.dark_min) if legal.dark_min is not None
            else Look() if legal.can_look else compare or Fold())
    if verb == "compare":
        return compare or stay
    if verb == "raise":
        if legal.can_bet:
            return Bet(min(legal.max_bet, amount or legal.min_bet + 1))
        if legal.raise_min is not None and legal.raise_max is not None:
            return Raise(min(legal.raise_max, max(legal.raise_min, amount or legal.raise_min)))
        return stay
    if verb == "dark" and legal.dark_min is not None:
        return DarkBet(legal.dark_min)
    if verb == "look" and legal.can_look:
        return Look()
    if verb == "multiway" and legal.can_multiway_open:
        return MultiwayOpen()
    return stay


_EVERY_TURN = "compare"
"""What each turn plays once a scenario's script has run out: it ends the deal as soon as it may."""


def _hand_roles(rules: Rules, roles: Sequence[str]) -> list[str]:
    """Disjoint hands of the profile's deck, one per role: `high` (the strongest), `low` (the
    weakest), `tie` (every `tie` gets a hand of one same value)."""
    evaluator = rules.evaluator
    hands = sorted(combinations(rules.deck, rules.cards), key=evaluator.value)
    used: set[Card] = set()

    def free(hand: tuple[Card, ...]) -> bool:
        return not used.intersection(hand)

    chosen: dict[int, tuple[Card, ...]] = {}
    ties = [index for index, role in enumerate(roles) if role == "tie"]
    if ties:
        by_value: dict[object, list[tuple[Card, ...]]] = {}
        for hand in hands:
            by_value.setdefault(evaluator.value(hand), []).append(hand)
        for group in sorted(by_value.values(), key=len, reverse=True):
            picked: list[tuple[Card, ...]] = []
            for hand in group:
                if len(picked) < len(ties) and all(not set(hand) & set(other) for other in picked):
                    picked.append(hand)
            if len(picked) == len(ties):
                break
        for index, hand in zip(ties, picked, strict=True):
            chosen[index] = hand
            used.update(hand)
    for index, role in enumerate(roles):
        if role == "tie":
            continue
        hand = next(hand for hand in (reversed(hands) if role == "high" else hands) if free(hand))
        chosen[index] = hand
        used.update(hand)
    return [" ".join(str(card) for card in chosen[index]) for index in range(len(roles))]


def profile_scenarios(rules: Rules) -> tuple[Scenario, ...]:
    """The scenarios of a profile other than plain `georgian`: its own deck, and each of its edge cases."""
    stakes = rules.betting.stacks
    one_pot = rules.with_table(pots_per_session=1)
    high, low = _hand_roles(rules, ["high", "low"])
    scenarios = [Scenario(
        "heads-up: opening, facing a payment, a comparison", seats=2, bot_seat=1, rules=one_pot,
        hands={(1, 0): {1: high, 0: low}}, script=("stay", "raise", "stay", "raise", "compare"),
        expects=("deal", "showdown", "pot result"))]
    tie_a, tie_b, third = _hand_roles(rules, ["tie", "tie", "low"])
    tie = "split" if rules.tie is Tie.SPLIT else "svara"
    if stakes or rules.max_seats < 3:
        scenarios.append(Scenario(
            f"a tie: {tie}", seats=2, bot_seat=1, rules=one_pot, hands={(1, 0): {1: tie_a, 0: tie_b}},
            script=("stay", "stay", "compare"), expects=("showdown", "split" if tie == "split" else "deal")))
    else:
        scenarios.append(Scenario(
            f"three players, a tie: {tie}", seats=3, bot_seat=1, rules=one_pot,
            hands={(1, 0): {1: third, 2: tie_a, 0: tie_b}},
            script=("stay", "raise", "stay", "fold", "compare", "enter"),
            expects=("showdown", "split") if tie == "split" else ("showdown",)))
    if rules.dark is not None:
        scenarios += [
            Scenario("dark play: a dark turn without cards, a dark bet", seats=2, bot_seat=1, rules=one_pot,
                     hands={(1, 0): {1: high, 0: low}}, script=("dark", "stay", "look", "stay", "compare"),
                     expects=("deal", "look")),
            Scenario("dark play: look, then act", seats=2, bot_seat=1, rules=one_pot,
                     hands={(1, 0): {1: low, 0: high}}, script=("look", "stay", "stay", "compare"),
                     expects=("deal", "look")),
        ]
    if stakes:
        short = profile(rules.name, {**rules.option_values, "stack": "5", "dark": "false"}
                        if "dark" in rules.option_values else {**rules.option_values, "stack": "5"})
        scenarios.append(Scenario(
            "a stack too short for the stake: short of chips, the session cut", seats=2,
            bot_seat=1, rules=short.with_table(pots_per_session=2, max_actions=rules.max_actions),
            hands={(1, 0): {1: low, 0: high}}, script=("raise 3", "stay", "stay"),
            expects=("short of chips", "session end")))
    if rules.multiway_open:
        top, middle, bottom = _hand_roles(rules, ["high", "low", "low"])
        scenarios.append(Scenario(
            "multiway open against the previous payer", seats=3, bot_seat=1, rules=one_pot,
            hands={(1, 0): {1: top, 2: middle, 0: bottom}}, script=("stay", "raise", "stay", "multiway"),
            expects=("comparison",)))
    return tuple(scenarios)


def _carrying(kinds: Sequence[str]) -> str:
    """What a verdict line adds about the notices its request carried."""
    return f"; carried notices: {', '.join(kinds)}" if kinds else ""


class _Checker:
    def __init__(self, bot: BotConnection, report: Callable[[Check], None]) -> None:
        self.bot = bot
        self.report = report
        self.seat = 0
        self.board = NoticeBoard(1, session_id="")
        """The notices of the current scenario not yet sent to the bot (set by `hello`)."""
        self.sent_kinds: set[str] = set()
        """The kinds of notice sent to the bot in the current scenario."""

    async def _timed(self, what: str, call: Awaitable[_T], carried: str = "") -> tuple[_T, float] | None:
        """What `call` gives and the seconds it took, or None once a failed check is reported."""
        started = time.monotonic()
        try:
            result = await call
        except MalformedReplyError as fault:
            self.report(Check(False, what, f"malformed reply: {fault.detail}{carried}"))
        except IllegalReplyError as fault:
            self.report(Check(False, what, f"illegal {_describe(fault.action)}: {fault.detail}{carried}"))
        except BotFault as fault:
            self.report(Check(False, what, f"{fault}{carried}"))
        else:
            return result, time.monotonic() - started
        return None

    async def hello(self, rules: Rules, seats: int, seat: int, session_id: str) -> None:
        self.seat = seat
        self.board = NoticeBoard(seats, session_id=session_id)
        self.sent_kinds = set()
        answered = await self._timed("hello", self.bot.hello(rules, seats=seats, seat=seat, session_id=session_id))
        if answered is None:
            return
        info, elapsed = answered
        problems = []
        if not info.name:
            problems.append("HelloReply.name is empty")
        if info.protocol_version != PROTOCOL_VERSION:
            problems.append(f"HelloReply.protocol_version is {info.protocol_version!r}, expected {PROTOCOL_VERSION!r}")
        detail = "; ".join(problems) or f"name {info.name!r}, version {info.version!r}, {elapsed * 1000:.0f} ms"
        self.report(Check(not problems, "hello", detail))

    async def _legal_action(self, state: SessionState, notices: Notices, session_id: str) -> Action | Mix:
        action = await self.bot.act(turn_view(state), notices, session_id=session_id)
        verify_reply(state, action)
        return action

    async def turn(self, state: SessionState, session_id: str, situation: str) -> None:
        notices = self._take()
        carried = _carrying(notices.kinds())
        what = f"turn ({situation})"
        answered = await self._timed(what, self._legal_action(state, notices, session_id), carried)
        if answered is not None:
            action, elapsed = answered
            self.report(Check(True, what, f"{_describe(action)}, {elapsed * 1000:.0f} ms{carried}"))

    async def svara(self, state: SessionState, session_id: str) -> None:
        view = svara_view(state)
        what = f"svara offer (price {view.price}, frozen pot {view.frozen_pot})"
        notices = self._take()
        carried = _carrying(notices.kinds())
        answered = await self._timed(what, self.bot.svara(view, notices, session_id=session_id), carried)
        if answered is not None:
            answer, elapsed = answered
            self.report(Check(True, what,
                              f"{'accepts' if answer.accept else 'declines'}, {elapsed * 1000:.0f} ms{carried}"))

    def _take(self) -> Notices:
        notices = self.board.take(self.seat)
        self.sent_kinds.update(notices.kinds())
        return notices

    def queue(self, state: SessionState, events: Sequence[Event]) -> None:
        """Keep the bot's form of `events` for its next request, or for the Notify call at the end."""
        self.board.post(state, events, [self.seat])

    async def notify_the_end(self) -> None:
        """The session's end, carrying the notices left: one Notify call, one verdict line."""
        notices = self._take()
        *earlier, end = notices.kinds()
        what = f"{end} notice"
        answered = await self._timed(what, self.bot.notify_end(notices))
        if answered is not None:
            self.report(Check(True, what, f"acknowledged, {answered[1] * 1000:.0f} ms{_carrying(earlier)}"))


def _describe(action: Action | Mix) -> str:
    if isinstance(action, Mix):
        return "mix " + ", ".join(f"{_describe(entry)} {p!r}" for entry, p in action.entries)
    match action:
        case Bet(amount):
            return f"bet {amount}"
        case DarkBet(amount):
            return f"dark bet {amount}"
        case Raise(stake):
            return f"raise to {stake}"
        case MultiwayOpen():
            return "multiway open"
    return type(action).__name__.lower()


def _situation(state: SessionState) -> str:
    legal = state.legal_actions()
    if not legal.seen:
        dark = f", may bet dark {legal.dark_min} to {legal.dark_max}" if legal.dark_min is not None else ""
        unread = f", may play on unread (stake {state.stake})" if legal.support_amount is not None else ""
        return f"cards not seen yet{dark}{unread}, may look"
    facing = "opening, no previous bet" if state.previous_bet is None else f"facing a bet of {state.previous_bet}"
    extras = [f"stake {state.stake}" if state.rules.betting.stacks else "",
              "short of chips" if legal.short else "",
              "may show" if legal.can_show else "",
              "may open" if legal.open_amount is not None else "",
              "may call" if legal.call_amount is not None else "",
              f"may open against seat {legal.multiway_target}" if legal.multiway_target is not None else "",
              f"svara replay {state.replay}" if state.replay else ""]
    return ", ".join([f"{len(state.in_deal)} in the deal", facing, *filter(None, extras)])


async def _play_scenario(checker: _Checker, scenario: Scenario, number: int, key: bytes) -> None:
    rules = scenario.rules or GEORGIAN.with_table(pots_per_session=1, max_actions=scenario.max_actions)
    stacked = {key: {seat: parse_cards(cards) for seat, cards in hands.items()}
               for key, hands in scenario.hands.items()}
    names = [f"scripted-{seat}" if seat != scenario.bot_seat else checker.bot.name for seat in range(scenario.seats)]
    deck = rules.deck if scenario.rules is not None else DECK_36
    state = SessionState(rules, bots=names, seed=f"check-bot-{number}", session=f"check-{number}",
                         first_dealer=scenario.first_dealer,
                         shuffler=stacked_shuffler(stacked, seeded_shuffler(f"check-bot-{number}", deck),
                                                   cards=rules.cards))
    session_id = public_session_id(key, f"check-{number}")  # as in any session: nothing a bot could map back
    await checker.hello(rules, scenario.seats, scenario.bot_seat, session_id)
    events: Sequence[Event] = list(state.events)
    script = list(scenario.script)
    while checker.bot.dead is None:
        checker.queue(state, events)
        if state.is_finished:
            await checker.notify_the_end()
            missing = [kind for kind in scenario.expects if kind not in checker.sent_kinds]
            if missing:  # a scenario that missed its edge case is the checker's bug, not the bot's
                raise AssertionError(f"scenario {scenario.title!r} sent no {', '.join(missing)} notice")
            return
        if state.to_act == scenario.bot_seat:
            if state.phase is Phase.SVARA_OFFER:
                await checker.svara(state, session_id)
            else:
                await checker.turn(state, session_id, _situation(state))
        events = state.apply(_scripted(script.pop(0) if script else _EVERY_TURN, state))


def check_command(rules: Rules, limit: TimeLimit, bot: str = "python3 bot.py") -> str:
    """The `seka-arena check-bot` command that checks a bot for this game (profile, every option, time per
    call), as a page tells an author to run it before submitting."""
    options = "".join(f" --{name} {shlex.quote(value)}" for name, value in rules.options)
    return (f"seka-arena check-bot --profile {rules.name}{options} --decision-ms {limit.decision_ms} "
            f"--start-ms {limit.start_ms} -- {bot}")


def print_check(item: Check | str) -> None:
    """Print a check as one verdict line, or a scenario title."""
    print(item.line() if isinstance(item, Check) else f"-- {item}", flush=True)


def _readiness(bot: BotConnection, elapsed: float) -> Check:
    """The `ready` line of a bot that became ready: a warning when its health service knows only one
    of the two names (the arena then takes that one's word)."""
    serving = [name for name, status in bot.health.items() if status == "SERVING"]
    after = f"health SERVING after {elapsed * 1000:.0f} ms"
    if len(serving) == len(bot.health):
        return Check(True, "ready", after)
    (known,), unknown = serving, [name for name in bot.health if name not in serving]
    return Check(True, "ready", f"{after} for {json.dumps(known)} only: the health service does not know "
                                f"{', '.join(json.dumps(name) for name in unknown)} (NOT_FOUND); set both \"\" and "
                                f"\"{SERVICE_NAME}\" to SERVING, as docs/protocol.md asks", warning=True)


def _stopping(stopped: Stopped) -> Check:
    """The `stop` line: how the bot ended when check-bot stopped it."""
    return Check(True, "stop", stopped.detail, warning=stopped.how is not Stopping.ON_SIGTERM)


async def check_bot(spec: BotSpec, *, report: Callable[[Check | str], None], log_dir: Path,
                    rules: Rules = GEORGIAN, hidden: Sequence[Path] = ()) -> bool:
    """Run every scenario of `rules`' profile against the bot, reporting each check (and each
    scenario's title), then how the bot stopped.

    `hidden`: what the bot may not be shown in the sandbox (the service's store, for one).

    Returns:
        True when every check passed (warnings included).
    """
    failures = 0
    key = session_key()

    def count(check: Check) -> None:
        nonlocal failures
        failures += not check.passed
        report(check)

    report(f"rules: {rules.describe()}")
    with session_folder() as sockets:
        started = time.monotonic()
        async with open_bot(spec, log_dir=log_dir, socket_dir=sockets, hidden=hidden) as bot:
            if bot.dead is not None:
                count(Check(False, "ready", str(bot.dead)))
            else:
                count(_readiness(bot, time.monotonic() - started))
                checker = _Checker(bot, count)
                scenarios = SCENARIOS if rules.is_plain_georgian else profile_scenarios(rules)
                for number, scenario in enumerate(scenarios, start=1):
                    report(f"scenario {number}: {scenario.title}")
                    await _play_scenario(checker, scenario, number, key)
                    if bot.dead is not None:
                        break
        if bot.process is not None and bot.process.stopped is not None:
            count(_stopping(bot.process.stopped))
    return failures == 0
