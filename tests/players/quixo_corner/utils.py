"""Another student's helper module, also called `utils` (the sample players in ../quixo have
theirs): the order this student prefers cells in, corners first."""


def preferred_cells(size):
    """Corners clockwise from the top left, then the other border cells row by row."""
    last = size - 1
    corners = [(0, 0), (last, 0), (last, last), (0, last)]
    border = [(x, y) for y in range(size) for x in range(size) if (x in (0, last) or y in (0, last))]
    return corners + [cell for cell in border if cell not in corners]
