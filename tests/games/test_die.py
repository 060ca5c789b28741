"""The electronic die is fair: 100k rolls pass a chi-square test of uniformity (and a biased die fails), the
colour die and GRYB Dice II alike, through ``Die.roll(game)``, the only way a game rolls (the runtime's ROLL
and ``play``)."""

import math
import random

import pytest

from companion.games.catalogue import find
from companion.games.die import Die

ROLLS = 100_000


def chi_square(counts, expected):
    return sum((c - expected) ** 2 / expected for c in counts)


def critical(dof, z=4.753):
    """Chi-square quantile by Wilson-Hilferty; z = 4.753 is p = 1e-6: a fair die fails once a million runs."""
    return dof * (1 - 2 / (9 * dof) + z * math.sqrt(2 / (9 * dof))) ** 3


def colour_counts(roll):
    counts = dict.fromkeys("GRYB", 0)
    for _ in range(ROLLS):
        counts[roll()] += 1
    return list(counts.values())


def colour_roll(die):
    """The colour a roll for an EZ GRYB game waiting on the die shows."""
    game = find("ez-gryb")()
    return lambda: die.roll(game).colour


@pytest.mark.parametrize("seed", [None, 1234])  # the OS random source by default, and seeded
def test_colour_die_is_uniform(seed):
    assert chi_square(colour_counts(colour_roll(Die(seed))), ROLLS / 4) < critical(3)


def test_unseeded_dice_draw_from_the_os_and_do_not_repeat():
    # Two dice made at boot must not show the same sequence (4**-64 by chance): a fixed default seed would.
    a, b = colour_roll(Die()), colour_roll(Die())
    assert [a() for _ in range(64)] != [b() for _ in range(64)]


def test_a_game_roll_shows_every_face_equally_often():
    game = find("ez-gryb")()
    faces = game.roll_faces()
    die = Die(9)
    counts = dict.fromkeys(faces, 0)
    for _ in range(ROLLS):
        counts[die.roll(game)] += 1
    assert chi_square(counts.values(), ROLLS / len(faces)) < critical(len(faces) - 1)


def test_a_node_die_games_rolls_show_every_free_node_equally_often():
    """The path every node-die game rolls by (``Die.roll(game)``, as the runtime and ``play`` do): GRYB
    Dice II in The Fourth Level once some stones are down. Its faces are the free bottom-level nodes, each
    shown about equally often, and never a taken one ("If the node is occupied, roll again")."""
    game = find("fourth-level")()
    for text in ("roll:@GGGG", "GGGG", "roll:@RRRR", "RRRR", "roll:@YBGR", "YBGR"):
        game.apply(text)
    faces = game.roll_faces()
    taken = {f"roll:@{n}" for n in ("GGGG", "RRRR", "YBGR")}
    assert game.die == "node" and len(faces) == 253 and not taken & {str(f) for f in faces}
    die = Die()  # the OS random source, as a game is played
    counts = dict.fromkeys(faces, 0)
    for _ in range(ROLLS):
        counts[die.roll(game)] += 1  # a face that is not free would be a KeyError
    assert chi_square(counts.values(), ROLLS / len(faces)) < critical(len(faces) - 1)


def test_the_chi_square_test_catches_a_biased_die():
    rng = random.Random(5)
    biased = lambda: rng.choices("GRYB", weights=[26, 25, 25, 24])[0]  # noqa: E731  1 % bias
    assert chi_square(colour_counts(biased), ROLLS / 4) > critical(3)


def test_seeded_dice_repeat_and_game_rolls_are_faces_of_the_game():
    a, b = colour_roll(Die(42)), colour_roll(Die(42))
    assert [a() for _ in range(50)] == [b() for _ in range(50)]
    game = find("ez-gryb")()
    face = Die(1).roll(game)
    assert face in game.legal_actions() and face.is_roll
