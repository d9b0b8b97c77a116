"""The web pages: thin routes that read the same store and registry as the API, rendered with Jinja2.

Pages need no script except where they are live: a running tournament's page listens to
server-sent events (`/tournaments/NAME/events`) and updates its progress. An author signs in by
pasting a token once; it is kept in an HttpOnly, SameSite=Strict cookie (Secure over https), which
also authorises the upload form; a state change signed by that cookie must come from the site's own
pages (its Origin is checked: `_api.cross_site_problem`).
"""

from __future__ import annotations

import json
from collections import Counter, OrderedDict
from collections.abc import AsyncIterator, Callable, Sequence
from importlib import resources
from pathlib import Path
from typing import Any

import jinja2
import trio
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import FileResponse, HTMLResponse, RedirectResponse, Response, StreamingResponse
from starlette.routing import Route
from starlette.types import Receive, Scope, Send

from ..engine import ArenaError
from ..integrity import FLAGGING, TESTS
from ..replay import ReplayResult, describe_event, replay_file
from ..report import (
    SPECTATOR,
    Audience,
    ReplayDataError,
    SessionHistory,
    chips,
    chips_text,
    interval_chart,
    rating_text,
    redact_records,
    seat_page,
    session_page,
    when,
    write_report,
    write_session_replay,
)
from ..storage import StorageError
from ._api import (
    TOKEN_COOKIE,
    collusion_scope,
    failing_blocks,
    may_see,
    read_archive_upload,
    require_author,
    secure_cookies,
    shown_run,
    submit_version,
    who,
)
from ._challenges import (
    SAMPLE_PREFIX,
    ChallengeError,
    challenge_json,
    may_see_challenge,
    plan_challenge,
    sample_names,
    seat_views,
)
from ._challenges import folder as challenges_folder
from ._collusion import collusion_json
from ._cron import report_audience, schedules_due_text
from ._ladder import ladder_secrets
from ._live import LiveViews, is_session_id, ladder_files, live_events, now_playing, run_files
from ._registry import FROZEN, log_tail
from ._results import RECENT_SESSIONS, bot_overview, bot_results, winners
from ._service import Service
from ._slow import slow_decisions
from ._store import Author, LadderSession, RunRecord, TokenRefusedError, from_iso, note_damaged
from ._views import (
    FULL_COPY,
    PUBLIC_COPY,
    history_table_authors,
    ladder_table_authors,
    may_read_full,
    view_for,
)

_TEMPLATES = Path(__file__).parent / "templates"
_COOKIE_SECONDS = 30 * 24 * 3600
"""How long the browser keeps the sign-in cookie (less when the token expires sooner)."""
_AUTHOR_SESSIONS = 20
"""How many of an author's newest finished ladder sessions its page lists."""
_EVENTS_RETRY_SECONDS = 30
"""The Retry-After of a refused event stream."""
_REPLAY_ASSETS = {name: resources.files("arena.report").joinpath("assets", name)
                  for name in ("replay.css", "replay.js")}
"""The report's viewer and its styles, which live pages use as they are."""
# The report's chart macros are the service's too ("report/charts.html"): one drawing of each chart.
_ENVIRONMENT = jinja2.Environment(loader=jinja2.ChoiceLoader([
    jinja2.FileSystemLoader(_TEMPLATES),
    jinja2.PrefixLoader({"report": jinja2.PackageLoader("arena.report", "templates")})]),
    autoescape=True, undefined=jinja2.StrictUndefined)


def check_summary(report: str | None) -> str:
    """A check report in one line: its verdict and how many checks passed, warned and failed."""
    if not report:
        return "not checked yet"
    lines = report.splitlines()
    counts = {kind: sum(line.startswith(kind) for line in lines) for kind in ("PASS", "WARN", "FAIL")}
    verdict = "conforms" if lines[-1] == "conforms" else "does NOT conform"
    return (f"{verdict}: {counts['PASS']} checks passed, {counts['WARN']} with a warning, "
            f"{counts['FAIL']} failed")


_ENVIRONMENT.filters.update(chips=chips, chips_text=chips_text, rating=rating_text, when=when,
                            check_summary=check_summary)
_ENVIRONMENT.globals.update(recent=RECENT_SESSIONS, winners=winners)


def render(service: Service, request: Request, template: str, status_code: int = 200, **values: Any) -> HTMLResponse:
    """A page from its template, with who is signed in and whether submissions are frozen."""
    page = _ENVIRONMENT.get_template(template).render(me=who(service, request), game=service.game(), **values)
    return HTMLResponse(page, status_code=status_code)


async def error_page(service: Service, request: Request, error: HTTPException) -> Response:
    """The error's page, with its headers (a 429's Retry-After)."""
    page = render(service, request, "error.html", status_code=error.status_code, status=error.status_code,
                  message=error.detail)
    page.headers.update(error.headers or {})
    return page


def signed_in(service: Service, request: Request, *, organisers_only: str | None = None) -> Author | RedirectResponse:
    """The reader of a page for signed-in readers, or for a visitor the redirect to the sign-in page: the one
    guard of such pages.

    Raises:
        HTTPException: 403 with the message `organisers_only`, when given (the page is the organisers') and
            the reader is not an organiser.
    """
    author = who(service, request)
    if author is None:
        return RedirectResponse("/login", status_code=303)
    if organisers_only is not None and not author.organiser:
        raise HTTPException(403, organisers_only)
    return author


def _standings(service: Service, run: RunRecord) -> dict[str, Any] | None:
    path = service.registry.folder.tournaments / run.name / "results" / run.name / "standings.json"
    try:
        document: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return document


def served_file(base: Path, relative: str) -> Path | None:
    """The file `relative` names under `base` (links resolved), or None when it names none there: a path
    leaving `base`, a missing file, or one no file can have (a NUL byte, a name too long)."""
    try:
        folder = base.resolve()
        path = (folder / relative).resolve()
        return path if folder in path.parents and path.is_file() else None
    except (ValueError, OSError):
        return None


def client_address(request: Request, trusted_proxies: tuple[str, ...]) -> str:
    """The address a request comes from: its peer's, or, from a trusted reverse proxy, the last address
    its `X-Forwarded-For` lists (the one that proxy added; the ones before it the client may have written)."""
    peer = request.client.host if request.client else "?"
    forwarded = [part.strip() for part in request.headers.get("x-forwarded-for", "").split(",") if part.strip()]
    return forwarded[-1] if peer in trusted_proxies and forwarded else peer


class EventStreams:
    """The server-sent event streams open, overall and per client address, each capped: a client holds
    a connection and a task for as long as it listens."""

    def __init__(self, *, total: int, per_client: int) -> None:
        self.total = total
        self.per_client = per_client
        self.open: Counter[str] = Counter()

    def problem(self, client: str) -> str | None:
        """Why one more stream for `client` is refused now, or None."""
        if self.open[client] >= self.per_client:
            return f"this address already listens to {self.open[client]} event streams (at most {self.per_client})"
        if self.open.total() >= self.total:
            return f"the service already serves {self.open.total()} event streams (at most {self.total}): try later"
        return None


class CountedStream(StreamingResponse):
    """A stream counted in `EventStreams` from its start to its end, however it ends (the client going
    away included)."""

    def __init__(self, streams: EventStreams, client: str, content: AsyncIterator[str], **options: Any) -> None:
        super().__init__(content, **options)
        self.streams = streams
        self.client = client
        streams.open[client] += 1

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            await super().__call__(scope, receive, send)
        finally:
            self.streams.open[self.client] -= 1
            if self.streams.open[self.client] <= 0:
                del self.streams.open[self.client]


class CheckedReplays:
    """Sessions' histories as the rules engine re-checked them (or why they are broken), the last
    `size` kept: re-checking one costs a fraction of a second of CPU, and a finished history never
    changes (a file changed on disk since, by its size, time or inode, is checked again). Checks run
    two at a time at most, in threads."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._results: OrderedDict[tuple[str, int, int, int], ReplayResult | ArenaError] = OrderedDict()
        self._limiter = trio.CapacityLimiter(2)

    async def get(self, path: Path) -> ReplayResult | ArenaError:
        try:
            status = path.stat()
        except OSError as error:
            return ArenaError(f"cannot read {path.name}: {error.strerror}")
        key = (str(path), status.st_ino, status.st_size, status.st_mtime_ns)
        if (found := self._results.get(key)) is not None:
            self._results.move_to_end(key)
            return found
        try:
            result: ReplayResult | ArenaError = await trio.to_thread.run_sync(replay_file, path,
                                                                              limiter=self._limiter)
        except ArenaError as error:
            result = error
        self._results[key] = result
        while len(self._results) > self.size:
            self._results.popitem(last=False)
        return result


def routes(service: Service) -> list[Route]:
    """The pages' routes, bound to `service`."""
    store = service.store
    web = service.config.web
    event_streams = EventStreams(total=web.events_total, per_client=web.events_per_client)
    checked_replays = CheckedReplays(web.replay_cache)
    live_views = LiveViews()

    def ladder_session(session_id: str) -> LadderSession | None:
        # A damaged row is said once in the log and shown as no session, not as a 500 on every request.
        try:
            return store.ladder_session(session_id)
        except StorageError as error:
            note_damaged(session_id, str(error))
            return None

    def run_named(name: str) -> RunRecord:
        run = next((run for run in store.runs() if run.name == name), None)
        if run is None:
            raise HTTPException(404, f"no tournament {name!r}")
        return run

    async def leaderboard(request: Request) -> Response:
        rows = service.board.rows()
        rated = [(row.name, row.rating, row.ci_low, row.ci_high) for row in rows if row.rated]
        author = who(service, request)
        return render(service, request, "leaderboard.html", rows=rows,
                      intervals=interval_chart(rated, axis_label="Rating (Elo)", reference=1500.0) if rated else None,
                      playing=await trio.to_thread.run_sync(now_playing, service),
                      failing=failing_blocks(service, organiser=author is not None and author.organiser),
                      sessions=store.finished_ladder_sessions(), progress=store.ladder_progress(),
                      rated_sessions=service.board.fit.finished if service.board.fit else None,
                      isolation=service.isolation.value, warning=service.isolation_warning,
                      secrets=ladder_secrets(store, service.config.ladder.secret_days)[:4])

    async def bots(request: Request) -> Response:
        listed = [(bot, store.version(bot.name, "latest")) for bot in store.bots()]
        return render(service, request, "bots.html", bots=listed)

    async def bot_page(request: Request) -> Response:
        name = request.path_params["name"]
        bot = store.bot(name)
        if bot is None:
            raise HTTPException(404, f"no bot {name!r}")
        labels = {version.id: version.label for version in store.versions()}
        set_aside = {failure.block for failure in store.ladder_failures() if failure.set_aside}
        overview = bot_overview(store, service.board.rows(), bot)
        slow = await trio.to_thread.run_sync(lambda: slow_decisions(
            service.config.data, overview.sessions, {version.id for version in store.versions(bot.name)},
            limit_ms=service.config.limits.time.decision_ms))
        reader = who(service, request)
        mine = reader is not None and reader.name == bot.author
        challenges = [challenge_json(store, challenge) for challenge in store.challenges(bot.author, newest=20)
                      if mine and labels.get(int(challenge.players[0]), "").startswith(f"{name}.v")]
        return render(service, request, "bot.html", overview=overview, own=may_see(reader, bot.author),
                      labels=labels, set_aside=set_aside, slow=slow, mine=mine, challenges=challenges,
                      samples=[SAMPLE_PREFIX + sample for sample in sample_names()])

    async def author_page(request: Request) -> Response:
        name = request.path_params["name"]
        owned = store.bots(name)
        if not owned:
            raise HTTPException(404, f"no author {name!r} with a bot")
        rows = service.board.rows()
        overviews = [bot_overview(store, rows, bot) for bot in owned]
        ids = [version.id for bot in owned for version in store.versions(bot.name)]
        sessions = [session for session in store.sessions_of(ids, newest=_AUTHOR_SESSIONS)
                    if session.status == "finished"]
        results = {bot.name: bot_results(sessions, {version.id for version in store.versions(bot.name)})
                   for bot in owned}
        return render(service, request, "author.html", name=name, overviews=overviews,
                      own=may_see(who(service, request), name), sessions=sessions, results=results,
                      labels={version.id: version.label for version in store.versions()})

    async def challenge_form(request: Request) -> Response:
        """The bot page's challenge form (its author's; the site's own pages only, as every form): the
        challenge made as `POST /api/challenges` makes it, then its page."""
        author = require_author(service, request)
        name = request.path_params["name"]
        form = await request.form(max_files=0, max_fields=4)
        opponents = str(form.get("opponents") or "").replace(",", " ").split()
        blocks = str(form.get("blocks") or "1").strip()
        body = {"bot": name, "opponents": opponents[:64], "blocks": int(blocks) if blocks.isdigit() else blocks}
        try:
            challenge = await trio.to_thread.run_sync(plan_challenge, service, author, body)
        except ChallengeError as error:
            raise HTTPException(error.status, str(error), headers=None if error.retry_after is None else
                                {"Retry-After": str(error.retry_after)}) from None
        service.notify()
        return RedirectResponse(f"/challenges/{challenge.id}", status_code=303)

    async def challenge_page(request: Request) -> Response:
        number = request.path_params["id"]
        challenge = store.challenge(number) if 0 < number < 2**63 else None
        if challenge is None or not may_see_challenge(who(service, request), challenge):
            raise HTTPException(404, f"no challenge {number}")  # another author's is not said to exist
        return render(service, request, "challenge.html", challenge=challenge_json(store, challenge))

    async def version_page(request: Request) -> Response:
        name, which = request.path_params["name"], request.path_params["version"]
        bot = store.bot(name)
        version = store.version(name, which) if bot is not None else None
        if bot is None or version is None:
            raise HTTPException(404, f"no version {which!r} of bot {name!r}")
        return render(service, request, "version.html", bot=bot, version=version,
                      own=may_see(who(service, request), bot.author))

    async def session_log(request: Request) -> Response:
        name, session_id = request.path_params["name"], request.path_params["session"]
        bot = store.bot(name)
        session = ladder_session(session_id)
        if bot is None or session is None:
            raise HTTPException(404, f"no ladder session {session_id!r} of bot {name!r}")
        if not may_see(who(service, request), bot.author):
            raise HTTPException(403, "only the bot's author sees its logs: sign in with its token")
        mine = [version for seat in session.seating if (version := store.version_by_id(seat)).bot == name]
        if not mine:
            raise HTTPException(404, f"bot {name!r} did not play in {session_id}")
        folder = service.registry.folder.ladder / "logs" / session_id
        return render(service, request, "log.html", bot=bot, session=session, label=mine[0].label,
                      stderr=log_tail(folder / f"{mine[0].label}.stderr.log"),
                      stdout=log_tail(folder / f"{mine[0].label}.stdout.log"))

    async def me(request: Request) -> Response:
        author = signed_in(service, request)
        if not isinstance(author, Author):
            return author
        owned = [(bot, store.versions(bot.name)[::-1]) for bot in store.bots(author.name)]
        return render(service, request, "me.html", author=author, owned=owned)

    async def console(request: Request) -> Response:
        author = signed_in(service, request, organisers_only="the organisers' console needs an organiser's token")
        if not isinstance(author, Author):
            return author
        schedules = store.schedules()
        in_file = {schedule.name for schedule in service.config.schedules}
        in_play = {run.schedule for run in store.runs() if run.status in ("due", "running")}
        return render(service, request, "console.html", frozen=store.setting(FROZEN) == "1",
                      frozen_why=service.registry.is_frozen(), schedules=schedules,
                      due=schedules_due_text(schedules), in_file=in_file, in_play=in_play, bots=store.bots(),
                      failing=failing_blocks(service, organiser=True), tokens=store.tokens()[::-1],
                      failed_challenges=[challenge_json(store, challenge) for challenge in store.failed_challenges()])

    async def collusion_page(request: Request) -> Response:
        """The collusion report of the ladder, or of a scheduled run: the organisers' alone, as the console."""
        author = signed_in(service, request, organisers_only="the collusion reports need an organiser's token")
        if not isinstance(author, Author):
            return author
        scope = collusion_scope(service, request.path_params.get("name"))
        report = collusion_json(scope, *await service.collusion.ask(scope))
        pairs: dict[tuple[str, str], list[dict[str, Any]]] = {}
        for test in report["tests"]:
            pairs.setdefault((test["giver"], test["receiver"]), []).append(test)
        bots = {version.label: version.bot for version in store.versions()}  # the ladder names versions
        bots.update({bot.name: bot.name for bot in store.bots()})  # a tournament its bots
        return render(service, request, "collusion.html", report=report, pairs=pairs, bots=bots,
                      flagging=[name.replace("_", " ") for name in FLAGGING],
                      evidence_only=[name.replace("_", " ") for name in TESTS if name not in FLAGGING],
                      runs=[run.name for run in store.runs() if run.status in ("running", "finished")])

    async def console_script(request: Request) -> Response:
        return FileResponse(_TEMPLATES / "console.js", media_type="text/javascript")

    async def login(request: Request) -> Response:
        if request.method == "GET":
            return render(service, request, "login.html", problem=None)
        form = await request.form(max_files=0, max_fields=4)
        token = str(form.get("token") or "").strip()
        try:
            store.authenticate(token)
        except TokenRefusedError as error:
            return render(service, request, "login.html", status_code=401, problem=str(error))
        record = store.token_record(token)
        lifetime = _COOKIE_SECONDS
        if record is not None and record.expires_at is not None:
            lifetime = min(lifetime, max(1, int(from_iso(record.expires_at) - store.clock())))
        response = RedirectResponse("/me", status_code=303)
        response.set_cookie(TOKEN_COOKIE, token, httponly=True, samesite="strict", max_age=lifetime,
                            secure=secure_cookies(request))
        return response

    async def logout(request: Request) -> Response:
        response = RedirectResponse("/", status_code=303)
        response.delete_cookie(TOKEN_COOKIE, httponly=True, samesite="strict", secure=secure_cookies(request))
        return response

    async def upload(request: Request) -> Response:
        if request.method == "GET":
            return render(service, request, "upload.html", problem=None, frozen=service.registry.is_frozen())
        author = require_author(service, request)
        data, fields = await read_archive_upload(service, request)
        name = fields.get("name", "").strip()
        try:
            version, _ = await submit_version(service, author, name, data)
        except HTTPException as error:
            page = render(service, request, "upload.html", status_code=error.status_code, problem=error.detail,
                          frozen=service.registry.is_frozen())
            page.headers.update(error.headers or {})
            return page
        return RedirectResponse(f"/bots/{version.bot}/versions/{version.number}", status_code=303)

    async def tournaments(request: Request) -> Response:
        viewer = who(service, request)
        runs = [shown_run(run, viewer) for run in store.runs()]
        return render(service, request, "tournaments.html", schedules=store.schedules(),
                      due=schedules_due_text(store.schedules()),
                      running=[run for run in runs if run.status in ("due", "running")],
                      past=[run for run in runs if run.status in ("finished", "failed")], progress=service.progress)

    async def tournament(request: Request) -> Response:
        run = shown_run(run_named(request.path_params["name"]), who(service, request))
        document = _standings(service, run)
        histories = service.registry.folder.tournaments / run.name / "results" / run.name / "histories"
        sessions = sorted(path.stem for path in histories.glob("*.jsonl")) if histories.is_dir() else []
        report = histories.parent / "report" / "index.html"
        return render(service, request, "tournament.html", run=run, standings=document, sessions=sessions,
                      progress=service.progress.get(run.name), report=report.is_file(),
                      playing=await trio.to_thread.run_sync(lambda: now_playing(service, run=run.name)),
                      published=report_audience(store, run) is Audience.PUBLIC_HANDS)

    def live_files(request: Request) -> tuple[str, Path, Path]:
        # The session, its live file and its stored history; 404 for a name no session can have.
        session = request.path_params["session"]
        if not is_session_id(session):
            raise HTTPException(404, "no such session")
        if "name" not in request.path_params:
            return session, *ladder_files(service, session)
        return session, *run_files(service, run_named(request.path_params["name"]).name, session)

    async def live_page(request: Request) -> Response:
        """A session in play in the replay viewer, in the spectator's view, growing as it is played."""
        session, live, stored = live_files(request)
        if not live.is_file() and not stored.is_file():
            raise HTTPException(404, f"session {session} is not in play")
        return render(service, request, "live.html", session=session, where=request.path_params.get("name"),
                      events=f"{request.url.path}/events")

    async def live_feed(request: Request) -> Response:
        """The session's server-sent events (`_live.live_events`)."""
        session, live, stored = live_files(request)
        if not live.is_file() and not stored.is_file():
            raise HTTPException(404, f"session {session} is not in play")
        client = client_address(request, web.trusted_proxies)
        if (problem := event_streams.problem(client)) is not None:
            raise HTTPException(429, problem, headers={"Retry-After": str(_EVENTS_RETRY_SECONDS)})
        return CountedStream(event_streams, client, live_events(live_views, live, stored),
                             media_type="text/event-stream",
                             headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})

    async def replay_asset(request: Request) -> Response:
        name = request.path_params["name"]
        if name not in _REPLAY_ASSETS:
            raise HTTPException(404, "no such file")
        return Response(_REPLAY_ASSETS[name].read_bytes(),
                        media_type="text/javascript" if name.endswith(".js") else "text/css")

    async def tournament_events(request: Request) -> Response:
        run = run_named(request.path_params["name"])
        client = client_address(request, web.trusted_proxies)
        if (problem := event_streams.problem(client)) is not None:
            raise HTTPException(429, problem, headers={"Retry-After": str(_EVENTS_RETRY_SECONDS)})

        async def events() -> AsyncIterator[str]:
            while True:
                changed = service.changed
                current = store.run(run.id)
                progress = service.progress.get(run.name)
                yield "data: " + json.dumps({
                    "status": current.status, "done": progress.done if progress else None,
                    "total": progress.total if progress else None, "faults": progress.faults if progress else None,
                }) + "\n\n"
                if current.status in ("finished", "failed"):
                    return
                with trio.move_on_after(15):  # a comment line now and then keeps proxies from closing it
                    await changed.wait()

        return CountedStream(event_streams, client, events(), media_type="text/event-stream",
                             headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})

    def results_of(run: RunRecord) -> Path:
        return service.registry.folder.tournaments / run.name / "results" / run.name

    def tournament_authors(run: RunRecord) -> Callable[[str], Sequence[str | None]]:
        return lambda page: history_table_authors(store, results_of(run) / "histories" / f"{page}.jsonl")

    def ladder_authors(page: str) -> Sequence[str | None]:
        session = ladder_session(page)
        return ladder_table_authors(store, session) if session is not None else []

    def file_in(base: Path, relative: str, what: str) -> tuple[Path, str]:
        """A file of `base` and its path relative to it, with `..` and links resolved (so what is
        checked is what is served); 404 when it names none there."""
        path = served_file(base, relative or "index.html")
        if path is None:
            raise HTTPException(404, f"no such page in {what}")
        return path, path.relative_to(base.resolve()).as_posix()

    def full_copy_file(request: Request, base: Path, relative: str, what: str,
                       authors: Callable[[str], Sequence[str | None]]) -> Response:
        path, inside = file_in(base, relative, what)
        if not may_read_full(who(service, request), inside, table_authors=authors, store=store):
            raise HTTPException(403, "this view is its seat's author's or the organisers': sign in with your token "
                                     "(a visitor sees the spectator's view: the hands shown at showdowns)")
        return FileResponse(path)

    async def report_file(request: Request) -> Response:
        """The tournament's published report: the public copy (a spectator's view of every session, or
        every hand when its schedule publishes them), written from its results when missing."""
        run = run_named(request.path_params["name"])
        results = results_of(run)
        public = results / PUBLIC_COPY
        if run.status == "finished" and (results / "report").is_dir() and not (public / "index.html").is_file():
            audience = report_audience(store, run)
            await trio.to_thread.run_sync(lambda: write_report(results, out=public, audience=audience))
        path, _ = file_in(public, request.path_params["path"], f"the report of {run.name}")
        return FileResponse(path)

    async def full_report_file(request: Request) -> Response:
        """The tournament's full report (organisers; a seat's page and its bot's logs to its author)."""
        run = run_named(request.path_params["name"])
        return full_copy_file(request, results_of(run) / "report", request.path_params["path"],
                              f"the full report of {run.name}", tournament_authors(run))

    def challenge_views(reader: Author | None) -> Callable[[str], Sequence[str | None]]:
        # Whose view each seat of a challenge's session is (`seat_views`); none to a reader the challenge is
        # not known to: it does not exist for them.
        def views(page: str) -> Sequence[str | None]:
            session = store.challenge_session(page) if is_session_id(page) else None
            challenge = store.challenge(session.challenge) if session is not None else None
            if session is None or challenge is None or not may_see_challenge(reader, challenge):
                return []
            return seat_views(challenge, session)
        return views

    def session_source(session_id: str, run_name: str | None, reader: Author | None
                       ) -> tuple[str, Path, Path, Path, Callable[[str], Sequence[str | None]], str]:
        """A finished session's title, history file, the folder its viewer pages are written to, the
        folder of its bots' logs, who wrote the bot of each seat (by page name), and the address its
        viewer pages are served under. A challenge's session is its challenger's and the organisers'
        (404 to anyone else, as for none)."""
        if run_name:
            run = run_named(run_name)
            where = service.registry.folder.tournaments / run.name
            title, histories = f"{run.name}: session {session_id}", results_of(run) / "histories"
            logs, authors, scope = results_of(run) / "logs", tournament_authors(run), f"tournaments/{run.name}"
        elif (challenged := store.challenge_session(session_id) if is_session_id(session_id) else None) is not None:
            if not challenge_views(reader)(session_id):
                raise HTTPException(404, f"no history of session {session_id[:80]!r}")
            where = challenges_folder(service)
            title, histories = f"challenge {challenged.challenge}: session {session_id}", where / "histories"
            logs, authors, scope = where / "logs", challenge_views(reader), "challenges"
        else:
            where = service.registry.folder.ladder
            title, histories = f"ladder session {session_id}", where / "histories"
            logs, authors, scope = where / "logs", ladder_authors, "ladder"
        path = None if "/" in session_id or session_id.startswith(".") else served_file(
            histories, f"{session_id}.jsonl")
        if path is None:
            raise HTTPException(404, f"no history of session {session_id[:80]!r}")
        return title, path, where / "replays", logs / session_id, authors, scope

    def account_as_seen(result: ReplayResult, view: int | None) -> list[str]:
        """The account of a checked session as `view` may read it: built from its records redacted for
        that view (the check itself read every record)."""
        if view is None:
            return result.account
        records = [event.to_json() for event in result.state.events]
        lines = (describe_event(record, result.state.bots) for record in redact_records(records, view))
        return [line for line in lines if line is not None]

    async def replay(request: Request) -> Response:
        """The session's account as the rules engine re-checked it, with a link to the replay viewer;
        each reader sees what `view_for` gives it."""
        session_id, run_name = request.path_params["session"], request.query_params.get("tournament")
        reader = who(service, request)
        title, path, _, _, authors, _ = session_source(session_id, run_name, reader)
        view = view_for(reader, authors(session_id))
        viewer = f"/sessions/{session_id}/viewer" + (f"?tournament={run_name}" if run_name else "")
        result = await checked_replays.get(path)
        if isinstance(result, ArenaError):
            return render(service, request, "replay.html", title=title, account=[], verdict=f"BROKEN: {result}",
                          viewer=viewer, view=view)
        verdict = ("every action checked against the rules, every deal against the session's seed" if result.seeded
                   else "checked against the rules; its deals were NOT checked against a seed")
        return render(service, request, "replay.html", title=title, account=account_as_seen(result, view),
                      verdict=verdict, viewer=viewer, view=view)

    async def replay_viewer(request: Request) -> Response:
        """The report's replay viewer for the session in the reader's view, written on first request (a
        finished session's history never changes): a spectator's page in the public copy, the
        organiser's or a seat's (with its own bot's logs) in the full copy."""
        session_id, run_name = request.path_params["session"], request.query_params.get("tournament")
        reader = who(service, request)
        _, path, folder, logs, authors, scope = session_source(session_id, run_name, reader)
        view = view_for(reader, authors(session_id))
        public = view == SPECTATOR
        copy = folder / (PUBLIC_COPY if public else FULL_COPY)
        page = session_page(session_id) if view is None or public else seat_page(session_id, view)
        if not (copy / page).is_file():
            history = SessionHistory(session_id, path, logs=None if public else logs)
            audience = Audience.PUBLIC if public else Audience.ORGANISERS
            try:
                back = (f"/sessions/{session_id}" + (f"?tournament={run_name}" if run_name else ""),
                        "← Back to the arena's session page")
                await trio.to_thread.run_sync(lambda: write_session_replay(copy, history, audience=audience,
                                                                           back=back))
            except (ReplayDataError, ArenaError) as error:
                raise HTTPException(500, f"the history of session {session_id} cannot be shown: {error}") from None
        return RedirectResponse(f"/{scope}/replays/{copy.name}/{page}", status_code=303)

    def replay_file_of(request: Request, folder: Path, relative: str,
                       authors: Callable[[str], Sequence[str | None]]) -> Response:
        copy, _, inside = relative.partition("/")
        if copy == PUBLIC_COPY:
            path, _ = file_in(folder / PUBLIC_COPY, inside, "the replays")
            return FileResponse(path)
        if copy == FULL_COPY:
            return full_copy_file(request, folder / FULL_COPY, inside, "the replays", authors)
        raise HTTPException(404, "no such replay page")

    async def ladder_replay_file(request: Request) -> Response:
        return replay_file_of(request, service.registry.folder.ladder / "replays", request.path_params["path"],
                              ladder_authors)

    async def challenge_replay_file(request: Request) -> Response:
        """A challenge's session's viewer pages: never a public copy (a challenge is unknown to the public), a
        session's pages and logs only to those its challenge is known to, as `may_read_full` says."""
        relative, reader = request.path_params["path"], who(service, request)
        copy, _, inside = relative.partition("/")
        page = inside.split("/")[1].split(".")[0] if inside.startswith(("sessions/", "logs/")) else None
        if copy != FULL_COPY or (page is not None and not challenge_views(reader)(page)):
            raise HTTPException(404, "no such replay page")
        return replay_file_of(request, challenges_folder(service) / "replays", relative, challenge_views(reader))

    async def tournament_replay_file(request: Request) -> Response:
        run = run_named(request.path_params["name"])
        return replay_file_of(request, service.registry.folder.tournaments / run.name / "replays",
                              request.path_params["path"], tournament_authors(run))

    async def stylesheet(request: Request) -> Response:
        return FileResponse(_TEMPLATES / "style.css", media_type="text/css")

    return [
        Route("/", leaderboard),
        Route("/bots", bots),
        Route("/bots/{name}", bot_page),
        Route("/bots/{name}/versions/{version}", version_page),
        Route("/bots/{name}/logs/{session}", session_log),
        Route("/authors/{name}", author_page),
        Route("/me", me),
        Route("/login", login, methods=["GET", "POST"]),
        Route("/logout", logout, methods=["POST"]),
        Route("/upload", upload, methods=["GET", "POST"]),
        Route("/tournaments", tournaments),
        Route("/tournaments/{name}", tournament),
        Route("/tournaments/{name}/events", tournament_events),
        Route("/tournaments/{name}/report/{path:path}", report_file),
        Route("/tournaments/{name}/full-report/{path:path}", full_report_file),
        Route("/sessions/{session}", replay),
        Route("/sessions/{session}/viewer", replay_viewer),
        Route("/ladder/replays/{path:path}", ladder_replay_file),
        Route("/challenges/replays/{path:path}", challenge_replay_file),
        Route("/tournaments/{name}/replays/{path:path}", tournament_replay_file),
        Route("/static/style.css", stylesheet),
        Route("/bots/{name}/challenge", challenge_form, methods=["POST"]),
        Route("/challenges/{id:int}", challenge_page),
        Route("/organiser", console),
        Route("/organiser/collusion", collusion_page),
        Route("/organiser/collusion/{name}", collusion_page),
        Route("/static/console.js", console_script),
        Route("/static/report/{name}", replay_asset),
        Route("/live/ladder/{session}", live_page),
        Route("/live/ladder/{session}/events", live_feed),
        Route("/live/tournaments/{name}/{session}", live_page),
        Route("/live/tournaments/{name}/{session}/events", live_feed),
    ]
