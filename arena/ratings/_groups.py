"""The connected groups of the comparison graph: bots linked, directly or through others, by a shared table."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from ._outcome import SessionOutcome


def connected_groups(bots: Sequence[str], links: Iterable[tuple[int, int]]) -> list[tuple[str, ...]]:
    """Split `bots` into the groups that `links` (pairs of indices into `bots`) join.

    Each group is in name order; the groups come largest first, ties by their first name, so the
    same data always gives the same groups in the same order.
    """
    parent = list(range(len(bots)))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for i, j in links:
        parent[root(i)] = root(j)
    groups: dict[int, list[str]] = {}
    for i, bot in enumerate(bots):
        groups.setdefault(root(i), []).append(bot)
    return sorted((tuple(sorted(group)) for group in groups.values()), key=lambda group: (-len(group), group))


def comparison_groups(outcomes: Iterable[SessionOutcome]) -> list[tuple[str, ...]]:
    """The groups of bots that never shared a table with one another, directly or through others.

    Ratings are comparable only within a group (docs/ratings.md): to rate split data, rate each
    group's sessions on their own (every session lies in exactly one group). Each group is in name
    order; the groups come largest first, ties by their first name. No sessions, no groups.

    >>> sessions = [SessionOutcome(("c", "d"), (1, -1), "s1"), SessionOutcome(("a", "b"), (1, -1), "s2"),
    ...             SessionOutcome(("e", "b"), (-1, 1), "s3")]
    >>> comparison_groups(sessions)
    [('a', 'b', 'e'), ('c', 'd')]
    >>> [[o.block for o in sessions if o.bots[0] in group] for group in comparison_groups(sessions)]
    [['s2', 's3'], ['s1']]
    """
    outcomes = list(outcomes)
    bots = sorted({bot for outcome in outcomes for bot in outcome.bots})
    index = {bot: i for i, bot in enumerate(bots)}
    links = ((index[outcome.bots[0]], index[other]) for outcome in outcomes for other in outcome.bots[1:])
    return connected_groups(bots, links)
