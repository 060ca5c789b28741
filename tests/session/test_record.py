import random

import pytest

from companion.games.catalogue import catalogue, find
from companion.session.record import GameRecord, RecordError

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

    # The record reader reads the text back to the same record: options of their types, every action.
    read = GameRecord.from_text(text)
    assert read == record and read.options == game.settings

    # A stored game's record says who played, when and how it ended; both forms read that back too.
    names = [f'Player "{n}" \\ #{n}' for n in range(1, players + 1)]  # quotes, a backslash, a hash
    seats = ["human"] + ["hard"] * (players - 1)
    result = {"winners": list(game.winners), "scores": list(game.scores)}
    full = GameRecord.of(game, seed=9, names=names, seats=seats, started=1764079392.75, result=result)
    assert (full.names, full.seats, full.date, full.result) == (names, seats, "2025-11-25T14:03:12Z", result)
    assert GameRecord.from_json(full.to_json()) == full
    assert GameRecord.from_text(full.to_text()) == full


def test_text_record_lists_header_and_numbered_actions():
    game = find("ez-gryb")()
    for text in ["roll:R", "R", "roll:G", "G"]:
        game.apply(text)
    text = GameRecord.of(game, seed=5).to_text()
    assert text.splitlines()[:2] == ['[Game "ez-gryb"]', '[Players "2"]']
    assert '[Seed "5"]' in text and "1. roll:R" in text and "4. G" in text


def test_the_text_record_says_who_played_when_and_how_it_ended():
    game = find("ez-gryb")()
    for text in ["roll:R", "R", "roll:G", "G"]:
        game.apply(text)
    record = GameRecord.of(
        game,
        seed=5,
        names=["Ann", "Computer (hard)"],
        seats=["human", "hard"],
        started=0.0,
        result={"winners": [1], "scores": [0, 15]},
    )
    header = record.to_text().partition("\n\n")[0].splitlines()
    assert header[-7:] == [
        '[Seed "5"]',
        '[Date "1970-01-01T00:00:00Z"]',
        '[Name1 "Ann"]',
        '[Name2 "Computer (hard)"]',
        '[Seats "human hard"]',
        '[Winners "2"]',
        '[Points "0 15"]',
    ]
    drawn = GameRecord.of(game, result={"winners": [], "scores": [3, 3]}).to_text()
    assert '[Winners "none"]' in drawn and GameRecord.from_text(drawn).result == {
        "winners": [],
        "scores": [3, 3],
    }
    # A record that knows none of it (the command line's) writes none of it, and reads back without it.
    bare = GameRecord.of(game, seed=5)
    assert not any(tag in bare.to_text() for tag in ("[Date", "[Name", "[Seats", "[Winners", "[Points"))
    assert GameRecord.from_text(bare.to_text()) == bare and "names" not in bare.to_json()


def test_a_text_record_that_does_not_read_is_refused_with_the_reason():
    good = GameRecord.of(
        find("ez-gryb")(), names=["Ann", "Bo"], result={"winners": [0], "scores": [4, 1]}
    ).to_text()
    for text, reason in [
        ("1. R\n", "no \\[Game\\]"),
        (good.replace('[Players "2"]', '[Players "two"]'), "no number of \\[Players\\]"),
        (good + "2. G\n", "action 1"),  # numbered from 1, one after another
        (good + '1. R\n[Seed "1"]\n', "header line after the actions"),
        (good.replace('[Name2 "Bo"]\n', ""), "names are not one text for each"),
        (good.replace('[Winners "1"]', '[Winners "3"]'), "its result"),
        (good.replace('[Points "4 1"]', '[Points "4 x"]'), "numbers"),
        (good.replace('[Game "ez-gryb"]', '[Game "ez-gryb"]\n[Option "depth=deep"]'), "whole number"),
        (good.replace('[Game "ez-gryb"]', '[Game "ez-gryb"]\n[Date "yesterday"]'), "date"),
    ]:
        with pytest.raises(RecordError, match=reason):
            GameRecord.from_text(text)


def test_bad_records_are_refused_with_the_reason():
    with pytest.raises(RecordError, match="not a game record"):
        GameRecord.from_json("{}")
    with pytest.raises(RecordError, match="format 99"):
        GameRecord.from_json('{"format": 99}')
    with pytest.raises(RecordError, match="result"):
        GameRecord.from_json('{"format": 1, "game": "ez-gryb", "players": 2, "result": {"winners": [5]}}')
    with pytest.raises(RecordError, match="seats"):
        GameRecord.from_json('{"format": 1, "game": "ez-gryb", "players": 2, "seats": ["human"]}')
    bad = GameRecord("ez-gryb", 2, {}, None, ["roll:R", "G"])
    with pytest.raises(RecordError, match=r"action 2 \(G\).*red node"):
        bad.replay()
