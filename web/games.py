"""Choosing a game: the catalogue, its options, players and names, a series; POST starts it."""

from __future__ import annotations

from flask import Blueprint, jsonify, render_template

from companion.ai import LEVELS
from companion.games import howto
from companion.games.series import METHODS, PRESETS, describe
from companion.service import commands as c
from companion.session.seating import by_player
from web.api import call, command, compact, refuse, web
from web.play import KINDS
from web.security import paired

bp = Blueprint("games", __name__)

# The games to try first, in order, with their badges: 001 gives its examples "beginning with the easiest
# first", Quick & Easy GRYB (000's EZ GRYB) and then 'Drangles (no die).
FIRST_GAMES = {"ez-gryb": "Start here", "drangles": "Try next"}


def games() -> list[dict]:
    return [cls.describe() for cls in web().runtime.board.catalogue]


def listed() -> list[dict]:
    """The catalogue as the page lists it: the games to try first at the top, with their badges."""
    first = list(FIRST_GAMES)
    return sorted(
        ({**g, "badge": FIRST_GAMES.get(g["id"])} for g in games()),
        key=lambda g: first.index(g["id"]) if g["id"] in first else len(first),
    )


def presets() -> list[dict]:
    """Every series preset of the manuals (a game's own are in its entry of ``games()``)."""
    return [describe(p) for p in PRESETS]


def _seats(config, colours: list[str]) -> list[dict]:
    """The four players' places on the form: stone colour (as set now) and default name."""
    return [{"seat": i, "colour": colours[i], "name": config.players.names[i]} for i in range(4)]


def _table(snapshot: dict, config) -> list[dict]:
    """Who plays now, player 1 first, for the form: names people chose, and each one's kind."""
    names, kinds, order = snapshot["table"]["names"], snapshot["seats"], snapshot["order"]
    names, kinds = by_player(names, order), by_player(kinds, order)
    given = set(config.players.names)
    return [
        {"name": name if kind == "human" and name not in given else "", "kind": kind}
        for name, kind in zip(names, kinds)
    ]


@bp.get("/games")
def choose():
    snapshot = web().runtime.snapshot()
    return render_template(
        "games.html",
        games=listed(),
        presets=presets(),
        methods=METHODS,
        seats=_seats(web().config, snapshot["settings"]["colours"]),
        current=snapshot["game"]["id"],
        table=_table(snapshot, web().config),
        kinds=KINDS,
        series=_series_on(snapshot),
    )


@bp.get("/games/<game_id>/rules")
def rules(game_id: str):
    game = next((cls for cls in web().runtime.board.catalogue if cls.id == game_id), None)
    if game is None:
        refuse(404, "no such game: choose one from the list of games")
    return render_template("rules.html", game=game.describe(), blocks=howto.of(game))


def _series_on(snapshot: dict) -> dict | None:
    """The series a new game may go on with: the one being played, unless over."""
    series = snapshot.get("series")
    return series if series and not series.get("over") else None


@bp.get("/api/games")
def list_games():
    colours = web().runtime.snapshot()["settings"]["colours"]
    return jsonify(
        games=games(),
        presets=presets(),
        methods=list(METHODS),
        seats=_seats(web().config, colours),
        levels=list(LEVELS),
    )


@bp.post("/api/games/new")
@paired
def new_game():
    snapshot = call(command(c.NewGame))
    return jsonify(ok=True, message=f"new game: {snapshot['game']['name']}", state=compact(snapshot))
