"""Properties every game must have, checked by playing many seeded random games of each.

- every legal action is accepted, and printing then parsing it gives the same action;
- undo restores the state exactly, step by step, back to the start; redo replays to the same end;
- replaying the record (game, options, actions) from its text reproduces every state;
- random self-play ends (a win, or a draw by a documented rule: the turn limit, a stall, a deadlock);
- a game ends by its own rules too, not only by the turn limit, and a draw says why (``draw``);
- while a game waits for a roll, the die it names (``game.die``) is the die whose faces it lists.

Two sizes. 25 full games per game with the default options, checked at every ply: each action through
``apply`` from its text, undo all the way back, redo to the end. And (slow) 1000 seeded games per game
over its own option variants and player counts, played as playouts are (``random_action`` and
``push_legal``) and checked at a few sampled plies and at the end: a replay in a new game (the sampled
actions through ``apply`` from their text) has the same state and the same legal actions there, the
action played is one of them, and undo and redo reach the same states (this in one game in three and
in every full-length one; each of the 1000 must end). Those games get a short turn limit counted from
the end of the placement (measured per option variant on a full game): 3-30 turns each more, one game
in ten 30-120 more, so they spend their plies in every phase and not only in the opening; one game in a
hundred, and the one full game per variant, keep the default limit. About 7 s per game on one core of
the CI machine (2000 a game, every one checked, until the whole suite had to fit CI's 20 minutes on a
slower machine; the schedule gives every option variant at least 50 games).

So all but one in a hundred of those 1000 games play to a turn limit cut short on purpose, and reach the
game's own ending rules only where random play ends the game within a few turns of its placement (Exodus,
Leapfrog, Grim Reaper...): only the one game in a hundred (10 a game) and the full game of each option
variant keep the default limit, and random play seldom ends a game by its rules even then (25 Men's GRYB,
Connection and The Fourth Level never within 300 turns each, docs/performance.md). A third check (slow)
therefore plays seeded games at the default options, the turn limit included, in which each move is the
best by the game's own ``evaluate()`` half the time and a random one otherwise, and counts how they end:
every game must end by its own rules (a win, or a draw by a rule of its own) in some of them.
"""

import random
from collections import Counter

import pytest

from companion.games.catalogue import catalogue
from companion.games.engine import OptionError

GAMES = sorted(catalogue(), key=lambda g: g.id)
GAMES_PER_ID = 25


def play_random(cls, seed, players=None):
    rng = random.Random(seed)
    game = cls(players or cls.min_players)
    keys = [game.state_key()]
    while not game.over:
        action = rng.choice(game.legal_actions())
        game.apply(action)
        keys.append(game.state_key())
    return game, keys


@pytest.mark.parametrize("cls", GAMES, ids=lambda c: c.id)
def test_random_games_end_and_undo_redo_and_replay_are_exact(cls):
    for seed in range(GAMES_PER_ID):
        players = cls.min_players + seed % (cls.max_players - cls.min_players + 1)
        game, keys = play_random(cls, seed, players)
        actions = [a for a, _ in game.history]
        assert game.over and (game.winners or game.turn > 0)

        # Replaying the record reproduces every state.
        replay = cls(players)
        for action, key in zip(actions, keys[1:]):
            replay.apply(str(action))  # from the text notation, as a saved record is
            assert replay.state_key() == key
        # Undo walks back through every state to the start; redo walks forward again.
        for key in reversed(keys[:-1]):
            game.undo()
            assert game.state_key() == key
        assert not game.history
        while game.redo_stack:
            game.redo()
        assert game.state_key() == keys[-1]


@pytest.mark.parametrize("cls", GAMES, ids=lambda c: c.id)
def test_notation_round_trips_for_every_legal_action(cls):
    rng = random.Random(7)
    game = cls(cls.min_players)
    for _ in range(300):
        if game.over:
            break
        actions = game.legal_actions()
        for action in actions:
            assert game.parse(str(action)) == action
        game.apply(rng.choice(actions))


@pytest.mark.parametrize("cls", GAMES, ids=lambda c: c.id)
def test_illegal_actions_are_refused_with_a_reason_and_change_nothing(cls):
    from companion.games.engine import IllegalAction

    rng = random.Random(11)
    game = cls(cls.min_players)
    candidates = ["0", "G", "GGGG", "G-GG", "xR", "pass", "roll:G", "RRRR-RRRY", "end", "BBBB"]
    for _ in range(60):
        if game.over:
            break
        legal = {str(a) for a in game.legal_actions()}
        before = game.state_key()
        for text in candidates:
            if text in legal:
                continue
            with pytest.raises(IllegalAction) as err:
                game.apply(text)
            assert err.value.reason and len(err.value.reason) < 200
            assert game.state_key() == before
        game.apply(rng.choice(game.legal_actions()))


@pytest.mark.parametrize("cls", GAMES, ids=lambda c: c.id)
def test_the_die_a_game_names_is_the_die_it_rolls(cls):
    """Whenever a game waits for a roll, ``game.die`` names the die whose faces it lists ("colour": the four
    colours, "node": nodes, "number": Grim Reaper's random life), as the table reads it to tell players with
    a physical die what to roll; on the class (the catalogue) it names the die the game starts with. Every
    option variant, the most players."""
    from companion.rules.node import COLOURS

    assert cls.die in ("none", "colour", "node", "number")
    rng = random.Random(f"{cls.id} die")
    short = {"turn_limit": 40} if any(o.name == "turn_limit" for o in cls.options) else {}
    for options in option_variants(cls):
        for _ in range(6):
            game = cls(cls.max_players, **options, **short)
            while not game.over:
                if game.is_chance:
                    faces = game.roll_faces()
                    kinds = {
                        "colour"
                        if f.colour is not None and f.colour in COLOURS
                        else "node"
                        if f.targets
                        else "number"
                        if f.colour is not None and f.colour.isdigit()
                        else "other"
                        for f in faces
                    }
                    assert kinds == {game.die}, (options, game.phase, game.die, sorted(map(str, faces))[:4])
                game.push_legal(game.random_action(rng))


@pytest.mark.parametrize("cls", GAMES, ids=lambda c: c.id)
def test_a_game_with_nothing_in_hand_says_so(cls):
    """``hand`` heads the page's column of ``in_hand``; a game that says it has none (every piece starts on
    the board: Hyper-Chess, GRYBU, Leapfrog) never has anything there, and one that has a hand starts
    with something in it. Every option variant, a few random games each."""
    rng = random.Random(f"{cls.id} hand")
    short = {"turn_limit": 40} if any(o.name == "turn_limit" for o in cls.options) else {}
    for options in option_variants(cls):
        game = cls(cls.min_players, **options, **short)
        assert cls.hand is None or any(game.in_hand), (options, game.in_hand)
        while cls.hand is None and not game.over:
            assert not any(game.in_hand), (options, game.phase, game.in_hand)
            game.push_legal(game.random_action(rng))
    assert cls.describe()["hand"] == cls.hand


@pytest.mark.parametrize("cls", GAMES, ids=lambda c: c.id)
def test_a_game_played_win_or_lose_keeps_no_points_and_scores_a_win_one(cls):
    """``score`` heads the page's column of ``scores``; a game that says it has none is "just played win
    or lose" (001 "Scoring GRYB": Hyper-Chess, GRYBU, Grim Reaper, Connection, a composition that is not
    won by a GRYB): every score stays 0 while it is played, and at its end each winner has 1 and everyone
    else 0, which is what a series adds up. Every option variant, a few random games each."""
    rng = random.Random(f"{cls.id} score")
    short = {"turn_limit": 40} if any(o.name == "turn_limit" for o in cls.options) else {}
    assert cls.describe()["score"] == cls.score
    if cls.score is not None:
        return
    for options in option_variants(cls):
        for _ in range(3):
            game = cls(cls.max_players, **options, **short)
            while not game.over:
                assert not any(game.scores), (options, game.phase, game.scores)
                game.push_legal(game.random_action(rng))
            assert list(game.scores) == [int(p in game.winners) for p in range(game.players)], options


@pytest.mark.parametrize("cls", GAMES, ids=lambda c: c.id)
def test_only_a_game_that_says_it_finds_grybs_finds_any(cls):
    """The page lists GRYBs found only where ``finds_grybs``; a game that says it finds none never does
    (every option variant, a few random games each)."""
    rng = random.Random(f"{cls.id} grybs")
    short = {"turn_limit": 60} if any(o.name == "turn_limit" for o in cls.options) else {}
    assert cls.describe()["grybs"] is cls.finds_grybs
    if cls.finds_grybs:
        return
    for options in option_variants(cls):
        for _ in range(3):
            game = cls(cls.max_players, **options, **short)
            while not game.over:
                game.push_legal(game.random_action(rng))
                assert not game.grybs, (options, game.phase)


# -- a thousand seeded games per game ---------------------------------------------------------------------

MANY_GAMES = 1000
CHECK_EVERY = 3  # one game in this many (and every full-length one) is checked for undo, redo and replay
FULL_LENGTH_EVERY = 100  # one game in this many keeps the default turn limit and runs to its natural end
DEEPER_EVERY = 20  # one game in this many is on a deeper board than the default (where the game has depth)
EXTRA_TURNS = (3, 30)  # the short limit: the placement's turns each, plus this many more
LONGER_EVERY, LONGER_TURNS = 10, (30, 120)  # one game in ten plays on this many more: supplies run out
SAMPLES = 4  # plies checked per game besides the end
MAX_DEPTH = 5  # Super Giant boards (depth 6) are left to the games' own tests: slow to build and play


def option_variants(cls):
    """The default options, then one option at a time changed from the manuals' default: a bool flipped,
    each other choice, the smallest depth the game accepts and one deeper, a quarter of a count (stones,
    nuts, rings, stall turns...). The turn limit is set by the test."""
    variants = [{}]
    for option in cls.options:
        default = option.default
        if option.name == "turn_limit":
            continue
        if isinstance(default, bool):
            values = [not default]
        elif option.choices is not None:
            values = [c for c in option.choices if c != default]
        elif isinstance(default, int) and option.name == "depth":
            smallest = next((d for d in range(option.minimum, default) if _accepts(cls, {"depth": d})), None)
            values = [
                d for d in (smallest, default + 1) if d is not None and d <= min(option.maximum, MAX_DEPTH)
            ]
        elif isinstance(default, int):
            values = [max(option.minimum or 1, default // 4)]
        else:
            values = []
        variants += [{option.name: v} for v in values if v != default]
    return variants


def _accepts(cls, options):
    try:
        cls(cls.min_players, **options)
    except OptionError:
        return False
    return True


def play_fast(cls, players, options, rng, keep_states=True):
    """A random game to its end with the playouts' fast path: every state (None unless ``keep_states``),
    the phases seen, and the turn of the last change of phase."""
    game = cls(players, **options)
    keys = [game.state_key()] if keep_states else None
    phase, phases, changed = game.phase, {game.phase}, 0
    limit = game.settings.get("turn_limit", 300)
    cap = 100 * limit * players + 2000  # far more plies than any turn needs: a game that gets here never ends
    plies = 0
    while not game.over:
        game.push_legal(game.random_action(rng))
        plies += 1
        if keep_states:
            keys.append(game.state_key())
        if game.phase != phase:
            phase, changed = game.phase, game.turn
            phases.add(phase)
        assert plies < cap, f"{cls.id} {options} ({players}p): no end after {cap} plies"
    return game, keys, phases, changed


def check_undo_redo_replay(cls, game, keys, rng, label):
    """Replay the record in a new game, then undo the game to a sample of plies and the start, redoing the
    last stretch once: the states agree with those seen in play, and the replay and the undone game list
    the same legal actions at each sampled ply, where the action played is one of them and is applied
    from its text through ``apply``. (Between the samples the replay takes the actions as played.)"""
    actions = [a for a, _ in game.history]
    end = len(actions)
    points = sorted({0, end, *(rng.randrange(end + 1) for _ in range(SAMPLES))})
    legal = {}
    replay = cls(game.players, **game.settings)
    for ply, action in enumerate(actions):
        if ply in points:
            assert replay.state_key() == keys[ply], f"{label}: replay at ply {ply}"
            legal[ply] = sorted(map(str, replay.legal_actions()))
            text = str(action)
            assert text in legal[ply], f"{label}: random_action chose {text} at ply {ply}, not a legal action"
            replay.apply(text)  # from the text, with every check apply makes
        else:
            replay.push_legal(action)
    assert replay.state_key() == keys[end], f"{label}: replay at the end"
    assert replay.over and replay.legal_actions() == []

    last = points[-2]  # undo to the last sample, redo to the end, then undo to each sample and the start
    game.goto(last)
    assert game.state_key() == keys[last], f"{label}: undo to ply {last}"
    game.goto(end)
    assert game.state_key() == keys[end] and not game.redo_stack, f"{label}: redo from ply {last}"
    for point in reversed(points[:-1]):
        game.goto(point)
        assert game.state_key() == keys[point], f"{label}: undo to ply {point}"
        assert sorted(map(str, game.legal_actions())) == legal[point], (
            f"{label}: legal actions at ply {point}"
        )
    assert not game.history


def placement_turns(cls, options, rng):
    """One full game at the default turn limit (itself checked): the turns each until its last change of
    phase (0 for a game of one phase), and the phases it went through."""
    game, keys, phases, changed = play_fast(cls, cls.min_players, options, rng)
    check_undo_redo_replay(cls, game, keys, rng, f"{cls.id} {options} full game")
    return -(-changed // cls.min_players), phases


def schedule(cls, variants):
    """Which variant and player count each of the MANY_GAMES games plays, and whether it keeps the default
    turn limit: the variants in turn, a deeper board (slower to play) one game in DEEPER_EVERY, the
    default limit one game in FULL_LENGTH_EVERY; player counts in turn within each variant."""
    depth = next((o.default for o in cls.options if o.name == "depth"), None)
    deeper = [i for i, v in enumerate(variants) if depth is not None and v.get("depth", depth) > depth]
    others = [i for i in range(len(variants)) if i not in deeper]
    span = cls.max_players - cls.min_players + 1
    for number in range(MANY_GAMES):
        if deeper and number % DEEPER_EVERY == DEEPER_EVERY - 1:
            which = deeper[number // DEEPER_EVERY % len(deeper)]
            players = cls.min_players + number // (DEEPER_EVERY * len(deeper)) % span
        else:
            which = others[number % len(others)]
            players = cls.min_players + number // len(others) % span
        yield number, which, players, number % FULL_LENGTH_EVERY == FULL_LENGTH_EVERY // 2


@pytest.mark.slow
@pytest.mark.parametrize("cls", GAMES, ids=lambda c: c.id)
def test_a_thousand_random_games_in_every_phase_undo_replay_and_end(cls):
    """Termination over 1000 seeded random games, undo, redo and replay over a third of them (the module
    docstring): most with a turn limit shortened on purpose, so this test alone says little about a
    game's own ending rules; the next one counts those."""
    rng = random.Random(f"{cls.id} properties")
    variants = option_variants(cls)
    assert all(_accepts(cls, v) for v in variants)
    calibrated = [placement_turns(cls, v, rng) for v in variants]
    has_limit = "turn_limit" in {o.name for o in cls.options}
    seen = [set() for _ in variants]  # the phases the short games reached, per variant
    left_start = [0] * len(variants)
    played = [0] * len(variants)
    players_seen = set()
    for number, which, players, full_length in schedule(cls, variants):
        options = dict(variants[which])
        if has_limit and not full_length:
            extra = rng.randint(*(LONGER_TURNS if number % LONGER_EVERY == 3 else EXTRA_TURNS))
            options["turn_limit"] = max(10, calibrated[which][0] + extra)
        checked = full_length or number % CHECK_EVERY == 0
        game, keys, phases, _ = play_fast(cls, players, options, rng, keep_states=checked)
        label = f"{cls.id} game {number} {options} ({players}p)"
        assert game.over and set(game.winners) <= set(range(players)), label
        seen[which] |= phases
        left_start[which] += len(phases) > 1
        played[which] += 1
        players_seen.add(players)
        if checked:
            check_undo_redo_replay(cls, game, keys, rng, label)
    assert players_seen == set(range(cls.min_players, cls.max_players + 1))
    for variant, (_, full_phases), short_phases, left, count in zip(
        variants, calibrated, seen, left_start, played
    ):
        # Every variant is played; its short games reach every phase a full game goes through, and most
        # of them get past the first.
        assert count >= 50, (cls.id, variant, count)
        assert full_phases <= short_phases, (cls.id, variant, full_phases - short_phases)
        if len(full_phases) > 1:
            assert left >= 0.8 * count, (cls.id, variant, f"{left} of {count} games left the first phase")


# -- the games' own endings -------------------------------------------------------------------------------

OWN_ENDINGS = 2  # games per game that must end by the game's own rules, not by the turn limit
MOST_GAMES = 8  # ... within this many seeded games
LIMIT = "the turn limit"  # the draw reason of the turn limit (companion/games/engine.py, end_turn)


def best_or_random(game, rng):
    """Half the time the action best for the mover by the game's own ``evaluate()`` after it (ties broken at
    random), else a random one; the die's roll at random. Random play alone runs most of these games to
    the turn limit; a player with some intent ends them as their rules say."""
    if game.is_chance or rng.random() < 0.5:
        return game.random_action(rng)
    me, best, top = game.to_move, [], -1.0
    for action in game.legal_actions():
        game.push_legal(action)
        value = game.evaluate()[me]
        game.retract()
        if value > top:
            best, top = [action], value
        elif value == top:
            best.append(action)
    return rng.choice(best)


@pytest.mark.slow
@pytest.mark.parametrize("cls", GAMES, ids=lambda c: c.id)
def test_every_game_ends_by_its_own_rules_in_seeded_games_at_its_default_options(cls):
    """Seeded games at the default options (the turn limit too; the player counts in turn), each move
    ``best_or_random``: at least OWN_ENDINGS of at most MOST_GAMES end by the game's own rules, a win or a
    draw by a rule of its own (a deadlock, a stall, equal piles...), counted by how they ended. Every
    draw names its reason and a game with a winner none, in the state the CLI and the page read
    (``draw``)."""
    endings = Counter()
    span = cls.max_players - cls.min_players + 1
    for seed in range(MOST_GAMES):
        rng = random.Random(f"{cls.id} own ending {seed}")
        game = cls(cls.min_players + seed % span)
        while not game.over:
            assert game.draw_reason() is None
            game.push_legal(best_or_random(game, rng))
        draw = game.state_dict()["draw"]
        assert (draw is None) == bool(game.winners), (seed, game.winners, draw)
        assert draw is None or draw.strip(), seed
        endings["won" if game.winners else draw] += 1
        if sum(n for how, n in endings.items() if how != LIMIT) >= OWN_ENDINGS:
            break
    own = sum(n for how, n in endings.items() if how != LIMIT)
    assert own >= OWN_ENDINGS, (
        f"{cls.id}: {own} of {sum(endings.values())} games ended by its own rules: {endings}"
    )
