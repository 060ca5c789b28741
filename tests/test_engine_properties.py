"""Properties every game must have, checked by playing many seeded random games of each.

- every legal action is accepted, and printing then parsing it gives the same action;
- undo restores the state exactly, step by step, back to the start; redo replays to the same end;
- replaying the record (game, options, actions) reproduces every state;
- random self-play ends (a win or a draw by the documented turn limit).
"""

import random

import pytest

from companion.engine import catalogue

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
    from companion.engine import IllegalAction

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


SHORT_GAMES = 1000


@pytest.mark.slow
@pytest.mark.parametrize("cls", GAMES, ids=lambda c: c.id)
def test_a_thousand_short_games_undo_and_replay_exactly(cls):
    """Many games cut short by a low turn limit: every opening, every early capture and removal."""
    rng = random.Random(cls.id)
    has_limit = any(o.name == "turn_limit" for o in cls.options)
    for number in range(SHORT_GAMES):
        players = cls.min_players + number % (cls.max_players - cls.min_players + 1)
        options = {"turn_limit": rng.randint(10, 20)} if has_limit else {}
        game = cls(players, **options)
        keys = [game.state_key()]
        while not game.over and len(keys) < 400:
            game.push_legal(game.random_action(rng))
            keys.append(game.state_key())
        point = rng.randrange(len(keys))
        game.goto(point)
        assert game.state_key() == keys[point]
        game.goto(len(keys) - 1)
        assert game.state_key() == keys[-1]
        replay = cls(players, **options)
        for action, _ in game.history:
            replay.apply(action)
        assert replay.state_key() == keys[-1]
