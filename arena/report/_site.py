"""The report's site: where each page goes, the shared templates and the shared stylesheet.

Theory of operation: a report is a folder of static pages that open from `file://` with no
network. Every page is rendered from a Jinja2 template that extends `base.html`, and every link
is relative, computed from the page's own depth (`root` is "" for `index.html`, "../" for
`sessions/s0001.html`), so the folder can be moved, zipped or served as it is. Assets (one
stylesheet, and any script a page needs) are the package's own files, copied into `assets/`.

Where pages live (other modules and tests rely on it):

    index.html                the standings
    crosstable.html           the crosstable heatmap
    sessions.html             every session, linking to its replay
    sessions/<page>.html      one session's replay (`session_page`)
    bots/<page>.html          one bot's page (`bot_page`)
    assets/report.css         the one stylesheet

A name from the results (a bot's name, a session id) becomes a file name only through
`page_name`, which keeps safe names as they are and hashes the others, so no name from a
results folder can write outside the report or break a link.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path, PurePosixPath
from typing import Any

import jinja2

from ._formats import chips, chips_text, rating_text, when
from ._results import ReportError

ASSETS = "assets"
"""The report's folder of stylesheets and scripts."""
STYLESHEET = f"{ASSETS}/report.css"
"""The one stylesheet every page links to."""

_SAFE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,63}")


def page_name(name: str) -> str:
    """A file name (without `.html`) for a name from the results: the name itself when it is short and
    made of letters, digits, `_` and `-`; otherwise a readable part of it and a hash of the whole.

    >>> page_name("s0001"), page_name("strong-v2")
    ('s0001', 'strong-v2')
    >>> page_name("../etc/passwd")
    'etcpasswd-7fef78f53440'
    """
    if _SAFE.fullmatch(name):
        return name
    readable = re.sub(r"[^A-Za-z0-9_-]", "", name)[:40]
    digest = hashlib.sha256(name.encode("utf-8")).hexdigest()[:12]
    return f"{readable}-{digest}" if readable else digest


def session_page(session_id: str) -> str:
    """Where a session's replay page is, relative to the report's root."""
    return f"sessions/{page_name(session_id)}.html"


def bot_page(bot: str) -> str:
    """Where a bot's page is, relative to the report's root."""
    return f"bots/{page_name(bot)}.html"


@dataclass(frozen=True)
class NavLink:
    """An entry of the menu every page shows."""

    label: str
    page: str
    """Relative to the report's root."""


NAVIGATION: Sequence[NavLink] = (
    NavLink("Standings", "index.html"),
    NavLink("Crosstable", "crosstable.html"),
    NavLink("Sessions", "sessions.html"),
)
"""The menu on every page (a bot's page and a replay are reached from these)."""


def environment() -> jinja2.Environment:
    """The Jinja2 environment of the report's templates: HTML-escaped output, and an error for any
    name a template uses that the page did not give it (never a silent blank)."""
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("arena.report", "templates"),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    env.globals.update(session_page=session_page, bot_page=bot_page, navigation=NAVIGATION)
    env.filters.update(chips=chips, chips_text=chips_text, rating=rating_text, when=when)
    return env


class Site:
    """A report being written into one folder: renders pages and copies the shared assets."""

    def __init__(self, out: Path, *, title: str, context: Mapping[str, Any] | None = None) -> None:
        self.out = out
        """The report's root folder."""
        self.title = title
        """The tournament's name, shown on every page."""
        self.context = dict(context or {})
        """What every page's template is given besides its own context."""
        self.env = environment()
        self.written: list[str] = []
        """Pages and assets written so far, relative to `out`, in order."""

    def render(self, template: str, page: str, **context: Any) -> Path:
        """Render `template` into `page` (relative to the root, `/`-separated) and return its path.

        The template is given `root` (the relative path back to the report's root, "" or "../"),
        `page`, `site_title` and the site's common context, then `context`.
        """
        relative = PurePosixPath(page)
        if relative.is_absolute() or ".." in relative.parts:
            raise ValueError(f"a report page must stay inside the report, not {page!r}")
        root = "../" * (len(relative.parts) - 1)
        text = self.env.get_template(template).render(
            root=root, page=page, site_title=self.title, **{**self.context, **context})
        return self._write(page, text)

    def copy_assets(self, names: Sequence[str] = ("report.css",)) -> None:
        """Copy the package's assets named `names` into the report's `assets/` folder."""
        folder = resources.files("arena.report").joinpath(ASSETS)
        for name in names:
            self._write(f"{ASSETS}/{name}", folder.joinpath(name).read_text(encoding="utf-8"))

    def _write(self, page: str, text: str) -> Path:
        target = self.out.joinpath(*PurePosixPath(page).parts)
        # A report is rewritten whole from the results: plain writes, no fsync per page (a thousand
        # sessions' pages would spend seconds syncing what can always be made again).
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8")
        except OSError as error:
            raise ReportError(f"cannot write the report's page {target}: {error.strerror or error}") from None
        self.written.append(page)
        return target
