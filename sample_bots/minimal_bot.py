"""A complete Seka bot: pays with a good hand (21 or more), shows or opens with it, else gives up."""

from arena.sdk import Bot, Fold, Turn, run


class MinimalBot(Bot):
    name = "minimal"
    version = "1.0"

    def act(self, turn: Turn):
        if turn.cards_unseen:
            return turn.stay_in()  # dealt in dark: look at the cards
        if turn.hand_value().strength >= 21:  # a total of 21 or more, two aces, or any seka
            return turn.compare() or turn.stay_in()  # show, open or call when it may
        if turn.previous_bet is None:
            return turn.stay_in()  # the opening stake is cheap: stay in
        return Fold()


if __name__ == "__main__":
    run(MinimalBot())  # listens on $SEKA_BOT_ADDRESS or --address ADDR
