"""Issue 6: "Page weight < 150 KB". Every page with everything it loads, as the app sends it, through Flask's
test client against a real Runtime: the bytes do not depend on the machine, so this is no timed test
(bench/bench_web.py prints the same figures over waitress)."""

from dataclasses import replace

import pytest

from companion.service.config import Config
from companion.service.runtime import Runtime
from companion.service.store import Store
from web import create_app
from web.testing import WEIGHT_LIMIT, LoadedDie, every_page_weight


@pytest.fixture
def rt(tmp_path):
    config = replace(Config(), state=replace(Config().state, dir=str(tmp_path / "state")))
    runtime = Runtime(config, Store(tmp_path / "gryb.db"), die=LoadedDie("GRYB"))
    runtime.start()
    yield runtime
    runtime.stop()
    runtime.store.close()


def test_every_page_and_every_board_weighs_under_150_kb(rt, tmp_path):
    client = create_app(rt, Config(), state_dir=tmp_path / "state").test_client()

    def fetch(path: str) -> bytes:
        response = client.get(path)
        assert response.status_code == 200, path
        assert "Content-Encoding" not in response.headers  # the bytes counted are the bytes sent
        return response.data

    weights = every_page_weight(rt, fetch)
    totals = {label: sum(sizes.values()) for label, sizes in weights.items()}
    assert {label.split(" ")[0] for label in totals} >= {"/", "/games", "/history", "/settings", "/compose"}
    assert [label for label in totals if label.startswith("/ Now playing")] == [
        "/ Now playing (EZ GRYB, depth 4)",
        "/ Now playing (EZ GRYB, depth 5)",
        "/ Now playing (EZ GRYB, depth 6)",
        "/ Now playing (Multiverse, 4 players, depth 6)",
    ]
    assert any(label.startswith("/history/") and "replay, depth 6" in label for label in totals)
    assert any(label.endswith("(the longest rules page)") for label in totals)
    over = {label: f"{total / 1024:.1f} KiB" for label, total in totals.items() if total >= WEIGHT_LIMIT}
    assert not over, over
    # Counted with the modules each script imports: Now playing's are every one the board needs.
    assert {
        "/static/style.css",
        "/static/js/play.js",
        "/static/js/board.js",
        "/static/js/cloth.js",
        "/static/js/keys.js",
        "/static/js/zoom.js",
        "/static/js/api.js",
    } <= set(weights["/ Now playing (EZ GRYB, depth 4)"])
