"""What boards linked in a match compare: the position's digest, and a roll from a shared seed; pure."""

from __future__ import annotations

import hashlib
import json

from companion.games.engine import Game
from companion.rules.action import Action


def digest(game: Game) -> str:
    """SHA-256 of the position (its state line as canonical JSON, and its ply), whichever board shows it."""
    if game.viewer is not None:
        game = game.copy()
        game.viewer = None
    state = game.state_dict() | {"ply": len(game.history)}
    return hashlib.sha256(json.dumps(state, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


def digests(game: Game, start: int) -> list[str]:
    """The digest after each action from ply ``start`` on, oldest first."""
    twin, made = game.copy(), []
    while len(twin.history) > start:
        made.append(digest(twin))
        twin.retract()
    return made[::-1]


def face(game: Game, seed: str) -> Action:
    """The die's face a 256-bit hex ``seed`` picks (its bias from the modulo is below 2**-250)."""
    faces = game.roll_faces()
    return faces[int(seed, 16) % len(faces)]
