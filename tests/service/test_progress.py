"""The ladder's progress: `/` says how many sessions finished in the last hour and when the last one did, and
the ladder prints a line of it after its first session, then at most every `ladder.progress_minutes` (the
service's output said nothing of the ladder, the page only a total). Real bots play through the real ladder;
the store's clock is moved by hand."""

from __future__ import annotations

import random
import re
import time
from pathlib import Path

import httpx

from arena.service import Ladder, build_app
from arena.service._store import from_iso

from .test_views import _open


async def test_the_ladders_pace_on_the_leaderboard_and_in_the_output(tmp_path: Path) -> None:
    now = [time.time()]
    arena = _open(tmp_path / "data", "georgian", {}, 2, clock=lambda: now[0])
    store = arena.service.store
    lines: list[str] = []
    ladder = Ladder(arena.service, rng=random.Random(1), announce=lines.append)

    async def page() -> str:
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=build_app(arena.service)),
                                     base_url="http://arena") as client:
            text = (await client.get("/")).text
        return " ".join(re.sub(r"<[^>]+>", "", text.split('id="ladder-progress">', 1)[1].split("</p>", 1)[0])
                        .split())

    assert await page() == "No ladder session has finished yet."
    played = []
    for minutes in (0, 1, 2, 12, 13):  # a block's two sessions at each time
        now[0] += 60 * minutes - (played[-1][0] if played else 0)
        block = ladder.next_block()
        assert block is not None
        for session in block:
            await ladder.play(session)
        played.append((60 * minutes, len(lines)))
    # A line after the first session, then none until ten minutes had passed.
    assert [count for _, count in played] == [1, 1, 1, 2, 2], lines
    sessions = store.ladder_sessions()
    seventh, last = sessions[6].finished_at, sessions[-1].finished_at  # the second line came after the 7th
    assert seventh is not None and last is not None
    assert lines[-1] == (f"seka-arena serve: ladder: 7 sessions in the last hour, 7 in all; the last finished at "
                         f"{time.strftime('%Y-%m-%d %H:%M:%S UTC', time.gmtime(from_iso(seventh)))}")
    minute = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(from_iso(last)))
    assert await page() == f"The ladder's pace: 10 sessions finished in the last hour; the last finished {minute}."
    now[0] += 3600 - 30  # all but the last block (at 13 minutes) fall out of the last hour
    assert await page() == f"The ladder's pace: 2 sessions finished in the last hour; the last finished {minute}."
    arena.service.store.close()
