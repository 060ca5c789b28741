"""The composed games; each shipped ``.toml`` here is registered (docs/composer.md)."""

from importlib import resources

from companion.games.composed.interpreter import game_class
from companion.games.composed.schema import loads
from companion.games.engine import register

for _file in sorted(resources.files(__package__).iterdir(), key=lambda f: f.name):
    if _file.name.endswith(".toml"):
        register(game_class(loads(_file.read_text(encoding="utf-8")), shipped=True))
