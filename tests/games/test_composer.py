"""Compositions (docs/composer.md): the file, its checks, the library, and every parameter at play."""

import json
import math
import random
import subprocess
import sys
import textwrap

import pytest

from companion.games.catalogue import catalogue, find, shipped
from companion.games.composed import schema as composition
from companion.games.composed.interpreter import ComposedGame, game_class
from companion.games.composed.schema import CompositionError
from companion.games.engine import IllegalAction, OptionError
from companion.rules.space import mask_of
from companion.service import library as library_mod
from companion.service.library import Library, with_composition
from companion.session.record import GameRecord

HEAD = 'id = "test-game"\nname = "Test"\n'


def rules(toml: str) -> composition.Rules:
    return composition.loads(HEAD + textwrap.dedent(toml))


def game(toml: str, players: int = 2, **options) -> ComposedGame:
    return game_class(rules(toml))(players, **options)


def names(actions) -> set[str]:
    return {str(a) for a in actions}


def place(g: ComposedGame, *per_player: list[str], hand: int | None = None) -> ComposedGame:
    """Put stones on the board (a position to test from); every stone entered unless ``hand`` says."""
    for p, nodes in enumerate(per_player):
        g.set_stones(p, mask_of(g.space.parse_many(nodes)))
    g.in_hand = (hand if hand is not None else 0,) * g.players
    if g.phase == "place":
        g.phase = "move"
    return g


# -- the file and its checks ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "toml, message",
    [
        ("", "players"),  # nothing wrong: the test below replaces this row
        ("[board]\ndepth = 9", "board.depth is from 2 to 6, not 9"),
        ("[board]\nheight = 3", "[board] has no parameter 'height'"),
        ("[colours]\nx = 1", "unknown section [colours]"),
        ("gravity = true", "unknown parameter 'gravity' (it belongs in [moves])"),
        ("players = 5", "players: from 2 to 4"),
        ("players = [3, 2]", "players: from 2 to 4 (a number, or [fewest, most]), not [3, 2]"),
        ("players = [5, 5]", "players: from 2 to 4 (a number, or [fewest, most]), not 5"),
        ('[moves]\ngravity = "yes"', "moves.gravity is true or false, not 'yes'"),
        (
            '[tokens]\nenter = "middle"',
            "tokens.enter is one of head, top, bottom, anywhere, none, not 'middle'",
        ),
        ("[goal]\nwin = []", "goal.win: a game needs at least one way to win"),
        ('[goal]\nwin = ["checkmate"]', "'checkmate' is not a goal"),
        ('[encounters]\nlethal = ["teleport"]', "'teleport' is not a kind of move"),
        (
            'series = ["best-of-99"]',
            "series: 'best-of-99' is not a series preset; presets: ez-best-of-five, ",
        ),
        ("series = [5]", "series: 5 is not a series preset"),
        ('series = ["quick-first-to-8", "quick-first-to-8"]', "series names a preset twice"),
        ('series = "quick-first-to-8"', "series is a list, not 'quick-first-to-8'"),
        ("[options]\nseries = true", "[options] series: a list parameter cannot be an option"),
        ("teams = true\nplayers = 2", "teams: two teams of two need players = 4"),
        ('[board]\nheadless = true\n[tokens]\nenter = "head"', "tokens.enter = 'head' but board.headless"),
        ("[board]\nheadless = true\n[moves]\nreincarnation = true", "reincarnation moves to the head node"),
        ("[tokens]\nrolled = true", "the node die places stones in a first phase"),
        ('[tokens]\nenter = "none"', "no stone can ever be on the board"),
        ("[turn]\nthrough = true", "turn.through needs turn.moves of 2 or more"),
        (
            "[moves]\nexit = true\ngravity = false\nlateral = true",
            "moves.exit leaves the board down (gravity) or up",
        ),
        ('[moves]\nhop_captures = true\nhopping = "own"', "hop_captures needs moves.hopping over opponents"),
        (
            '[encounters]\nlanding = "lethal"\nlethal = ["up"]',
            "encounters.lethal names 'up', a kind of move the game",
        ),
        ('[encounters]\ncapture_only = ["down"]', "with landing = 'stymie' no move can land on an opponent"),
        ("[encounters]\npush = true\npop = true", "push and pop together"),
        ('[tokens]\nenter = "bottom"\n[encounters]\npush = true', "leaves nowhere to push them"),
        ('[goal]\nwin = ["vacate"]', "goal 'vacate': stones must be able to leave the board"),
        ('[goal]\nwin = ["capture"]', "goal 'capture' but nothing captures"),
        ('[goal]\nwin = ["arrangement"]', "needs goal.arrangement"),
        (
            '[goal]\nwin = ["arrangement"]\narrangement = [["G", "GX"]]',
            "goal.arrangement: bad node name 'GX'",
        ),
        ('[goal]\nwin = ["connection"]\nconnect = [["GGGG", "YYYY"]]', "two nodes for each of the 2 seats"),
        ('[goal]\nwin = ["race"]\nrace = "middle"', "goal.race: bad node name 'middle'"),
        (
            '[tokens]\nenter = "bottom"\n[moves]\ngravity = false\nlevity = true\n'
            '[goal]\nwin = ["race"]\nrace = "bottom"',
            "goal.race = 'bottom' is where tokens.enter brings stones in: the first stone entered would win",
        ),
        ("[goal]\nlevels = [5]", "goal.levels names only levels below the bottom of a board of depth 4"),
        ('[tokens]\nresidents = [["G"], ["G"]]', "tokens.residents: G is given to seat 1 and seat 2"),
        ('[tokens]\nresidents = [["G"]]', "one list of nodes for each of the 2 seats"),
        (
            '[board]\nheadless = true\n[tokens]\nresidents = [["G"], ["R"], ["0"]]',
            "tokens.residents: one list of nodes for each of the 2 seats, not 3",
        ),
        (
            "[moves]\nlateral_levels = [1]",
            "moves.lateral_levels limits lateral moves, but moves.lateral is false",
        ),
        # Parameters that could never take effect, refused like lateral_levels without lateral moves.
        (
            '[tokens]\nenter = "anywhere"\n[moves]\ngravity = false\nhopping = "any"',
            "moves.hopping = 'any' hops by the "
            "same kind of move twice, but no kind of move the game allows goes twice on this board "
            "(moves allowed: none)",
        ),
        (
            '[board]\ndepth = 2\n[tokens]\nenter = "bottom"\n'
            '[moves]\ngravity = false\nexcision = true\nhopping = "own"',
            "goes twice on this board (moves allowed: excision)",
        ),  # two levels: an excision cannot follow one
        (
            '[turn]\ncolour_of = "source"',
            "turn.colour_of = 'source' makes the colour rolled the node moved from, but "
            "turn.die = 'none' rolls no colour: set turn.die = 'colour'",
        ),
        (
            "[moves]\ngravity = false\nlateral = true\nreincarnation = true",
            "moves.reincarnation moves a stone from the "
            "bottom level, but no stone can ever get there: moves.gravity is false",
        ),
        (
            '[goal]\nwin = ["race"]\nintegrated = true',
            "goal.integrated is set, but 'gryb' is not among goal.win",
        ),
        ('[goal]\nwin = ["race"]\nendian = "big"', "goal.endian is set, but 'gryb' is not among goal.win"),
        (
            '[goal]\nrace = "top"',
            "goal.race is set, but 'race' is not among goal.win: it would change nothing",
        ),
        (
            '[encounters]\nlanding = "lethal"\n[goal]\ncapture = 3',
            "goal.capture is set, but 'capture' is not among",
        ),
        (
            '[goal]\narrangement = [["G", "R"]]',
            "goal.arrangement is set, but 'arrangement' is not among goal.win",
        ),
        (
            '[goal]\nconnect = [["GGGG", "YYYY"], ["RRRR", "BBBB"]]',
            "goal.connect is set, but 'connection' is not",
        ),
        (
            '[encounters]\ncaptured = "returned"',
            "encounters.captured = 'returned' gives captured stones back, but nothing "
            "captures: encounters.landing is 'stymie' and no hop_captures, push or pop",
        ),
        (
            '[board]\ndepth = 3\n[tokens]\nenter = "bottom"\n'
            '[moves]\ngravity = false\nexcision = true\nhopping = "any"'
            "\n[options]\ndepth = [2, 4]",
            "[options] depth = 2 (an end of its range): moves.hopping",
        ),
        (
            '[encounters]\nlanding = "lethal"\n[goal]\nwin = ["capture"]\ncapture = 21',
            "goal.capture = 21, but captured stones leave the game and an opponent has only 20",
        ),
        (
            '[tokens]\nstones = 3\nrolled = true\nphase = "first"',
            "tokens.phase = 'first' enters every stone before any "
            "moves, but 2 players' tokens.stones = 3 need 6 free nodes and tokens.enter = 'top' has 4",
        ),
        (
            '[tokens]\nstones = 2\nphase = "first"\nresidents = [["G"], ["R"]]',
            "need 4 free nodes and tokens.enter = 'top' has 2",
        ),
    ],
)
def test_every_mistake_gets_a_message_that_names_the_key(toml, message):
    if not toml:
        assert rules("").players == (2, 2)  # the defaults alone make a game
        return
    with pytest.raises(CompositionError) as err:
        rules(toml)
    assert message in str(err.value)


def test_a_composition_names_the_series_its_manuals_suggest_and_the_catalogue_lists_them():
    """Series presets are not options of a game (a series spans games): a composition names those its
    manuals suggest, the default first, and ``variants`` lists them under ``series``."""
    mine = rules('series = ["quick-best-of-three", "quick-first-to-8"]\n')
    assert mine.series == ("quick-best-of-three", "quick-first-to-8")
    listed = game_class(mine).describe()["series"]
    assert listed["default"] == "quick-best-of-three"
    assert [(p["method"], p["target"]) for p in listed["presets"]] == [("games", 3), ("points", 8)]
    assert composition.loads(composition.export(mine)) == mine
    assert game_class(rules("")).describe()["series"] == {"presets": [], "default": None}
    assert find("ez-gryb").describe()["series"]["default"] == "ez-best-of-five"


@pytest.mark.parametrize(
    "toml",
    [
        # a stone reaches the bottom level: entered there
        '[tokens]\nenter = "bottom"\n[moves]\ngravity = false\nlateral = true\nreincarnation = true',
        # an interjection goes a level down
        "[moves]\ngravity = false\ninterjection = true\nreincarnation = true",
        # a move up wraps to it
        "[board]\nperiodic = true\n[moves]\ngravity = false\nlevity = true\nreincarnation = true",
        '[tokens]\nresidents = [["GGGG"], ["YYYY"]]\n'
        "[moves]\ngravity = false\nlateral = true\nreincarnation = true",
        # pushed there
        "[tokens]\nstones = 2\n[encounters]\npush = true\n[moves]\ngravity = false\nreincarnation = true",
        '[tokens]\nenter = "anywhere"\n[moves]\ngravity = false\nlateral = true\nhopping = "any"',
        '[turn]\ndie = "colour"\ncolour_of = "source"',
        '[encounters]\nlanding = "lethal"\ncaptured = "returned"',
        '[moves]\nhopping = "opponents"\nhop_captures = true\n[encounters]\ncaptured = "returned"',
    ],
)
def test_parameters_that_can_take_effect_after_all_are_accepted(toml):
    """The dead-parameter checks refuse only what can never happen: a stone reaches the bottom level to be
    reborn by entering there, an interjection, a periodic move up, as a resident or pushed; a hop has a
    kind of move to go twice by; a colour die gives colour_of a colour; something captures."""
    rules(toml)


def test_on_three_levels_or_more_every_kind_of_move_can_be_made_twice_in_a_row():
    """What the hopping check takes for granted on boards of depth 3 to 6 (it builds only boards of depth 2
    to look): a hop, the same kind of move twice, exists for every kind on every such board."""
    from companion.rules.space import space

    for depth in range(3, 7):
        for headless in (False, True):
            for periodic in (False, True):
                board = space(depth, headless, periodic)
                for kind in composition.MOVE_KEYS.values():
                    assert any(
                        board.target_mask(kind, m) & ~(1 << n)
                        for n in board.nodes
                        for m in board.targets(kind, n)
                    ), (depth, headless, periodic, kind)


def test_bad_text_and_missing_names():
    with pytest.raises(CompositionError, match="not valid TOML"):
        composition.loads("id = ")
    with pytest.raises(CompositionError, match="not valid JSON"):
        composition.loads("{", "json")
    for fmt, deep in (
        ("toml", HEAD + "summary = " + "[" * 5000 + "]" * 5000),
        ("json", '{"summary": ' + "[" * 5000 + "]" * 5000 + "}"),
    ):
        with pytest.raises(CompositionError, match="nested too deep"):
            composition.loads(deep, fmt)
    for fmt, long in (
        ("toml", HEAD + "[tokens]\nstones = " + "9" * 5000),
        ("json", '{"players": ' + "9" * 5000 + "}"),
    ):
        with pytest.raises(CompositionError, match="a number with too many digits"):
            composition.loads(long, fmt)
    with pytest.raises(CompositionError, match="name is missing"):
        composition.loads('id = "x1"')
    with pytest.raises(CompositionError, match="id 'X'"):
        composition.loads('id = "X"\nname = "x"')
    with pytest.raises(CompositionError, match=r"\[options\] id: not a parameter"):
        composition.loads(HEAD + "[options]\nid = true")
    with pytest.raises(CompositionError, match=r"\[options\] depth: write true, \[min, max\]"):
        composition.loads(HEAD + '[options]\ndepth = "deep"')


def test_a_name_summary_or_source_has_no_control_characters_or_bidi_overrides():
    # Each is shown on every phone in a line of other text: an override in the name turned a history line,
    # players' names and scores, round; a lone surrogate (from JSON) could not even be saved.
    for fmt, text, reason in [
        (
            "toml",
            HEAD.replace('"Test"', '"Evil \\u202eEvil"'),
            "name: no control characters, bidirectional overrides or half characters (U+202E at character 6)",
        ),
        ("toml", HEAD + 'summary = "ring\\u0007ring"', "summary: no control characters"),
        ("toml", HEAD + 'source = "\\u2067ours"', "source: no control characters"),
        ("json", '{"id": "test-game", "name": "Te\\ud800st"}', "name: no control characters"),
    ]:
        with pytest.raises(CompositionError) as err:
            composition.loads(text, fmt)
        assert reason in str(err.value), text
    assert composition.loads(HEAD.replace('"Test"', '"زيد \U0001f600"'), "toml").name == "زيد \U0001f600"


SHIPPED = sorted((cls for cls in catalogue() if getattr(cls, "composed", False)), key=lambda c: c.id)


@pytest.mark.parametrize("cls", SHIPPED, ids=lambda c: c.id)
def test_export_reads_back_to_the_same_rules_as_toml_and_json(cls):
    for fmt in ("toml", "json"):
        text = composition.export(cls.base_rules, fmt)
        assert composition.loads(text, fmt) == cls.base_rules
    commented = composition.export(cls.base_rules)
    assert "# levels below the head node" in commented and "[goal]" in commented


def test_a_computer_table_tunes_the_computer_player_and_is_checked_like_the_rest():
    """[computer] is how the computer player searches the game, not its rules: the game class carries it
    (``wide_root``, ``computer_levels``), exports write it back, and what it may say is checked."""
    tuned = rules("[computer]\nwide_root = true\nhard = {playout = 2}\neasy = {blunder = 0, iterations = 20}")
    cls = game_class(tuned)
    assert cls.wide_root and cls.computer_levels == {
        "easy": {"iterations": 20, "blunder": 0},
        "hard": {"playout": 2},
    }
    for fmt in ("toml", "json"):
        assert composition.loads(composition.export(tuned, fmt), fmt) == tuned
    assert "easy = {iterations = 20, blunder = 0}" in composition.export(tuned)
    assert game_class(tuned.with_values({"stones": 5})).computer_levels == cls.computer_levels
    assert composition.parse(composition.to_data(tuned), played=True) == tuned  # a record's rules
    plain = rules("")
    assert not game_class(plain).wide_root and game_class(plain).computer_levels == {}
    assert "computer" not in composition.export(plain) and "computer" not in composition.to_data(plain)
    assert find("ez-gryb").computer_levels and find("siege").wide_root  # the shipped ones say so
    for toml, message in [
        (
            "[computer]\nfast = true",
            "[computer] has no parameter 'fast'; it has: wide_root, easy, medium, hard",
        ),
        ("[computer]\nwide_root = 1", "computer.wide_root is true or false, not 1"),
        ("[computer]\neasy = {}", "computer.easy is a table of changes to the level"),
        ("[computer]\neasy = 3", "computer.easy is a table of changes to the level"),
        ("[computer]\neasy = {seconds = 1}", "computer.easy has no 'seconds'"),
        (
            "[computer]\neasy = {iterations = 0}",
            "computer.easy.iterations is a whole number from 1 to 100000, not 0",
        ),
        ("[computer]\nmedium = {blunder = 1.5}", "computer.medium.blunder is a number from 0 to 1, not 1.5"),
        ("[computer]\nmedium = {playout = 2.5}", "computer.medium.playout is a whole number from 0 to 100"),
        ("[computer]\nmedium = {exploration = true}", "computer.medium.exploration is a number from 0 to 10"),
        ("[computer]\nhard = {iterations = 500}", "computer.hard.iterations: hard is never held back"),
        ("computer = 3", "[computer] is a table"),
    ]:
        with pytest.raises(CompositionError) as err:
            rules(toml)
        assert message in str(err.value), toml


def test_options_are_parameters_and_are_checked_with_the_rest():
    # Both ends of a number's range must make a game: a depth of 2 or 3 leaves a resident off the board.
    with pytest.raises(
        CompositionError,
        match=r"^\[options\] depth = 2 \(an end of its range\): tokens.residents: "
        "node GGGG has 4 loci but this board is only 2 levels deep",
    ):
        rules('[tokens]\nresidents = [["GGGG"], ["YYYY"]]\n[options]\ndepth = [2, 6]')
    # A range past what the parameter takes is refused, not cut down to it.
    with pytest.raises(
        CompositionError,
        match=r"^\[options\] depth: \[4, 9\] goes outside what board.depth "
        "takes, 2 to 6",
    ):
        rules("[options]\ndepth = [4, 9]")
    # So must every one of a list of choices: a value the parameter takes, making a game with the rest.
    with pytest.raises(
        CompositionError,
        match=r"^\[options\] enter = 'bogus' \(one of its choices\): tokens.enter "
        "is one of head, top, bottom, anywhere, none, not 'bogus'",
    ):
        rules('[options]\nenter = ["top", "bogus"]')
    with pytest.raises(
        CompositionError,
        match=r"^\[options\] enter = 'head' \(one of its choices\): tokens.enter = "
        "'head' but board.headless removes the head node",
    ):
        rules('[board]\nheadless = true\n[options]\nenter = ["top", "head"]')
    assert game_class(rules('[options]\nenter = ["top", "head"]'))(2, enter="head").t.entry_nodes == (0,)
    cls = game_class(
        rules('[tokens]\nresidents = [["GGGG"], ["YYYY"]]\n[options]\ndepth = [4, 6]\nstones = true')
    )
    assert [o.name for o in cls.options] == ["depth", "stones", "turn_limit"]
    assert cls(2, depth=5).space.depth == 5
    with pytest.raises(OptionError, match="option depth must be from 4 to 6"):
        cls(2, depth=3)
    with pytest.raises(OptionError, match="option depth must be from 4 to 6"):
        cls(2, depth=7)
    with pytest.raises(OptionError, match="has no option 'gravity'"):
        cls(2, gravity=False)  # not offered by this composition
    # What 0 means is said only where the range offers 0 (Leapfrog's and Samsara's captures run 1 to 8).
    helps = {
        lo: next(
            o
            for o in game_class(
                rules(
                    f'[encounters]\nlanding = "lethal"\n[goal]\nwin = ["capture"]\n'
                    f"capture = 1\n[options]\ncapture = [{lo}, 8]"
                )
            ).options
            if o.name == "capture"
        ).help
        for lo in (0, 1)
    }
    assert helps == {
        0: "capture: stones to capture to win (0: all of the opponents' stones)",
        1: "capture: stones to capture to win",
    }


def test_a_capture_goal_never_asks_for_more_stones_than_the_opponents_have():
    # Captured stones that go back to their owner's supply can be taken again: any number will do.
    assert (
        rules(
            '[encounters]\nlanding = "lethal"\ncaptured = "returned"\n[goal]\nwin = ["capture"]\ncapture = 50'
        ).capture
        == 50
    )
    # Residents count, and with several players the fewest opponents any seat can have.
    assert (
        rules(
            'players = [2, 4]\n[tokens]\nstones = 3\nresidents = [["G"], ["R", "Y"], [], []]\n'
            '[encounters]\nlanding = "lethal"\n[goal]\nwin = ["capture"]\ncapture = 4'
        ).capture
        == 4
    )
    with pytest.raises(CompositionError, match="an opponent has only 4"):
        rules(
            'players = [2, 4]\n[tokens]\nstones = 3\nresidents = [["G"], ["R", "Y"], [], []]\n'
            '[encounters]\nlanding = "lethal"\n[goal]\nwin = ["capture"]\ncapture = 5'
        )
    # Samsara's stones leave the game: 8 captures out of 7 stones is refused when the game starts.
    with pytest.raises(
        OptionError,
        match="goal.capture = 8, but captured stones leave the game and an opponent has only 7 stones",
    ):
        find("samsara")(2, capture=8, stones=7)
    assert find("samsara")(2, capture=8).rules.capture == 8


def test_the_library_saves_exports_imports_and_deletes(tmp_path):
    library = Library(tmp_path / "compositions")
    assert library.ids() == []
    mine = rules('summary = "mine"')
    path = library.save(mine)
    assert (
        path.name == "test-game.toml" and library.ids() == ["test-game"] and library.get("test-game") == mine
    )
    assert not list(path.parent.glob("*.tmp"))  # written whole, then renamed
    with pytest.raises(CompositionError, match="already saved"):
        library.save(mine)
    changed = mine.with_values({"summary": "changed"})
    library.save(changed, replace=True)
    assert library.get("test-game").summary == "changed"
    (path.parent / "broken.toml").write_text("id = ", encoding="utf-8")
    assert [r.id for r in library.all()] == ["test-game"]  # a broken file is skipped, not fatal
    with pytest.raises(CompositionError, match="no saved composition 'nope'"):
        library.get("nope")
    with pytest.raises(CompositionError, match="ids are lowercase"):
        library.get("../etc/passwd")
    library.delete("test-game")
    assert library.ids() == ["broken"]


def test_a_saved_file_is_named_by_its_id(tmp_path):
    """A composition copied into the folder by hand under another name is refused, not listed under one
    name and installed under another (where the page could not delete it)."""
    library = Library(tmp_path / "compositions")
    library.save(rules('summary = "mine"'))
    (library.folder / "test-game.toml").rename(library.folder / "other-name.toml")
    with pytest.raises(
        CompositionError,
        match=r"other-name.toml holds the composition 'test-game': a saved "
        r"composition's file is named by its id \(test-game.toml\)",
    ):
        library.get("other-name")
    assert library.all() == []
    assert library.install(shipped())[1] == [
        "other-name.toml holds the composition 'test-game': a saved "
        "composition's file is named by its id (test-game.toml)"
    ]


def test_a_saved_composition_is_on_the_card_before_it_takes_its_id(tmp_path, monkeypatch):
    """A power cut cannot be staged here; what makes a save survive one can be watched: the file's bytes
    are synced before the rename, and the folder (the new name) after it."""
    import os

    synced, real_fsync = [], os.fsync

    def fsync(fd):
        synced.append(os.readlink(f"/proc/self/fd/{fd}"))
        real_fsync(fd)

    monkeypatch.setattr(os, "fsync", fsync)
    library = Library(tmp_path / "compositions")
    path = library.save(rules('summary = "mine"'))
    assert synced == [str(path.with_suffix(".tmp")), str(path.parent)]


def test_a_saved_composition_joins_the_catalogue_but_cannot_take_a_shipped_id():
    with pytest.raises(CompositionError, match="ships with"):
        with_composition(shipped(), composition.loads('id = "ez-gryb"\nname = "Mine"'))
    first = with_composition(shipped(), composition.loads('id = "joins-catalogue"\nname = "First"'))
    assert first.find("joins-catalogue").name == "First" and "joins-catalogue" not in shipped()
    second = with_composition(first, composition.loads('id = "joins-catalogue"\nname = "Second"'))
    assert second.find("joins-catalogue").name == "Second" and len(second) == len(first)


def test_a_record_of_a_saved_composition_carries_its_rules():
    cls = game_class(rules("[tokens]\nstones = 4\n[moves]\nlateral = true"))
    g = cls(2)
    rng = random.Random(1)
    while not g.over and len(g.history) < 30:
        g.apply(rng.choice(g.legal_actions()))
    text = GameRecord.of(g).to_json()
    assert json.loads(text)["rules"]["moves"]["lateral"] is True
    replayed = GameRecord.from_json(text).replay()  # no library, no registry: the record is enough
    assert replayed.state_key() == g.state_key()
    assert "rules" not in json.loads(GameRecord.of(find("ez-gryb")(2)).to_json())  # shipped: its id is enough


def test_the_store_keeps_the_rules_a_game_was_played_by(tmp_path):
    from companion.service.store import Store

    store = Store(tmp_path / "c.db")
    cls = game_class(composition.loads('id = "kept-rules"\nname = "Kept"\n[tokens]\nstones = 5'))
    g = cls(2)
    game_id = store.new_game(g, ["a", "b"], None, None, 0.0)
    g.apply("G")
    store.append(game_id, "action", "G", 0.0)
    Library(tmp_path / "compositions").save(  # edited later
        composition.loads('id = "kept-rules"\nname = "Kept"\n[tokens]\nstones = 9')
    )
    replayed = store.replay(store.game_row(game_id))
    assert replayed.in_hand == (4, 5)  # played by the 5-stone rules it started with
    store.close()


# -- the command line -------------------------------------------------------------------------------


def cli(*args, stdin="", cwd=None):
    return subprocess.run(
        [sys.executable, "-m", "companion.cli", *args],
        input=stdin,
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=120,
    )


def test_compose_commands_and_play_rules(tmp_path):
    file = tmp_path / "race.toml"
    file.write_text(
        HEAD.replace('"test-game"', '"cli-race"') + '[tokens]\nstones = 3\nenter = "bottom"\n[moves]\n'
        'gravity = false\nlevity = true\nlateral = true\n[goal]\nwin = ["race"]\nrace = "top"\n',
        encoding="utf-8",
    )
    state = ["--state", str(tmp_path)]
    checked = cli("compose", "check", str(file))
    assert checked.returncode == 0 and json.loads(checked.stdout)["id"] == "cli-race"
    played = cli("play", "--rules", str(file), "--random", "3000", "--seed", "4")
    assert played.returncode == 0 and json.loads(played.stdout.splitlines()[-1])["over"] is True
    assert cli("compose", "import", str(file), *state).returncode == 0
    assert [c["id"] for c in json.loads(cli("compose", "list", *state).stdout)] == ["cli-race"]
    again = cli("compose", "import", str(file), *state)
    assert again.returncode == 2 and "already saved" in again.stderr and not again.stdout
    exported = cli("compose", "export", "cli-race", *state)
    assert composition.loads(exported.stdout) == library_mod.load(file)
    assert (
        composition.loads(cli("compose", "export", "ez-gryb", "--json").stdout, "json")
        == find("ez-gryb").base_rules
    )
    assert cli("compose", "export", "hyper-chess").returncode == 2  # written in Python
    assert cli("compose", "delete", "cli-race", *state).returncode == 0
    assert json.loads(cli("compose", "list", *state).stdout) == []
    file.write_text(
        'id = "x1"\nname = "x"\n[board]\nheadless = true\n[tokens]\nenter = "head"\n', encoding="utf-8"
    )
    bad = cli("compose", "check", str(file))
    assert bad.returncode == 2 and "tokens.enter = 'head' but board.headless" in bad.stderr and not bad.stdout
    assert cli("play", "ez-gryb", "--rules", str(file)).returncode == 2


# -- every parameter at play ------------------------------------------------------------------------


def test_board_depth_headless_and_periodic():
    g = game("[board]\nheadless = true\n[moves]\nlevity = true\n")
    assert len(g.space.nodes) == 340 and "0" not in names(g.legal_actions())
    periodic = place(
        game("[board]\nperiodic = true\n[moves]\ngravity = false\nlevity = true\n"), ["R"], ["G"]
    )
    # Up from the top level: the head node, and (periodic) every node of the bottom level.
    assert len({str(a) for a in periodic.legal_actions()}) == 1 + 256


def test_gravity_levity_lateral_and_the_levels_lateral_moves_keep_to():
    g = place(
        game("[moves]\ngravity = false\nlevity = true\nlateral = true\nlateral_levels = [2, 3, 4]\n"),
        ["R", "RG"],
        ["BBBB"],
    )
    assert names(g.legal_actions()) == {"RG-RR", "RG-RB", "R-0"}  # R holds the player's own stone
    with pytest.raises(IllegalAction, match="sideways moves are not permitted on the top level"):
        g.apply("R-G")


def test_multi_level_moves_are_hyperspace_and_reincarnation_goes_home():
    # Stones enter on the bottom level: without gravity nothing else could bring one there to be reborn.
    g = place(
        game(
            '[tokens]\nenter = "bottom"\n[moves]\ngravity = false\nmulti_level = true\nreincarnation = true\n'
        ),
        ["GGGG"],
        ["YYYY"],
    )
    assert names(g.legal_actions()) == {
        "GGGG-RGGG",
        "GGGG-BGGG",
        "GGGG-GRGG",
        "GGGG-GBGG",
        "GGGG-GGRG",
        "GGGG-GGBG",
        "GGGG-0",
    }
    with pytest.raises(
        IllegalAction, match="GGGG to GGGR is not one move .via hyperspace or by reincarnation."
    ):
        g.apply("GGGG-GGGR")


def test_entering_where_the_tokens_say_and_running_out():
    g = game('[tokens]\nstones = 1\nenter = "bottom"\n[moves]\ngravity = false\nlevity = true\n')
    assert len(g.legal_actions()) == 256
    with pytest.raises(IllegalAction, match="new stones enter on the bottom level"):
        g.apply("G")
    g.apply("GGGG")
    g.apply("YYYY")
    assert "GGGB" not in names(g.legal_actions())  # none left to enter: only moves
    with pytest.raises(IllegalAction, match="you have no stones left to enter"):
        g.apply("GGGB")


def test_residents_and_a_first_phase():
    g = game(
        '[tokens]\nstones = 2\nenter = "anywhere"\nphase = "first"\nresidents = [["GGGG"], ["YYYY"]]\n'
        "[moves]\nlateral = true\n"
    )
    assert g.owner(g.space.parse("GGGG")) == 0 and g.owner(g.space.parse("YYYY")) == 1
    assert g.phase == "place" and all(a.kind == "place" for a in g.legal_actions())
    with pytest.raises(IllegalAction, match="every stone enters before any stone moves"):
        g.apply("GGGG-GGGR")
    for n in ("G", "R", "Y", "B"):
        g.apply(n)
    assert g.phase == "move" and all(a.kind == "move" for a in g.legal_actions())


def test_prescribed_moves_by_the_colour_of_the_target_or_of_the_source():
    to = place(game('[turn]\ndie = "colour"\n[moves]\nlateral = true\n'), ["G"], ["BBBB"])
    to.apply("roll:R")
    assert names(to.legal_actions()) == {"G-R", "G-GR"}
    source = place(
        game('[turn]\ndie = "colour"\ncolour_of = "source"\n[moves]\nlateral = true\n'), ["G", "GR"], ["BBBB"]
    )
    source.apply("roll:R")  # GR stands on a red node, G on a green one
    assert {str(a) for a in source.legal_actions() if a.kind == "move"} == {
        "GR-GG",
        "GR-GY",
        "GR-GRG",
        "GR-GRR",
        "GR-GRY",
        "GR-GRB",
    }
    with pytest.raises(IllegalAction, match="you rolled R: move a stone that stands on a red node"):
        source.apply("G-GG")


def test_several_moves_a_turn():
    g = place(game("[turn]\nmoves = 2\n"), ["G"], ["YYYY"])
    g.apply("G-GG")
    assert g.to_move == 0 and g.moves_left == 1
    g.apply("GG-GGG")
    assert g.to_move == 1


def test_stymie_lethal_kinds_capture_only_and_where_captured_stones_go():
    stymie = place(game("[moves]\nlateral = true\n"), ["G"], ["R"])
    with pytest.raises(IllegalAction, match="R is occupied"):
        stymie.apply("G-R")
    lethal = place(
        game(
            '[moves]\nlateral = true\n[encounters]\nlanding = "lethal"\nlethal = ["sideways"]\n'
            'capture_only = ["sideways"]\ncaptured = "returned"\n'
        ),
        ["G"],
        ["R", "GG"],
        hand=3,
    )
    assert "G-GG" not in names(lethal.legal_actions())  # down is not lethal here
    with pytest.raises(IllegalAction, match="sideways moves are only to capture an opponent's stone"):
        lethal.apply("G-B")
    lethal.apply("G-R")
    assert (
        lethal.owner(lethal.space.parse("R")) == 0 and lethal.captured == (1, 0) and lethal.in_hand == (3, 4)
    )
    out = place(game('[moves]\nlateral = true\n[encounters]\nlanding = "lethal"\n'), ["G"], ["R"], hand=3)
    out.apply("G-R")
    assert out.in_hand == (3, 3)  # "out": a captured stone leaves the game


def test_hold_court_the_roll_decides_the_encounter():
    base = '[moves]\nlateral = true\n[encounters]\nlanding = "hold-court"\n'

    def encounter(roll):
        g = place(game(base), ["GR"], ["GG"])
        g.apply("GR-GG")
        assert g.is_chance and g.owner(g.space.parse("GR")) == 0  # nothing moved before the roll
        g.apply(f"roll:{roll}")
        return g

    same = encounter("G")  # the colour of the node held: the opponent's stone is taken
    assert same.owner(same.space.parse("GG")) == 0 and same.captured == (1, 0)
    side = encounter("B")  # a colour to the side: the opponent is bumped there, the node is taken
    assert side.owner(side.space.parse("GG")) == 0 and side.owner(side.space.parse("GB")) == 1
    blocked = encounter("R")  # the side node is the mover's own: both stay where they were
    assert blocked.owner(blocked.space.parse("GR")) == 0 and blocked.owner(blocked.space.parse("GG")) == 1
    opposite = encounter("Y")  # the opposite colour: the mover goes to the opposite node instead
    assert opposite.owner(opposite.space.parse("GY")) == 0 and opposite.owner(opposite.space.parse("GG")) == 1
    assert opposite.to_move == 1 and not opposite.is_chance


def test_hops_over_own_opponents_or_any_stones_and_captures():
    toml = '[moves]\nhopping = "{}"\nhop_captures = {}\n[encounters]\nlanding = "{}"\n'
    own = place(game(toml.format("own", "false", "stymie")), ["G", "GG"], ["R", "RR"])
    # Over the player's own GG by two moves down, onto GG's children; not over the opponent's R.
    assert {str(a) for a in own.legal_actions() if "/" in str(a)} == {f"G-GG{c}/GG" for c in "GRYB"}
    theirs = place(game(toml.format("opponents", "true", "lethal")), ["G"], ["GG"])
    hop = theirs.parse("G-GGY/GG")
    assert hop in theirs.legal_actions() and str(hop) == "G-GGY/GG"
    theirs.apply(hop)
    assert theirs.stones[1] == 0 and theirs.captured == (1, 0)
    with pytest.raises(IllegalAction, match="a hop is FROM-TO/OVER"):
        theirs.parse("G,R-GG,RR/GG")


def test_exits_and_the_vacate_goal():
    g = place(game('[moves]\nexit = true\n[goal]\nwin = ["vacate"]\n'), ["GGGG"], ["YYYY"])
    assert "xGGGG" in names(g.legal_actions())
    with pytest.raises(IllegalAction, match="only a stone at the far end of the board can leave it"):
        place(game('[moves]\nexit = true\n[goal]\nwin = ["vacate"]\n'), ["GGG"], ["YYYY"]).apply("xGGG")
    g.apply("xGGGG")
    assert g.over and g.winners == (0,) and g.exited == (1, 0)


def test_chain_moves_build_on_an_unbroken_chain():
    g = place(game("[moves]\ngravity = false\nlateral = true\nchain = true\n"), ["G", "GR"], ["Y"], hand=5)
    entries = {str(a) for a in g.legal_actions() if a.kind == "place"}
    assert entries == {"R", "B", "GG", "GY", "GB", "GRG", "GRR", "GRY", "GRB"}
    with pytest.raises(IllegalAction, match="the chain to YGR is broken at Y$"):
        g.apply("YGR")


def test_pop_drives_a_chain_up_and_off_the_top():
    g = place(
        game(
            '[tokens]\nenter = "bottom"\n[moves]\ngravity = false\nlevity = true\n[encounters]\npop = true\n'
        ),
        ["R"],
        ["GGGG", "GGG", "GG", "G"],
        hand=4,
    )
    assert "GGGG" in names(g.legal_actions())
    g.apply("GGGG")  # player 0 enters on player 1's stone: the whole column goes up a node, the top one off
    assert g.owner(g.space.parse("GGGG")) == 0
    assert [g.owner(g.space.parse(n)) for n in ("GGG", "GG", "G", "0")] == [1, 1, 1, 1]
    assert g.captured == (0, 0)  # popped onto the head node, not off the board
    g2 = place(
        game(
            '[board]\nheadless = true\n[tokens]\nenter = "bottom"\n[moves]\ngravity = false\n'
            "levity = true\n[encounters]\npop = true\n"
        ),
        ["R"],
        ["GGGG", "GGG", "GG", "G"],
        hand=4,
    )
    g2.apply("GGGG")
    assert g2.stones[1].bit_count() == 3 and g2.captured == (1, 0)  # headless: G popped off the top


def test_a_push_onto_a_third_players_stone_pushes_that_stone_on():
    g = place(
        game('players = 3\n[tokens]\nenter = "top"\n[encounters]\npush = true\n', players=3),
        [],
        ["G"],
        ["GG"],
        hand=5,
    )
    g.apply("G-GG")  # seat 1 enters on seat 2's G; that stone goes down onto seat 3's GG
    assert g.owner(g.space.parse("GG")) == 1 and g.pushing is not None
    g.apply("GG-GGR")  # seat 3's stone is pushed on: every player keeps the stones they had
    assert [g.owner(g.space.parse(n)) for n in ("G", "GG", "GGR")] == [0, 1, 2]
    assert [m.bit_count() for m in g.stones] == [1, 1, 1] and g.captured == (0, 0, 0)


def test_a_push_is_offered_only_where_its_chain_can_end():
    """A stone pushed onto GG, all four of whose nodes under it are the pusher's, could go nowhere: the
    turn stuck with a pass that handed the push to the next player, and a stone was lost."""
    rules = '[encounters]\npush = true\nlanding = "lethal"\n[goal]\nwin = ["capture"]\n'
    g = place(game(rules), ["GGG", "GGR", "GGY", "GGB"], ["G", "GG"], hand=5)
    assert {a for a in names(g.legal_actions()) if a.startswith("G-")} == {"G-GR", "G-GY", "G-GB"}
    assert g.why_illegal(g.parse("G-GG")) == (
        "the stone on GG could be pushed no further: every way down from it ends on your own stones"
    )
    # One way out under GG, and the push onto it is offered, its second step only that way.
    g = place(game(rules), ["GGG", "GGR", "GGY"], ["G", "GG"], hand=5)
    g.apply("G-GG")
    assert names(g.legal_actions()) == {"GG-GGB"}
    g.apply("GG-GGB")
    assert [m.bit_count() for m in g.stones] == [4, 2] and g.pushing is None


def test_a_refused_entry_onto_an_opponent_names_a_push_that_is_offered():
    """Entering anywhere with push: a stone on the bottom level has no node under it, so it cannot be
    entered on (the refusal once suggested GGGG-GGGGG, a node deeper than the board); elsewhere the
    example push is one the game offers."""
    g = place(
        game('[tokens]\nenter = "anywhere"\n[encounters]\npush = true\n'), ["GGG"], ["GGGG", "GG"], hand=5
    )
    assert not {a for a in names(g.legal_actions()) if a.startswith("GGGG")}
    assert g.why_illegal(g.parse("GGGG")) == (
        "GGGG is occupied, and a stone on the bottom level has no node under it to be pushed to"
    )
    example = g.why_illegal(g.parse("GG")).rsplit("e.g. ", 1)[1].rstrip(")")
    assert example != "GG-GGG" and example in names(g.legal_actions())  # not onto the mover's own GGG


def test_teams_win_together_and_spare_each_other():
    g = place(
        game(
            'players = 4\nteams = true\n[moves]\nlateral = true\n[encounters]\nlanding = "lethal"\n'
            '[goal]\nwin = ["gryb"]\n',
            players=4,
        ),
        ["G", "GG", "GR"],
        ["YYYY"],
        ["GY"],
        ["BBBB"],
    )
    assert "GR-GY" not in names(g.legal_actions())  # a partner's stone is not captured
    g.apply("G-GB")  # seat 1 completes GG GR GY GB with seat 3's GY: the team's quadrangle
    assert g.over and g.winners == (0, 2) and g.scores == (2, 0, 2, 0)


def test_goals_capture_race_arrangement_connection_surround_corner():
    capture = place(
        game(
            '[moves]\nlateral = true\n[encounters]\nlanding = "lethal"\n[goal]\nwin = ["capture"]\n'
            "capture = 1\n"
        ),
        ["G"],
        ["R", "Y"],
    )
    capture.apply("G-R")
    assert capture.winners == (0,)
    everything = place(
        game('[moves]\nlateral = true\n[encounters]\nlanding = "lethal"\n[goal]\nwin = ["capture"]\n'),
        ["G"],
        ["R", "Y"],
    )
    everything.apply("G-R")
    assert not everything.over  # Y is left
    race = place(game('[goal]\nwin = ["race"]\nrace = "RRRR"\n'), ["RRR"], ["Y"])
    race.apply("RRR-RRRR")
    assert race.winners == (0,)
    arrangement = place(
        game('[moves]\nlateral = true\n[goal]\nwin = ["arrangement"]\narrangement = [["G", "GG", "GGG"]]\n'),
        ["G", "GG", "GGR"],
        ["Y"],
    )
    arrangement.apply("GGR-GGG")
    assert arrangement.winners == (0,)
    connection = place(
        game(
            '[moves]\nlevity = true\nlateral = true\n[goal]\nwin = ["connection"]\nconnect = '
            '[["GG", "RR"], ["YY", "BB"]]\n'
        ),
        ["GG", "G", "R", "RY"],
        ["YY"],
    )
    connection.apply("RY-RR")  # GG - G (up), G - R (beside), R - RR (down): joined
    assert connection.winners == (0,)
    # GGR's neighbours: GG above, GGG and GGY beside, GGRG GGRR GGRY GGRB below; GGB-GGY closes the ring.
    surround = place(
        game('[moves]\nlateral = true\n[goal]\nwin = ["surround"]\n'),
        ["GG", "GGG", "GGB", "GGRG", "GGRR", "GGRY", "GGRB"],
        ["GGR", "YYYY"],
    )
    surround.apply("GGB-GGY")
    assert surround.winners == (0,)
    corner = place(
        game('[moves]\ngravity = false\nlateral = true\n[goal]\nwin = ["corner"]\n'),
        ["GGGR", "BBBB"],
        ["GGGG", "YYYY"],
    )
    corner.apply("BBBB-BBBG")  # GGGG can still go to GGGB
    assert not corner.over
    corner2 = place(
        game('[moves]\ngravity = false\nlateral = true\n[goal]\nwin = ["corner"]\n'),
        ["GGGR", "GGGY"],
        ["GGGG", "YYYY"],
    )
    corner2.apply("GGGY-GGGB")  # GGGG's neighbours GGGR and GGGB are now both player 0's
    assert corner2.winners == (0,)


def test_a_ring_the_mover_walks_into_wins_for_the_side_that_closed_it_at_once():
    # GGG's neighbours are GG above and GGR, GGB beside: player 1 holds all three, and player 0 enters there.
    surround = place(
        game(
            '[board]\ndepth = 3\n[tokens]\nenter = "anywhere"\n[moves]\nlevity = true\n'
            'lateral = true\n[goal]\nwin = ["surround"]\n'
        ),
        ["YYY"],
        ["GG", "GGR", "GGB"],
        hand=3,
    )
    surround.apply("GGG")
    assert surround.winners == (1,)
    # Player 0 moves GGG down to GGGY, where it can go nowhere: player 1 has cornered it.
    corner = place(
        game('[moves]\nlateral = true\n[goal]\nwin = ["corner"]\n'), ["GGG", "YYYY"], ["GGGR", "GGGB", "BBBB"]
    )
    corner.apply("GGG-GGGY")
    assert corner.winners == (1,)


def test_a_gryb_on_the_levels_that_count_scored_big_endian():
    g = place(
        game('[moves]\nlateral = true\n[goal]\nendian = "big"\nlevels = [2]\n'),
        ["GG", "GR", "GY", "G"],
        ["YYYY"],
    )
    g.apply("G-GB")
    assert g.winners == (0,) and g.scores == (4, 0)  # a level-2 GRYB: 2 points little endian, 4 big endian
    top = place(game("[moves]\nlateral = true\n[goal]\nlevels = [2]\n"), ["G", "R", "Y", "0"], ["YYYY"])
    top.apply("0-B")
    assert not top.over  # the top quadrangle does not count


def test_the_head_node_matches_every_colour_rolled():
    """docs/rules/game-space.md (issue 45), 000 "The color of the head node is arbitrary": on every roll a
    stone may move up onto it, enter there, and (colour_of = "source") move off it. Until then a colour
    die never showed its colour: a game entering at the head node could only pass."""
    up = place(game('[turn]\ndie = "colour"\n[moves]\nlevity = true\n'), ["G"], ["BBBB"])
    enter = game('[tokens]\nenter = "head"\n[turn]\ndie = "colour"\n')
    source = place(game('[turn]\ndie = "colour"\ncolour_of = "source"\n'), ["0"], ["BBBB"])
    for colour in "GRYB":
        for g, wanted in ((up, "G-0"), (enter, "0"), (source, "0-G")):
            g.apply(f"roll:{colour}")
            assert wanted in names(g.legal_actions()), (colour, wanted)
            g.undo()
    headless = place(
        game('[board]\nheadless = true\n[turn]\ndie = "colour"\n[moves]\nlevity = true\n'), ["G"], []
    )
    headless.apply("roll:G")
    assert names(headless.legal_actions()) == {"G-GG"}


@pytest.mark.parametrize("game_id", ["ez-gryb", "kings-court", "interrupt", "smack-down", "rising-tide"])
def test_no_shipped_colour_die_composition_reaches_the_head_node(game_id):
    """The head node's rule changes none of them: EZ GRYB and King's Court are headless, and in Interrupt,
    Smack Down and Rising Tide no stone ever goes up to it (random games, every action looked at)."""
    cls = find(game_id)
    g, rng = cls(2), random.Random(game_id)
    while not g.over:
        if not g.is_chance:
            assert all(0 not in a.targets + a.sources for a in g.legal_actions())
        g.push_legal(g.random_action(rng))


def test_a_position_nobody_can_change_is_a_draw():
    g = place(game('[turn]\ndie = "colour"\n'), ["GGGG"], ["YYYY"])
    g.apply("roll:G")
    g.apply("pass")
    assert g.over and g.winners == ()


@pytest.mark.parametrize("cls", SHIPPED, ids=lambda c: c.id)
def test_every_shipped_composition_plays_to_an_end_through_the_engine(cls):
    rng = random.Random(cls.id)
    for number in range(6):
        players = cls.min_players + number % (cls.max_players - cls.min_players + 1)
        g = cls(players)
        while not g.over:
            g.push_legal(g.random_action(rng))
        assert g.over and (g.winners or g.turn > 0)


def _gryb_race_by_quadrangle(g: ComposedGame) -> list[float]:
    """evaluate()'s GRYB race as its rule reads, quadrangle by quadrangle (the game works it out from the
    stones, for speed): the stones a side has on a quadrangle free of opponents, and half a stone for each
    missing corner one of its other stones can move onto next; the best quadrangle of each side."""
    t, occupied = g.t, g.occupied
    empty = g.space.all & ~occupied
    best = []
    for p in range(g.players):
        mine = g._friends(p)
        top = 0.0
        for q in t.goal_quadrangles:
            if q & occupied & ~mine:
                continue
            missing = q & empty
            helpers = sum(
                1 for s in range(g.space.size) if mine >> s & 1 and not q >> s & 1 and t.free[s] & missing
            )
            top = max(top, (q & mine).bit_count() + 0.5 * min(helpers, missing.bit_count()))
        best.append(top)
    weights = [math.exp(1.5 * b) for b in best]
    return [w / sum(weights) for w in weights]


GRYB_GOALS = [c for c in SHIPPED if "gryb" in c.base_rules.win] + [
    game_class(
        rules(
            '[moves]\nlateral = true\n[goal]\nwin = ["arrangement"]\n'
            'arrangement = [["G", "GG", "GGG"], ["R", "RR", "RRR", "RRRR", "Y"]]\n'
        )
    )
]


@pytest.mark.parametrize("cls", GRYB_GOALS, ids=lambda c: c.id if c.id != "test-game" else "arrangements")
def test_the_gryb_race_counts_what_its_rule_says_in_every_position_of_random_games(cls):
    rng = random.Random(cls.id)
    checked = 0
    for number in range(2):
        g = cls(cls.min_players + number % (cls.max_players - cls.min_players + 1))
        while not g.over and len(g.history) < 300:
            if len(g.history) % 4 == 0:
                assert g._gryb_race() == pytest.approx(_gryb_race_by_quadrangle(g), abs=1e-12)
                checked += 1
            g.push_legal(g.random_action(rng))
    assert checked > 40


def test_the_reference_lists_every_parameter():
    from pathlib import Path

    doc = (Path(__file__).resolve().parents[2] / "docs" / "composer.md").read_text(encoding="utf-8")
    missing = [p.where for p in composition.SCHEMA if f"`{p.where}`" not in doc]
    assert not missing, f"docs/composer.md does not describe {missing}"


def test_a_hop_is_not_a_kind_an_encounter_can_name():
    with pytest.raises(CompositionError, match="'hop' is not a kind of move"):
        rules('[moves]\nhopping = "any"\n[encounters]\nlanding = "lethal"\nlethal = ["hop"]\n')


def test_a_game_played_by_rules_now_refused_as_dead_still_replays(tmp_path):
    """A parameter that can never take effect is refused when a composition is checked (colour_of = 'source'
    with no die), but a record or stored game made before that check replays: such a parameter changes
    nothing in play, and no accepted move may be lost. Any other contradiction is still refused."""
    from companion.service.store import Store

    data = composition.to_data(rules("[tokens]\nstones = 4\n[moves]\nlateral = true"))
    data.setdefault("turn", {})["colour_of"] = "source"  # as an older companion saved it
    with pytest.raises(CompositionError, match="colour_of"):
        composition.parse(data)
    played = composition.parse(data, played=True)
    cls = game_class(played)
    g = cls(2)
    rng = random.Random(3)
    while not g.over and len(g.history) < 20:
        g.apply(rng.choice(g.legal_actions()))
    record = GameRecord.of(g)
    assert record.rules["turn"]["colour_of"] == "source"
    assert GameRecord.from_json(record.to_json()).replay().state_key() == g.state_key()
    store = Store(tmp_path / "c.db")
    game_id = store.new_game(g, ["a", "b"], None, None, 0.0)
    for action, _ in g.history:
        store.append(game_id, "action", str(action), 0.0)
    assert store.replay(store.game_row(game_id)).state_key() == g.state_key()
    store.close()
    broken = dict(data, tokens={"stones": 0})
    with pytest.raises(CompositionError):
        composition.parse(broken, played=True)
