"""The electronic GRYB die: a colour die (G/R/Y/B) and GRYB Dice II (a random node).

Fair by default: faces come from the operating system's random source. Give a seed for replays and
tests. The engine never rolls: it lists the faces a roll may show (``game.roll_faces()``), the die
picks one, and the roll is applied as an action of the record.
"""

from __future__ import annotations

import random

from . import node as nd
from .action import Action
from .node import COLOURS, Node


class Die:
    def __init__(self, seed: int | None = None):
        self.seed = seed
        self._rng: random.Random = random.SystemRandom() if seed is None else random.Random(seed)

    def colour(self) -> str:
        return COLOURS[self._rng.randrange(4)]

    def node(self, level: int | None = None, depth: int = nd.STANDARD_DEPTH) -> Node:
        """A node of ``level`` (GRYB Dice II picks a bottom-level node), or of the whole board when None."""
        if level is None:
            return self._rng.randrange(nd.count(depth))
        if not 0 <= level <= depth:
            raise ValueError(f"level must be from 0 to {depth}, not {level}")
        return nd.first_of_level(level) + self._rng.randrange(4**level)

    def roll(self, game) -> Action:
        """Roll for a game waiting on the die: one of its faces, each equally likely."""
        faces = game.roll_faces()
        if not faces:
            raise ValueError("the die has no face to show: no node is free")
        return faces[self._rng.randrange(len(faces))]
