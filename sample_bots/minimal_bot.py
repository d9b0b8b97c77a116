"""A complete Seka bot: pays with a good hand (21 or more), shows it heads-up, else gives up."""

from arena.sdk import Bet, Bot, Fold, Show, Turn, run


class MinimalBot(Bot):
    name = "minimal"
    version = "1.0"

    def act(self, turn: Turn):
        if turn.hand_value().strength >= 21:  # a total of 21 or more, two aces, or any seka
            return Show() if turn.can_show else Bet(turn.min_bet)
        if turn.previous_bet is None:
            return Bet(turn.min_bet)  # the opening stake is cheap: stay in
        return Fold()


if __name__ == "__main__":
    run(MinimalBot())  # listens on $SEKA_BOT_ADDRESS or --address ADDR
