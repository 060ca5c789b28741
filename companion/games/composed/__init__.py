"""The manuals' games that are only parameters, and compositions of our own, registered from the files in
``companion/games/composed`` (one TOML file per game; docs/composer.md). Their rules decisions stay in
docs/rules/<game>.md like every other game's."""

from pathlib import Path

from companion.games.composed.interpreter import game_class
from companion.games.composed.schema import load
from companion.games.engine import register

FOLDER = Path(__file__).resolve().parent

for _path in sorted(FOLDER.glob("*.toml")):
    register(game_class(load(_path), shipped=True))
