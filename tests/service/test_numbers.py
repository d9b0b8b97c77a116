"""One way to write each number and each time: a scheduled tournament's page on the service and its published
report show every rating with one decimal and every chip rate as the same signed decimal with the exact amount
in its tooltip (the page showed raw fractions such as 463/48 and ratings unrounded), on every profile; times
read to the minute in UTC with the ISO text in the tooltip (they were raw ISO text)."""

from __future__ import annotations

import json
import re
import time
from fractions import Fraction
from pathlib import Path

import pytest

from arena.engine import format_amount
from arena.report import chips_text, rating_text
from arena.service import ScheduleConfig, Scheduler, fire_now

from ..report._site_check import Node, parse
from .test_views import _PROFILES, _client, _open


def _rows(html: str, folder: Path) -> dict[str, Node]:
    page = folder / "page.html"
    page.write_text(html, encoding="utf-8")
    return {row.attrs["data-bot"]: row for row in parse(page).find_all("tr", data_bot=None)}


@pytest.mark.parametrize(("name", "options", "table_size"), _PROFILES, ids=[name for name, _, _ in _PROFILES])
async def test_a_tournaments_page_and_its_report_write_numbers_alike(tmp_path: Path, name: str,
                                                                      options: dict[str, str],
                                                                      table_size: int) -> None:
    later = [0.0]
    arena = _open(tmp_path / "data", name, options, table_size, (ScheduleConfig("cup", "0 2 * * *",
                                                                               table_size=table_size),),
                  clock=lambda: time.time() + later[0])
    scheduler = Scheduler(arena.service)
    later[0] = 120.0  # a minute after the schedule was made: it may fire
    run = fire_now(arena.service.store, "cup")
    assert run is not None
    await scheduler.play(run)
    assert arena.service.store.run(run.id).status == "finished"
    async with _client(arena, None) as client:
        page = (await client.get(f"/tournaments/{run.name}")).text
        report = (await client.get(f"/tournaments/{run.name}/report/index.html")).text
    results = arena.service.config.data / "tournaments" / run.name / "results" / run.name
    standings = json.loads((results / "standings.json").read_text())["standings"]
    shown, published = _rows(page, tmp_path), _rows(report, tmp_path)
    assert set(shown) == set(published) == {row["name"] for row in standings}
    for row in standings:
        exact = Fraction(row["chip_rate"])
        for cells in (shown[row["name"]], published[row["name"]]):
            assert [cells.find(data_field=field).text.strip() for field in ("rating", "ci_low", "ci_high")] == [
                rating_text(row[field]) for field in ("rating", "ci_low", "ci_high")]
            rate = cells.find(data_field="chip_rate").find("span")
            assert (rate.text, rate.attrs["title"]) == (chips_text(exact), f"exactly {format_amount(exact)}")
    # Times: when the run was due and finished, and when each session of its report finished.
    readable = r'<time datetime="([^"]+)" title="\1">\d{4}-\d\d-\d\d \d\d:\d\d UTC</time>'
    assert re.search(rf"due {readable}", page)
    async with _client(arena, None) as client:
        listing = (await client.get("/tournaments")).text
        sessions = (await client.get(f"/tournaments/{run.name}/report/sessions.html")).text
    assert re.search(rf'<a href="/tournaments/{run.name}">{run.name}</a></td><td>finished</td><td>{readable}</td>',
                     listing)
    assert len(re.findall(readable, sessions)) == len(list((results / "histories").glob("*.jsonl"))) > 0
    arena.service.store.close()


def test_every_template_writes_its_times_readably() -> None:
    """A stored time (a field named `..._at`, a period's start or end, a schedule's next firing) reaches a page
    only through `when`."""
    root = Path(__file__).resolve().parents[2] / "arena"
    raw = []
    for template in [*(root / "service" / "templates").glob("*.html"), *(root / "report" / "templates").glob("*.html")]:
        for expression in re.findall(r"{{(.*?)}}", template.read_text(encoding="utf-8"), flags=re.S):
            if re.search(r"_at\b|secret\.(start|end)\b|due\[", expression) and "when" not in expression:
                raw.append(f"{template.name}: {{{{{expression}}}}}")
    assert raw == []
