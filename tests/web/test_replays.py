"""Replayed games kept for the replay page (web.replays): every position as a replay from the start makes it,
a kept game never changed, and the bound on what is kept."""

import random
import threading

import pytest

from companion.games import catalogue as catalogue_mod
from companion.games import engine
from web.replays import Replays, position


def played(game_id: str, seed: int, undos: bool = False, **options) -> engine.Game:
    """A game played to its end at random; with ``undos``, now and then a move taken back and another
    played."""
    game = catalogue_mod.find(game_id)(2, **options)
    rng = random.Random(seed)
    while not game.over:
        game.apply(game.random_action(rng))
        if undos and rng.random() < 0.1 and not game.over:
            game.undo()
    return game


def from_the_start(game: engine.Game, ply: int) -> engine.Game:
    fresh = type(game)(game.players, **game.settings)
    for action, _ in game.history[:ply]:
        fresh.apply(action)
    return fresh


@pytest.mark.parametrize(
    "game_id, options",
    [
        ("ez-gryb", {"stones": 6, "turn_limit": 40}),
        ("multiverse", {"depth": 5, "rings": 3, "turn_limit": 20}),
        ("grim-reaper", {}),
    ],
)
def test_every_position_is_the_one_a_replay_from_the_start_makes(game_id, options):
    game = played(game_id, 1, undos=True, **options)
    end, history = game.state_key(), list(game.history)
    plies = len(history)
    for ply in (
        list(range(plies + 1)) + list(range(plies, -1, -1)) + random.Random(2).choices(range(plies + 1), k=20)
    ):
        view, fresh = position(game, ply), from_the_start(game, ply)
        assert view.state_key() == fresh.state_key(), ply
        assert view.history == fresh.history and view.played() == fresh.played()
        assert view.state_dict() == fresh.state_dict()
    assert game.state_key() == end and game.history == history  # the kept game is as it was


def test_a_position_past_the_record_is_a_value_error():
    game = played("ez-gryb", 1, depth=2, stones=4)
    game.undo()  # taken back: in the redo stack, not the record
    for ply in (-1, len(game.history) + 1):
        with pytest.raises(ValueError, match=f"no position {ply}"):
            position(game, ply)


class Counted:
    """Replays of one game, counted."""

    def __init__(self, game):
        self.game, self.calls = game, 0

    def __call__(self):
        self.calls += 1
        return self.game


def test_a_game_is_replayed_once_for_its_key_and_again_for_a_new_one():
    replays = Replays()
    first = Counted(played("ez-gryb", 1, depth=2, stones=4))
    assert replays.replayed((1, 1), first) is first.game
    assert replays.replayed((1, 1), first) is first.game and first.calls == 1
    later = Counted(played("ez-gryb", 2, depth=2, stones=4))  # the same game after another event
    assert replays.replayed((1, 2), later) is later.game and later.calls == 1


def test_what_the_replay_raises_is_raised_and_nothing_is_kept():
    replays = Replays()

    def broken():
        raise ValueError("action 3 cannot be replayed")

    with pytest.raises(ValueError, match="action 3"):
        replays.replayed((1, 3), broken)
    assert len(replays) == 0


def test_at_most_so_many_games_are_kept_the_latest_asked_for():
    replays = Replays(games=2)
    games = {key: Counted(played("ez-gryb", key, depth=2, stones=4)) for key in range(3)}
    replays.replayed(0, games[0])
    replays.replayed(1, games[1])
    replays.replayed(0, games[0])  # asked for again: 1 is now the one asked for least recently
    replays.replayed(2, games[2])
    assert len(replays) == 2
    replays.replayed(0, games[0])
    replays.replayed(1, games[1])
    assert [g.calls for g in games.values()] == [1, 2, 1]


def test_at_most_so_many_positions_are_kept_and_a_longer_game_is_not_kept():
    short = [Counted(played("ez-gryb", seed, depth=2, stones=4)) for seed in range(6)]
    bound = len(short[0].game.history) + len(short[1].game.history)
    replays = Replays(games=10, plies=bound)
    for key, replay in enumerate(short):
        replays.replayed(key, replay)
        assert replays.kept_plies() <= bound
    assert 1 <= len(replays) <= 2
    longer = Counted(played("ez-gryb", 1, stones=6, turn_limit=40))
    replays = Replays(plies=len(longer.game.history) - 1)
    assert replays.replayed("long", longer) is longer.game and replays.replayed("long", longer) is longer.game
    assert longer.calls == 2 and len(replays) == 0


def test_threads_stepping_through_several_games_at_once_each_see_their_own_positions():
    """Waitress serves the page on several threads: each request gets its game and positions right
    while others replay, keep and drop games under the same lock."""
    games = [played("ez-gryb", seed, depth=2, stones=4) for seed in range(5)]
    expected = [
        [g.state_key()] + [snapshot for _, snapshot in reversed(g.history)] for g in games
    ]  # end first
    replays = Replays(games=2)
    wrong, bounds = [], []

    def stepper(seed):
        rng = random.Random(seed)
        for _ in range(200):
            key = rng.randrange(len(games))
            game = replays.replayed(key, lambda key=key: played("ez-gryb", key, depth=2, stones=4))
            back = rng.randrange(len(game.history) + 1)
            if position(game, len(game.history) - back).state_key() != expected[key][back]:
                wrong.append((key, back))
            bounds.append(len(replays))

    threads = [threading.Thread(target=stepper, args=(seed,)) for seed in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert wrong == [] and max(bounds) <= 2
