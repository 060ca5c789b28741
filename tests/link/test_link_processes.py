"""Two `gryb-companion run --sim` processes linked through a real Mosquitto, driven through their pages'
API: a whole game, with one board killed with SIGKILL mid-game and started again."""

import signal
import time

import pytest
from boards import wait
from processes import Process


@pytest.mark.slow
def test_two_processes_play_through_their_pages_and_a_board_killed_mid_game_catches_up(tmp_path, broker):
    a, b = Process("alba", tmp_path / "alba", broker.url), Process("bran", tmp_path / "bran", broker.url)
    try:
        code = a.post("/api/link/host", {"game": "25-mens-gryb", "options": {"turn_limit": 12}})["code"]
        b.post("/api/link/join", {"match_code": code})
        wait(lambda: a.get("/api/state")["link"] and b.get("/api/state")["link"], 15, "the game begins")
        for _ in range(3):
            a.move()
            b.move()
        wait(lambda: a.get("/api/state")["ply"] == 6, 15, "bran's move at alba")  # then bran dies
        b.stop(signal.SIGKILL)
        a.move()  # while bran is dead
        b.start()
        wait(lambda: b.get("/api/state")["ply"] == a.get("/api/state")["ply"] == 7, 15, "bran caught up")
        deadline = time.monotonic() + 60
        while not (a.get("/api/state")["state"]["over"] and b.get("/api/state")["state"]["over"]):
            assert time.monotonic() < deadline, "the game did not end"
            for board in (b, a):
                if board.mine() is not None:
                    board.move()
            time.sleep(0.01)
        wait(lambda: b.get("/api/state")["state"] == a.get("/api/state")["state"], 15, "the same end")
        assert a.get("/api/state")["state"]["over"] and a.get("/api/link")["refused"] == 0
    finally:
        a.stop()
        b.stop()
