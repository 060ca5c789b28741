"""How to play: every shipped game's text for players (companion/games/howto/), on the phone's rules page
and at the terminal; a game of one's own shows its parameters of play."""

import io
import random
import re

import pytest
from markupsafe import escape

from companion.cli.console import Console
from companion.games import howto
from companion.games.catalogue import catalogue, find
from companion.games.composed import schema as composition
from companion.games.die import Die
from companion.service.config import Config, State
from web import create_app
from web.compose import EXAMPLE
from web.testing import LoadedDie, pair

SHIPPED = [cls for cls in catalogue() if not getattr(cls, "composed", False) or cls.shipped]


def test_the_format_headings_lists_and_paragraphs():
    text = "Two players.\nEach has stones.\r\n\r\n## Aim\n\n- one\n- two\n\n- a list\nthen words\n"
    assert howto.parse(text) == [
        howto.Block("paragraph", "Two players. Each has stones."),
        howto.Block("heading", "Aim"),
        howto.Block("list", items=("one", "two")),
        howto.Block("paragraph", "- a list then words"),
    ]
    shown = howto.as_text(howto.parse(text), width=20)
    assert shown.startswith("Two players. Each\nhas stones.\n\nAim\n---\n\n- one\n- two\n")


@pytest.mark.parametrize("name", ["", "../howto", "EZ-GRYB", "ez_gryb", "ez-gryb.txt", "ez-gryb/..", "nope"])
def test_only_a_catalogue_id_is_looked_up(name):
    assert howto.shipped(name) is None


@pytest.mark.parametrize("cls", SHIPPED, ids=lambda cls: cls.id)
def test_every_shipped_game_has_a_text_with_its_aim_its_end_and_every_option(cls):
    text = howto.shipped(cls.id)
    assert text is not None, f"no companion/games/howto/{cls.id}.txt"
    blocks = howto.parse(text)
    headings = [b.text for b in blocks if b.kind == "heading"]
    assert blocks[0].kind == "paragraph" and {"Aim", "The end"} <= set(headings), headings
    assert 120 <= len(text.split()) <= 650
    assert not re.search(r"[`*_]|\]\(", text), "plain words only: no markup beyond headings and lists"
    if cls.options:
        at = [b.text if b.kind == "heading" else None for b in blocks].index("Options")
        listed = blocks[at + 1]
        assert listed.kind == "list"
        for option in cls.options:
            label = option.name.replace("_", " ")
            assert any(item.lower().startswith(label) for item in listed.items), (cls.id, option.name)


def test_a_texts_example_moves_are_the_moves_the_engine_offers():
    """Squirrel Race names every node a squirrel on GRY may go to; they are exactly its legal moves."""
    listed = re.search(r"so GRY may go to ([A-Z, ]+ or [A-Z]+)", howto.shipped("squirrel-race")).group(1)
    game = find("squirrel-race")(2, nuts=2)
    for action in ["roll:@GGGG", "GGGG", "roll:@GGGR", "GGGR", "roll:Y", "GRY", "roll:G", "BBG"]:
        game.apply(action)
    assert set(re.findall(r"[GRYB]+", listed)) == {str(a).split("-")[1] for a in game.legal_actions()}


def test_25_mens_gryb_example_moves_are_moves_the_engine_offers():
    """Every node the 25 Men's GRYB text says a man may move to (up, down, sideways, side-step) is one of
    its legal moves, and its two sideways examples are exactly the sideways moves."""
    text = howto.shipped("25-mens-gryb")
    examples = {
        "GR": re.search(r"Up a level \((GR) to ([GRYB]+)\)", text).group(2).split(),
        "G": re.findall(r"[GRYB]+", re.search(r"down a level \(G to ([GRYB, or]+)\)", text).group(1)),
        "GRYY": re.findall(r"[GRYB]+", re.search(r"GRYY may go to ([A-Z, ]+ or [A-Z]+)", text).group(1)),
    }
    sideways = re.search(r"\(GRYY to ([A-Z]+) or ([A-Z]+), not to the opposite corner", text).groups()
    for start, targets in examples.items():
        game = find("25-mens-gryb")()
        game.arrange(([start], ["BBBB"]))
        offered = {str(a).split("-")[1] for a in game.legal_actions()}
        assert set(targets) <= offered, (start, set(targets) - offered)
        if start == "GRYY":  # round its own quadrangle: the same first three colours
            assert set(sideways) == {t for t in offered if len(t) == 4 and t[:3] == "GRY"}


def test_pyragrybs_building_example_is_a_move_the_engine_offers():
    """'With your pieces on R and RG, a roll of Y lets you build on RGY.'"""
    assert "With your pieces on R and RG, a roll of Y lets you build on RGY." in howto.shipped("pyragryb")
    game = find("pyragryb")(2)
    for action in "roll:R R roll:R pass roll:G RG roll:R pass roll:Y".split():
        game.apply(action)
    assert "RGY" in {str(a) for a in game.legal_actions()}


def test_the_terminal_answers_rules_with_the_same_text():
    game = find("ez-gryb")(2)
    out = io.StringIO()
    console = Console(game, Die(1), {}, random.Random(1), out)
    console.answer("rules")
    assert out.getvalue() == howto.as_text(howto.of(find("ez-gryb")))
    assert len(game.history) == 0


@pytest.fixture
def rt(make, tmp_path):
    return make(Config(state=State(str(tmp_path))), die=LoadedDie("G"))


@pytest.fixture
def client(rt, tmp_path):
    return create_app(rt, rt.config, state_dir=tmp_path).test_client()


def test_the_rules_page_of_every_game_and_the_links_to_it(client, rt):
    for cls in SHIPPED:
        page = client.get(f"/games/{cls.id}/rules")
        assert page.status_code == 200, cls.id
        html = page.get_data(as_text=True)
        assert f"<h1>How to play {escape(cls.name)}</h1>" in html
        blocks = howto.parse(howto.shipped(cls.id))
        assert all(str(escape(b.text)) in html for b in blocks if b.kind != "list")
        assert all(f"<li>{escape(item)}</li>" in html for b in blocks if b.kind == "list" for item in b.items)
    assert 'href="/games/ez-gryb/rules"' in client.get("/games").get_data(as_text=True)
    assert f'id="game-rules" href="/games/{rt.snapshot()["game"]["id"]}/rules"' in client.get("/").get_data(
        as_text=True
    )


@pytest.mark.parametrize(
    "path",
    [
        "/games/nope/rules",
        "/games/..%2Fhowto/rules",
        "/games/EZ-GRYB/rules",
        "/games/" + "a" * 5000 + "/rules",
    ],
)
def test_an_unknown_game_is_a_404_page(client, path):
    page = client.get(path)
    assert page.status_code == 404 and "<h1>404</h1>" in page.get_data(as_text=True)


def test_a_game_of_your_own_shows_its_summary_and_parameters(client, rt):
    client.environ_base["HTTP_X_CSRF_TOKEN"] = pair(client, rt)
    assert client.post("/api/compositions", json={"text": EXAMPLE}).status_code == 200  # the page's example
    html = client.get("/games/my-game/rules").get_data(as_text=True)
    assert "Two free moves a turn down and sideways; cover a quadrangle to win." in html
    assert "<h2>Parameters of play</h2>" in html and "<li>enter: head — where new stones enter" in html
    items = next(b.items for b in howto.of(rt.board.catalogue.find("my-game")) if b.kind == "list")
    assert "moves: 2 — moves per turn: one stone several times or several stones once each" in items
    assert "lateral: yes — " + composition.PARAMS["lateral"].help in items
