"""The Link boards page's API: open a match on one board, join it from another by its code, see the
match's boards, seats and health; refusals are 400s that change nothing."""

from boards import Board, wait

from companion.service import commands as c
from web import create_app
from web.testing import pair


def phone(board: Board, tmp_path):
    client = create_app(
        board.runtime, board.runtime.config, state_dir=board.folder, link=board.link
    ).test_client()
    client.environ_base["HTTP_X_CSRF_TOKEN"] = pair(client, board.runtime)
    return client


def test_a_match_opened_on_one_page_and_joined_by_its_code_on_another(boards, tmp_path):
    a, b = boards
    pa, pb = phone(a, tmp_path), phone(b, tmp_path)
    assert pa.get("/link").status_code == 200
    r = pa.post("/api/link/host", json={"game": "25-mens-gryb", "players": 2})
    assert r.status_code == 200, r.get_json()
    code = r.get_json()["code"]
    assert pb.post("/api/link/join", json={"match_code": code.lower().replace("-", " ")}).status_code == 200
    wait(lambda: b.state()["link"] is not None and a.state()["link"] is not None, what="the game begins")
    assert a.state()["game"]["id"] == b.state()["game"]["id"] == "25-mens-gryb"
    wait(
        lambda: all(
            x["rtt_ms"] is not None for x in pa.get("/api/link").get_json()["boards"] if not x["here"]
        )
    )
    seen = pa.get("/api/link").get_json()
    assert seen["code"] == code and seen["connected"] and seen["seats"] == ["alba", "bran"]
    assert [(x["board"], x["seats"], x["up"]) for x in seen["boards"]] == [
        ("alba", [0], True),
        ("bran", [1], True),
    ]
    assert 0 < seen["boards"][1]["rtt_ms"] < 1000


def test_a_bad_code_or_body_is_refused_and_changes_nothing(boards, tmp_path):
    a, _ = boards
    pa = phone(a, tmp_path)
    before = a.runtime.call(c.Snapshot())["version"]
    for path, body, says in (
        ("/api/link/join", {"match_code": "nope"}, "a match code is 12"),
        ("/api/link/join", {}, "match_code"),
        ("/api/link/host", {"game": "25-mens-gryb", "players": 7}, "players is how many boards"),
        ("/api/link/host", {"game": "25-mens-gryb", "colour": "G"}, "unknown field"),
        ("/api/link/host", {"game": "no-such-game"}, "no game"),
        ("/api/link/host", {"game": "25-mens-gryb", "options": {"turn_limit": 1}}, "turn_limit"),
    ):
        r = pa.post(path, json=body)
        assert r.status_code == 400 and says in r.get_json()["error"], (path, r.get_json())
    assert a.runtime.call(c.Snapshot())["version"] == before and a.link.status()["match"] is None


def test_without_a_broker_the_page_says_how_to_set_one(tmp_path):
    from companion.service.config import Config, State
    from companion.service.runtime import Runtime
    from companion.service.store import Store

    config = Config(state=State(dir=str(tmp_path)))
    runtime = Runtime(config, Store(tmp_path / "gryb.db"))
    runtime.start()
    try:
        client = create_app(runtime, config, state_dir=tmp_path).test_client()
        assert client.get("/api/link").get_json() == {
            "enabled": False,
            "message": client.get("/api/link").get_json()["message"],
        }
        assert "[link] url" in client.get("/link").get_data(as_text=True)
    finally:
        runtime.stop()
        runtime.store.close()
