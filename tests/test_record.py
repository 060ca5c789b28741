import random

import pytest

from companion.engine import catalogue, find
from companion.record import GameRecord, RecordError

GAMES = sorted(catalogue(), key=lambda c: c.id)


@pytest.mark.parametrize("cls", GAMES, ids=lambda c: c.id)
def test_record_json_and_text_round_trip_and_replay_for_every_game(cls):
    """A random game played to its end (a short turn limit, the most players the game takes) makes a
    record that survives JSON and the text form, and replays to the same state."""
    players = cls.max_players
    rng = random.Random(f"{cls.id} record")
    options = {"turn_limit": 40} if any(o.name == "turn_limit" for o in cls.options) else {}
    game = cls(players, **options)
    while not game.over:
        game.push_legal(game.random_action(rng))
    record = GameRecord.of(game, seed=9)
    assert record.game == cls.id and record.players == players and record.options == game.settings
    assert record.actions == [str(a) for a, _ in game.history]

    again = GameRecord.from_json(record.to_json())
    assert again == record
    replayed = again.replay()
    assert replayed.state_key() == game.state_key() and replayed.over
    assert replayed.state_dict() == game.state_dict()

    # The text form names the game, players, options and seed, then every action numbered from 1,
    # and those actions replay to the same state.
    text = record.to_text()
    header, _, body = text.partition("\n\n")
    assert header.splitlines()[:2] == [f'[Game "{cls.id}"]', f'[Players "{players}"]']
    assert '[Seed "9"]' in header
    assert all(f'[Option "{k}={v}"]' in header for k, v in game.settings.items())
    numbered = [line.split(". ", 1) for line in body.splitlines()]
    assert [int(n) for n, _ in numbered] == list(range(1, len(record.actions) + 1))
    from_text = cls(players, **record.options)
    for _, action in numbered:
        from_text.apply(action)
    assert from_text.state_key() == game.state_key()


def test_text_record_lists_header_and_numbered_actions():
    game = find("ez-gryb")()
    for text in ["roll:R", "R", "roll:G", "G"]:
        game.apply(text)
    text = GameRecord.of(game, seed=5).to_text()
    assert text.splitlines()[:2] == ['[Game "ez-gryb"]', '[Players "2"]']
    assert '[Seed "5"]' in text and "1. roll:R" in text and "4. G" in text


def test_bad_records_are_refused_with_the_reason():
    with pytest.raises(RecordError, match="not a game record"):
        GameRecord.from_json("{}")
    with pytest.raises(RecordError, match="format 99"):
        GameRecord.from_json('{"format": 99}')
    bad = GameRecord("ez-gryb", 2, {}, None, ["roll:R", "G"])
    with pytest.raises(RecordError, match=r"action 2 \(G\).*red node"):
        bad.replay()
