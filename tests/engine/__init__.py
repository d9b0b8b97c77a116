"""Tests of the pure Seka engine (arena/engine), one file per module plus rule-level suites."""
