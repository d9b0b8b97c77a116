"""The report of a real tournament, read as files: the standings page shows standings.json's numbers,
pages are well formed, nothing reaches the network, every link resolves, and hostile input is refused."""

from __future__ import annotations

import json
import shutil
from html.parser import HTMLParser
from pathlib import Path

import pytest

from arena.cli import main
from arena.report import ReportError, Site, bot_page, parse_standings, write_report

from ._site_check import check_site


class _StandingsRows(HTMLParser):
    """The standings table's rows as shown: {bot: {field: text}}, from tr[data-bot] and [data-field]."""

    def __init__(self) -> None:
        super().__init__()
        self.rows: dict[str, dict[str, str]] = {}
        self.bot: str | None = None
        self.fields: list[tuple[str, int]] = []
        self.depth = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        self.depth += 1
        if tag == "tr" and values.get("data-bot"):
            self.bot = values["data-bot"]
            self.rows[self.bot] = {}
        if self.bot is not None and values.get("data-field"):
            field = str(values["data-field"])
            self.rows[self.bot][field] = ""
            self.fields.append((field, self.depth))

    def handle_endtag(self, tag: str) -> None:
        if self.fields and self.fields[-1][1] == self.depth:
            self.fields.pop()
        self.depth -= 1
        if tag == "tr":
            self.bot = None

    def handle_data(self, data: str) -> None:
        if self.bot is not None:
            for field, _ in self.fields:
                self.rows[self.bot][field] += data


def _shown_standings(index: Path) -> dict[str, dict[str, str]]:
    parser = _StandingsRows()
    parser.feed(index.read_text(encoding="utf-8"))
    return parser.rows


def test_run_writes_the_report_and_says_how_to_open_it(played: tuple[Path, str]) -> None:
    results, output = played
    index = results / "report" / "index.html"
    assert index.is_file()
    assert f"open {index.resolve().as_uri()} in a browser" in output.replace("\n", "")


def test_the_standings_page_shows_the_numbers_of_standings_json(played: tuple[Path, str]) -> None:
    results, _ = played
    document = json.loads((results / "standings.json").read_text())
    shown = _shown_standings(results / "report" / "index.html")
    assert list(shown) == [row["name"] for row in document["standings"]]
    for position, row in enumerate(document["standings"], 1):
        cells = shown[row["name"]]
        assert int(cells["position"]) == position
        assert cells["name"].strip() == row["name"]
        for name in ("rating", "ci_low", "ci_high"):
            assert float(cells[name]) == row[name], name
        for name in ("rank_low", "rank_high", "sessions", "wins"):
            assert int(cells[name]) == row[name], name
        for name, exact in (("chip_rate", "chip_rate_float"), ("chip_ci_low", "chip_ci_low"),
                            ("chip_ci_high", "chip_ci_high")):
            assert float(cells[name]) == pytest.approx(row[exact], abs=0.005), name
        assert int(cells["fault_count"]) == row["faults"]
        for kind, count in row["fault_kinds"].items():
            assert f"{kind} {count}" in cells["faults"]
    assert any(row["faults"] for row in document["standings"]), "the illegal bot's faults must show"
    page = (results / "report" / "index.html").read_text()
    assert document["seed_commitment"] in page
    assert document["secret"] and f"printf %s {document['secret']} | sha256sum" in page


def test_the_site_is_well_formed_offline_and_every_link_resolves(played: tuple[Path, str]) -> None:
    results, _ = played
    assert check_site(results / "report") == []


def test_the_site_checker_finds_a_broken_page(played: tuple[Path, str], tmp_path: Path) -> None:
    results, _ = played
    copy = tmp_path / "report"
    shutil.copytree(results / "report", copy)
    index = copy / "index.html"
    index.write_text(index.read_text().replace('href="assets/report.css"', 'href="https://cdn.example/x.css"')
                     .replace("</table>", "", 1).replace('href="index.html"', 'href="nowhere.html"', 1))
    problems = "\n".join(check_site(copy))
    assert "external URL" in problems and "no such file" in problems and "closes" in problems, problems


def test_report_writes_elsewhere_with_out_and_changes_nothing_in_the_results(
        played: tuple[Path, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    results, _ = played
    before = {path: path.read_bytes() for path in results.rglob("*") if path.is_file()}
    assert main(["report", str(results), "--out", str(tmp_path / "site")]) == 0
    assert (tmp_path / "site" / "index.html").is_file()
    assert f"Report: {tmp_path / 'site'}/" in capsys.readouterr().out
    assert {path: path.read_bytes() for path in results.rglob("*") if path.is_file()} == before
    assert check_site(tmp_path / "site") == []


def test_a_stale_standings_file_is_recomputed_and_a_hostile_one_refused(
        played: tuple[Path, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    results, _ = played
    copy = tmp_path / "results"
    shutil.copytree(results, copy)
    document = json.loads((copy / "standings.json").read_text())
    document["sessions"] -= 1
    (copy / "standings.json").write_text(json.dumps(document))
    index = write_report(copy, out=tmp_path / "stale")
    assert "computed from tournament.sqlite (standings.json older than the results file)" in index.read_text()
    document["sessions"] += 1
    document["standings"][1]["rating"] = "<script>alert(1)</script>"
    (copy / "standings.json").write_text(json.dumps(document))
    with pytest.raises(ReportError, match=r"standings\.json: standings\[1\]\.rating: expected a number"):
        write_report(copy, out=tmp_path / "hostile")
    assert main(["report", str(copy)]) == 1
    assert "standings[1].rating: expected a number" in capsys.readouterr().err


def test_names_from_the_results_are_escaped_and_never_leave_the_report(tmp_path: Path) -> None:
    with pytest.raises(ReportError, match="standings.json: no field 'standings'"):
        parse_standings({}, "standings.json")
    site = Site(tmp_path / "site", title="<b>t</b>")
    page = site.render("base.html", bot_page("../../evil"))
    assert page.parent == tmp_path / "site" / "bots" and "<b>t</b>" not in page.read_text()
    with pytest.raises(ValueError, match="stay inside"):
        site.render("base.html", "../outside.html")
