"""The organisers' collusion reports: `arena.integrity`'s tests over the ladder, and over each scheduled run.

Theory of operation: a report replays every finished history it covers, which for a large ladder is minutes
of CPU; in the service's process it would hold up the event loop that answers requests and plays. So
`Analyses.run` keeps a worker process (`python -m arena.service._collusion_worker STORE`, its address space
capped at `MEMORY_BYTES`) that makes one report at a time, when a page asks for one whose source changed
since its last report (its key: the ladder's count of finished sessions and the last of them; a run's id,
status, count of histories and their bytes). A request never waits for it: it reads the last report and
whether a newer one is being made. Each report made is also written to the data folder (`SavedReports`), so
a restarted service answers from it at once (current if its key is the source's now) instead of making every
report again. The worker keeps the ladder's aggregate (`arena.integrity.Aggregate`) between reports and adds
only the blocks whose every session finished since (a finished block never changes), so a report costs the
sessions new since the last one; its memory grows with the pairs of bots and the strata of their decisions,
not the sessions. A run's report is made afresh. Each report has a deadline (`_REPORT_SECONDS`): past it the
worker is stopped (the next report starts another, which adds the ladder's blocks again) and the page says
the report failed. The ladder's aggregate is not saved (it holds every deal's counts): a restarted service's
worker adds every block again for the ladder's next report, meanwhile the page shows the saved one.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import resource
import sys
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlencode

import trio

from ..history import HistoryError
from ..integrity import Aggregate, folder_collusion, report_of, session_evidence
from ..replay import replay_file
from ..storage import StorageError, write_atomically
from ._store import LadderSession, ServiceStore, iso
from ._worker_process import LineWorker

LOGGER = logging.getLogger(__name__)
LADDER = "ladder"
"""The scope of the ladder's report; a scheduled run's is its name."""
ALPHA = 0.01
"""The family-wise error rate of the flags (as `seka-arena collusion`'s default)."""
MEMORY_BYTES = 2 << 30
"""The worker's address space: a report larger than this fails, and the service goes on."""
_REPORT_SECONDS = 1800.0
_LEFT_OUT = 20
"""Sessions left out (a history that does not replay) listed by name; the rest are counted."""
_SAVED_FORMAT = "seka-arena collusion report 2"
"""2: every test has its Holm p (the flow tests' over the pairs, each on its own) and says whether it flags; a
report of 1 lacks both (the page could not show it), so it is made again."""
_SAVED_BYTES = 80 << 20
"""A saved report larger than this is neither written nor read (the worker's answer is at most 64 MiB)."""


@dataclass(frozen=True)
class Analysis:
    """One report of a scope, as of its source's state `key`."""

    key: str
    made_at: str
    sessions: int
    """Finished sessions the report covers."""
    report: dict[str, Any] | None
    """`CollusionReport.as_json()`; None when there was nothing to test, or the report failed."""
    left_out: tuple[tuple[str, str], ...] = ()
    """Sessions whose history does not replay, with why (the first `_LEFT_OUT`)."""
    problem: str | None = None
    """Why the report failed, else None."""


class SavedReports:
    """The last report of each scope in `folder` (`HASH.json`, HASH the scope's), for a restarted service.

    A file is written whole (a temporary file synced, then renamed over the last: `write_atomically`), 0600
    (a report cites every hand). Its first line is a header naming the format and the SHA-256 of the second,
    the report with its scope and key. A crash can still leave a damaged file, and anyone may put a file
    there: one too large, not this format, of another scope, or whose checksum or fields do not hold, is
    said once in the log and ignored (the next report replaces it), never shown.
    """

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def path(self, scope: str) -> Path:
        # Hashed: a run's name is checked against the store's runs, but a file name needs no such trust.
        return self.folder / f"{hashlib.sha256(scope.encode()).hexdigest()[:32]}.json"

    def save(self, scope: str, analysis: Analysis) -> None:
        """Write `analysis` as `scope`'s last report; a failure (a full disk) is logged, the service goes on."""
        body = json.dumps({"scope": scope, "key": analysis.key, "made_at": analysis.made_at,
                           "sessions": analysis.sessions, "report": analysis.report,
                           "left_out": [list(item) for item in analysis.left_out]},
                          separators=(",", ":")).encode()
        header = json.dumps({"format": _SAVED_FORMAT, "sha256": hashlib.sha256(body).hexdigest()}).encode()
        if len(header) + 1 + len(body) > _SAVED_BYTES:
            LOGGER.warning("the collusion report of %s is not saved: over %d MiB", scope, _SAVED_BYTES >> 20)
            return
        try:
            write_atomically(self.path(scope), header + b"\n" + body, private=True)
        except StorageError as error:
            LOGGER.warning("the collusion report of %s is not saved: %s", scope, error)

    def load(self, scope: str) -> Analysis | None:
        """`scope`'s saved report, or None: none saved, or one that does not hold (said in the log)."""
        path = self.path(scope)
        try:
            with path.open("rb") as file:
                data = file.read(_SAVED_BYTES + 1)
        except FileNotFoundError:
            return None
        except OSError as error:
            LOGGER.warning("the saved collusion report of %s (%s) is ignored: %s", scope, path, error.strerror)
            return None
        try:
            return _saved_analysis(scope, data)
        except ValueError as error:  # json.JSONDecodeError and UnicodeDecodeError are ValueErrors
            LOGGER.warning("the saved collusion report of %s (%s) is ignored, and made again when asked: %s",
                           scope, path, error)
            return None


def _saved_analysis(scope: str, data: bytes) -> Analysis:
    # A saved report's fields, each checked (see `SavedReports`); ValueError saying what does not hold.
    if len(data) > _SAVED_BYTES:
        raise ValueError(f"over {_SAVED_BYTES >> 20} MiB")
    header_line, _, body = data.partition(b"\n")
    header = json.loads(header_line)
    if not isinstance(header, dict) or header.get("format") != _SAVED_FORMAT:
        raise ValueError(f"not a saved report (its header should name {_SAVED_FORMAT!r})")
    if header.get("sha256") != hashlib.sha256(body).hexdigest():
        raise ValueError("its checksum does not match: a damaged or partly written file")
    saved = json.loads(body)
    if not isinstance(saved, dict) or saved.get("scope") != scope:
        raise ValueError(f"it is not the report of {scope!r}")
    key, made_at, sessions = saved.get("key"), saved.get("made_at"), saved.get("sessions")
    report, left_out = saved.get("report"), saved.get("left_out")
    if not (isinstance(key, str) and isinstance(made_at, str) and isinstance(sessions, int) and sessions >= 0
            and (report is None or isinstance(report, dict)) and isinstance(left_out, list)
            and all(isinstance(item, list) and len(item) == 2 and all(isinstance(part, str) for part in item)
                    for item in left_out)):
        raise ValueError("its key, made_at, sessions, report or left_out is not of its kind")
    return Analysis(key, made_at, sessions, report, tuple((a, b) for a, b in left_out))


class Analyses:
    """The last report of each scope and the worker that makes the next (see the module's docstring)."""

    def __init__(self, store: ServiceStore, *, ladder: Path, tournaments: Path, saved: Path) -> None:
        self.store = store
        self.ladder = ladder
        self.tournaments = tournaments
        self.saved = SavedReports(saved)
        self.reports: dict[str, Analysis] = {}
        self._read: set[str] = set()
        """The scopes whose saved report was read (or found missing or ignored): read once per process."""
        self._reading = trio.Lock()
        self._wanted: dict[str, str] = {}
        self._wake = trio.Event()
        self._worker = LineWorker("arena.service._collusion_worker", store.path, what="the collusion report",
                                  env=os.environ, ended=f"; its memory is capped at {MEMORY_BYTES >> 20} MiB")

    def results(self, run: str) -> Path:
        return self.tournaments / run / "results" / run

    def key(self, scope: str) -> tuple[str, bool]:
        """The fingerprint of the scope's source (a report of another key is out of date), and whether it has
        a finished session: two small queries, or one listing of a run's histories."""
        if scope == LADDER:
            finished = self.store.finished_ladder_sessions()
            return f"ladder {finished} {self.store.last_finished_ladder_session()}", finished > 0
        run = next((run for run in self.store.runs() if run.name == scope), None)
        histories = self.results(scope) / "histories"
        sizes = [path.stat().st_size for path in histories.glob("*.jsonl")] if histories.is_dir() else []
        return f"run {run.id if run else '-'} {run.status if run else '-'} {len(sizes)} {sum(sizes)}", bool(sizes)

    async def ask(self, scope: str) -> tuple[Analysis | None, bool]:
        """The last report of `scope` (None before the first; after a restart, the saved one) and whether a
        newer one is being made: asked for now when its source changed since. Never waits for a report."""
        if scope not in self._read:
            async with self._reading:
                if scope not in self._read:
                    saved = await trio.to_thread.run_sync(self.saved.load, scope)
                    self._read.add(scope)
                    if saved is not None:
                        self.reports.setdefault(scope, saved)
        key, played = self.key(scope)
        last = self.reports.get(scope)
        if last is not None and last.key == key:
            return last, False
        if not played:  # no finished session: nothing to replay, no worker to start
            empty = Analysis(key, iso(self.store.clock()), 0, None)
            self.reports[scope] = empty
            return empty, False
        self._wanted[scope] = key
        self._wake.set()
        return last, True

    async def run(self) -> None:
        """Make the reports asked for, one at a time, until cancelled."""
        try:
            while True:
                await self._wake.wait()
                self._wake = trio.Event()
                while self._wanted:
                    scope = next(iter(self._wanted))
                    key = self._wanted.pop(scope)
                    self.reports[scope] = made = await self._made(scope, key)
                    if made.problem is None:
                        await trio.to_thread.run_sync(self.saved.save, scope, made)
        finally:
            with trio.CancelScope(shield=True):
                await self._worker.aclose()

    async def _made(self, scope: str, key: str) -> Analysis:
        request = {"ladder": str(self.ladder)} if scope == LADDER else {"results": str(self.results(scope))}
        try:
            with trio.fail_after(_REPORT_SECONDS):
                answer = json.loads(await self._worker.ask(json.dumps(request).encode()))
        except (StorageError, OSError, ValueError, trio.TooSlowError) as error:
            await self._worker.aclose()  # it may be half-way through a report: the next one starts afresh
            answer = {"problem": "it took too long" if isinstance(error, trio.TooSlowError) else str(error)}
        if answer.get("problem"):
            LOGGER.error("the collusion report of %s failed: %s", scope, answer["problem"])
        return Analysis(key, iso(self.store.clock()), int(answer.get("sessions", 0)), answer.get("report"),
                        tuple((str(a), str(b)) for a, b in answer.get("left_out", ())), answer.get("problem"))


class LadderAggregate:
    """The ladder's finished blocks aggregated so far, in the worker: each report adds the blocks new since."""

    def __init__(self) -> None:
        self.aggregate = Aggregate()
        self.blocks: set[int] = set()
        self.sessions = 0
        self.left_out: list[tuple[str, str]] = []

    def report(self, store: ServiceStore, folder: Path) -> dict[str, Any]:
        by_block: defaultdict[int, list[LadderSession]] = defaultdict(list)
        for session in store.ladder_sessions():
            by_block[session.block].append(session)
        for block, sessions in sorted(by_block.items()):
            if block in self.blocks or any(session.status != "finished" for session in sessions):
                continue
            self.blocks.add(block)
            try:
                mirrors = []
                for session in sessions:
                    state = replay_file(folder / "histories" / f"{session.id}.jsonl").state
                    mirrors.append(session_evidence(state.events, state.rules.evaluator, session=session.id,
                                                    block=str(block)))
            except (HistoryError, OSError) as error:  # a damaged history: its block is left out, and said
                self.left_out.append((session.id, str(error)))
                continue
            self.aggregate.add_block(mirrors)
            self.sessions += len(mirrors)
        return {"sessions": self.sessions, "report": report_of(self.aggregate, alpha=ALPHA).as_json()
                if self.sessions else None, "left_out": self.left_out[:_LEFT_OUT]}


def work(store_path: Path) -> None:
    """The worker: for each JSON line of stdin (`{"ladder": FOLDER}` or `{"results": FOLDER}`), one report as a
    JSON line on stdout."""
    _, hard = resource.getrlimit(resource.RLIMIT_AS)  # never above a limit the service was started under
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_BYTES if hard == resource.RLIM_INFINITY else min(MEMORY_BYTES, hard),
                                            hard))
    store: ServiceStore | None = None
    ladder = LadderAggregate()
    for line in sys.stdin:
        try:
            request = json.loads(line)
            if "ladder" in request:
                store = store or ServiceStore.open_reader(store_path)
                answer = ladder.report(store, Path(request["ladder"]))
            else:
                results = Path(request["results"])
                answer = {"sessions": sum(1 for _ in (results / "histories").glob("*.jsonl")),
                          "report": folder_collusion(results, alpha=ALPHA).as_json()}
        except (StorageError, HistoryError, OSError, ValueError, MemoryError) as error:  # said, not a traceback
            answer = {"problem": str(error) or type(error).__name__}
        sys.stdout.write(json.dumps(answer) + "\n")
        sys.stdout.flush()


def collusion_json(scope: str, analysis: Analysis | None, pending: bool) -> dict[str, Any]:
    """A scope's report as the organisers' page and `GET /api/collusion[/RUN]` give it: the last report (the
    flag list first), whether a newer one is being made, and beside each piece of evidence the addresses of
    its session's account and of its replay viewer at the decision cited (`#record-N`: the history's line N,
    the event's index + 1; the viewer shows an organiser every hand)."""
    run = None if scope == LADDER else scope
    query = f"?{urlencode({'tournament': run})}" if run else ""
    state = ("being made" if analysis is None else "failed" if analysis.problem
             else "empty" if analysis.report is None else "ready")
    report = analysis.report if analysis is not None and analysis.report is not None else {}

    def linked(test: dict[str, Any]) -> dict[str, Any]:
        evidence = [{**item, "account": f"/sessions/{quote(item['session'])}{query}",
                     "viewer": f"/sessions/{quote(item['session'])}/viewer{query}#record-{int(item['event']) + 1}"}
                    for item in test["evidence"]]
        return {**test, "evidence": evidence}

    return {"scope": "ladder" if run is None else "tournament", "tournament": run, "state": state,
            "current": not pending, "made_at": analysis.made_at if analysis else None,
            "sessions": analysis.sessions if analysis else None, "alpha": report.get("alpha", ALPHA),
            "pairs": report.get("pairs", 0), "tests_run": report.get("tests_run", 0),
            "flagged": [linked(test) for test in report.get("flagged", [])],
            "tests": [linked(test) for test in report.get("tests", [])],
            "left_out": [{"session": session, "problem": problem} for session, problem in
                         (analysis.left_out if analysis else ())],
            "problem": analysis.problem if analysis else None}
