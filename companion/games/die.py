"""The electronic die: one of ``game.roll_faces()``, from the system's random source unless seeded."""

from __future__ import annotations

import random

from companion.rules.action import Action


class Die:
    def __init__(self, seed: int | None = None):
        self.seed = seed
        self._rng: random.Random = random.SystemRandom() if seed is None else random.Random(seed)

    def roll(self, game) -> Action:
        """Roll for a game waiting on the die: one of its faces, each equally likely."""
        faces = game.roll_faces()
        if not faces:
            raise ValueError("the die has no face to show: no node is free")
        return faces[self._rng.randrange(len(faces))]
