"""Writing a tournament's report: every page of the site from one results folder."""

from __future__ import annotations

import shlex
from pathlib import Path

from ._replays import tournament_sessions, write_replays
from ._results import Results, load_results
from ._site import Site, bot_page


def write_report(folder: Path, *, out: Path | None = None) -> Path:
    """Write the report of a results folder and return its front page (the standings).

    Args:
        folder: `results/NAME` (or its tournament.sqlite); only read.
        out: the report's folder (default: `report/` inside the results folder).

    Raises:
        ReportError: the folder holds no results to report.
        StorageError: its results file cannot be read.
    """
    results = load_results(folder)
    site = Site(out if out is not None else results.folder / "report", title=results.tournament.name)
    site.copy_assets()
    write_replays(site, tournament_sessions(results.folder, results.sessions))
    return _standings_page(site, results)


def _standings_page(site: Site, results: Results) -> Path:
    standings = results.standings
    secret = standings.secret
    verify = None
    if secret is not None:
        verify = f"printf %s {shlex.quote(secret)} | sha256sum"
    return site.render("standings.html", "index.html", standings=standings, source=results.standings_source,
                       rows=[(row, bot_page(row.name)) for row in standings.rows], verify=verify,
                       audit=f"seka-arena replay --results {shlex.quote(str(results.folder))} "
                             f"--commitment {shlex.quote(standings.seed_commitment)}")
