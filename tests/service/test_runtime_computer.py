"""Computer players and hints in the runtime: the search runs off the loop, its move waits for hands."""

import gc
import logging
import re
import threading
import time

import pytest

from companion import ai
from companion import assembly as app
from companion.games.catalogue import find
from companion.games.die import Die
from companion.rules import node as nd
from companion.rules.action import Action
from companion.service import commands as c
from companion.service.config import Computer, Config
from companion.service.runtime import CommandError
from companion.session.hands import _presses


@pytest.fixture
def make(make):
    """conftest's runtimes, on a die seeded 3."""
    return lambda config=None, **kwargs: make(config, die=Die(3), **kwargs)


def wait_for(rt, predicate, timeout=10.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        snap = rt.call(c.Snapshot())
        if predicate(snap):
            return snap
        time.sleep(0.02)
    raise AssertionError("timed out waiting for the runtime")


def press_all(rt, action_text):
    """Make an action at the table: press its stones, then its targets."""
    for node in _presses(Action.parse(action_text)):
        feedback = rt.call(c.Press(nd.name(node)))
        assert feedback.ok, feedback.message


def test_a_computer_move_is_shown_and_waits_until_a_player_carries_it_out(make):
    rt = make()
    snap = rt.call(c.NewGame("drangles", 2, {}, ["Ann"], None, ["human", "easy"]))
    assert snap["seats"] == ["human", "easy"] and snap["table"]["names"] == [
        "Ann",
        "Player 2 (computer, easy)",
    ]
    played = []
    while snap["state"]["to_move"] == 0:  # the human's turn (Drangles: the head node, then a move)
        played.append(snap["legal"][0])
        press_all(rt, played[-1])
        snap = rt.call(c.Snapshot())
    refused = False
    while snap["state"]["to_move"] == 1:
        snap = wait_for(rt, lambda s: s["table"]["proposal"])
        proposal = snap["table"]["proposal"]
        assert proposal in snap["legal"] and "the computer plays" in snap["table"]["message"]
        # Nothing else is accepted while the proposal waits: not another node, not OK.
        first_press = nd.name(_presses(Action.parse(proposal))[0])
        stray = next(n for n in nd.NODE_NAMES[:21] if n != first_press)
        wrong = rt.call(c.Press(stray))
        assert not wrong.ok and "the computer plays" in wrong.message
        assert not rt.call(c.Ok()).ok
        refused = True
        press_all(rt, proposal)
        played.append(proposal)
        snap = rt.call(c.Snapshot())
    assert refused and snap["state"]["to_move"] == 0 and snap["table"]["proposal"] is None
    assert [a for _, a in rt.store.events(rt.game_id)] == played
    # UNDO against the computer goes back to the human's turn: both moves are taken back.
    assert rt.call(c.Undo()).ok
    snap = rt.call(c.Snapshot())
    assert snap["state"]["to_move"] == 0 and len(rt.board.session.hands.game.history) < len(played)
    undone = played[len(rt.board.session.hands.game.history) :][
        ::-1
    ]  # newest first: the computer's move, then the human's
    assert len(undone) >= 2 and snap["table"]["message"] == f"took back {', '.join(undone)}"
    assert all(rt.board.session.hands.game.owner(n) != 1 for n in range(341))
    # ... and the computer does not move again by itself, since the human is to move.
    time.sleep(0.3)
    assert rt.call(c.Snapshot())["table"]["proposal"] is None


def test_undo_never_takes_back_the_computers_opening_so_it_cannot_choose_again(make):
    rt = make()
    snap = rt.call(c.NewGame("drangles", 2, {}, None, None, ["easy", "human"]))
    opening = []
    while snap["state"]["to_move"] == 0:  # the computer's first turn (the head node, then a move)
        snap = wait_for(rt, lambda s: s["table"]["proposal"])
        opening.append(snap["table"]["proposal"])
        press_all(rt, opening[-1])
        snap = rt.call(c.Snapshot())
    feedback = rt.call(c.Undo())
    assert not feedback.ok and feedback.message == "nothing to take back: no move of yours yet"
    assert [str(a) for a, _ in rt.board.session.hands.game.history] == opening
    assert [a for _, a in rt.store.events(rt.game_id)] == opening


def test_the_computer_rolls_its_own_die_and_the_seats_survive_a_restart(make):
    rt = make()
    rt.call(c.NewGame("ez-gryb", 2, {}, None, None, ["human", "medium"]))
    rt.call(c.Roll())
    snap = rt.call(c.Snapshot())
    if snap["state"]["to_move"] == 0:  # the human's roll fitted: enter a stone
        press_all(rt, snap["legal"][0])
    # The computer rolls for itself; then either its move waits on the board or the turn passed.
    wait_for(
        rt,
        lambda s: (
            s["table"]["proposal"]
            or (
                s["state"]["to_move"] == 0
                and len([a for _, a in rt.store.events(rt.game_id) if a.startswith("roll")]) >= 2
            )
        ),
    )
    rolls = [a for _, a in rt.store.events(rt.game_id) if a.startswith("roll")]
    assert len(rolls) >= 2
    rt.stop()
    again = make()
    assert again.call(c.Snapshot())["seats"] == ["human", "medium"]


def test_bad_seats_are_refused_and_change_nothing(make):
    rt = make()
    before = rt.call(c.Snapshot())["game_id"]
    for seats in (["human"], ["human", "genius"], ["human", 3]):
        with pytest.raises(CommandError, match="seats"):
            rt.call(c.NewGame("drangles", 2, {}, None, None, seats))
    assert rt.call(c.Snapshot())["game_id"] == before


def test_a_hint_suggests_a_legal_move_and_binds_nobody(make):
    rt = make()
    rt.call(c.NewGame("drangles", 2, {}, None, None, None))
    press_all(rt, "0")  # the head node; now many moves are open
    assert rt.call(c.Hint()).ok
    snap = wait_for(rt, lambda s: s["table"]["hint"])
    hint = snap["table"]["hint"]
    assert hint in snap["legal"]
    # The message says how to make it at the table: its nodes pressed in order (then OK, if it needs it).
    how = snap["table"]["message"].removeprefix(f"hint: {hint} (press ").removesuffix(")")
    assert how != snap["table"]["message"] and how.removesuffix(", then press OK").split(
        ", then "
    ) == re.split("[-,]", hint)
    other = next(a for a in snap["legal"] if a != snap["table"]["hint"])
    press_all(rt, other)
    assert rt.call(c.Snapshot())["table"]["hint"] is None


def ask_for_a_hint(rt):
    rt.call(c.NewGame("drangles", 2, {}, None, None, None))
    press_all(rt, "0")
    assert rt.call(c.Hint()).ok
    wait_for(rt, lambda s: s["table"]["hint"])


@pytest.mark.parametrize("scale", [1.0, 0.2, 4.0])
def test_the_config_time_scale_reaches_the_search(make, searched, scale):
    ask_for_a_hint(make(Config(computer=Computer(time_scale=scale))))
    assert [lvl.seconds for lvl in searched] == [pytest.approx(ai.LEVELS[ai.HINT_LEVEL].seconds * scale)]


def test_the_time_scale_setting_overrides_the_config_and_is_kept(make, searched):
    rt = make(Config(computer=Computer(time_scale=8.0)))
    assert rt.call(c.Snapshot())["settings"]["time_scale"] == 8.0  # the config's until changed
    rt.call(c.ChangeSettings(**{"time_scale": 2}))
    before = rt.call(c.Snapshot())
    for bad in (0.05, 21, True, "2", None):
        with pytest.raises(CommandError, match="time_scale multiplies"):
            rt.call(c.ChangeSettings(**{"time_scale": bad}))
    assert rt.call(c.Snapshot())["settings"] == before["settings"]
    ask_for_a_hint(rt)
    assert [lvl.seconds for lvl in searched] == [pytest.approx(ai.LEVELS[ai.HINT_LEVEL].seconds * 2)]
    rt.stop()
    again = make(Config(computer=Computer(time_scale=8.0)))  # the same store: a restart keeps it
    assert again.call(c.Snapshot())["settings"]["time_scale"] == 2.0


def test_a_computer_seat_searches_at_its_games_own_level(make, searched):
    rt = make()
    rt.call(c.NewGame("hyper-chess", 2, {}, None, None, ["medium", "human"]))  # blue, the computer, begins
    wait_for(rt, lambda s: s["table"]["proposal"])
    assert searched == [ai.level("medium", game=find("hyper-chess"))]
    assert searched[0].iterations == find("hyper-chess").computer_levels["medium"]["iterations"]


def test_a_physical_die_is_rolled_for_the_computer_once_asked_and_the_loop_waits(make):
    """With the players' own GRYB die the computer's roll is theirs to make: the runtime asks once, names
    the computer, and waits. (It used to ask again at every turn of its loop: some 50,000 snapshots a
    second, the board's CPU flat out and every open page flooded.)"""
    rt = make()
    rt.call(c.ChangeSettings(**{"die": "physical"}))
    rt.call(c.NewGame("ez-gryb", 2, {}, None, None, ["easy", "human"]))
    asked = wait_for(rt, lambda s: s["table"]["choices"])
    assert (
        asked["table"]["message"]
        == "roll the GRYB die for Player 1 (computer, easy), then choose the colour it shows on the phone"
    )
    assert [c["action"] for c in asked["table"]["choices"]] == ["roll:G", "roll:R", "roll:Y", "roll:B"]
    assert asked["state"]["awaiting_roll"]
    time.sleep(0.3)
    assert rt.call(c.Snapshot())["version"] == asked["version"]  # nothing happens until the players answer
    rt.call(c.Roll())  # ROLL pressed meanwhile asks the same: the die is still rolled for the computer
    assert rt.call(c.Snapshot())["table"]["message"] == asked["table"]["message"]
    rt.call(c.Act("roll:Y"))
    proposed = wait_for(rt, lambda s: s["table"]["proposal"])
    assert proposed["state"]["die"] == "Y" and proposed["table"]["proposal"] == "Y"


@pytest.fixture
def held(monkeypatch):
    """The first search the runtime starts waits for ``held.release.set()`` before it searches (the real
    search, late: as a hard search on a slow board answers seconds after it began); ``held.thread`` is
    its thread, to join once released."""
    search = ai.search

    class Held:
        release = threading.Event()
        thread = None

    def late(game, lvl, *args, **kwargs):
        if Held.thread is None:
            Held.thread = threading.current_thread()
            Held.release.wait(10)
        return search(game, lvl, *args, **kwargs)

    monkeypatch.setattr(ai, "search", late)
    return Held


def test_a_computer_move_searched_before_an_undo_is_never_proposed_after_it(make, held):
    """UNDO and another move bring the game back to as many actions as before in another position: the
    search begun before the undo answers for a position that is gone. It used to be proposed there (a
    move chosen for another board, or "... is not legal here" with a buzz), and the fresh search's answer
    then replaced it under the hands of the player carrying it out."""
    rt = make()
    rt.call(c.NewGame("25-mens-gryb", 2, {}, None, None, ["human", "easy"]))
    press_all(rt, "GG")
    wait_for(rt, lambda s: held.thread is not None)  # the computer thinks about its answer to GG
    assert rt.call(c.Undo()).ok
    press_all(rt, "GG")  # the chore: the stone taken back is lifted
    press_all(rt, "RR")  # as many actions as when the search began, another position
    snap = wait_for(rt, lambda s: s["table"]["proposal"])  # the answer to RR
    held.release.set()
    held.thread.join(5)  # the answer to GG is queued: anything after it in the queue runs after it
    after = rt.call(c.Snapshot())
    assert after["version"] == snap["version"] and after["table"] == snap["table"]
    assert [a for _, a in rt.store.events(rt.game_id)] == ["GG", None, "RR"]


def test_a_search_nobody_waits_for_any_more_ends_at_once(make, monkeypatch):
    """A search whose answer would be ignored (an UNDO, a new game while it thought; the runtime stopping)
    ends at its next step instead of running out its budget: searches share one interpreter (the GIL),
    and on a Pi a hard search of two seconds left running would cost the next one nearly half its
    iterations. Here the budget is five seconds (time_scale 20), and each search is timed as it ends."""
    spans, search = [], ai.search

    def timed(game, lvl, *args, **kwargs):
        began = time.monotonic()
        try:
            return search(game, lvl, *args, **kwargs)
        finally:
            spans.append((lvl.name, time.monotonic() - began))

    def ended(count):
        return grown_to(spans, count, timeout=8)[count - 1]

    monkeypatch.setattr(ai, "search", timed)
    rt = make(Config(computer=Computer(time_scale=20.0)))
    rt.call(c.NewGame("25-mens-gryb", 2, {}, None, None, ["human", "hard"]))
    press_all(rt, "GG")
    time.sleep(0.3)  # the computer thinks about its answer to GG
    assert rt.call(c.Undo()).ok
    name, seconds = ended(1)
    assert name == "hard" and seconds < 1.5
    assert rt.call(c.Hint()).ok  # a hint for the position after the undo, then a new game
    time.sleep(0.3)
    rt.call(c.NewGame("drangles", 2, {}, None, None, None))
    name, seconds = ended(2)
    assert name == ai.HINT_LEVEL and seconds < 1.5
    rt.call(c.NewGame("hyper-chess", 2, {}, None, None, ["hard", "human"]))  # the computer begins
    time.sleep(0.3)
    rt.stop()
    name, seconds = ended(3)
    assert name == "hard" and seconds < 1.5


def test_a_hint_searched_before_an_undo_is_never_shown_after_it(make, held):
    rt = make()
    rt.call(c.NewGame("25-mens-gryb", 2, {}, None, None, None))
    press_all(rt, "GG")
    assert rt.call(c.Hint()).ok  # for player 2, after GG
    wait_for(rt, lambda s: held.thread is not None)
    assert rt.call(c.Undo()).ok
    press_all(rt, "GG")
    press_all(rt, "RR")  # player 2 to move again, after RR
    before = rt.call(c.Snapshot())
    held.release.set()
    held.thread.join(5)
    after = rt.call(c.Snapshot())
    assert after["table"]["hint"] is None and after["version"] == before["version"]


def test_nothing_is_played_for_the_computer_while_it_thinks_nor_instead_of_its_move(make, held):
    """A press while the computer thinks used to be taken as the computer's own move (on a Pi its hard
    search takes two seconds: a second press of the player's, or a stone knocked, played for it), and a
    move sent from the phone replaced the move it proposed."""
    rt = make()
    rt.call(c.NewGame("25-mens-gryb", 2, {}, None, None, ["human", "easy"]))
    press_all(rt, "GG")
    wait_for(rt, lambda s: held.thread is not None)  # the computer is thinking
    for command in [c.Press("RR"), c.Ok(), c.Act("RR")]:
        feedback = rt.call(command)
        assert (
            not feedback.ok and feedback.message == "Player 2 (computer, easy) is thinking: wait for its move"
        )
    assert [a for _, a in rt.store.events(rt.game_id)] == ["GG"]
    held.release.set()
    snap = wait_for(rt, lambda s: s["table"]["proposal"])
    proposal = snap["table"]["proposal"]
    other = next(a for a in snap["legal"] if a != proposal)
    feedback = rt.call(c.Act(other))
    assert not feedback.ok and feedback.message == f"the computer plays {proposal}: press {proposal}"
    assert rt.call(c.Snapshot())["table"]["proposal"] == proposal
    press_all(rt, proposal)
    assert [a for _, a in rt.store.events(rt.game_id)] == ["GG", proposal]


def test_a_failed_search_still_moves_the_computer(make, monkeypatch, caplog):
    """Nothing may be played for a computer seat but its own move, so a search that fails (a bug, a
    MemoryError on a Pi Zero) must not leave the seat waiting for ever: it plays its first legal action,
    and the failure is logged."""

    def broken(*args, **kwargs):
        raise RuntimeError("search broke")

    monkeypatch.setattr(ai, "search", broken)
    rt = make()
    rt.call(c.NewGame("25-mens-gryb", 2, {}, None, None, ["human", "easy"]))
    press_all(rt, "GG")
    snap = wait_for(rt, lambda s: s["table"]["proposal"])
    assert snap["table"]["proposal"] == snap["legal"][0] and "the easy search failed" in caplog.text
    press_all(rt, snap["table"]["proposal"])
    assert [a for _, a in rt.store.events(rt.game_id)] == ["GG", snap["legal"][0]]


def test_hint_tapped_again_while_one_is_worked_out_starts_no_second_search(make, monkeypatch):
    """Each tap used to start another hard search: thirty taps on a Pi were thirty searches at once."""
    search, started, release = ai.search, [], threading.Event()

    def counted(game, lvl, *args, **kwargs):
        started.append(lvl.name)
        release.wait(10)
        return search(game, lvl, *args, **kwargs)

    monkeypatch.setattr(ai, "search", counted)
    rt = make()
    rt.call(c.NewGame("25-mens-gryb", 2, {}, None, None, None))
    for _ in range(5):
        assert rt.call(c.Hint()).message == "thinking about a hint"
    release.set()
    snap = wait_for(rt, lambda s: s["table"]["hint"])
    assert len(started) == 1 and snap["table"]["hint"] in snap["legal"]
    assert rt.call(c.Hint()).ok and wait_for(rt, lambda s: len(started) == 2)  # asked again once it is shown
    press_all(rt, snap["legal"][0])
    assert rt.call(c.Hint()).ok and wait_for(rt, lambda s: len(started) == 3)  # and for the next position


def test_a_seat_handed_to_the_computer_mid_game_plays_on_and_keeps_its_player(make):
    """A player who has to go leaves their seat to the computer; the game goes on from where it stands."""
    rt = make()
    rt.call(c.NewGame("25-mens-gryb", 2, {}, ["Ann", ""], None, None))
    press_all(rt, "GG")
    press_all(rt, "RR")  # Player 2's first move
    feedback = rt.call(c.Seat(1, "easy", rt.game_id))
    assert feedback.ok and feedback.message == "the computer (easy) plays for Player 2 now"
    snap = rt.call(c.Snapshot())
    # A name the companion gave becomes the one it gives a computer; Ann's own name would have stayed.
    assert snap["seats"] == ["human", "easy"] and snap["table"]["names"] == [
        "Ann",
        "Player 2 (computer, easy)",
    ]
    press_all(rt, snap["legal"][0])  # Ann's move: now the computer answers it
    snap = wait_for(rt, lambda s: s["table"]["proposal"])
    press_all(rt, snap["table"]["proposal"])
    assert len(rt.store.events(rt.game_id)) == 4
    # UNDO is now against the computer: back to Ann's own move, the computer's answer with it.
    assert rt.call(c.Undo()).ok and rt.call(c.Snapshot())["state"]["to_move"] == 0
    rt.stop()
    again = make()  # the seats and the names are the game's, and a restart keeps them
    snap = again.call(c.Snapshot())
    assert snap["seats"] == ["human", "easy"] and snap["table"]["names"] == [
        "Ann",
        "Player 2 (computer, easy)",
    ]
    assert again.store.game_row(again.game_id).names == ["Ann", "Player 2 (computer, easy)"]


def test_a_seat_taken_back_from_the_computer_while_it_thinks_gets_no_move_from_it(make, held):
    """The search begun for the computer answers for a seat a person has taken over since: its move is
    not proposed, and the person plays the turn."""
    rt = make()
    rt.call(c.NewGame("25-mens-gryb", 2, {}, None, None, ["human", "easy"]))
    press_all(rt, "GG")
    wait_for(rt, lambda s: held.thread is not None)  # the computer thinks about its answer to GG
    feedback = rt.call(c.Seat(1, "human"))
    assert feedback.ok and feedback.message == "a person plays for Player 2 now"
    snap = rt.call(c.Snapshot())
    assert snap["seats"] == ["human", "human"] and snap["table"]["names"] == ["Player 1", "Player 2"]
    held.release.set()
    held.thread.join(5)
    time.sleep(0.2)
    snap = rt.call(c.Snapshot())
    assert snap["table"]["proposal"] is None and snap["state"]["to_move"] == 1
    press_all(rt, "RR")  # the person plays the turn
    assert [a for _, a in rt.store.events(rt.game_id)] == ["GG", "RR"]


def test_a_proposal_waiting_for_hands_is_put_away_when_a_person_takes_the_seat(make):
    rt = make()
    rt.call(c.NewGame("drangles", 2, {}, ["Ann", "Bo"], None, ["human", "medium"]))
    snap = rt.call(c.Snapshot())
    while snap["state"]["to_move"] == 0:
        press_all(rt, snap["legal"][0])
        snap = rt.call(c.Snapshot())
    snap = wait_for(rt, lambda s: s["table"]["proposal"])
    assert rt.call(c.Seat(1, "human")).message == "a person plays for Bo now"
    snap = rt.call(c.Snapshot())
    assert snap["table"]["proposal"] is None and snap["table"]["names"] == ["Ann", "Bo"]
    other = next(a for a in snap["legal"] if a != snap["table"]["proposal"])
    press_all(rt, other)  # Bo plays a move of their own, not the one proposed
    assert rt.store.events(rt.game_id)[-1] == ("action", other)


@pytest.mark.parametrize(
    "args, error",
    [
        ((2, "easy"), "seat: 0 to 1"),
        ((-1, "easy"), "seat: 0 to 1"),
        (("1", "easy"), "a seat is one of"),
        ((1, "genius"), "a seat is one of human, easy"),
        ((1, None), "a seat is one of"),
        ((1, "easy", 99999), "a new game has started since"),
    ],
)
def test_a_bad_seat_change_is_refused_and_changes_nothing(make, args, error):
    rt = make()
    rt.call(c.NewGame("drangles", 2, {}, None, None, None))
    before = rt.call(c.Snapshot())
    with pytest.raises(CommandError, match=error):
        rt.call(c.Seat(*args))
    after = rt.call(c.Snapshot())
    assert after["version"] == before["version"] and after["seats"] == ["human", "human"]
    assert rt.store.setting(f"seats:{rt.game_id}") is None


def test_a_stone_lifted_for_the_computers_move_goes_back_when_a_person_takes_the_seat(make):
    """The computer's stone is in a player's hand when a person takes the seat: the proposal is put away
    and the stone is asked back onto its node before anyone plays on."""
    rt = make()
    rt.call(c.NewGame("drangles", 2, {}, ["Ann", "Bo"], None, ["human", "medium"]))
    for node in ("0", "0", "G"):  # Ann enters and moves on
        assert rt.call(c.Press(node)).ok
    snap = wait_for(rt, lambda s: s["table"]["proposal"])
    press_all(rt, snap["table"]["proposal"])  # Bo enters at the head node
    snap = wait_for(rt, lambda s: s["table"]["proposal"] and len(s["table"]["proposal"]) > 1)
    assert snap["table"]["proposal"].startswith("0-")
    assert rt.call(c.Press("0")).ok  # Bo's stone is lifted
    assert rt.call(c.Seat(1, "human")).ok
    snap = rt.call(c.Snapshot())
    assert snap["table"]["proposal"] is None and snap["table"]["picks"] == []
    assert [(c["node"], c["kind"]) for c in snap["table"]["chores"]] == [("0", "put")]
    assert snap["table"]["chores"][0]["text"] == "put a stone of Bo on 0"
    assert not rt.call(c.Press("R")).ok  # the game waits for the stone
    assert rt.call(c.Press("0")).ok and rt.call(c.Snapshot())["table"]["chores"] == []


def test_a_hint_that_arrives_with_a_stone_in_hand_asks_for_the_stone_back_first(make, held):
    """The hint says how to play from nothing selected, so a stone lifted while it was worked out goes
    back first (it was dropped from the selection with no word until 2026-11-26)."""
    rt = make()
    rt.call(c.NewGame("drangles", 2, {}, None, None, None))
    press_all(rt, "0")
    assert rt.call(c.Hint()).ok
    wait_for(rt, lambda s: held.thread is not None)
    assert rt.call(c.Press("0")).ok  # the stone on 0 lifted while the hint is worked out
    held.release.set()
    snap = wait_for(rt, lambda s: s["table"]["hint"])
    assert snap["table"]["picks"] == [] and [(c["node"], c["kind"]) for c in snap["table"]["chores"]] == [
        ("0", "put")
    ]
    assert snap["table"]["message"].startswith("first put a stone of Player 1 on 0 and press it · hint: ")
    assert rt.call(c.Press("0")).ok and rt.call(c.Snapshot())["table"]["chores"] == []
    press_all(rt, snap["table"]["hint"])  # then the hint is played as it says
    assert rt.store.events(rt.game_id)[-1] == ("action", snap["table"]["hint"])


def grown_to(found: list, count: int, timeout: float = 20.0) -> list:
    """A copy of ``found`` (filled by other threads) once it holds ``count`` items, or at the timeout, after
    a moment in which no more come."""
    deadline = time.monotonic() + timeout
    while len(found) < count and time.monotonic() < deadline:
        time.sleep(0.01)
    time.sleep(0.2)
    return list(found)


def test_a_computer_seat_has_its_tables_built_ahead_on_a_thread_of_its_own(make, monkeypatch):
    """ai.warm runs once a game, off the loop, when a seat is the computer's: at a new game, when a seat is
    handed to the computer, and for the game a restart restores; never for a table of people only."""
    warmed, real = [], ai.warm

    def watched(game, *args, **kwargs):
        warmed.append((game.id, threading.current_thread().name))
        return real(game, *args, **kwargs)

    monkeypatch.setattr(ai, "warm", watched)

    def settled(count):
        return grown_to(warmed, count)

    rt = make()
    rt.call(c.NewGame("ez-gryb", 2, {}, None, None, ["human", "human"]))
    assert settled(0) == []
    rt.call(c.NewGame("connection", 2, {}, None, None, ["human", "hard"]))
    assert settled(1) == [("connection", "gryb-warm")]
    rt.call(c.Seat(0, "easy"))  # already warmed for this game
    assert settled(1) == [("connection", "gryb-warm")]
    rt.call(c.NewGame("drangles", 2, {}, None, None, ["human", "human"]))
    rt.call(c.Seat(1, "medium"))
    assert settled(2)[1] == ("drangles", "gryb-warm")
    rt.stop()
    make()  # a restart restores the game with its computer seat
    assert settled(3)[2] == ("drangles", "gryb-warm")


def test_a_kind_of_game_first_warmed_is_settled_so_collections_skip_its_tables(make, caplog):
    """With ``settle`` (gryb-companion run passes app.settle), the first warming of each kind of game is
    followed, on the warming thread, by a settle: the game's tables join the collector's permanent
    generation, and a full collection no longer walks them. Once a kind: a second game of it settles
    nothing; each settle is logged with what it took. The real gc.freeze, undone after the test."""
    calls = []

    def settle():
        calls.append(threading.current_thread().name)
        app.settle()

    def settled(count):
        return grown_to(calls, count)

    caplog.set_level(logging.INFO, logger="companion.service.computer")
    gc.unfreeze()
    try:
        rt = make(settle=settle)
        rt.call(c.NewGame("ez-gryb", 2, {}, None, None, ["human", "human"]))
        assert settled(0) == []  # no computer seat: nothing warmed, nothing settled
        rt.call(c.NewGame("hyper-chess", 2, {}, None, None, ["human", "easy"]))
        assert settled(1) == ["gryb-warm"]
        chess = rt.board.session.hands.game
        live = {id(o) for o in gc.get_objects()}
        assert id(chess.t) not in live and id(chess.t.moves) not in live  # frozen: walked by no collection
        rt.call(c.NewGame("hyper-chess", 2, {}, None, None, ["hard", "human"]))
        assert settled(1) == ["gryb-warm"]  # the same kind again
        rt.call(c.NewGame("hyper-chess", 2, {"headless": True}, None, None, ["hard", "human"]))
        assert settled(2) == ["gryb-warm"] * 2  # another board is another kind
        assert id(rt.board.session.hands.game.t) not in {id(o) for o in gc.get_objects()}
        logged = [r.getMessage() for r in caplog.records if "tables settled" in r.getMessage()]
        assert len(logged) == 2 and all(
            re.fullmatch(
                r"Hyper-Chess: its tables settled in [\d.]+ ms \(no garbage "
                r"collection walks them again\)",
                m,
            )
            for m in logged
        )
    finally:
        gc.unfreeze()
