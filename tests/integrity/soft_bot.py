"""A test bot that soft-plays a partner: the sample threshold bot, except that it folds a strong hand
whenever its partner (`--partner NAME`) is still in the deal.

    SEKA_BOT_ADDRESS=unix:/tmp/soft.sock python tests/integrity/soft_bot.py --partner friend
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "sample_bots"))

from threshold_bot import ThresholdBot  # noqa: E402

from arena.sdk import Action, Fold, Turn, run  # noqa: E402


class SoftBot(ThresholdBot):
    name = "soft"

    def __init__(self, partner: str) -> None:
        super().__init__()
        self.partner = partner

    def act(self, turn: Turn) -> Action:
        partner_in = any(turn.bots[seat] == self.partner for seat in turn.in_deal)
        if partner_in and not turn.cards_unseen and turn.hand_value().strength >= self.medium:
            return Fold()
        return super().act(turn)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--partner", required=True, help="the bot it helps")
    parser.add_argument("--address", help="where to listen (default: $SEKA_BOT_ADDRESS)")
    args = parser.parse_args()
    run(SoftBot(args.partner), address=args.address)


if __name__ == "__main__":
    main()
