"""The composed games; each shipped ``.toml`` here is registered (docs/composer.md)."""

from pathlib import Path

from companion.games.composed.interpreter import game_class
from companion.games.composed.schema import load
from companion.games.engine import register

FOLDER = Path(__file__).resolve().parent

for _path in sorted(FOLDER.glob("*.toml")):
    register(game_class(load(_path), shipped=True))
