"""Boards linked through a real Mosquitto play whole games; the broker dies mid-game, a board restarts, and
nothing is lost."""

import pytest
from boards import Board, history, link, move, play, wait

from companion.service import commands as c


def same(a: Board, b: Board) -> list[str]:
    wait(lambda: history(a) == history(b), what="the same history on both boards")
    return history(a)


def test_two_boards_play_a_whole_25_mens_gryb_game(boards):
    a, b = boards
    link(a, b, "25-mens-gryb", options={"turn_limit": 40})
    assert a.state()["link"]["seats"] == ["alba", "bran"] == b.state()["link"]["seats"]
    play(boards, seed=5)
    moves = same(a, b)
    assert a.state()["state"]["over"] and b.state()["state"]["over"] and len(moves) >= 40
    assert not a.link.refused and not b.link.refused


def test_a_remote_move_waits_on_the_cloth_and_a_local_press_for_its_seat_is_refused(boards):
    a, b = boards
    link(a, b, "25-mens-gryb")
    feedback = b.runtime.call(c.Press("G"))  # seat 1 is alba's
    assert not feedback.ok and "plays on another board" in feedback.message
    with pytest.raises(c.CommandError, match="plays on another board"):
        b.runtime.call(c.Hint())
    assert a.runtime.call(c.Act("G")).ok
    wait(lambda: b.state()["ply"] == 1)
    assert [ch["node"] for ch in b.state()["table"]["chores"]] == ["G"]  # to put on the cloth at B
    assert b.runtime.call(c.Press("G")).ok and not b.state()["table"]["chores"]


@pytest.mark.slow
def test_two_boards_play_a_whole_ez_gryb_game_with_dice_from_both(boards):
    a, b = boards
    link(a, b, "ez-gryb")
    play(boards, seed=3)
    moves = same(a, b)
    assert a.state()["state"]["over"] and b.state()["state"]["over"]
    rolls = [m for m in moves if m.startswith("roll:")]
    assert len(set(rolls)) == 4, moves[:12]  # every colour came up
    assert not a.link.refused and not b.link.refused


@pytest.mark.slow
def test_the_broker_killed_and_restarted_mid_game_loses_nothing(boards, broker):
    a, b = boards
    link(a, b, "25-mens-gryb", options={"turn_limit": 20})
    play(boards, seed=7, plies=6)
    before = same(a, b)
    broker.stop(kill=True)
    wait(lambda: not a.link.connected and not b.link.connected, what="both links down")
    assert [board["up"] for board in a.link.status()["boards"]] == [False, False]
    before.append(move(a))  # made while the broker is away: kept here, sent once it is back
    broker.start()
    wait(lambda: a.link.connected and b.link.connected, 15, "both links up again")
    play(boards, seed=8)
    moves = same(a, b)
    assert moves[: len(before)] == before and a.state()["state"]["over"]
    assert not a.link.refused and not b.link.refused


@pytest.mark.slow
def test_a_board_restarted_rejoins_from_its_store_and_catches_up(boards):
    a, b = boards
    link(a, b, "25-mens-gryb", options={"turn_limit": 20})
    play(boards, seed=9, plies=6)
    same(a, b)
    b.down()
    move(a)  # made while bran is off
    b.up()
    wait(lambda: history(b) == history(a), what="bran caught up")
    assert b.state()["link"]["match"] == a.state()["link"]["match"]
    play(boards, seed=10)
    same(a, b)
    assert a.state()["state"]["over"]


@pytest.mark.slow
def test_a_board_that_joins_a_full_match_watches_the_whole_game_dice_and_all(boards, tmp_path, broker):
    a, b = boards
    link(a, b, "ez-gryb", options={"turn_limit": 12})
    play(boards, seed=11, plies=4)
    cara = Board("cara", tmp_path / "cara", broker.url)
    try:
        cara.link.join(a.link.code)
        wait(lambda: cara.link.game_id is not None, what="cara watching")
        assert cara.state()["link"]["seats"] == ["alba", "bran"]
        state = cara.state()
        if not state["state"]["awaiting_roll"]:
            refused = cara.runtime.call(c.Act(state["legal"][0]))
            assert not refused.ok and "plays on another board" in refused.message
        play(boards, seed=12)
        moves = same(a, b)
        wait(lambda: history(cara) == moves, what="cara has the whole game")
        assert cara.state()["state"]["over"] and not cara.link.refused
        assert [x["seats"] for x in cara.link.status()["boards"]] == [[0], [1], []]
    finally:
        cara.down()


@pytest.mark.slow
def test_multiverse_on_one_board_per_player_each_shows_its_own_board(boards):
    """000 Multiverse is written for one board per player: each linked board shows its player's rings and
    the opponent's where they are simultaneous with its own board, whoever is to move."""
    a, b = boards
    link(a, b, "multiverse", options={"rings": 4, "turn_limit": 20})
    seen = set()

    def looked(made: int) -> None:
        sa, sb = a.state()["state"], b.state()["state"]
        assert (sa["shown_board"], sb["shown_board"]) == (0, 1)
        seen.update((sa["to_move"], sb["to_move"]))

    play(boards, seed=13, between=looked)
    moves = same(a, b)
    assert a.state()["state"]["over"] and seen >= {0, 1} and len(moves) > 10
    assert not a.link.refused and not b.link.refused
    # bran's board as alba's engine would show it is what bran's board shows
    game = a.look(lambda s: s.game.copy())
    game.viewer = 1
    assert b.state()["state"]["stones"] == game.state_dict()["stones"] != a.state()["state"]["stones"]


def test_a_move_stored_but_never_sent_goes_out_when_its_board_comes_back(boards):
    """A board that dies between storing a move and sending it (here its link stopped first) sends it
    once it is back: the other board was waiting for it."""
    a, b = boards
    link(a, b, "25-mens-gryb")
    move(a)
    wait(lambda: b.state()["ply"] == 1)
    b.link.stop()
    sent = move(b)
    assert b.state()["ply"] == 2 and a.state()["ply"] == 1
    b.runtime.stop()
    b.runtime.store.close()
    b.up()
    wait(lambda: history(a) == history(b), what="alba has bran's move")
    assert history(a)[1] == sent


def test_a_joining_board_restarted_before_the_game_begins_joins_again_by_itself(boards, tmp_path, broker):
    a, b = boards
    c_ = Board("carl", tmp_path / "carl", broker.url)
    try:
        code = a.link.host("exodus", 3)
        b.link.join(code)
        wait(lambda: a.link.status()["seats"] == ["alba", "bran", None], what="bran seated")
        b.down()
        b.up()  # no game stored yet: only the code it joined with, kept in its state directory
        wait(lambda: b.link.status()["match"] == a.link.status()["match"], what="bran back in the match")
        c_.link.join(code)
        wait(lambda: all(x.link.game_id is not None for x in (a, b, c_)), what="the game begins on all three")
        assert b.state()["link"]["seats"] == ["alba", "bran", "carl"]
        assert not (tmp_path / "bran" / "link-joining").exists()
    finally:
        c_.down()
