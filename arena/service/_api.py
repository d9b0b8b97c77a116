"""The JSON API under `/api/`: thin routes over the registry and the store.

Statuses a client can rely on: 401 without a valid token (or with one revoked or expired), 403
for another author's bot (or an organiser's action without an organiser token, or a cookie-signed
state change from another site), 404 for what does not exist, 409 while submissions
are frozen (or for a ladder block to resume that is not set aside, or a challenge to resume that has not
failed or seats a disqualified bot), 413 for a request body over the archive limit (refused while it
is read, never buffered whole), 422 for a refused archive, manifest
or request, 429 (with Retry-After) past the versions a day an author may submit, 507 past the bytes
an author may store or while the disk is under its floor.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import AsyncGenerator
from dataclasses import replace
from typing import Any
from urllib.parse import urlencode, urlsplit

import trio
from starlette.concurrency import iterate_in_threadpool
from starlette.datastructures import UploadFile
from starlette.exceptions import HTTPException
from starlette.formparsers import MultiPartException, MultiPartParser
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from ..engine import ArenaError
from ..storage import StorageError
from ._archive import ArchiveError
from ._challenges import ChallengeError, challenge_json, may_see_challenge, plan_challenge, resume
from ._collusion import LADDER, collusion_json
from ._config import ScheduleConfig, cron_problem, seats_problem
from ._cron import fire_now
from ._ladder import LadderPaused, ladder_secrets
from ._registry import (
    FROZEN,
    BadRequestError,
    QuotaError,
    SubmissionsFrozenError,
    UnchangedVersionError,
    bot_name_problem,
)
from ._service import Service
from ._sessions import MAX_PAGE, ResultsRequestError, RunSessions, list_sessions, session_history
from ._store import Author, NotYourBotError, RunRecord, TokenRecord, TokenRefusedError, VersionRecord

LOGGER = logging.getLogger(__name__)
_MULTIPART_OVERHEAD = 64 * 1024
"""Bytes a multipart body may hold beyond the archive (boundaries, headers, small fields)."""
_DRAIN_BYTES = 16 << 20
_DRAIN_SECONDS = 10.0
"""What is read and dropped of a body refused as too large before the answer (a client that sends
its whole body before it reads would otherwise see the connection reset, not the 413); past
that the connection is closed."""
TOKEN_COOKIE = "seka_token"
"""The cookie the web pages keep an author's token in (set by the sign-in form)."""


class BodyTooLargeError(Exception):
    pass


def bearer_token(request: Request) -> str | None:
    """The token of `Authorization: Bearer T`, else the sign-in cookie's, else None."""
    header = request.headers.get("authorization", "")
    scheme, _, token = header.partition(" ")
    if scheme.lower() == "bearer" and token.strip():
        return token.strip()
    return request.cookies.get(TOKEN_COOKIE) or None


def who(service: Service, request: Request) -> Author | None:
    """Who sent the request, or None for an anonymous one (or one whose token is not valid now)."""
    token = bearer_token(request)
    return service.store.author(token) if token else None


def require_author(service: Service, request: Request) -> Author:
    """Who sent the request; 401 without a token, or with one never given, revoked or expired (saying which)."""
    token = bearer_token(request)
    if token is None:
        raise HTTPException(401, "a valid token is needed: Authorization: Bearer TOKEN "
                                 "(an organiser gives one with `seka-arena token`)")
    try:
        return service.store.authenticate(token)
    except TokenRefusedError as error:
        raise HTTPException(401, str(error)) from None


def require_organiser(service: Service, request: Request) -> Author:
    author = require_author(service, request)
    if not author.organiser:
        raise HTTPException(403, "this needs an organiser's token")
    return author


def cross_site_problem(request: Request) -> str | None:
    """Why a state change must be refused as possibly forged by another site, or None.

    A browser adds the sign-in cookie to any request to this site, also one a page elsewhere makes it
    send (a form posted across sites); it never adds an `Authorization` header by itself. So a
    request that changes state (any method but GET, HEAD, OPTIONS) and is not authorised by that
    header must come from this site's own pages when it carries the cookie or posts a page's form
    (sign-in, sign-out, upload): its `Origin` (else its `Referer`) must name the host it was sent to.
    """
    if request.method in ("GET", "HEAD", "OPTIONS"):
        return None
    if request.headers.get("authorization", "").lower().startswith("bearer "):
        return None
    if TOKEN_COOKIE not in request.cookies and request.url.path.startswith("/api/"):
        return None  # no credentials at all: refused as unauthorised further on
    source = request.headers.get("origin") or request.headers.get("referer")
    if not source or source == "null":
        return ("a request signed in by cookie must come from this site's pages (it has no Origin or Referer "
                "header); a program sends `Authorization: Bearer TOKEN` instead")
    if urlsplit(source).netloc.lower() != request.headers.get("host", "").lower():
        return f"refused: this request comes from another site ({source[:200]}), not from this site's pages"
    return None


def secure_cookies(request: Request) -> bool:
    """Whether the sign-in cookie is marked Secure: the request came over https (to the service, or to a
    reverse proxy that says so with `X-Forwarded-Proto: https`)."""
    return request.url.scheme == "https" or request.headers.get("x-forwarded-proto", "").lower() == "https"


_SERVER_PATH = re.compile(r"(?<![\w.~])/(?:[^\s/'\"():,]+/)*([^\s/'\"():,]*)")
"""An absolute path in a message: a visitor is shown only its last part."""


def without_server_paths(text: str) -> str:
    """`text` with every absolute path cut to its last part, so no public page shows the server's folders.

    >>> without_server_paths("cannot read /srv/arena/data/tournaments/n/tournament.yaml: no such file")
    'cannot read tournament.yaml: no such file'
    """
    return _SERVER_PATH.sub(lambda match: match.group(1), text)


def shown_run(run: RunRecord, viewer: Author | None) -> RunRecord:
    """A scheduled run as `viewer` may see it: an organiser reads its message whole, anyone else without paths."""
    if run.message is None or (viewer is not None and viewer.organiser):
        return run
    return replace(run, message=without_server_paths(run.message))


def collusion_scope(service: Service, run: str | None) -> str:
    """The scope of a collusion report: the ladder's (no run named), else a scheduled run's; 404 for a name
    that is no run's (checked against the store, so no other name reaches a path)."""
    if run is None:
        return LADDER
    if not any(record.name == run for record in service.store.runs()):
        raise HTTPException(404, f"no tournament {run[:80]!r}")
    return run


def may_see(author: Author | None, bot_author: str) -> bool:
    """Whether `author` may see a bot's check reports and logs: its own author, or an organiser."""
    return author is not None and (author.organiser or author.name == bot_author)


async def read_body(request: Request, limit: int) -> bytes:
    """The request body, refused (`BodyTooLargeError`) as soon as it passes `limit` bytes."""
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > limit:
        raise BodyTooLargeError
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise BodyTooLargeError
        chunks.append(chunk)
    return b"".join(chunks)


async def read_archive_upload(service: Service, request: Request) -> tuple[bytes, dict[str, str]]:
    """The `archive` file of a multipart request, and its other (text) fields.

    Raises:
        HTTPException: 413 over the archive limit, 422 when the request is not multipart with an
            `archive` file.
    """
    limit = service.config.uploads.archive_bytes
    try:
        body = await read_body(request, limit + _MULTIPART_OVERHEAD)
    except BodyTooLargeError:
        await _drain(request)
        raise HTTPException(413, f"the archive is over the limit of {limit} bytes",
                            headers={"Connection": "close"}) from None
    if not request.headers.get("content-type", "").startswith("multipart/form-data"):
        raise HTTPException(422, "send the archive as multipart/form-data, in the field `archive`")

    async def stream() -> AsyncGenerator[bytes, None]:
        yield body

    try:
        form = await MultiPartParser(request.headers, stream(), max_files=1, max_fields=8).parse()
    except MultiPartException as error:
        raise HTTPException(422, f"malformed multipart body: {error.message}") from None
    upload = form.get("archive")
    if not isinstance(upload, UploadFile):
        raise HTTPException(422, "no file in the multipart field `archive`")
    data = await upload.read()
    await form.close()
    if len(data) > limit:
        raise HTTPException(413, f"the archive is over the limit of {limit} bytes")
    fields = {key: value for key, value in form.items() if isinstance(value, str)}
    return data, fields


async def _drain(request: Request) -> None:
    # Read and drop what follows of a refused body, up to a bound in bytes and time; nothing is kept.
    dropped = 0
    with trio.move_on_after(_DRAIN_SECONDS):
        try:
            async for chunk in request.stream():
                dropped += len(chunk)
                if dropped > _DRAIN_BYTES:
                    return
        except Exception:  # the stream was partly consumed, or the client went away: nothing more to drop
            return


def version_json(version: VersionRecord, *, full: bool) -> dict[str, Any]:
    """A version as the API shows it: with its check report and stderr when `full` (its author's view)."""
    shown: dict[str, Any] = {
        "bot": version.bot, "id": version.number, "status": version.status.value, "sha256": version.sha256,
        "archive": version.kind, "size": version.size, "language": version.language,
        "description": version.description, "submitted_at": version.created_at, "checked_at": version.checked_at,
    }
    if full:
        shown.update({"command": version.command, "report": version.report, "stderr": version.stderr})
    return shown


def token_json(record: TokenRecord) -> dict[str, Any]:
    """A token as organisers see it: its id (the start of its hash), never the token itself."""
    return {"id": record.id, "author": record.author, "organiser": record.organiser, "created_at": record.created_at,
            "expires_at": record.expires_at, "revoked_at": record.revoked_at}


def failing_blocks(service: Service, *, organiser: bool) -> list[dict[str, Any]]:
    """The ladder blocks that failed and have not finished since, set aside first: their players, failures
    and when; the error (the arena's internals, paths included) only for an organiser."""
    labels = {version.id: version.label for version in service.store.versions()}
    shown = []
    for failure in service.store.ladder_failures():
        sessions = service.store.ladder_sessions(block=failure.block)
        status = "set aside" if failure.set_aside else \
            "the ladder is paused" if failure.error.startswith(f"{LadderPaused.__name__}:") else "retrying"
        shown.append({"block": failure.block, "status": status,
                      "players": [labels.get(seat, str(seat)) for seat in sessions[0].seating] if sessions else [],
                      "sessions": [session.id for session in sessions], "failures": failure.failures,
                      "failed_at": failure.failed_at, "set_aside_at": failure.set_aside_at,
                      "error": failure.error if organiser else None})
    return shown


async def submit_version(service: Service, author: Author, bot: str, data: bytes) -> tuple[VersionRecord, bool]:
    """Store a submission and queue its check; errors as HTTP statuses. Returns the version and whether it is
    new (False: the same files as the bot's latest version, which is returned as it stands)."""
    try:
        version = await trio.to_thread.run_sync(service.registry.submit, author, bot, data)
    except NotYourBotError as error:
        raise HTTPException(403, str(error)) from None
    except SubmissionsFrozenError as error:
        raise HTTPException(409, str(error)) from None
    except (ArchiveError, BadRequestError) as error:
        raise HTTPException(422, str(error)) from None
    except QuotaError as error:
        raise HTTPException(error.status, str(error), headers=None if error.retry_after is None else
                            {"Retry-After": str(error.retry_after)}) from None
    except UnchangedVersionError as error:
        return error.version, False
    service.queue_check(version)
    service.notify()
    return version, True


def routes(service: Service) -> list[Route]:
    """The API's routes, bound to `service`."""
    run_sessions = RunSessions()

    async def leaderboard(request: Request) -> Response:
        return JSONResponse([row.as_json() for row in service.board.rows()])

    async def game(request: Request) -> Response:
        return JSONResponse(service.game())

    async def bots(request: Request) -> Response:
        found = []
        for bot in service.store.bots():
            latest = service.store.version(bot.name, "latest")
            found.append({"name": bot.name, "author": bot.author, "disqualified": bot.disqualified,
                          "latest": version_json(latest, full=False) if latest else None})
        return JSONResponse(found)

    async def post_version(request: Request) -> Response:
        author = require_author(service, request)
        name = request.path_params["name"]
        if (problem := bot_name_problem(name)) is not None:
            raise HTTPException(422, problem)
        owner = service.store.bot(name)
        if owner is not None and owner.author != author.name:  # before reading a byte of the body
            raise HTTPException(403, f"bot {name!r} belongs to another author")
        data, _ = await read_archive_upload(service, request)
        version, new = await submit_version(service, author, name, data)
        return JSONResponse(version_json(version, full=True), status_code=201 if new else 200,
                            headers={"Location": f"/api/bots/{name}/versions/{version.number}"})

    async def get_version(request: Request) -> Response:
        author = require_author(service, request)
        name, which = request.path_params["name"], request.path_params["version"]
        bot = service.store.bot(name)
        if bot is None:
            raise HTTPException(404, f"no bot {name!r}")
        if not may_see(author, bot.author):
            raise HTTPException(403, f"bot {name!r} belongs to another author: only its author sees its reports")
        version = service.store.version(name, which)
        if version is None:
            raise HTTPException(404, f"bot {name!r} has no version {which!r} (a number, or `latest`)")
        return JSONResponse(version_json(version, full=True))

    async def disqualify(request: Request) -> Response:
        require_organiser(service, request)
        name = request.path_params["name"]
        if service.store.bot(name) is None:
            raise HTTPException(404, f"no bot {name!r}")
        reason = str((await _json(request)).get("reason") or "disqualified by the organisers")
        service.store.disqualify(name, reason[:500])
        service.notify()
        return JSONResponse({"bot": name, "disqualified": reason[:500]})

    async def reinstate(request: Request) -> Response:
        require_organiser(service, request)
        name = request.path_params["name"]
        if service.store.bot(name) is None:
            raise HTTPException(404, f"no bot {name!r}")
        service.store.reinstate(name)
        service.notify()
        return JSONResponse({"bot": name, "disqualified": None})

    async def tokens(request: Request) -> Response:
        require_organiser(service, request)
        return JSONResponse([token_json(record) for record in service.store.tokens()])

    async def revoke_token(request: Request) -> Response:
        require_organiser(service, request)
        try:
            record = service.store.revoke_token(request.path_params["id"])
        except StorageError as error:
            raise HTTPException(404, str(error)) from None
        return JSONResponse(token_json(record))

    async def freeze(request: Request) -> Response:
        require_organiser(service, request)
        frozen = (await _json(request)).get("frozen")
        if not isinstance(frozen, bool):
            raise HTTPException(422, 'send {"frozen": true} or {"frozen": false}')
        service.store.set_setting(FROZEN, "1" if frozen else "0")
        return JSONResponse({"frozen": frozen})

    async def create_schedule(request: Request) -> Response:
        require_organiser(service, request)
        body = await _json(request)
        try:
            schedule = ScheduleConfig(**{key: body[key] for key in ("name", "cron", "top", "table_size",
                                                                     "sessions_per_table", "freeze_minutes",
                                                                     "publish")
                                         if key in body})
        except (TypeError, ArenaError) as error:
            problem = cron_problem(body.get("cron"))
            raise HTTPException(422, str(error) if problem is None else f"cron: {problem}") from None
        _verify_schedule_values(schedule)
        if (problem := seats_problem(service.config.rules, schedule.table_size)) is not None:
            raise HTTPException(422, f"table_size: {problem}")
        record = service.store.ensure_schedule(schedule.name, schedule.cron, schedule.settings())
        service.notify()
        return JSONResponse({"name": record.name, "cron": record.cron, "settings": dict(record.settings)},
                            status_code=201)

    async def delete_schedule(request: Request) -> Response:
        require_organiser(service, request)
        name = request.path_params["name"]
        if name not in {schedule.name for schedule in service.store.schedules()}:
            raise HTTPException(404, f"no schedule {name!r}")
        if name in {schedule.name for schedule in service.config.schedules}:
            raise HTTPException(409, f"schedule {name!r} is in the service's file, which would bring it back at the "
                                     "next start: remove it there")
        if any(run.schedule == name and run.status in ("due", "running") for run in service.store.runs()):
            raise HTTPException(409, f"a run of schedule {name!r} is in play: delete the schedule once it ends")
        service.store.delete_schedule(name)
        service.notify()
        return Response(status_code=204)

    async def run_now(request: Request) -> Response:
        require_organiser(service, request)
        name = request.path_params["name"]
        if name not in {schedule.name for schedule in service.store.schedules()}:
            raise HTTPException(404, f"no schedule {name!r}")
        run = fire_now(service.store, name)
        if run is None:
            playing = [run.name for run in service.store.runs() if run.schedule == name
                       and run.status in ("due", "running")]
            raise HTTPException(409, f"schedule {name!r} has a run in play ({', '.join(playing)}): fire it again "
                                     "once that run is over")
        service.notify()
        return JSONResponse({"name": run.name, "schedule": run.schedule, "due_at": run.due_at}, status_code=201)

    async def ladder(request: Request) -> Response:
        author = who(service, request)
        secrets = ladder_secrets(service.store, service.config.ladder.secret_days)
        return JSONResponse({"finished_sessions": service.store.finished_ladder_sessions(),
                             "blocks": failing_blocks(service, organiser=author is not None and author.organiser),
                             "secrets": [secret.as_json() for secret in secrets]})

    async def resume_block(request: Request) -> Response:
        require_organiser(service, request)
        block = request.path_params["block"]
        if not 0 < block < 2**63 or not service.store.ladder_sessions(block=block):  # SQLite's integers
            raise HTTPException(404, f"no ladder block {block}")
        try:
            service.store.resume_ladder_block(block)
        except StorageError as error:
            raise HTTPException(409, str(error)) from None
        service.notify()  # wakes an idle ladder
        return JSONResponse({"block": block, "status": "in play"})

    async def tournaments(request: Request) -> Response:
        runs = []
        viewer = who(service, request)
        for run in (shown_run(run, viewer) for run in service.store.runs()):
            progress = service.progress.get(run.name)
            runs.append({"name": run.name, "schedule": run.schedule, "due_at": run.due_at, "status": run.status,
                         "message": run.message, "started_at": run.started_at, "finished_at": run.finished_at,
                         "done": progress.done if progress else None, "total": progress.total if progress else None})
        schedules = [{"name": schedule.name, "cron": schedule.cron, "settings": dict(schedule.settings),
                      "last_due": schedule.last_due} for schedule in service.store.schedules()]
        return JSONResponse({"runs": runs, "schedules": schedules})

    async def post_challenge(request: Request) -> Response:
        author = require_author(service, request)
        body = await _json(request)
        try:
            challenge = await trio.to_thread.run_sync(plan_challenge, service, author, body)
        except ChallengeError as error:
            raise HTTPException(error.status, str(error), headers=None if error.retry_after is None else
                                {"Retry-After": str(error.retry_after)}) from None
        service.notify()  # wakes an idle ladder
        return JSONResponse({"id": challenge.id}, status_code=201,
                            headers={"Location": f"/api/challenges/{challenge.id}"})

    async def get_challenge(request: Request) -> Response:
        number = request.path_params["id"]
        challenge = service.store.challenge(number) if 0 < number < 2**63 else None
        if challenge is None or not may_see_challenge(who(service, request), challenge):
            raise HTTPException(404, f"no challenge {number}")  # another author's is not said to exist
        return JSONResponse(challenge_json(service.store, challenge))

    async def resume_challenge(request: Request) -> Response:
        organiser = require_organiser(service, request)
        number = request.path_params["id"]
        challenge = service.store.challenge(number) if 0 < number < 2**63 else None
        if challenge is None:
            raise HTTPException(404, f"no challenge {number}")
        try:
            resumed = await trio.to_thread.run_sync(resume, service.store, challenge, organiser)
        except ChallengeError as error:
            raise HTTPException(error.status, str(error)) from None
        LOGGER.warning("challenge %d resumed by %s (it had failed: %s)", number, organiser.name, challenge.failed)
        service.notify()  # wakes an idle ladder
        return JSONResponse(challenge_json(service.store, resumed))

    async def collusion(request: Request) -> Response:
        """A collusion report (the ladder's, or a scheduled run's): the organisers' alone."""
        require_organiser(service, request)
        scope = collusion_scope(service, request.path_params.get("name"))
        return JSONResponse(collusion_json(scope, *await service.collusion.ask(scope)))

    async def sessions(request: Request) -> Response:
        query = request.query_params
        limit_text = query.get("limit", "100")
        if not limit_text.isdigit() or not 1 <= int(limit_text) <= MAX_PAGE:
            raise HTTPException(422, f"limit: an integer from 1 to {MAX_PAGE}, not {limit_text[:20]!r}")
        try:
            page = list_sessions(service, who(service, request), runs=run_sessions, bot=query.get("bot"),
                                 since=query.get("since"), cursor=query.get("cursor"), limit=int(limit_text))
        except ResultsRequestError as error:
            raise HTTPException(422, str(error)) from None
        following = None if page.next is None else "/api/sessions?" + urlencode(
            {**{key: value for key, value in query.items() if key != "cursor"}, "cursor": page.next})
        return JSONResponse({"sessions": page.sessions, "next": following})

    async def history(request: Request) -> Response:
        session_id = request.path_params["id"]
        tournament = request.query_params.get("tournament")
        lines = session_history(service, who(service, request), session_id[:64],
                                None if tournament is None else tournament[:200])
        if lines is None:
            raise HTTPException(404, f"no finished session {session_id[:64]!r}")
        return StreamingResponse(iterate_in_threadpool(lines), media_type="application/jsonl")

    return [
        Route("/api/game", game),
        Route("/api/leaderboard", leaderboard),
        Route("/api/bots", bots),
        Route("/api/bots/{name}/versions", post_version, methods=["POST"]),
        Route("/api/bots/{name}/versions/{version}", get_version),
        Route("/api/bots/{name}/disqualify", disqualify, methods=["POST"]),
        Route("/api/bots/{name}/reinstate", reinstate, methods=["POST"]),
        Route("/api/tokens", tokens),
        Route("/api/tokens/{id}/revoke", revoke_token, methods=["POST"]),
        Route("/api/freeze", freeze, methods=["POST"]),
        Route("/api/schedules", create_schedule, methods=["POST"]),
        Route("/api/schedules/{name}", delete_schedule, methods=["DELETE"]),
        Route("/api/schedules/{name}/run", run_now, methods=["POST"]),
        Route("/api/tournaments", tournaments),
        Route("/api/ladder", ladder),
        Route("/api/ladder/blocks/{block:int}/resume", resume_block, methods=["POST"]),
        Route("/api/challenges", post_challenge, methods=["POST"]),
        Route("/api/challenges/{id:int}", get_challenge),
        Route("/api/challenges/{id:int}/resume", resume_challenge, methods=["POST"]),
        Route("/api/sessions", sessions),
        Route("/api/collusion", collusion),
        Route("/api/collusion/{name}", collusion),
        Route("/api/sessions/{id}/history", history),
    ]


def _verify_schedule_values(schedule: ScheduleConfig) -> None:
    for key, value, low, high in (("table_size", schedule.table_size, 2, 6),
                                  ("sessions_per_table", schedule.sessions_per_table, 1, 10_000),
                                  ("freeze_minutes", schedule.freeze_minutes, 0, 7 * 24 * 60)):
        if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
            raise HTTPException(422, f"{key}: must be an integer from {low} to {high}, not {value!r}")
    if schedule.top is not None and (not isinstance(schedule.top, int) or schedule.top < 2):
        raise HTTPException(422, f"top: must be an integer of at least 2, not {schedule.top!r}")


async def _json(request: Request) -> dict[str, Any]:
    try:
        body = json.loads(await read_body(request, 64 * 1024) or b"{}")
    except (BodyTooLargeError, ValueError):
        raise HTTPException(422, "send a JSON object of at most 64 KiB") from None
    if not isinstance(body, dict):
        raise HTTPException(422, "send a JSON object")
    return body
