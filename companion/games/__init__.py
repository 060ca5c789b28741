"""The engine and every game of the GRYB manuals: importing this package registers them all."""

from companion.games import (  # noqa: F401  (each module registers its games)
    battlefield,
    blobs,
    composed,
    connection,
    grim_reaper,
    grybu,
    hyper_chess,
    morris,
    multiverse,
    pyragryb,
    square_deal,
    squirrel_race,
    twenty_five_mens,
)
