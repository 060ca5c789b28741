"""Games of your own from the phone: paste, check, save, play, export, delete (docs/composer.md)."""

import random

import pytest

from companion.games.composed import schema as composition
from companion.service.config import Config, State
from companion.service.runtime import Runtime
from companion.service.store import Store
from web import create_app
from web.testing import LoadedDie, pair, play_on

GOOD = """id = "phone-race"
name = "Phone Race"
[tokens]
stones = 3
enter = "bottom"
[moves]
gravity = false
levity = true
lateral = true
[goal]
win = ["race"]
race = "top"
"""


@pytest.fixture
def rt(tmp_path):
    runtime = Runtime(Config(state=State(str(tmp_path))), Store(tmp_path / "gryb.db"), die=LoadedDie("G"))
    runtime.start()
    yield runtime
    runtime.stop()
    runtime.store.close()


@pytest.fixture
def client(rt, tmp_path):
    return create_app(rt, rt.config, state_dir=tmp_path).test_client()


@pytest.fixture
def paired(client, rt):
    client.environ_base["HTTP_X_CSRF_TOKEN"] = pair(client, rt)
    return client


def test_a_composition_saved_from_the_phone_joins_the_catalogue_and_plays(paired, rt, tmp_path):
    assert paired.get("/compose").status_code == 200
    r = paired.post("/api/compositions", json={"text": GOOD})
    assert r.status_code == 200 and r.get_json()["game"] == {"id": "phone-race", "name": "Phone Race"}
    assert (tmp_path / "compositions" / "phone-race.toml").is_file()
    assert "phone-race" in [g["id"] for g in paired.get("/api/games").get_json()["games"]]
    assert paired.get("/api/compositions").get_json()["saved"] == [{"id": "phone-race", "name": "Phone Race"}]
    started = paired.post("/api/games/new", json={"game": "phone-race", "players": 2})
    assert started.status_code == 200 and rt.snapshot()["game"]["id"] == "phone-race"
    assert paired.post("/api/press", json={"node": "GGGG"}).get_json()["ok"]
    exported = paired.get("/api/compositions/phone-race.toml")
    assert (
        exported.status_code == 200 and composition.loads(exported.get_data(as_text=True)).id == "phone-race"
    )
    # Deleted: out of the catalogue; the game under way goes on with the rules it started with.
    assert paired.post("/api/compositions/phone-race/delete", json={}).status_code == 200
    assert "phone-race" not in [g["id"] for g in paired.get("/api/games").get_json()["games"]]
    assert rt.snapshot()["game"]["id"] == "phone-race"
    assert rt.store.game_class(rt.store.current_game()).base_rules.id == "phone-race"
    # ... to its end, and Play again plays it once more by those rules (the catalogue no longer has them).
    snap = play_on(rt, random.Random(2), most=3000)
    assert snap["state"]["over"]
    again = paired.post("/api/again").get_json()
    assert again["ok"] and again["message"].startswith("Phone Race again"), again
    assert rt.snapshot()["game"]["id"] == "phone-race" and not rt.snapshot()["state"]["over"]


def test_a_refused_composition_says_why_and_saves_nothing(paired, client, rt, tmp_path):
    before = paired.get("/api/games").get_json()["games"]
    bad = GOOD.replace('enter = "bottom"', 'enter = "head"') + "[board]\nheadless = true\n"
    r = paired.post("/api/compositions", json={"text": bad})
    assert r.status_code == 400 and "tokens.enter = 'head' but board.headless" in r.get_json()["error"]
    for text, reason in [
        ("id = ", "not valid TOML"),
        ('id = "ez-gryb"\nname = "x"', "ships with"),
        (GOOD.replace("[moves]", "[moves]\nflying = true"), "no parameter 'flying'"),
        ("summary = " + "[" * 3000 + "]" * 3000 + "\n" + GOOD, "nested too deep"),
    ]:
        r = paired.post("/api/compositions", json={"text": text})
        assert r.status_code == 400 and reason in r.get_json()["error"], (text, r.get_json())
    version = rt.snapshot()["version"]  # an unexpected failure would have had the runtime reload the game
    for text, fmt, reason in [
        ("[" * 3000, "json", "nested too deep"),
        ("players = " + "9" * 5000, "toml", "too many digits"),
        ('{"id": "half", "name": "Half \\ud800"}', "json", "half characters"),
    ]:
        r = paired.post("/api/compositions", json={"text": text, "format": fmt})
        assert (
            r.status_code == 400 and reason in r.get_json()["error"] and rt.snapshot()["version"] == version
        )
    assert paired.post("/api/compositions", json={"text": 5}).status_code == 400
    (tmp_path / "compositions").write_text(
        "a file where the folder should be"
    )  # a state directory it cannot write
    r = paired.post("/api/compositions", json={"text": GOOD})
    assert r.status_code == 400 and r.get_json()["error"].startswith("cannot save in "), r.get_json()
    (tmp_path / "compositions").unlink()
    assert paired.post("/api/compositions", json={"text": GOOD, "format": "yaml"}).status_code == 400
    assert not (tmp_path / "compositions").exists() or not list((tmp_path / "compositions").iterdir())
    assert paired.get("/api/games").get_json()["games"] == before
    # Saving twice needs "replace"; watching phones may read and export but never save or delete.
    assert paired.post("/api/compositions", json={"text": GOOD}).status_code == 200
    again = paired.post("/api/compositions", json={"text": GOOD})
    assert again.status_code == 400 and "already saved" in again.get_json()["error"]
    assert paired.post("/api/compositions", json={"text": GOOD, "replace": True}).status_code == 200
    watcher = create_app(rt, rt.config, state_dir=tmp_path).test_client()
    assert watcher.get("/api/compositions/phone-race.toml").status_code == 200
    assert (
        watcher.post("/api/compositions", json={"text": GOOD.replace("phone-race", "other")}).status_code
        == 401
    )
    assert watcher.post("/api/compositions/phone-race/delete", json={}).status_code == 401
    assert paired.get("/api/compositions/hyper-chess.toml").status_code == 404  # written in Python
    for missing in ("nope", "hyper-chess", "..", "phone-race.tmp"):  # as the OpenAPI document says: 404
        r = paired.post(f"/api/compositions/{missing}/delete", json={})
        assert (r.status_code, r.get_json()) == (404, {"error": f"no saved composition {missing!r}"}), missing
