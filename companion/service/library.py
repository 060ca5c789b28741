"""Games of one's own on disk (docs/composer.md): TOML files named by id, added to the catalogue."""

from __future__ import annotations

import os
from pathlib import Path

from companion.games.catalogue import Catalogue
from companion.games.composed.interpreter import ComposedGame, game_class
from companion.games.composed.schema import ID_PATTERN, CompositionError, Rules, export, loads

FOLDER = "compositions"


def load(path: str | Path) -> Rules:
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        raise CompositionError(f"cannot read {path}: {err}") from None
    try:
        return loads(text, "json" if path.suffix == ".json" else "toml")
    except CompositionError as err:
        raise CompositionError(f"{path.name}: {err}") from None


class Library:
    def __init__(self, folder: str | Path):
        self.folder = Path(folder)

    def path(self, game_id: str) -> Path:
        if not ID_PATTERN.fullmatch(game_id):
            raise CompositionError(
                f"no composition {game_id!r}: ids are lowercase letters, digits and dashes"
            )
        return self.folder / f"{game_id}.toml"

    def ids(self) -> list[str]:
        return sorted(p.stem for p in self.folder.glob("*.toml")) if self.folder.is_dir() else []

    def get(self, game_id: str) -> Rules:
        path = self.path(game_id)
        if not path.is_file():
            raise CompositionError(
                f"no saved composition {game_id!r}; saved: {', '.join(self.ids()) or 'none'}"
            )
        return self.read(path)

    @staticmethod
    def read(path: Path) -> Rules:
        """A file named by its id (or it would have two names)."""
        rules = load(path)
        if rules.id != path.stem:
            raise CompositionError(
                f"{path.name} holds the composition {rules.id!r}: a saved composition's file "
                f"is named by its id ({rules.id}.toml)"
            )
        return rules

    def save(self, rules: Rules, replace: bool = False) -> Path:
        path = self.path(rules.id)
        if path.exists() and not replace:
            raise CompositionError(
                f"a composition {rules.id!r} is already saved: to replace it, import with "
                "--replace (on the page, tick Replace)"
            )
        self.folder.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(export(rules))
            f.flush()
            os.fsync(f.fileno())  # on the card before it takes the id
        tmp.replace(path)  # never half a file under the id
        folder = os.open(self.folder, os.O_RDONLY)
        try:
            os.fsync(folder)  # the new name too: "saved" on the page means saved
        finally:
            os.close(folder)
        return path

    def delete(self, game_id: str) -> None:
        path = self.path(game_id)
        if not path.is_file():
            raise CompositionError(f"no saved composition {game_id!r}")
        path.unlink()

    def all(self) -> list[Rules]:
        """Every saved composition that still reads."""
        found = []
        for game_id in self.ids():
            try:
                found.append(self.get(game_id))
            except CompositionError:
                continue
        return found

    def install(self, catalogue: Catalogue) -> tuple[Catalogue, list[str]]:
        """``catalogue`` with every composition here; a line per one that does not read."""
        problems = []
        for path in sorted(self.folder.glob("*.toml")) if self.folder.is_dir() else []:
            try:
                catalogue = with_composition(catalogue, self.read(path))
            except CompositionError as err:
                problems.append(str(err) if path.name in str(err) else f"{path.name}: {err}")  # named once
        return catalogue, problems

    def add(self, catalogue: Catalogue, rules: Rules, replace: bool = False) -> Catalogue:
        """Check, set up once, save; the catalogue with it."""
        check_id(catalogue, rules.id)
        game_class(rules)(rules.players[0])  # it must set up (residents, tables) to be kept
        self.save(rules, replace=replace)
        return with_composition(catalogue, rules)

    def remove(self, catalogue: Catalogue, game_id: str) -> Catalogue:
        self.delete(game_id)
        return catalogue.without(game_id)


def check_id(catalogue: Catalogue, game_id: str) -> None:
    """A saved composition may take any id but a shipped game's."""
    if game_id in catalogue:
        existing = catalogue.find(game_id)
        if not (issubclass(existing, ComposedGame) and not existing.shipped):
            raise CompositionError(f"id {game_id!r} is a game the companion ships with: choose another id")


def with_composition(catalogue: Catalogue, rules: Rules) -> Catalogue:
    check_id(catalogue, rules.id)
    return catalogue.with_game(game_class(rules))
