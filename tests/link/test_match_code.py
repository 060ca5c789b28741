"""The match code on the LEDs: drawn on the bottom level's 16 x 16 grid, read back off the frame; kept
from a guest's /api/leds, /api/link and snapshot, as the pairing code is; hidden once the game begins."""

from itertools import combinations

import pytest
from boards import read_code, wait

from companion.games.catalogue import find
from companion.link.protocol import ALPHABET, new_code
from companion.rules import node as nd
from companion.session import match_code
from companion.session.hands import Hands
from companion.session.renderer import OFF, Effects, render
from web import create_app
from web.testing import pair


def apart(a: str, b: str) -> int:
    return sum(x != y for ra, rb in zip(match_code.FONT[a], match_code.FONT[b]) for x, y in zip(ra, rb))


def test_every_character_has_its_own_glyph_and_look_alikes_differ_in_two_dots():
    assert sorted(match_code.FONT) == sorted(ALPHABET)
    assert all(apart(a, b) for a, b in combinations(match_code.FONT, 2))
    for a, b in ("0D", "2Z", "5S", "6G", "8B", "1J", "1T", "HK", "KX", "VY"):
        assert apart(a, b) >= 2, (a, b)
    assert len(match_code.CELLS) == 256 and set(match_code.NODES) == set(match_code.CELLS.values())


def test_the_renderer_draws_the_code_over_the_game_and_the_pairing_code_over_both():
    game = find("25-mens-gryb")(2)
    hands = Hands(game)
    code = new_code()
    picture = render(game, hands, [(0, 200, 0), (200, 0, 0)], Effects(match_code=code), 0.0)
    assert read_code(picture.nodes) == code and read_code(picture.code) == code
    assert all(picture.nodes[n] == OFF for n in range(85) if nd.level(n) == 3)
    both = render(game, hands, [(0, 200, 0)] * 2, Effects(code=tuple("GRYB"), match_code=code), 0.0)
    assert read_code(both.nodes) == code and both.nodes[nd.from_loci("G")] != OFF
    assert not render(game, hands, [(0, 200, 0)] * 2, Effects(), 0.0).code


def test_a_hosted_match_shows_its_code_on_the_leds_and_no_guest_reads_it(boards, tmp_path):
    a, b = boards
    board_leds = lambda: a.leds(board=True)  # noqa: E731
    app = create_app(
        a.runtime, a.runtime.config, state_dir=a.folder, link=a.link, leds=a.leds, board_leds=board_leds
    )
    phone, guest = app.test_client(), app.test_client()
    phone.environ_base["HTTP_X_CSRF_TOKEN"] = pair(phone, a.runtime)
    code = phone.post("/api/link/host", json={"game": "25-mens-gryb"}).get_json()["code"]
    wait(lambda: a.runtime.board.effects.match_code == code, what="the code shown")
    wait(lambda: a.picture.code and read_code(a.picture.nodes) == code, what="the frame shows the code")

    def guest_sees_plain():  # read twice: the picture may be redrawn (a pulse) between the two reads
        plain = {nd.name(n): "#{:02x}{:02x}{:02x}".format(*c) for n, c in a.picture.plain.items()}
        return guest.get("/api/leds").get_json()["nodes"] == plain

    wait(guest_sees_plain, what="the guest's frame is the one without the code")
    assert guest.get("/api/leds").get_json()["withheld"] == []
    with pytest.raises(KeyError):  # the frame as it would be without the code: no code to read in it
        read_code({nd.parse(name): rgb for name, rgb in a.leds()["nodes"].items()})
    assert guest.get("/api/link").get_json()["code"] is None
    assert phone.get("/api/link").get_json()["code"] == code
    assert code not in guest.get("/api/state").get_data(as_text=True)

    b.link.join(code)
    wait(lambda: a.link.game_id is not None and b.link.game_id is not None, what="the game begins")
    wait(lambda: a.runtime.board.effects.match_code is None, what="the code hidden")
    state = guest.get("/api/state").get_json()
    assert state["link"]["seats"] == ["alba", "bran"] and code not in str(state)
    assert code not in str(guest.get("/api/link").get_json())
