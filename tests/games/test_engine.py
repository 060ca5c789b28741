"""Engine basics shared by every game: options, players, undo/redo to any point, the registry."""

import pytest

from companion.games.catalogue import catalogue, find
from companion.games.engine import IllegalAction, OptionError, UnknownGame
from companion.rules.action import Action


def test_goto_any_point_and_back():
    game = find("drangles")()
    script = ["0", "0-G", "0", "0-R", "G-GG", "0"]
    keys = [game.state_key()]
    for text in script:
        game.apply(text)
        keys.append(game.state_key())
    game.goto(2)
    assert game.state_key() == keys[2] and len(game.redo_stack) == 4
    game.goto(6)
    assert game.state_key() == keys[6]
    game.goto(0)
    assert game.state_key() == keys[0]
    with pytest.raises(IllegalAction, match="there is no position 7"):
        game.goto(7)


def test_a_new_action_after_undo_drops_the_redo_line():
    game = find("drangles")()
    for text in ["0", "0-G"]:
        game.apply(text)
    game.undo()
    game.apply("0-R")
    assert game.redo_stack == []
    with pytest.raises(IllegalAction, match="nothing to redo"):
        game.redo()


def test_nothing_to_undo():
    with pytest.raises(IllegalAction, match="nothing to undo"):
        find("ez-gryb")().undo()


def test_options_are_checked_and_converted():
    assert find("ez-gryb")(depth="5").settings["depth"] == 5
    with pytest.raises(OptionError, match="option depth must be from 2 to 6, not 9"):
        find("ez-gryb")(depth=9)
    with pytest.raises(OptionError, match="whole number"):
        find("ez-gryb")(depth="deep")
    with pytest.raises(OptionError, match="has no option 'colour'"):
        find("ez-gryb")(colour="red")
    with pytest.raises(OptionError, match="for 2 players, not 5"):
        find("ez-gryb")(5)
    # A true-or-false option takes the words a command line gives it.
    deal = find("square-deal")
    assert [deal(easy=w).settings["easy"] for w in ("yes", "on", "true", "1", "no", "off", "false", "0")] == [
        True
    ] * 4 + [False] * 4
    with pytest.raises(OptionError, match="option easy is true or false, not 'maybe'"):
        deal(easy="maybe")


def test_registry():
    assert find("ez-gryb").name == "EZ GRYB"
    with pytest.raises(UnknownGame, match="no game 'chess'"):
        find("chess")
    ids = [cls.id for cls in catalogue()]
    assert len(ids) == len(set(ids))
    for cls in catalogue():
        described = cls.describe()
        assert described["id"] == cls.id and described["summary"], cls.id


@pytest.mark.parametrize(
    "text, reason",
    [
        ("", "empty action: write a node to place, FROM-TO to move, xNODE to remove, or pass"),
        ("x", "'x': a removal names the node it empties: xNODE, e.g. xGG"),
        ("roll:Q", "'roll:Q': a colour die shows G, R, Y or B (a node die: roll:@NODE)"),
        ("GX", "'GX': bad node name 'GX': 'X' is not one of the colours G, R, Y, B"),
        ("G,R-B", "'G,R-B': 2 stones move but 1 target is given"),
        ("G-R,B", "'G-R,B': 1 stone moves but 2 targets are given"),
        ("G,G-R,B", "'G,G-R,B': a stone is named twice"),
    ],
)
def test_notation_that_does_not_read_says_what_is_wrong(text, reason):
    with pytest.raises(ValueError) as err:
        Action.parse(text)
    assert str(err.value) == reason


def test_the_die_shows_the_last_roll_only_while_it_has_a_part_in_the_play():
    """``die_shown`` is what the board's die LEDs (and the page's die) show; ``die`` is the last roll of the
    game, whatever the turn (issue 4: "die (the last roll, if any)")."""
    game = find("blobs")(2, stones=4)
    assert game.state_dict()["die"] is None and game.state_dict()["die_shown"] is None  # no roll yet
    rng = __import__("random").Random(5)
    while game.phase == "place" or game.is_chance:
        game.apply(rng.choice(game.legal_actions()))
    last = game.history[-2][0]  # the last placement's roll
    assert last.is_roll and game.state_dict()["die"] == game.state_dict()["die_shown"] == str(last)[6:]
    game.apply(rng.choice(game.legal_actions()))  # the first move of phase two: no die
    assert game.state_dict()["die_shown"] is None and game.state_dict()["die"] == str(last)[6:]
    game.apply(rng.choice(game.legal_actions()))  # and turns after it: the die still names that roll
    assert game.state_dict()["die"] == str(last)[6:]
    game.undo()
    game.undo()
    assert game.state_dict()["die_shown"] == str(last)[6:]
    # A player to roll sees a blank die, not the roll before (as the board's die LEDs); ``die`` keeps it.
    game = find("pyragryb")(2)
    game.apply("roll:G")
    assert game.state_dict()["die"] == game.state_dict()["die_shown"] == "G"
    game.apply("G")
    assert game.is_chance and game.state_dict()["die_shown"] is None and game.state_dict()["die"] == "G"
    game.apply("roll:B")
    assert game.state_dict()["die"] == game.state_dict()["die_shown"] == "B"


def test_a_roll_in_a_game_without_a_die_is_refused_in_those_words():
    with pytest.raises(IllegalAction, match="^'Drangles has no die$"):
        find("drangles")().apply("roll:G")


def test_a_game_ends_with_its_points_or_with_one_for_each_winner_where_it_keeps_none():
    """finish() without points keeps a scoring game's points as they stand (a draw at the turn limit
    must not wipe them); a game played win or lose gives each winner 1."""
    scored = find("ez-gryb")()
    scored.scores = (3, 5)
    scored.finish([1])
    assert scored.over and scored.scores == (3, 5) and scored.winners == (1,)
    plain = find("hyper-chess")()
    assert plain.score is None
    plain.finish([1])
    assert plain.scores == (0, 1)
    plain = find("hyper-chess")()
    plain.finish([])  # a draw: nobody scores
    assert plain.scores == (0, 0) and plain.state_dict()["to_move"] is None  # and nobody is to move


def test_the_outcome_shares_one_among_the_winners_and_a_draw_among_everyone():
    game = find("multiverse")(4)
    game.finish([0, 2])
    assert game.outcome() == [0.5, 0.0, 0.5, 0.0]
    game = find("multiverse")(3)
    game.finish([])
    assert game.outcome() == pytest.approx([1 / 3] * 3)


def test_the_die_s_chances_are_its_faces_equally_and_none_between_rolls():
    game = find("ez-gryb")()
    chances = game.chance_outcomes()
    assert [str(a) for a, _ in chances] == ["roll:G", "roll:R", "roll:Y", "roll:B"]
    assert [p for _, p in chances] == [0.25] * 4
    game.apply("roll:G")
    assert game.chance_outcomes() == []


def test_a_copy_plays_on_without_touching_the_original():
    """The computer player searches on copies: what it plays on one must never reach the game itself."""
    game = find("drangles")()
    for text in ["0", "0-G", "0"]:
        game.apply(text)
    game.undo()
    key, history, redo = game.state_key(), list(game.history), list(game.redo_stack)
    twin = game.copy()
    twin.apply(str(twin.legal_actions()[0]))
    twin.apply(str(twin.legal_actions()[0]))
    twin.settings["turn_limit"] = 1
    assert game.state_key() == key and game.history == history and game.redo_stack == redo
    assert game.settings == find("drangles")().settings and twin.state_key() != key


def test_every_game_s_state_fields_are_plain_attributes_that_undo_puts_back():
    """Undo writes a snapshot straight into the game's dict: a field that were a property (or any data
    descriptor) would be shadowed, not set, so no game may have one."""
    for cls in catalogue():
        game = cls(cls.min_players)
        descriptors = [f for f in game._fields if hasattr(getattr(cls, f, None), "__set__")]
        assert descriptors == [], f"{cls.id}: {descriptors}"
        key = game.state_key()
        game.push_legal(game.legal_actions()[0])
        game.undo()
        assert game.state_key() == key, cls.id


def test_the_gryb_the_last_action_formed_and_none_after_the_next():
    """``formed``: what the board marks gold until the next action. A game keeps its last GRYBs in
    ``grybs`` after that (25 Men's GRYB through the removal it earns, Square Deal until the next capture)."""
    game = find("25-mens-gryb")()
    for text in "G GG R GR Y GY".split():
        game.apply(text)
        assert game.formed() == ()
    game.apply("B")  # Player 1's men cover the top quadrangle
    assert game.formed() == game.grybs and [game.space.name(n) for n in game.formed()[0].nodes] == list(
        "GRYB"
    )
    game.apply(game.legal_actions()[0])  # the man it removes
    assert game.grybs and game.formed() == ()
    game.undo()
    assert game.formed() == game.grybs  # back to the position the GRYB was formed in
    game.undo()
    assert game.formed() == () == game.grybs

    game = find("square-deal")()
    for text in "G R Y B".split():  # the node die places the four; the fourth captures them whole
        game.apply("roll:@" + text)
        game.apply(text)
    first = game.formed()
    assert first and game.scores == (0, 2)
    game.apply("roll:@G")
    game.apply("G")
    assert game.formed() == () and game.grybs == first
    for text in "R Y B".split():  # the same quadrangle filled and captured again: formed again
        game.apply("roll:@" + text)
        game.apply(text)
    assert game.formed() == first and game.scores == (0, 4)  # Player 2 placed the fourth again
