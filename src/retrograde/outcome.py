"""Outcome codes shared by kernels, stores and the CLI.

Values are always from the side to move's view. Zero means "undecided", so a
zero-filled array is an unsolved tier; after a tier is solved a zero marks an
index that holds no legal position. The codes fit in 2 bits.
"""

UNDECIDED = 0
LOSS = 1
DRAW = 2
WIN = 3

#: Marker a game's expand kernel uses for an index that is not a legal position.
ILLEGAL = -1

NAMES = {WIN: "win", LOSS: "loss", DRAW: "draw"}
CODES = {name: code for code, name in NAMES.items()}


def name(code: int) -> str:
    """Return "win", "loss" or "draw" for an outcome code (raises KeyError for undecided)."""
    return NAMES[int(code)]
