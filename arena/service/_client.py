"""`seka-arena submit`: pack a bot's folder as a tar.gz and send it through the service's HTTP API."""

from __future__ import annotations

import io
import os
import tarfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx

from ..engine import ArenaError
from ._archive import MANIFEST

_SKIPPED = frozenset({".git", "__pycache__", ".venv", ".mypy_cache", ".pytest_cache"})
_POLL = 0.5
TOKEN_ENV = "SEKA_ARENA_TOKEN"
"""The environment variable `submit` reads the author's token from (a command line is visible to every
user of the machine, so the token is never one of its words)."""


class SubmitError(ArenaError):
    """The server refused the submission, or could not be reached; the message says what it said."""


def read_token(token_file: Path | None) -> str:
    """The author's token: the first line of `token_file`, else the environment variable SEKA_ARENA_TOKEN.

    Raises:
        SubmitError: the file cannot be read or is empty, or neither is given.
    """
    if token_file is not None:
        try:
            lines = token_file.read_text(encoding="utf-8").strip().splitlines()
        except (OSError, UnicodeDecodeError) as error:
            raise SubmitError(f"cannot read the token file {token_file}: {error}") from None
        if not lines or not lines[0].strip():
            raise SubmitError(f"the token file {token_file} is empty")
        return lines[0].strip()
    token = os.environ.get(TOKEN_ENV, "").strip()
    if not token:
        raise SubmitError(f"no token: set the environment variable {TOKEN_ENV}, or name a file holding it with "
                          "--token-file")
    return token


def pack_folder(folder: Path) -> bytes:
    """The folder as a tar.gz with its files at the root (version control and caches left out).

    Raises:
        SubmitError: not a folder, or no bot.yaml in it.
    """
    if not folder.is_dir():
        raise SubmitError(f"{folder} is not a folder")
    if not (folder / MANIFEST).is_file():
        raise SubmitError(f"{folder} has no {MANIFEST}: it must name the bot's command (`command: python3 bot.py`)")
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        for root, folders, files in os.walk(folder):
            folders[:] = sorted(name for name in folders if name not in _SKIPPED)
            for name in sorted(files):
                path = Path(root) / name
                archive.add(path, arcname=str(path.relative_to(folder)), recursive=False)
            for name in folders:
                path = Path(root) / name
                if path.is_symlink():
                    archive.add(path, arcname=str(path.relative_to(folder)), recursive=False)
    return buffer.getvalue()


def submit_folder(server: str, token: str, name: str, folder: Path, *, wait: float = 120.0,
                  on_status: Callable[[str], None] = lambda status: None) -> dict[str, Any]:
    """Submit a folder as a new version of bot `name`, then wait up to `wait` seconds for its check.

    Returns:
        The version as the API shows it to its author (status, check report, stderr).

    Raises:
        SubmitError: the server refused it (with its status and message) or could not be reached.
    """
    data = pack_folder(folder)
    headers = {"Authorization": f"Bearer {token}"}
    base = server.rstrip("/")
    try:
        with httpx.Client(timeout=60.0) as client:
            response = client.post(f"{base}/api/bots/{name}/versions", headers=headers,
                                   files={"archive": (f"{name}.tar.gz", data, "application/gzip")})
            version = _answer(response)
            on_status(f"submitted {name} v{version['id']} ({len(data)} bytes, sha256 {version['sha256'][:12]}): "
                      f"{version['status']}")
            deadline = time.monotonic() + wait
            while version["status"] == "pending" and time.monotonic() < deadline:
                time.sleep(_POLL)
                version = _answer(client.get(f"{base}/api/bots/{name}/versions/{version['id']}", headers=headers))
    except httpx.HTTPError as error:
        raise SubmitError(f"cannot reach {server}: {error}") from None
    return version


def _answer(response: httpx.Response) -> dict[str, Any]:
    try:
        body = response.json()
    except ValueError:
        body = {"error": response.text[:500]}
    if response.status_code >= 400:
        raise SubmitError(f"the server answered {response.status_code}: {body.get('error', body)}")
    if not isinstance(body, dict):
        raise SubmitError(f"the server answered {body!r}")
    return body
