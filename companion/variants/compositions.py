"""The manuals' games that are only parameters, and compositions of our own, registered from the files in
``companion/compositions`` (one TOML file per game; docs/composer.md). Their rules decisions stay in
docs/rules/<game>.md like every other game's."""

from pathlib import Path

from ..composed import game_class
from ..composition import load
from ..engine import register

FOLDER = Path(__file__).resolve().parent.parent / "compositions"

for _path in sorted(FOLDER.glob("*.toml")):
    register(game_class(load(_path), shipped=True))
