"""The table: presses and buttons become actions; the physical board never drifts from the engine."""

import random

import pytest

from companion.games.catalogue import catalogue, find
from companion.games.die import Die
from companion.rules.action import ROLL
from companion.session.hands import LIFT, PUT, SWAP, Hands


class Loaded:
    """A die that shows what the test says, through the same interface as the real one."""

    def __init__(self, *faces):
        self.faces = list(faces)

    def roll(self, game):
        face = self.faces.pop(0)
        return next(a for a in game.roll_faces() if str(a) == f"roll:{face}")


def table(game_id, **options):
    return Hands(find(game_id)(**options))


def P(t, name):
    return t.game.space.parse(name)


def test_a_placement_is_one_press_and_a_move_two():
    t = table("drangles")
    assert t.press(P(t, "0")).ok and str(t.game.history[-1][0]) == "0"
    fb = t.press(P(t, "0"))
    assert fb.ok and t.picks == (P(t, "0"),)
    assert {t.game.space.name(n) for n in _bits(t.targets())} == {"G", "R", "Y", "B"}
    assert t.press(P(t, "Y")).ok
    assert str(t.game.history[-1][0]) == "0-Y" and t.picks == ()


def _bits(mask):
    from companion.rules.space import bits

    return list(bits(mask))


def test_pressing_the_selected_stone_again_puts_it_down():
    t = table("drangles")
    t.press(P(t, "0"))
    t.press(P(t, "0"))
    assert t.picks
    t.press(P(t, "0"))
    assert t.picks == () and len(t.game.history) == 1


def test_an_illegal_press_is_refused_with_the_reason_and_changes_nothing():
    t = table("drangles")
    before = t.game.state_key()
    fb = t.press(P(t, "G"))
    assert not fb.ok and fb.message == "new stones enter through the head node 0" and fb.node == P(t, "G")
    assert t.game.state_key() == before
    t.press(P(t, "0"))
    t.press(P(t, "0"))
    fb = t.press(P(t, "GG"))
    assert not fb.ok and "0 to GG is not one move" in fb.message
    assert t.picks == (P(t, "0"),)  # the selection survives a wrong target


def test_die_games_need_the_roll_and_a_roll_with_no_move_passes_by_itself():
    t = table("ez-gryb")
    assert t.press(P(t, "G")).message == "roll the die first (ROLL)"
    assert t.ok().message == "roll first (ROLL)"  # not "nothing to confirm: make your move"
    fb = t.roll(Loaded("G"))
    assert fb.ok and fb.rolled and not fb.passed
    assert t.press(P(t, "G")).ok
    fb = t.roll(Loaded("G"))  # player 2 has no stone and G is taken: nothing fits
    assert fb.passed and t.game.to_move == 0 and "no move" in fb.message


def test_when_all_there_is_to_do_is_ok_the_message_says_so():
    """Grim Reaper's birth step with no pair to give birth, for one: nothing pulses on the board, so the
    message says OK is what is left, every time and only then."""
    import random

    from companion.games.die import Die

    rng, die = random.Random(1), Die(1)
    t = Hands(find("grim-reaper")(2), names=["Ann", "Bo"])
    said = 0
    while not t.game.over and len(t.game.history) < 400:
        while t.chores:
            t.press(t.chores[0].node)
        before = t.game.to_move
        if t.game.is_chance:
            fb = t.roll(die)
        else:
            action = rng.choice(t.game.legal_actions())
            fb = t.act(action, pressed=action.sources + action.targets)
        only_ok = (
            not t.game.over
            and not t.game.is_chance
            and {a.kind for a in t.game.legal_actions()} <= {"pass", "end"}
        )
        assert ("OK passes" in fb.message or "OK ends the turn" in fb.message) == only_ok, fb.message
        if only_ok:
            said += 1
            who = (
                "nothing more to play"
                if t.game.to_move == before
                else f"{t.names[t.game.to_move]} has nothing to play"
            )
            assert who in fb.message
    assert said >= 5


def test_what_just_happened_says_who_did_it():
    """The page shows the message under the next player's turn: it names the player who rolled or moved."""
    t = Hands(find("ez-gryb")(), names=["Ann", "Bo"])
    assert t.roll(Loaded("G")).message == "Ann rolled G"
    assert t.press(P(t, "G")).message == "Ann placed a stone on G"
    assert t.roll(Loaded("G")).message == "Bo rolled G: no move, the turn passes"
    t.roll(Loaded("G"))
    t.press(P(t, "G"))
    assert t.press(P(t, "GG")).message == "Ann moved the stone on G to GG"


def test_a_capture_needs_no_chore_when_the_player_pressed_both_nodes():
    t = table("ez-gryb")
    for face, node in (("G", "G"), ("R", "R")):
        t.roll(Loaded(face))
        t.press(P(t, node))
    t.roll(Loaded("R"))
    t.press(P(t, "G"))
    assert t.press(P(t, "R")).ok
    assert t.chores == ()


def test_undo_shows_which_stones_to_put_back_and_waits_for_them():
    t = table("ez-gryb")
    for face, node in (("G", "G"), ("R", "R")):
        t.roll(Loaded(face))
        t.press(P(t, node))
    t.roll(Loaded("R"))
    t.press(P(t, "G"))
    t.press(P(t, "R"))  # player 1 captures R
    undone = t.undo()
    assert [str(a) for a in undone] == ["G-R"]
    assert t.game.roll == "R"  # the roll before the move stands: undo never re-rolls
    kinds = {t.game.space.name(c.node): c.kind for c in t.chores}
    assert kinds == {"G": PUT, "R": SWAP}
    fb = t.press(P(t, "GG"))
    assert not fb.ok and fb.message.startswith("first ")
    assert t.roll(Loaded("G")).ok is False
    t.press(P(t, "G"))
    t.press(P(t, "R"))
    assert t.chores == () and t.press(P(t, "G")).ok  # selection again


def test_a_move_from_the_phone_waits_for_the_stones_still_to_be_moved():
    """After an UNDO the cloth still has the stone on G and none on 0. A move sent from the phone then
    (0-R) would leave a chore asking for a stone on 0, where the engine has none: refused like a press."""
    t = table("drangles")
    for node in ("0", "0", "G"):
        t.press(P(t, node))
    t.undo()
    chores = t.chores
    move = t.game.parse("0-R")
    fb = t.act(move, pressed=move.sources + move.targets)
    assert not fb.ok and fb.message == "first put a stone of Player 1 on 0 and press it"
    assert t.chores == chores and t.game.owner(P(t, "0")) == 0 and len(t.game.history) == 1
    for chore in chores:
        t.press(chore.node)
    assert t.act(move, pressed=move.sources + move.targets).ok and t.chores == ()


def test_ok_passes_when_passing_is_all_that_is_left_and_refuses_otherwise():
    t = table("drangles")
    assert not t.ok().ok


def test_chores_after_a_change_the_player_did_not_press():
    t = table("ez-gryb")
    t.roll(Loaded("G"))
    t.press(P(t, "G"))
    # Something the players did not do at the board (the phone, a computer player): the stone to lift blinks.
    t.undo()
    assert [(t.game.space.name(c.node), c.kind) for c in t.chores] == [("G", LIFT)]


def test_table_state_for_the_page():
    t = table("drangles")
    t.press(P(t, "0"))
    t.press(P(t, "0"))
    data = t.to_dict()
    assert data["picks"] == ["0"] and set(data["targets"]) == {"G", "R", "Y", "B"}
    assert data["names"] == ["Player 1", "Player 2"]


GAME_IDS = sorted(cls.id for cls in catalogue())


def carry_out(t, steps):
    """Do what :meth:`Hands.how_to` says, at the table: presses, OK, ROLL, the phone's choice. Returns the
    actions the game took (rolls and passes that followed included)."""
    before = len(t.game.history)
    for kind, what in steps:
        if kind == "press":
            t.press(what)  # may be refused: presses that fit several actions offer the choice
        elif kind == "ok":
            t.ok()
        elif kind == "roll":  # the roll chosen over moves without the die (PyraGRYB's reincarnation)
            from companion.games.die import Die

            assert t.roll(Die(0)).ok
        else:
            assert what in t.choices, (str(what), [str(c) for c in t.choices])
            assert t.act(what, pressed=what.sources + what.targets).ok
    return [entry[0] for entry in t.game.history[before:]]


def carry_out_proposal(t, action):
    """The computer proposes ``action``; the players do what the board asks: its presses in turn, then
    OK where the board says so. Returns the actions the game took."""
    from companion.session.hands import _presses

    before = len(t.game.history)
    t.propose(action)
    for node in _presses(action):
        assert t.proposal == action and t._proposal_step()  # the board can always say what comes next
        assert t.press(node).ok, (str(action), t.game.space.name(node))
    if t.proposal is not None:
        assert t._proposal_step() == "press OK", str(action)
        assert t.ok().ok
    return [entry[0] for entry in t.game.history[before:]]


def single_press_on_own_stone(game, legal):
    """The actions that are one press on a stone of the mover's own that could also be moved: the press
    selects the stone, so these need OK (entering on it, reincarnation, a conduit move)."""
    from companion.rules.action import MOVE
    from companion.session.hands import _presses

    movable = {a.sources[0] for a in legal if a.kind == MOVE and len(a.sources) == 1}
    return [
        a
        for a in legal
        if a.kind != MOVE
        and len(_presses(a)) == 1
        and a.targets[0] in movable
        and game.owner(a.targets[0]) == game.to_move
    ]


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_whole_random_games_through_presses_alone(game_id):
    """Any legal action of any game can be made by presses (and ROLL/OK; where presses fit several
    actions, the phone's choice), so the board alone plays a whole game: at every turn the steps
    ``how_to`` gives make the action on a copy of the table (a sample of the legal actions, and every
    one-press action on a stone that could also move), and the game goes on with one of them. Each of
    those, proposed by the computer, is carried out by its presses and OK as the board asks."""
    import random

    from companion.games.die import Die

    rng = random.Random(3)
    die = Die(3)
    cls = find(game_id)
    t = Hands(cls(cls.max_players if cls.max_players > 2 else 2, turn_limit=40))
    while not t.game.over:
        while t.chores:  # what the rules moved and nobody pressed (a capture, ageing): lift or put, press
            assert t.press(t.chores[0].node).ok
        if t.game.is_chance:
            assert t.roll(die).ok
            continue
        legal = t.game.legal_actions()
        tried = rng.sample(legal, min(6, len(legal))) + single_press_on_own_stone(t.game, legal)
        for action in tried:
            steps = t.how_to(action)
            assert steps, f"no way to make {action} at the table"
            assert carry_out(Hands(t.game.copy()), steps)[0] == action, (str(action), steps)
            if action.sources or action.targets:
                assert carry_out_proposal(Hands(t.game.copy()), action)[0] == action, str(action)
        action = rng.choice(legal)
        assert carry_out(t, t.how_to(action))[0] == action


@pytest.mark.parametrize("game_id, players", [("drangles", 2), ("multiverse", 2)])
def test_a_computer_move_of_one_press_on_its_own_stone_is_carried_out_with_ok(game_id, players):
    """The computer's move is such an action ('Drangles: a new stone entering at the head node, where
    its own stone stands): the press selects the stone, and OK then makes the computer's move (it was
    refused, and asking what to press next failed, until 2026-11-25)."""
    import random

    rng = random.Random(2)
    game = find(game_id)(players)
    while not single_press_on_own_stone(game, [] if game.is_chance else game.legal_actions()):
        game.apply(game.random_action(rng) if game.is_chance else rng.choice(game.legal_actions()))
    action = single_press_on_own_stone(game, game.legal_actions())[0]
    node = game.space.name(action.targets[0])
    t = Hands(game)
    assert t.propose(action).message == f"the computer plays {action}: press {node}"
    assert t.ok().ok is False  # nothing pressed yet: OK is refused, with what to press
    feedback = t.press(action.targets[0])
    assert feedback.ok and feedback.message.startswith(f"{node} selected: press OK to ")
    assert t.ok().ok and game.history[-1][0] == action and t.proposal is None


def test_the_board_says_where_the_computers_stone_goes_once_it_is_lifted():
    """The computer's move of a stone or a line: each press says what is left to do, stone by stone. The
    press that lifted a stone was answered "0 selected" (until 2026-11-25), which left the player holding
    the computer's stone with no word of where it goes."""
    import random

    from companion.rules.action import MOVE, Action

    t = table("drangles")
    assert t.press(P(t, "0")).ok  # Player 1 enters at the head node; their second move is the computer's
    action = Action.move(P(t, "0"), P(t, "Y"))
    assert t.propose(action).message == "the computer plays 0-Y: lift its stone from 0 and press there"
    feedback = t.press(P(t, "0"))
    assert feedback.ok and t.picks == (P(t, "0"),)
    assert feedback.message == "the computer plays 0-Y: put it on Y and press there"
    assert t.press(P(t, "Y")).ok and t.game.history[-1][0] == action

    rng = random.Random(1)
    game = find("lines-morris")(stones=6)
    while not any(a.kind == MOVE and len(a.sources) == 2 for a in game.legal_actions()):
        game.apply(rng.choice(game.legal_actions()))
    line = next(a for a in game.legal_actions() if a.kind == MOVE and len(a.sources) == 2)
    t = Hands(game)
    (a, b), (c, d) = [[game.space.name(n) for n in nodes] for nodes in (line.sources, line.targets)]
    assert (
        t.propose(line).message == f"the computer plays {line}: lift its stone from {a}, {b} and press there"
    )
    assert (
        t.press(line.sources[0]).message
        == f"the computer plays {line}: lift its stone from {b} and press there"
    )
    assert (
        t.press(line.sources[1]).message == f"the computer plays {line}: put it on {c}, {d} and press there"
    )
    assert t.press(line.targets[0]).message == f"the computer plays {line}: put it on {d} and press there"
    assert t.press(line.targets[1]).ok and game.history[-1][0] == line and t.proposal is None


def test_the_computers_move_shows_its_stones_to_lift_and_its_nodes_to_fill_from_the_start():
    """What the board marks of a proposal (``proposed``): the stones still to lift and the nodes still to
    fill, both before anything is pressed (only the stone was shown until its lift, so the target stayed
    dark); a line sliding along itself neither lifts nor fills the node it keeps."""
    import random

    from companion.rules.action import MOVE, REMOVE, Action
    from companion.session.hands import _mask

    t = table("drangles")
    assert t.proposed() == (0, 0)
    assert t.press(P(t, "0")).ok
    t.propose(Action.move(P(t, "0"), P(t, "Y")))
    assert t.proposed() == (_mask([P(t, "0")]), _mask([P(t, "Y")]))
    assert t.press(P(t, "0")).ok
    assert t.proposed() == (0, _mask([P(t, "Y")]))
    assert t.press(P(t, "Y")).ok and t.proposed() == (0, 0)

    rng = random.Random(0)
    game = find("lines-morris")()
    slide = None
    while slide is None:  # the men all placed, a line that can slide along itself (50 plies)
        game.apply(rng.choice(game.legal_actions()))
        slide = next(
            (a for a in game.legal_actions() if a.kind == MOVE and set(a.sources) & set(a.targets)), None
        )
    t = Hands(game)
    t.propose(slide)
    kept = set(slide.sources) & set(slide.targets)
    (lifted,), (filled,) = set(slide.sources) - kept, set(slide.targets) - kept
    assert t.proposed() == (_mask([lifted]), _mask([filled]))
    assert t.press(lifted).ok and t.proposed() == (0, _mask([filled]))

    t = table("drangles")
    t.propose(Action.place(P(t, "0")))
    assert t.proposed() == (0, _mask([P(t, "0")]))  # a placement: the node to fill
    game = find("25-mens-gryb")()
    for text in "G GG R GR Y GY B".split():  # Player 1's men cover the top quadrangle: a man to remove
        game.apply(text)
    removal = game.legal_actions()[0]
    assert game.pending and removal.kind == REMOVE
    t = Hands(game)
    t.propose(removal)
    assert t.proposed() == (_mask(removal.targets), 0)  # a removal: the stone to lift


@pytest.mark.parametrize("game_id, players", [("multiverse", 2)])
def test_ok_makes_the_one_press_action_on_a_selected_stone_of_your_own(game_id, players):
    """A press on your own stone that can move selects it; when that press is also a whole action, OK
    makes it, and the message says which. Multiverse: your conduit marker onto the top-level node where
    your own ring stands (OK refused it until 2026-11-25, so the conduit could not move there from the
    board). PyraGRYB's reincarnation, offered before the roll since issue 45, is tested below."""
    import random

    rng = random.Random(1)
    game = find(game_id)(players)
    while not single_press_on_own_stone(game, [] if game.is_chance else game.legal_actions()):
        game.apply(game.random_action(rng) if game.is_chance else rng.choice(game.legal_actions()))
    action = single_press_on_own_stone(game, game.legal_actions())[0]
    t = Hands(game)
    feedback = t.press(action.targets[0])
    assert feedback.ok and t.picks == action.targets and not game.history[-1][0] == action
    words = "take it off the board" if game_id == "pyragryb" else f"play {action}"
    assert (
        feedback.message == f"{game.space.name(action.targets[0])} selected: press a target, or OK to {words}"
    )
    assert t.how_to(action) == (("press", action.targets[0]), ("ok", None))
    assert t.say_how(action) == f"press {game.space.name(action.targets[0])}, then press OK"
    assert t.ok().ok and game.history[-1][0] == action


def test_how_to_in_words():
    from companion.rules.action import Action

    t = table("drangles")
    t.press(P(t, "0"))
    assert t.say_how(Action.move(P(t, "0"), P(t, "Y"))) == "press 0, then Y"
    assert t.say_how(Action.place(P(t, "G"))) == "G is not legal here"
    t = table("ez-gryb")
    t.roll(Loaded("G"))
    assert t.say_how(Action.place(P(t, "G"))) == "press G"
    g = find("grim-reaper")(2)
    t = Hands(g)
    choice = next(a for a in g.legal_actions() if a.targets)
    assert (
        t.say_how(choice)
        == f'press {g.space.name(choice.targets[0])}, then choose "{g.say(choice)}" on the phone'
    )


def test_the_computers_move_is_said_in_words_as_a_hint_is():
    """Grim Reaper's notation (M1GGG) is its own: the computer's move is said as the hint and the buttons
    say it, not in notation."""
    game = find("grim-reaper")(2)
    t = Hands(game)
    action = next(a for a in game.legal_actions() if a.targets)
    where = game.space.name(action.targets[0])
    assert t.propose(action).message == f"the computer plays {game.say(action)}: press {where}"
    assert game.say(action) == f"male, 1 turn, on {where}" and str(action) not in t.message


def test_presses_that_fit_several_actions_are_never_guessed():
    """Grim Reaper: a press on a free square fits a placement of either sex and any lifespan."""
    from companion.games.catalogue import find
    from companion.session.hands import Hands

    game = find("grim-reaper")(2)
    table = Hands(game)
    node = next(a.targets[0] for a in game.legal_actions() if a.targets)
    feedback = table.press(node)
    assert feedback.ok and "ways: choose one with the buttons below the board" in feedback.message  # no buzz
    assert not game.history and len(table.choices) > 1
    # One button each, in words: the sex, the life and the node.
    buttons = table.to_dict()["choices"]
    assert [b["action"] for b in buttons] == [str(a) for a in table.choices]
    assert buttons[0]["label"] == f"male, 1 turn, on {game.space.name(node)}"
    assert buttons[-1]["label"] == f"female, 12 turns, on {game.space.name(node)}"
    where = game.space.name(node)
    assert (
        table.say_how(table.choices[9])
        == f'press {where}, then choose "male, 10 turns, on {where}" on the phone'
    )
    chosen = table.choices[-1]
    assert table.act(chosen, pressed=(node,)).ok and game.history[-1][0] == chosen
    assert table.choices == ()


def test_a_physical_die_the_players_roll_themselves():
    from companion.games.catalogue import find
    from companion.session.hands import Hands

    # Colour die: ROLL asks for the colour; the phone's choice is the roll of the record.
    game = find("ez-gryb")(2)
    table = Hands(game, physical_die=True)
    feedback = table.roll(None)
    assert feedback.ok and "choose the colour" in feedback.message and not game.history
    assert [str(a) for a in table.choices] == ["roll:G", "roll:R", "roll:Y", "roll:B"]
    assert table.act(table.choices[2], pressed=()).ok and game.roll == "Y"
    # Node die (GRYB Dice II): the node the die shows is pressed on the board.
    game = find("fourth-level")(2)
    table = Hands(game, physical_die=True)
    assert game.is_chance
    face = game.roll_faces()[5]
    assert table.press(face.targets[0]).ok and game.history[-1][0] == face
    assert not game.is_chance


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_whatever_is_pressed_the_table_answers_and_never_fails(game_id):
    """Fuzzing the board's inputs: presses on any node, OK, UNDO, ROLL, the phone's choices and actions,
    and the computer's proposals (carried out by the players half the time, ignored or contradicted the
    rest), electronic and physical die, the most players. Every input gets an answer (a Feedback), the
    page's view of the table can always be drawn, and the game is always one the engine accepts. (A
    proposal entering on the computer's own stone once raised IndexError on OK.)"""
    import random

    from companion.games.die import Die
    from companion.session.hands import Feedback, _presses

    cls = find(game_id)
    options = {"turn_limit": 30} if any(o.name == "turn_limit" for o in cls.options) else {}
    for seed in range(4):
        rng = random.Random(f"{game_id} fuzz {seed}")
        t = Hands(cls(cls.max_players, **options), physical_die=seed % 2 == 1)
        die, nodes = Die(seed), list(t.game.space.nodes)
        for _ in range(1200):
            game = t.game
            if game.over:
                break
            legal = [] if game.is_chance else game.legal_actions()
            r = rng.random()
            if t.proposal is not None and r < 0.5:
                seq = _presses(t.proposal)
                answer = t.press(seq[len(t.picks)]) if len(t.picks) < len(seq) else t.ok()
            elif r < 0.04 and legal and t.proposal is None and not t.chores:
                answer = t.propose(rng.choice(legal))
            elif r < 0.08:
                answer = t.ok()
            elif r < 0.10:
                answer = t.undo()
            elif r < 0.20:
                answer = t.roll(die)
            elif r < 0.25 and t.choices:
                choice = rng.choice(t.choices)
                answer = t.act(choice, pressed=choice.sources + choice.targets)
            elif r < 0.30 and t.chores:
                answer = t.press(t.chores[0].node)
            elif r < 0.35 and legal and t.proposal is None and not t.chores:
                answer = t.act(rng.choice(legal), pressed=())
            else:
                answer = t.press(rng.choice(nodes))
            assert isinstance(answer, (Feedback, list))  # undo answers with what it took back
            t.to_dict()
            t.targets()
        replayed = cls(cls.max_players, **options)
        for action, _ in t.game.history:
            replayed.apply(action)
        assert replayed.state_dict() == t.game.state_dict()


def test_a_game_that_ends_with_stones_to_lift_says_its_result_again_once_they_are():
    """Grim Reaper's last turn can age pieces to death: the game is over with stones still to lift. Once
    the last is lifted, the message is the result again, not only that the board agrees."""
    import random

    from companion.games.die import Die
    from companion.session.hands import outcome

    rng, die = random.Random(0), Die(0)
    t = Hands(find("grim-reaper")(2))
    while not t.game.over:
        while t.chores:
            assert t.press(t.chores[0].node).ok
        if t.game.is_chance:
            assert t.roll(die).ok
        else:
            action = rng.choice(t.game.legal_actions())
            assert t.act(action, pressed=action.sources + action.targets).ok
    assert t.chores, "this seed's game ends with stones to lift"
    while t.chores:
        last = t.press(t.chores[0].node)
    assert last.ok and last.message == f"board and game agree again: {outcome(t.game, t.names)}"
    assert outcome(t.game, t.names) in ("a draw", "Player 1 won", "Player 2 won")
    assert t.roll(die).message == "the game is over: OK plays it again"  # ROLL at the end points the way on
    # ... and so does a press: holding UNDO only opens the brightness menu, it starts nothing
    assert t.press(t.game.space.nodes[0]).message == "the game is over: OK plays it again"


def test_a_pass_offered_beside_moves_is_said_and_ok_makes_it():
    """PyraGRYB: every move "may" be made (003), so after the roll OK passes even where a move fits; the
    board pulses the move, and the words say OK passes instead (issue 45: the slide G-R was forced)."""
    game = find("pyragryb")(2)
    for text in ("roll:G", "G", "roll:R", "R"):
        game.apply(game.parse(text))
    t = Hands(game)
    t.act(game.parse("roll:R"), pressed=())
    assert t.message == "Player 1 rolled R · make a move, or OK passes"
    assert sorted(map(str, game.legal_actions())) == ["G-R", "GR", "pass"]
    assert t.ok().message.startswith("Player 1 passed") and game.to_move == 1


def _out_of_large():
    """PyraGRYB with one pyramid of each size: Player 1's only large one is on G, so their next turn offers
    taking it back (reincarnation) before the roll."""
    game = find("pyragryb")(2, pieces=1)
    t = Hands(game)
    t.roll(Loaded("G"))
    t.press(P(t, "G"))
    t.roll(Loaded("G"))  # G is taken: Player 2 passes by itself
    return t


def test_reincarnation_is_offered_before_the_roll_and_is_one_press_and_ok():
    """003: "No roll of the die is needed for this type of move": the turn begins with ROLL or the piece
    to take back; the board pulses it and the die waits; a press selects it and OK takes it off."""
    from companion.session.renderer import Effects, render

    t = _out_of_large()
    game = t.game
    assert t.message == "Player 2 rolled G: no move, the turn passes · ROLL, or without rolling: xG"
    assert not game.is_chance and game.roll_offered and game.state_dict()["awaiting_roll"]
    assert sorted(map(str, t.legal())) == ["roll", "xG"] and t.targets() == 1 << P(t, "G")
    picture = render(game, t, [(255, 0, 0), (0, 0, 255)], Effects(), 0.0)
    assert picture.status[-1] == (255, 0, 0)  # the die's pixels blink for ROLL in the mover's colour
    assert t.ok().message == "nothing to confirm: ROLL, or select a move that needs no roll"
    assert t.press(P(t, "R")).message.startswith("roll first (roll), or take back a piece")
    assert t.press(P(t, "G")).message == "G selected: press OK to take it off the board"
    assert t.how_to(game.parse("xG")) == (("press", P(t, "G")), ("ok", None))
    assert t.say_how(game.parse("roll")) == "press ROLL"
    assert t.ok().ok and str(game.history[-1][0]) == "xG" and game.stash[0] == (1, 1, 1)
    assert [c.kind for c in t.chores] == [] and game.to_move == 1 and game.is_chance


def test_roll_at_the_start_of_a_turn_that_offers_a_move_without_the_die_rolls():
    """ROLL chooses the die over the reincarnation and rolls it at once; the record keeps both (R: no
    large pyramid to enter, so the turn passes). With a physical die it asks for the colour."""
    t = _out_of_large()
    feedback = t.roll(Loaded("R"))
    assert feedback.ok and feedback.rolled and feedback.passed
    assert feedback.message == "Player 1 rolled R: no move, the turn passes"
    assert [str(a) for a, _ in t.game.history[-3:]] == ["roll", "roll:R", "pass"]
    t = _out_of_large()
    t.physical_die = True
    assert t.roll(Loaded()).message == "roll your GRYB die, then choose the colour it shows on the phone"
    assert t.game.is_chance and [str(a) for a in t.choices] == ["roll:G", "roll:R", "roll:Y", "roll:B"]


def test_a_stone_lifted_for_the_computers_move_is_put_back_when_undo_takes_the_move_away():
    """The player lifted the computer's stone, then pressed UNDO: the stone in their hand is still on
    that node in the engine, so a chore asks for it back (the cloth and the engine drifted apart, with
    no word, until 2026-11-26)."""
    game, move = _moving("lines-morris", stones=6)
    t = Hands(game)
    source = move.sources[0]
    assert t.propose(move).ok and t.press(source).ok  # the stone is in hand
    stones = game.stones
    undone = t.undo()
    assert len(undone) == 1 and game.owner(source) == 1 - game.to_move  # the mover's last move taken back
    kinds = {c.node: c.kind for c in t.chores}
    assert kinds[source] == PUT and t.picks == () and t.proposal is None
    assert (
        next(c for c in t.chores if c.node == source).describe(["Ann", "Bo"])
        == f"put a stone of {['Ann', 'Bo'][1 - game.to_move]} on {game.space.name(source)}"
    )
    assert not t.press(move.targets[0]).ok  # the game waits for the stone
    for chore in t.chores:
        assert t.press(chore.node).ok
    assert t.chores == () and game.stones != stones


def _moving(game_id, **options):
    """A game played at random until the player to move has a move of one stone, just after the other
    player's action did not touch that stone; and that move."""
    import random

    from companion.rules.action import MOVE

    for seed in range(50):
        rng, game = random.Random(seed), find(game_id)(**options)
        while not game.over:
            game.apply(rng.choice(game.legal_actions()))
            last = game.history[-1][0]
            moves = [
                a
                for a in game.legal_actions()
                if a.kind == MOVE and len(a.sources) == 1 and a.sources[0] not in last.sources + last.targets
            ]
            if moves and not game.over:
                return game, moves[0]
    raise AssertionError(f"no {game_id} game reached a move of one stone")


def test_stones_already_moved_for_a_line_are_put_back_when_the_move_is_dropped():
    """A line half carried out (both stones lifted, one put down) and the seat handed to a person: the
    lifted stones go back, the one put down comes off."""
    import random

    from companion.rules.action import MOVE

    rng = random.Random(1)
    game = find("lines-morris")(stones=6)
    while not any(a.kind == MOVE and len(a.sources) == 2 for a in game.legal_actions()):
        game.apply(rng.choice(game.legal_actions()))
    line = next(
        a
        for a in game.legal_actions()
        if a.kind == MOVE and len(a.sources) == 2 and not set(a.sources) & set(a.targets)
    )
    t = Hands(game)
    stones = game.stones
    t.propose(line)
    for node in (*line.sources, line.targets[0]):
        assert t.press(node).ok
    t.drop()
    name = game.space.name
    assert {name(c.node): c.kind for c in t.chores} == {
        name(line.sources[0]): PUT,
        name(line.sources[1]): PUT,
        name(line.targets[0]): LIFT,
    }
    assert t.picks == () and game.stones == stones  # the engine never moved
    for chore in t.chores:
        t.press(chore.node)
    assert t.chores == ()


def test_a_selected_stone_is_put_back_when_the_phone_plays_another_move():
    """A stone lifted at the table, then another move chosen on the phone: the stone in hand goes back
    where the engine still has it."""
    game, move = _moving("lines-morris", stones=6)
    t = Hands(game)
    source = move.sources[0]
    other = next(a for a in game.legal_actions() if source not in a.sources + a.targets)
    assert t.press(source).ok and t.picks == (source,)
    assert t.act(other, pressed=other.sources + other.targets).ok
    assert [(c.node, c.kind) for c in t.chores] == [(source, PUT)]


def test_dropping_a_selection_asks_only_for_what_the_cloth_lacks():
    """Nothing picked: nothing to do. A stone lifted whose placement UNDO then takes back: it is off the
    cloth and off the engine, so no chore either."""
    t = table("drangles")
    t.drop()
    assert t.chores == ()
    t.press(P(t, "0"))
    assert t.press(P(t, "0")).ok and t.picks == (P(t, "0"),)
    assert [str(a) for a in t.undo()] == ["0"]
    assert t.chores == () and t.game.owner(P(t, "0")) is None


@pytest.mark.parametrize("game_id", ["25-mens-gryb", "drangles", "ez-gryb"])
def test_what_the_table_keeps_per_position_follows_every_press_undo_and_roll(game_id):
    """The table works out the legal actions and the targets once per position (a press asks for them
    several times): through presses, undos (the same number of actions again, but other ones), chores
    and rolls, what it hands out is what a table new to the position works out."""
    rng = random.Random(game_id)
    t = table(game_id)
    die = Die(7)
    for step in range(300):
        if t.game.over:
            break
        assert t.legal() == t.game.legal_actions()
        fresh = Hands(t.game, names=t.names, picks=t.picks, chores=t.chores, proposal=t.proposal)
        assert t.targets() == fresh.targets()
        if t.chores:
            t.press(t.chores[0].node)
        elif t.game.is_chance:
            t.roll(die)
        elif step % 7 == 3:
            t.undo()
        elif step % 11 == 5 and t.game.history and t.game.history[-1][0].kind != ROLL:
            # Taken back and another played in its place, the table not asked in between (as one command may)
            taken = t.game.undo()
            t.game.push_legal(rng.choice([a for a in t.game.legal_actions() if a != taken] or [taken]))
        else:
            nodes = list(_bits(t.targets())) or [n for a in t.legal() for n in a.sources + a.targets]
            if nodes:
                t.press(rng.choice(nodes))
            else:
                t.ok()
    assert step > 100


def test_a_computer_offered_a_move_before_the_roll_chooses_it_and_roll_waits_for_its_choice():
    """Issue 45: at a turn that offers reincarnation, ROLL is the computer's choice to make, so a player's
    ROLL is refused while it thinks; its "roll" is played at once (nothing to press), then the die is due."""
    from companion.rules.action import CHOOSE_ROLL
    from companion.session.session import Session

    game = find("pyragryb")(2, pieces=1)
    for text in ("roll:G", "G", "roll:G", "pass"):
        game.apply(game.parse(text))
    session = Session.begin(game, kinds=["easy", "human"])
    assert session.computer_to_move() == "easy" and not game.is_chance
    refused = session.roll(Loaded("R"))
    assert not refused.ok and refused.message.endswith("is thinking: wait for its move")
    assert session.propose(CHOOSE_ROLL).ok and game.is_chance and str(game.history[-1][0]) == "roll"
    assert session.roll(Loaded("R")).ok and str(game.history[-2][0]) == "roll:R"


def test_every_owed_action_is_said_in_words_and_kept_after_undo():
    """Issue 46: a removal after a GRYB, what is left of it, a second move of the turn and a forced pass are
    said, from the position alone, so an UNDO back into one says it again."""
    mens = find("25-mens-gryb")
    t = Hands(mens(2, depth=3, stones=4), names=["Ann", "Bo"])
    for name in "G GG R RR Y YY".split():
        t.press(P(t, name))
    assert t.owed() == ""
    assert t.press(P(t, "B")).message == "Ann placed a man on B · Ann made a GRYB: remove one of Bo's men"
    assert t.to_dict()["owed"] == "Ann made a GRYB: remove one of Bo's men"
    # A level-2 GRYB removes two men: then one more.
    quad = Hands(mens(2), names=["Ann", "Bo"])
    for name in "BBBB RRRR BBBY RRRY GG RRRG GR YYYY GY YYYR GB".split():
        assert quad.press(P(quad, name)).ok, quad.message
    assert quad.owed() == "Ann made a GRYB: remove 2 of Bo's men"
    assert quad.press(P(quad, "RRRR")).message.startswith("Ann removed Bo's man on RRRR · ")
    assert quad.owed() == "Ann made a GRYB: remove one more of Bo's men"
    quad.undo()  # the man put back: the two are owed again
    assert quad.owed() == "Ann made a GRYB: remove 2 of Bo's men"
    drangles = Hands(find("drangles")(), names=["Ann", "Bo"])
    drangles.press(P(drangles, "0"))
    assert drangles.owed() == "Ann moves again: the same turn"
    ez = Hands(find("ez-gryb")(), names=["Ann", "Bo"])
    ez.roll(Loaded("G"))
    assert ez.owed() == ""  # a turn as usual: the roll, then the move


def test_ok_is_said_to_do_something_only_when_it_does():
    """Issue 46: the page dims OK where it would only refuse (EZ GRYB's tap ends the turn, and OK then
    answered "roll first")."""
    t = Hands(find("ez-gryb")(), names=["Ann", "Bo"])
    assert not t.ok_does() and not t.ok().ok  # a roll is due
    t.roll(Loaded("G"))
    assert not t.to_dict()["ok_does"]  # a node to press: the press is the move
    drangles = Hands(find("drangles")(), names=["Ann", "Bo"])
    drangles.press(P(drangles, "0"))  # a stone entered: the second move of the turn is a choice
    assert drangles.ok_does() == drangles.ok().ok
