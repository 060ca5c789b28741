"""Who sits where: by seat, the player there (0 is player 1). Seat 0 moves first; the start moves round."""

from __future__ import annotations

from typing import Any

from companion.ai import LEVELS

HUMAN = "human"
SEATS = (HUMAN, *LEVELS)


def seating(value: Any, players: int) -> list[int]:
    """A stored seating, or the players in order where it is missing or broken."""
    if (
        isinstance(value, list)
        and all(type(v) is int for v in value)
        and sorted(value) == list(range(players))
    ):
        return value
    return list(range(players))


def next_along(order: list[int]) -> list[int]:
    """The next game's seating: the next player along begins."""
    return order[1:] + order[:1]


def by_player(per_seat: list, order: list[int]) -> list:
    """A list by seat (names, scores, computer levels) in the players' order."""
    per_player = list(per_seat)
    for seat, player in enumerate(order):
        per_player[player] = per_seat[seat]
    return per_player


def by_seat(per_player: list, order: list[int]) -> list:
    """A list by player (names, colours) in the seats' order."""
    return [per_player[p] for p in order]
