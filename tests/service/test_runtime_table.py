"""What the players are spared: stones shown by the LEDs (nothing waits for hands), no game lost by a tap."""

import pytest
from test_runtime_computer import press_all, wait_for

from companion.games.die import Die
from companion.service import commands as c
from companion.service.runtime import CommandError


def test_with_the_leds_for_stones_the_computers_move_is_made_at_once(make):
    rt = make(die=Die(3), stones="leds")
    assert rt.call(c.Snapshot())["settings"]["stones"] == "leds"
    snap = rt.call(c.NewGame("drangles", 2, {}, ["Ann"], None, ["human", "easy"]))
    while snap["state"]["to_move"] == 0:
        press_all(rt, snap["legal"][0])
        snap = rt.call(c.Snapshot())
    snap = wait_for(rt, lambda s: s["state"]["to_move"] == 0)  # its move made, no press asked
    assert snap["table"]["proposal"] is None and snap["table"]["chores"] == []
    assert "press" not in snap["table"]["message"]


def test_with_the_leds_for_stones_undo_asks_nothing_to_be_lifted(make):
    rt = make(stones="leds")
    rt.call(c.NewGame("25-mens-gryb", 2, {}, ["Ann", "Bo"]))
    for node in "G GGGG R RRRR Y YYYY B".split():
        assert rt.call(c.Press(node)).ok
    assert rt.call(c.Press("RRRR")).ok  # Ann's GRYB takes Bo's man
    assert rt.call(c.Undo()).ok
    snap = rt.snapshot()
    assert snap["table"]["chores"] == [] and "RRRR" in snap["state"]["stones"]


def test_a_real_board_starts_with_the_cloth_and_the_phone_changes_it(make):
    rt = make()
    assert rt.call(c.Snapshot())["settings"]["stones"] == "cloth"
    snap = rt.call(c.NewGame("drangles", 2, {}, ["Ann"], None, ["human", "easy"]))
    while snap["state"]["to_move"] == 0:
        press_all(rt, snap["legal"][0])
        snap = rt.call(c.Snapshot())
    ply = wait_for(rt, lambda s: s["table"]["proposal"])["ply"]  # on the cloth it waits for hands
    snap = rt.call(c.ChangeSettings(stones="leds"))
    assert snap["settings"]["stones"] == "leds"
    assert snap["table"]["proposal"] is None and snap["ply"] > ply  # made when the setting changed
    wait_for(rt, lambda s: s["state"]["to_move"] == 0 and not s["table"]["chores"])
    with pytest.raises(CommandError, match="stones is cloth"):
        rt.call(c.ChangeSettings(stones="glass"))
    rt.stop()
    assert make().snapshot()["settings"]["stones"] == "leds"  # kept across a restart


def test_a_new_game_while_one_is_under_way_needs_consent_and_the_old_one_is_kept_abandoned(make):
    """Issue 46: a new game threw away the one in progress without a word."""
    rt = make()
    first = rt.call(c.NewGame("drangles", 2, {}, ["Ann", "Bo"], {"method": "games", "target": 3}))
    for node in ["0", "0", "G"]:
        assert rt.call(c.Press(node)).ok
    before = rt.call(c.Snapshot())
    with pytest.raises(c.Unconfirmed, match="Drangles is under way .*stays in Scores, marked abandoned"):
        rt.call(c.NewGame("ez-gryb", 2, {}))
    after = rt.call(c.Snapshot())
    assert (after["game_id"], after["state"], after["version"]) == (
        before["game_id"],
        before["state"],
        before["version"],
    )
    assert rt.store.finished_games() == []
    with pytest.raises(CommandError, match="is for 2 players"):  # a wrong choice is said first
        rt.call(c.NewGame("hyper-chess", 3, {}))
    rt.call(c.NewGame("drangles", 2, {}, ["Ann", "Bo"], c.GO_ON, abandon=True))
    kept = rt.store.game_row(first["game_id"])
    assert kept.result == {"winners": [], "scores": [0, 0], "abandoned": True}
    assert [r.id for r in rt.store.finished_games()] == [first["game_id"]]
    assert rt.snapshot()["series"]["games"] == []  # counted in no series
    assert [a for _, a in rt.store.events(first["game_id"])] == ["0", "0-G"]  # its replay
    fresh = rt.call(c.NewGame("ez-gryb", 2, {}))  # nothing played yet: nothing to lose, no question
    assert fresh["game"]["id"] == "ez-gryb"
