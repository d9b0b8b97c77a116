"""A bot that always calls: it pays the least allowed amount every turn and never folds or shows.

"Calling" in Seka means paying the previous bet again (or the opening stake when nobody has paid
yet in the deal); in the stake profiles, supporting the current stake. Dealt in dark, it looks
first. This bot never raises, never shows, and accepts every svara offer, so it stays in every
deal until the others fold, someone shows against it, or the arena's action cap makes everyone
still in reveal. It is the "calling station" that punishes bluffing bots.

    SEKA_BOT_ADDRESS=127.0.0.1:50051 python sample_bots/call_bot.py
"""

from __future__ import annotations

from arena.sdk import Action, Bot, SvaraOffer, Turn, run


class CallBot(Bot):
    name = "call"
    version = "1.0"

    def act(self, turn: Turn) -> Action:
        return turn.stay_in()

    def svara(self, offer: SvaraOffer) -> bool:
        return True


if __name__ == "__main__":
    run(CallBot())
