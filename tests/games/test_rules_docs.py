"""Every game the companion ships with has its rules decisions written down in docs/rules/ (the project's
standard), on a page of its own named by its id: docs/rules/<id>.md, titled with the game's name. A game
built on another (Hyper Drangles on 'Drangles) says so on its page and links the other."""

from pathlib import Path

from companion.games.catalogue import catalogue

RULES = Path(__file__).resolve().parents[2] / "docs" / "rules"


def test_every_shipped_game_has_a_rules_page_of_its_own():
    pages = {page.stem: page.read_text(encoding="utf-8") for page in RULES.glob("*.md")}
    shipped = [cls for cls in catalogue() if not getattr(cls, "composed", False) or cls.shipped]
    missing = [cls.id for cls in shipped if cls.id not in pages]
    assert not missing, f"no page docs/rules/<id>.md for {missing}"
    untitled = [cls.id for cls in shipped if cls.name not in pages[cls.id].splitlines()[0]]
    assert not untitled, f"pages whose title does not name their game: {untitled}"
    assert len(shipped) >= 28
