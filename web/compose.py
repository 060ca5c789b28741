"""Games of your own (docs/composer.md): paste a composition, check it, save it; export any composed game."""

from __future__ import annotations

from flask import Blueprint, Response, jsonify, render_template

from companion.games.composed import schema as composition
from companion.service import commands as c
from web.api import body, call, command, refuse, web
from web.security import paired

bp = Blueprint("compose", __name__)

EXAMPLE = """id = "my-game"
name = "My Game"
summary = "Two free moves a turn down and sideways; cover a quadrangle to win."
players = 2

[tokens]
stones = 20
enter = "head"

[turn]
moves = 2

[moves]
gravity = true
lateral = true

[goal]
win = ["gryb"]
"""


def _composed() -> tuple[list[dict], list[dict]]:
    """(saved compositions, the companion's own), each {id, name}."""
    games = [cls for cls in web().runtime.board.catalogue if getattr(cls, "composed", False)]
    saved = set(web().runtime.board.library.ids())
    mine = [{"id": c.id, "name": c.name} for c in games if c.id in saved and not c.shipped]
    own = [{"id": c.id, "name": c.name} for c in games if c.shipped]
    return mine, own


@bp.get("/compose")
def compose_page():
    saved, shipped = _composed()
    return render_template("compose.html", saved=saved, shipped=shipped, example=EXAMPLE)


@bp.get("/api/compositions")
def list_compositions():
    saved, shipped = _composed()
    return jsonify(saved=saved, shipped=shipped)


@bp.get("/api/compositions/<game_id>.toml")
def export(game_id: str):
    cls = next(
        (c for c in web().runtime.board.catalogue if c.id == game_id and getattr(c, "composed", False)), None
    )
    if cls is None:
        refuse(404, f"no composed game {game_id!r}")
    return Response(
        composition.export(cls.base_rules),
        mimetype="text/plain",
        headers={"Content-Disposition": f'attachment; filename="{cls.id}.toml"'},
    )


@bp.post("/api/compositions")
@paired
def save():
    return jsonify(ok=True, game=call(command(c.Compose)))


@bp.post("/api/compositions/<game_id>/delete")
@paired
def delete(game_id: str):
    body()
    if game_id not in web().runtime.board.library.ids():  # the companion's own are not saved files
        refuse(404, f"no saved composition {game_id!r}")
    call(c.ForgetComposition(game_id))
    return jsonify(ok=True)
