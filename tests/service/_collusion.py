"""What the collusion reports' tests on a real `seka-arena serve` share: the service file, bots accepted
beforehand, and the organisers' guard."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx

from arena.engine import profile
from arena.isolation import Isolation
from arena.service import Author, ServiceConfig, open_service

from ._server import bearer

_CONFIG = """\
data: data
isolation: none
profile: %(profile)s
table: {pots: %(pots)d%(options)s}
ladder: {enabled: %(ladder)s, placement_blocks: 1, random_share: 0.0}
tournaments:
  - {name: cup, cron: "0 2 29 2 *", table_size: 2}
"""


def accepted(data: Path, bots: dict[str, tuple[str, bytes]]) -> None:
    """`bots` (name: author, archive) accepted in the data folder `data` beforehand (the check is not under test)."""
    service = open_service(ServiceConfig(data=data, isolation=Isolation.NONE, rules=profile("georgian")))
    for name, (author, archive) in bots.items():
        version = service.registry.submit(Author(author, organiser=False), name, archive)
        service.store.finish_check(version.id, accepted=True, report="not checked: a collusion page test", stderr="")
    service.store.close()


def cookie(value: str) -> dict[str, str]:
    """The sign-in cookie of token `value`."""
    return {"Cookie": f"seka_token={value}"}


def ready(client: httpx.Client, path: str, organiser: str, *, current: bool = True) -> dict[str, Any] | None:
    """The report once made (and, when `current`, as of its source's state now: the ladder's goes on)."""
    answer = client.get(path, headers=bearer(organiser))
    assert answer.status_code == 200, answer.text
    document: dict[str, Any] = answer.json()
    return document if document["state"] != "being made" and (document["current"] or not current) else None


def refused_to_others(client: httpx.Client, paths: list[str], author: str) -> None:
    """The collusion pages `paths`, and their API, refused to a visitor and to `author`'s token."""
    for path in paths:
        api = path.replace("/organiser/collusion", "/api/collusion")
        assert client.get(api).status_code == 401, api
        assert client.get(api, headers=bearer(author)).status_code == 403, api
        visitor = client.get(path)
        assert visitor.status_code == 303 and visitor.headers["location"] == "/login", path
        assert client.get(path, headers=cookie(author)).status_code == 403, path


def service_file(path: Path, name: str, options: dict[str, str], *, pots: int, ladder: bool, cup: str) -> Path:
    """A service file at `path` (data folder `data` beside it) of profile `name` with table `options`, its
    ladder on or off, and one schedule `cup` (firing only at 02:00 on 29 February, never while a test runs:
    an organiser fires it)."""
    extra = "".join(f", {key}: {value}" for key, value in options.items())
    path.write_text((_CONFIG % {"profile": name, "pots": pots, "options": extra, "ladder": str(ladder).lower()}
                     ).replace("name: cup,", f"name: {cup},"))
    return path
