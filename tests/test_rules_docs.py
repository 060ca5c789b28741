"""Every game the companion ships with has its rules decisions written down in docs/rules/ (the project's
standard): a page named by its id, or a page whose title names it (docs/rules/drangles.md holds Hyper
Drangles and Sumo Drangles too)."""

from pathlib import Path

from companion.engine import catalogue

RULES = Path(__file__).resolve().parent.parent / "docs" / "rules"


def test_every_shipped_game_has_a_rules_page():
    pages = {page.stem: page.read_text(encoding="utf-8") for page in RULES.glob("*.md")}
    titles = [text.splitlines()[0] for text in pages.values() if text]
    shipped = [cls for cls in catalogue() if not getattr(cls, "composed", False) or cls.shipped]
    missing = [cls.id for cls in shipped if cls.id not in pages and not any(cls.name in t for t in titles)]
    assert not missing, f"no page in docs/rules/ for {missing}"
    assert len(shipped) >= 28
