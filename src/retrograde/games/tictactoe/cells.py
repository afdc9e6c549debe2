"""Tic-tac-toe's board: nine cells (bit r*3 + c for row r, column c), its lines and cell names,
shared by the rules, the display, the players and the network input."""

CELLS = 9
LINES = (0b000000111, 0b000111000, 0b111000000, 0b001001001, 0b010010010, 0b100100100,
         0b100010001, 0b001010100)


def has_line(mask: int) -> bool:
    return any(mask & line == line for line in LINES)


def cell_name(cell: int) -> str:
    """`a1` is the top-left cell: column letter, then row number from the top."""
    return "abc"[cell % 3] + str(cell // 3 + 1)
