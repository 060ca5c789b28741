"""Shapes Morris and Lines Morris: men move only as shapes (three contiguous men) or lines (two).

The manual's own examples of moving and changing shapes and lines (000 "Using Lines", "Using Shapes") are
checked as legal moves; placement, GRYBs, removals and the win are those of 25 Men's GRYB
(tests/games/test_game_25_mens_gryb.py).
"""

import pytest
from scenario import names, refused

from companion.games.catalogue import find

SHAPES = find("shapes-morris")
LINES = find("lines-morris")


def arranged(cls, p0, p1, **options):
    game = cls(**options)
    game.arrange((p0, p1))
    return game


def test_a_player_without_a_shape_after_phase_one_cannot_move_and_loses():
    game = SHAPES(stones=5)
    for text in "GG RRRR GGG YYYY GGGG BBBB BY RGRG YB RYRY".split():
        game.apply(text)
    assert game.phase == "move" and game.to_move == 0
    refused(game, "BY-BYG", "the man on BY is in no shape of yours: men move only as shapes")
    game.apply("GG-GGR")  # [GG, GGG, GGGG] changed to [GGR, GGG, GGGG] round its middle man
    assert game.over and game.winner == 0


def test_changing_a_shape_moves_an_end_round_the_middle_man():
    game = arranged(SHAPES, ["YG", "YGR", "YGRB", "RRRR"], ["GGGG"])
    legal = names(game.legal_actions())
    # 000: [YG, YGR, YGRB] to [YG, YGR, YGY] and to [YGG, YGR, YGRB].
    assert {"YGRB-YGY", "YG-YGG"} <= legal
    assert not any(a.startswith("RRRR-") or a.startswith("YGR-") for a in legal)  # lone man; middle man
    refused(game, "RRRR-RRRG", "the man on RRRR is in no shape of yours")
    refused(game, "YGRB-RRRG", "YGRB to RRRG does not change a shape")


def test_hopping_an_end_past_the_other_end():
    # 000: [R, Y, YG] to [Y, YG, YB]; [0, R, G] to [R, G, GB] or to [R, G, B].
    assert "R-YB" in names(arranged(SHAPES, ["R", "Y", "YG"], ["GGGG"]).legal_actions())
    assert {"0-GB", "0-B"} <= names(arranged(SHAPES, ["0", "R", "G"], ["YYYY"]).legal_actions())


def test_a_shape_with_the_head_node_moves_down_by_a_first_locus():
    # 000: "the shape [0, G, R] could move down to [G, G, R] or [R, G, R] or interject Y or B as the first
    # locus".
    game = arranged(SHAPES, ["0", "G", "R"], ["YYYY"])
    assert {"0,G,R-G,GG,GR", "0,G,R-R,RG,RR", "0,G,R-Y,YG,YR", "0,G,R-B,BG,BR"} <= names(game.legal_actions())
    game.apply("0,G,R-Y,YG,YR")
    assert sorted(game.space.names(game.stones[0])) == ["Y", "YG", "YR"]
    refused(arranged(SHAPES, ["0", "G", "R"], ["YG"]), "0,G,R-Y,YG,YR", "YG is occupied")
    assert "G,GG,GR-0,G,R" in names(arranged(SHAPES, ["G", "GG", "GR"], ["YYYY"]).legal_actions())  # and back
    assert not any(
        a.startswith("G,R-0") for a in names(arranged(LINES, ["G", "R"], ["YYYY"]).legal_actions())
    )


def test_either_of_two_middles_of_a_shape():
    # 000: [B, BG, BR] may change to [B, BG, BGY] or [B, BR, BRY].
    assert {"BR-BGY", "BG-BRY"} <= names(arranged(SHAPES, ["B", "BG", "BR"], ["GGGG"]).legal_actions())


def test_a_shape_moves_as_a_block_by_excision_hyperspace_and_interjection():
    game = arranged(SHAPES, ["GR", "GRY", "GRYY"], ["RGGG"])
    assert "GR,GRY,GRYY-R,RY,RYY" in names(game.legal_actions())  # 000's excision example
    refused(game, "GR,GRY,GRYY-R,RY,RYG", "moves in formation by interjection, excision or via hyperspace")
    refused(game, "GR,GRYY-R,RYY", "a shape is 3 of your men on contiguous nodes")
    hyper = arranged(SHAPES, ["YBR", "YBRR", "YBRG"], ["GGGG"])
    assert (
        hyper.parse("YBR,YBRR,YBRG-YGR,YGRR,YGRG") in hyper.legal_actions()
    )  # written in the manual's order
    hyper.apply("YBR,YBRR,YBRG-YGR,YGRR,YGRG")
    assert sorted(hyper.space.names(hyper.stones[0])) == ["YGR", "YGRG", "YGRR"]
    inter = arranged(SHAPES, ["R", "RG", "RGG"], ["YYYY"])
    assert "R,RG,RGG-BR,BRG,BRGG" in names(inter.legal_actions())
    blocked = arranged(SHAPES, ["GR", "GRY", "GRYY"], ["RY"])
    refused(blocked, "GR,GRY,GRYY-R,RY,RYY", "RY is occupied")


def test_any_three_of_a_longer_string_are_a_shape():
    game = arranged(SHAPES, ["G", "GG", "GGG", "GGGG"], ["YYYY"])
    legal = names(game.legal_actions())
    assert {"GG,GGG,GGGG-RG,RGG,RGGG", "G,GG,GGG-RG,RGG,RGGG", "G,GG,GGG-YG,YGG,YGGG"} <= legal
    refused(game, "G,GG,GGG,GGGG-R,RG,RGG,RGGG", "a shape is 3 of your men on contiguous nodes")


def test_a_line_is_not_a_shape():
    game = arranged(SHAPES, ["BB", "BBB", "RRRR", "RRRY", "RRRG"], ["GGGG"])
    assert not any(a.startswith("BB") for a in names(game.legal_actions()))
    refused(game, "BB-BBG", "the man on BB is in no shape of yours")


def test_changing_and_moving_lines():
    # 000: [YB, YBY] to [YB, YBG]; [G, GR] to [GR, GRB]; [BRY, BRR] to [BGY, BGR]; [R, RG] to [BR, BRG].
    assert "YBY-YBG" in names(arranged(LINES, ["YB", "YBY"], ["GGGG"]).legal_actions())
    assert "G-GRB" in names(arranged(LINES, ["G", "GR"], ["YYYY"]).legal_actions())
    line = arranged(LINES, ["BRY", "BRR"], ["GGGG"])
    legal = names(line.legal_actions())
    assert {"BRR,BRY-BGR,BGY", "BRR,BRY-RR,RY", "BRR,BRY-BRGR,BRGY"} <= legal
    assert "R,RG-BR,BRG" in names(arranged(LINES, ["R", "RG"], ["YYYY"]).legal_actions())
    lone = arranged(LINES, ["R", "RG", "YYYY"], ["GGGG"])
    refused(lone, "YYYY-YYYR", "the man on YYYY is in no line of yours: men move only as lines")
    refused(
        lone,
        "R-BB",
        "R to BB does not change a line: one end moves to a free node contiguous to the other end",
    )
    refused(lone, "R,RG,YYYY-BR,BRG,BYYY", "a line is 2 of your men on contiguous nodes")


def test_a_line_moved_into_two_quadrangles_forms_two_grybs_and_their_removals_add_up():
    theirs = ["GGGG", "GGGR", "RRRR", "RRRY", "BBBB", "BBBY"]
    game = arranged(LINES, ["YG", "YR", "YY", "YBR", "YBY", "YBB", "B", "BG"], theirs)
    game.apply("B,BG-YB,YBG")  # interjecting Y completes Y's quadrangle (level 2) and YB's (level 3)
    assert sorted(g.level for g in game.grybs) == [2, 3]
    assert game.pending == 5 and game.to_move == 0
    refused(game, "YBG-B", "you formed a GRYB: first remove 5 of your opponent's men")
    for victim in theirs[:3]:
        game.apply("x" + victim)
    assert (
        game.men(1) == 3
        and game.over
        and game.winner == 0
        and game.captured == (3, 0)
        and game.scores == (1, 0)
    )


def test_a_player_with_no_line_passes_when_the_option_says_so():
    game = arranged(LINES, ["GGGG", "GGGR"], ["RRRR", "YYYY"], blocked="passes")
    game.apply("GGGR-GGGB")
    assert not game.over and names(game.legal_actions()) == {"pass"}
    game.apply("pass")
    assert game.to_move == 0 and not game.over


@pytest.mark.parametrize("cls", [SHAPES, LINES], ids=["shapes", "lines"])
def test_playout_moves_are_uniform_over_the_legal_moves(cls):
    import random
    from collections import Counter

    game = arranged(cls, ["G", "GG", "GGG", "RRRR", "RRRG", "YB"], ["BBBB", "BBBY", "YYYY"])
    legal = game.legal_actions()
    assert any(len(a.sources) > 1 for a in legal) and any(len(a.sources) == 1 for a in legal)
    rng = random.Random(5)
    samples = 40 * len(legal)
    counts = Counter(game.random_action(rng) for _ in range(samples))
    assert set(counts) == set(legal)
    spread = 5 * 40**0.5  # five standard deviations of each count
    assert all(abs(c - 40) < spread for c in counts.values())
