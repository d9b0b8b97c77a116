"""The report of a real tournament, read as files: the standings page shows standings.json's numbers,
pages are well formed, nothing reaches the network, every link resolves, and hostile input is refused."""

from __future__ import annotations

import csv
import html
import json
import shutil
import subprocess
from pathlib import Path

import pytest

from arena.cli import main
from arena.engine import format_amount
from arena.ratings import SessionOutcome, adjust, chip_rate, session_terms
from arena.replay import replay_file
from arena.report import ReportError, Site, bot_page, parse_standings, write_report
from arena.storage import Store

from ._site_check import Node, check_site, parse


def _cells(row: Node) -> dict[str, str]:
    return {cell.attrs["data-field"]: cell.text.strip() for cell in row.find_all(data_field=None)}


def test_run_writes_the_report_and_says_how_to_open_it(played: tuple[Path, str]) -> None:
    results, output = played
    index = results / "report" / "index.html"
    assert index.is_file()
    assert f"open {index.resolve().as_uri()} in a browser" in output.replace("\n", "")


def test_the_standings_page_shows_the_numbers_of_standings_json(played: tuple[Path, str]) -> None:
    results, _ = played
    document = json.loads((results / "standings.json").read_text())
    rows = parse(results / "report" / "index.html").find("table", id="standings").find_all("tr", data_bot=None)
    assert [row.attrs["data-bot"] for row in rows] == [row["name"] for row in document["standings"]]
    for position, (shown, row) in enumerate(zip(rows, document["standings"], strict=True), 1):
        cells = _cells(shown)
        assert shown.attrs["id"] == f"standing-{position}" and int(cells["position"]) == position
        assert cells["name"] == row["name"]
        for name in ("rating", "ci_low", "ci_high"):
            assert float(cells[name]) == row[name], name
        for name in ("rank_low", "rank_high", "sessions", "wins"):
            assert int(cells[name]) == row[name], name
        for name, exact in (("chip_rate", "chip_rate_float"), ("chip_ci_low", "chip_ci_low"),
                            ("chip_ci_high", "chip_ci_high")):
            assert float(cells[name]) == pytest.approx(row[exact], abs=0.005), name
            assert float(shown.find(data_field=name).attrs["data-value"]) == row[exact], name
        assert int(cells["fault_count"]) == row["faults"]
        for kind, count in row["fault_kinds"].items():
            assert f"{kind} {count}" in cells["faults"]
    assert any(row["faults"] for row in document["standings"]), "the illegal bot's faults must show"
    page = (results / "report" / "index.html").read_text()
    assert document["seed_commitment"] in page
    # The one-line check, run as printed, gives the commitment, which binds the value function shown beside it.
    assert document["secret"] and document["value_function"]["name"] in page
    check = html.unescape(page.split('id="verify-command">', 1)[1].split("</code>", 1)[0])
    assert document["value_function"]["sha256"] in check and document["secret"] in check
    printed = subprocess.run(["bash", "-c", check], capture_output=True, text=True, check=True).stdout
    assert printed.split()[0] == document["seed_commitment"]


def test_the_standings_page_shows_each_bots_adjusted_chip_rate_beside_the_raw_one(played: tuple[Path, str]) -> None:
    results, _ = played
    # What the ratings library gives from the histories, independently of the report.
    with Store.open(results / "tournament.sqlite", read_only=True) as store:
        records = [record for record in store.sessions() if record.history_path is not None]
    sessions = []
    for record in records:
        state = replay_file(results / record.history_path).state
        sessions.append((SessionOutcome(state.bots, tuple(state.balances), record.block),
                         session_terms(state.rules, state.events)))
    expected = chip_rate(adjust(sessions), resamples=1000, rng_seed=0)
    rows = parse(results / "report" / "index.html").find("table", id="standings").find_all("tr", data_bot=None)
    assert len(rows) == len(expected) == 3
    for shown in rows:
        stats = expected[shown.attrs["data-bot"]]
        cells = {name: shown.find(data_field=name) for name in
                 ("chip_rate", "adjusted_chip_rate", "adjusted_chip_ci_low", "adjusted_chip_ci_high")}
        assert cells["adjusted_chip_rate"].find("span").attrs["title"] == f"exactly {format_amount(stats.chip_rate)}"
        assert float(cells["adjusted_chip_rate"].attrs["data-value"]) == float(stats.chip_rate)
        assert float(cells["adjusted_chip_ci_low"].attrs["data-value"]) == stats.ci_low
        assert float(cells["adjusted_chip_ci_high"].attrs["data-value"]) == stats.ci_high
        assert cells["chip_rate"] is not None  # the raw chip rate stays, beside it
    # Adjusted balances still sum to zero at every table, so the chip rates weighted by sessions do too.
    assert sum(stats.chip_rate * stats.sessions for stats in expected.values()) == 0


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


def test_the_crosstable_heatmap_shows_crosstable_csv(played: tuple[Path, str]) -> None:
    results, _ = played
    with open(results / "crosstable.csv", newline="") as file:
        header, *lines = list(csv.reader(file))
    table = parse(results / "report" / "crosstable.html").find("table", id="crosstable")
    shown = {}
    for row in table.find_all("tr", data_bot=None):
        for cell in row.find_all("td", data_opponent=None):
            value = f"{cell.attrs['data-score']}/{cell.attrs['data-sessions']}" if "data-score" in cell.attrs else ""
            shown[(row.attrs["data-bot"], cell.attrs["data-opponent"])] = value
            assert not value or cell.text.startswith(value) and "background-color: #" in cell.attrs["style"]
            said = f"{row.attrs['data-bot']} against {cell.attrs['data-opponent']}: finished above "
            assert not value or cell.find("span", class_="visually-hidden").text.startswith(
                f"{said}{cell.attrs['data-score']} of {cell.attrs['data-sessions']} sessions")
    assert shown == {(line[0], opponent): cell for line in lines for opponent, cell in zip(header[1:], line[1:],
                                                                                         strict=True)}
    # A legend says what the colours mean: red for a lost share, white even, green a won share.
    legend = parse(results / "report" / "crosstable.html").find("ul", id="heat-legend").find_all("li")
    assert [(item.find("span", class_="swatch").attrs["style"], item.text.strip()) for item in legend][::2] == [
        ("background-color: #f4a3a3", "lost every session"), ("background-color: #ffffff", "even"),
        ("background-color: #9fdcae", "won every one")]


def test_the_sessions_list_shows_every_stored_session_and_result(played: tuple[Path, str]) -> None:
    results, _ = played
    with Store.open(results / "tournament.sqlite", read_only=True) as store:
        records = store.sessions()
    rows = parse(results / "report" / "sessions.html").find("table", id="sessions").find_all("tr", data_session=None)
    assert [row.attrs["data-session"] for row in rows] == [record.id for record in records]
    for row, record in zip(rows, records, strict=True):
        assert record.balances is not None
        seats = row.find_all("span", data_bot=None)
        assert [(seat.attrs["data-bot"], seat.attrs["data-balance"]) for seat in seats] == [
            (bot, format_amount(record.balances[bot])) for bot in record.table]
        winners = [seat.attrs["data-bot"] for seat in seats if seat.find_all("strong")]
        assert winners == list(record.winners or ())


def test_a_bot_page_shows_its_faults_with_reasons_results_and_decision_times(played: tuple[Path, str]) -> None:
    results, _ = played
    document = json.loads((results / "standings.json").read_text())
    row = next(row for row in document["standings"] if row["name"] == "illegal")
    page = parse(results / "report" / "bots" / "illegal.html")
    reasons = page.find("table", id="fault-reasons").find_all("tr", data_kind=None)
    assert [(reason.attrs["data-kind"], int(reason.find_all("td")[2].text)) for reason in reasons] == [
        (reason["kind"], reason["count"]) for reason in row["fault_reasons"]]
    assert sum(int(reason.find_all("td")[2].text) for reason in reasons) == row["faults"] > 0
    assert all(reason["reason"] in page.text for reason in row["fault_reasons"])
    with open(results / "crosstable.csv", newline="") as file:
        header, *lines = list(csv.reader(file))
    expected = {line[0]: dict(zip(header[1:], line[1:], strict=True)) for line in lines}["illegal"]
    for opponent in page.find("table", id="by-opponent").find_all("tr", data_opponent=None):
        score, sessions = (cell.text for cell in opponent.find_all("td")[:2])
        assert f"{score}/{sessions}" == expected[opponent.attrs["data-opponent"]]
    with Store.open(results / "tournament.sqlite", read_only=True) as store:
        played_by = [record for record in store.finished_results() if "illegal" in record.table]
    seats = page.find("table", id="by-seat").find_all("tr", data_seat=None)
    assert sum(int(seat.find_all("td")[0].text) for seat in seats) == len(played_by) == row["sessions"]
    decisions = sum(record.telemetry["illegal"]["decisions"] for record in played_by)
    summary = {line.find("th").text: line.find("td").text for line in page.find("table", id="latency-summary")
               .find_all("tr")}
    assert summary["decisions"] == str(decisions)
    bins = page.find("table", id="latency-bins").find_all("tr")[1:]
    assert sum(int(line.find_all("td")[1].text) for line in bins) == int(summary["sessions with a decision"]) > 0
    listed = page.find("table", id="bot-session-list").find_all("tr", data_session=None)
    assert [line.attrs["data-session"] for line in listed] == [record.id for record in played_by]
    for line, record in zip(listed, played_by, strict=True):
        seat = record.table.index("illegal")
        links = [link.attrs["href"] for link in line.find_all("a")]
        assert links == [f"../sessions/{record.id}.html", f"../sessions/{record.id}.seat{seat}.html"]
    chart = page.find("svg", id="latency-chart")
    assert chart.attrs["role"] == "img" and chart.find("title", id="latency-chart-title").text


def test_the_rating_chart_ends_at_the_standings_ratings(played: tuple[Path, str]) -> None:
    results, _ = played
    document = json.loads((results / "standings.json").read_text())
    page = parse(results / "report" / "index.html")
    table = page.find("table", id="progress-table")
    names = [cell.text for cell in table.find("thead").find_all("th")[1:]]
    last = table.find("tbody").find_all("tr")[-1]
    assert int(last.find("th").text) == document["sessions"]
    ratings = dict(zip(names, (float(cell.text) for cell in last.find_all("td")), strict=True))
    assert ratings == {row["name"]: row["rating"] for row in document["standings"]}
    lines = page.find("svg", id="rating-progress").find_all("g", data_series=None)
    assert [line.attrs["data-series"] for line in lines] == names
    intervals = page.find("svg", id="rating-intervals")
    assert intervals.attrs["aria-labelledby"] == "rating-intervals-title rating-intervals-desc"
    legend = intervals.find("g", class_="legend")  # what the dot, the bar and the dashed line are
    assert [text.text for text in legend.find_all("text")] == ["rating", "95% interval", "average, 1500"]


def test_run_with_no_report_writes_none(played: tuple[Path, str], tmp_path: Path,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    results, _ = played
    out = tmp_path / "out"
    shutil.copytree(results.parents[1], out)
    shutil.rmtree(out / "results" / "reported" / "report")
    tournament = results.parents[2] / "reported.yaml"
    assert main(["run", str(tournament), "--out", str(out), "--no-report"]) == 0  # finished: plays nothing
    assert not (out / "results" / "reported" / "report").exists() and "Report:" not in capsys.readouterr().out
    assert main(["run", str(tournament), "--out", str(out)]) == 0
    assert (out / "results" / "reported" / "report" / "index.html").is_file()


def test_a_report_that_cannot_be_written_is_a_warning_of_run_not_a_failure(
        played: tuple[Path, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    results, _ = played
    out = tmp_path / "out"
    shutil.copytree(results.parents[1], out)
    report = out / "results" / "reported" / "report"
    shutil.rmtree(report)
    report.write_text("a file where the report's folder goes")
    assert main(["run", str(results.parents[2] / "reported.yaml"), "--out", str(out)]) == 0
    printed = capsys.readouterr().out.replace("\n", "")
    assert "Warning: the report was not written: cannot write the report's page" in printed
    assert f"write it with: seka-arena report {out / 'results' / 'reported'}" in printed


@pytest.mark.parametrize("audience", ["public", "public-hands"])
def test_a_public_copy_shows_no_log_no_fault_reason_and_as_a_spectator_no_unshown_hand(
        played: tuple[Path, str], tmp_path: Path, audience: str) -> None:
    results, _ = played
    site = tmp_path / "site"
    assert main(["report", str(results), "--out", str(site), "--audience", audience]) == 0
    assert check_site(site) == []
    files = {path.relative_to(site).as_posix(): path.read_text() for path in site.rglob("*") if path.is_file()}
    assert not any(".seat" in name or name.startswith("logs/") for name in files)
    text = "\n".join(files.values())
    with Store.open(results / "tournament.sqlite", read_only=True) as store:
        reasons = [reason.reason for items in store.fault_reasons().values() for reason in items]
    assert reasons and not any(reason in text for reason in reasons) and "not shown in a public report" in text
    hidden = shown = 0
    for history in sorted((results / "histories").glob("*.jsonl")):
        records = [json.loads(line) for line in history.read_text().splitlines()]
        turned = {tuple(cards) for record in records if record["event"] in ("showdown", "reveal")
                  for cards in record["hands"].values()}
        page = files[f"sessions/{history.stem}.html"]
        for record in records:
            for cards in record["hands"].values() if record["event"] == "deal" else ():
                if tuple(cards) not in turned:
                    hidden += 1
                    shown += json.dumps(cards, separators=(",", ":")) in page
        assert (records[0]["seed"] in page) == (audience == "public-hands")
    assert hidden and shown == (hidden if audience == "public-hands" else 0)
