import random

import pytest

from companion.engine import find
from companion.record import GameRecord, RecordError


def random_game(game_id, seed, players=2):
    rng = random.Random(seed)
    game = find(game_id)(players)
    while not game.over and len(game.history) < 400:
        game.apply(rng.choice(game.legal_actions()))
    return game


@pytest.mark.parametrize("game_id", ["ez-gryb", "drangles", "sumo-drangles"])
def test_record_json_round_trip_and_replay(game_id):
    game = random_game(game_id, 9)
    record = GameRecord.of(game, seed=9)
    again = GameRecord.from_json(record.to_json())
    assert again == record
    assert again.replay().state_key() == game.state_key()


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
