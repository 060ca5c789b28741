"""The electronic die is fair: 100k rolls pass a chi-square test of uniformity (and a biased die fails), the
colour die and GRYB Dice II alike, through ``Die.roll(game)``, the path every game rolls by, as well as the
die's own ``colour()`` and ``node()``."""

import math
import random

import pytest

from companion import node as nd
from companion.die import Die
from companion.engine import find

ROLLS = 100_000


def chi_square(counts, expected):
    return sum((c - expected) ** 2 / expected for c in counts)


def critical(dof, z=4.753):
    """Chi-square quantile by Wilson-Hilferty; z = 4.753 is p = 1e-6, so a fair die fails once a million runs."""
    return dof * (1 - 2 / (9 * dof) + z * math.sqrt(2 / (9 * dof))) ** 3


def colour_counts(roll):
    counts = dict.fromkeys("GRYB", 0)
    for _ in range(ROLLS):
        counts[roll()] += 1
    return list(counts.values())


@pytest.mark.parametrize("seed", [None, 1234])  # the OS random source by default, and seeded
def test_colour_die_is_uniform(seed):
    die = Die(seed)
    assert chi_square(colour_counts(die.colour), ROLLS / 4) < critical(3)


def test_unseeded_dice_draw_from_the_os_and_do_not_repeat():
    # Two dice made at boot must not show the same sequence (4**-64 by chance): a fixed default seed would.
    a, b = Die(), Die()
    assert [a.colour() for _ in range(64)] != [b.colour() for _ in range(64)]


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


def test_node_die_is_uniform_over_the_bottom_level():
    die = Die()
    counts = [0] * 256
    first = nd.first_of_level(4)
    for _ in range(ROLLS):
        counts[die.node(4) - first] += 1
    assert chi_square(counts, ROLLS / 256) < critical(255)


def test_node_die_over_the_whole_board_and_bad_levels():
    die = Die(3)
    rolls = {die.node() for _ in range(20_000)}
    assert rolls == set(range(341))
    with pytest.raises(ValueError, match="level must be"):
        die.node(5)


def test_seeded_dice_repeat_and_game_rolls_are_faces_of_the_game():
    a, b = Die(42), Die(42)
    assert [a.colour() for _ in range(50)] == [b.colour() for _ in range(50)]
    game = find("ez-gryb")()
    face = Die(1).roll(game)
    assert face in game.legal_actions() and face.is_roll
