"""The link's messages and dice, without a broker."""

import pytest

from companion.games.catalogue import find
from companion.link import protocol as p
from companion.session.linked import digest, digests, face


def test_a_code_reads_however_it_is_typed_and_gives_its_match_and_key():
    code = p.new_code()
    assert len(code) == 14 and code.count("-") == 2
    typed = code.lower().replace("-", " ").replace("0", "o").replace("1", "l")
    assert p.normal_code(typed) == code
    assert p.match_id(code) != p.match_id(p.new_code()) and len(p.match_key(code)) == 32
    for bad in ("", "ABCD-EFGH", "UUUU-UUUU-UUUU", "ABCD-EFGH-JKMN-P"):
        with pytest.raises(p.Refused):
            p.normal_code(bad)


def test_a_signed_message_reads_back_and_any_change_to_it_is_refused():
    key, match = p.match_key("AAAA-BBBB-CCCC"), p.match_id("AAAA-BBBB-CCCC")
    name, payload = p.make(key, match, "alba", p.ACTION, ply=3, seat=0, action="G", digest="a" * 64)
    assert name == f"gryb/{match}/alba/action/3"
    assert p.read(key, match, name, payload)["action"] == "G"
    tampered = payload.replace(b'"action":"G"', b'"action":"R"')
    with pytest.raises(p.Refused, match="bad signature"):
        p.read(key, match, name, tampered)
    with pytest.raises(p.Refused, match="wrong topic"):
        p.read(key, match, name.replace("/3", "/4"), payload)
    with pytest.raises(p.Refused, match="wrong topic"):
        p.read(key, match, name.replace("alba", "bran"), payload)


def test_every_board_s_value_changes_the_roll_and_a_reveal_must_match_its_commitment():
    values = {"alba": p.nonce(b"a" * 32, "m", 4), "bran": p.nonce(b"b" * 32, "m", 4)}
    seed = p.roll_seed("m", 4, values)
    assert seed == p.roll_seed("m", 4, dict(reversed(values.items())))  # order of arrival is not a choice
    for board in values:
        other = values | {board: p.nonce(b"c" * 32, "m", 4)}
        assert p.roll_seed("m", 4, other) != seed
    assert p.commitment(values["alba"]) != p.commitment(values["bran"])
    assert p.nonce(b"a" * 32, "m", 4) == values["alba"] != p.nonce(b"a" * 32, "m", 5)


def test_the_digest_names_the_position_and_a_seed_picks_a_face_every_board_agrees_on():
    game = find("ez-gryb")(2)
    start = digest(game)
    roll = face(game, "ff" * 32)
    assert roll in game.roll_faces() and face(game.copy(), "ff" * 32) == roll
    game.apply(roll)
    assert digest(game) != start and digests(game, 0) == [digest(game)]
    faces = {str(face(find("ez-gryb")(2), f"{n:064x}")) for n in range(40)}
    assert faces == {"roll:G", "roll:R", "roll:Y", "roll:B"}
