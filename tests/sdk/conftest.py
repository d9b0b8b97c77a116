"""The SDK suite: `bots/` holds bot programs, not tests."""

collect_ignore = ["bots"]
