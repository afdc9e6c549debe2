"""The course's Nim lab API (2022-23), served to students' strategies under the module name
`nim`: a strategy `strategy(state)` is given a `Nim` and answers `Nimply(row, num_objects)`
(row 0-based), or any (row, num_objects) pair.

Our own code for the facts of that API (docs/course.md), not the course's.
"""

from __future__ import annotations

import operator
from collections import namedtuple

#: The name students import this module by (the classes carry it, for pickles).
SERVED = "nim"

#: What `from nim import *` gives: the course's names alone.
__all__ = ["Nim", "Nimply"]

#: A take: `num_objects` objects from row `row` (0-based).
Nimply = namedtuple("Nimply", "row, num_objects", module=SERVED)


def refusal(rows: tuple[int, ...], k: int | None, ply) -> str | None:
    """Why taking `ply` = (row, num_objects) from `rows` is not a legal take (at least one object,
    at most what the row holds and at most k), or None where it is."""
    try:
        row, num_objects = map(operator.index, ply)
    except (TypeError, ValueError):
        return f"the take {ply!r} is not (row, num_objects) whole numbers"
    if not 0 <= row < len(rows):
        return f"there is no row {row} (rows are 0..{len(rows) - 1})"
    if num_objects < 1:
        return f"it takes {num_objects} objects from row {row} (a take is at least 1)"
    if num_objects > rows[row]:
        return f"it takes {num_objects} objects from row {row}, which holds {rows[row]}"
    if k is not None and num_objects > k:
        return f"it takes {num_objects} objects, more than k = {k}"
    return None


class Nim:
    """A Nim position: `rows`, the objects left in each row, and `k`, the most objects a take
    may remove (None: no bound)."""

    __module__ = SERVED

    def __init__(self, num_rows: int, k: int | None = None) -> None:
        """`num_rows` rows of 1, 3, 5, ... objects, as the lab starts."""
        self._rows = [2 * row + 1 for row in range(num_rows)]
        self._k = k

    @classmethod
    def with_rows(cls, rows, k: int | None = None) -> Nim:
        """The position with these rows (our position, shown to a strategy)."""
        state = cls(0, k)
        state._rows = list(rows)
        return state

    def __bool__(self) -> bool:
        """Whether any object is left."""
        return sum(self._rows) > 0

    def __str__(self) -> str:
        return "<" + " ".join(map(str, self._rows)) + ">"

    @property
    def rows(self) -> tuple[int, ...]:
        return tuple(self._rows)

    @property
    def k(self) -> int | None:
        return self._k

    def nimming(self, ply) -> None:
        """Apply the take `ply` = (row, num_objects); AssertionError where it is not legal."""
        fault = refusal(self.rows, self._k, ply)
        if fault is not None:
            raise AssertionError(fault)
        row, num_objects = map(operator.index, ply)
        self._rows[row] -= num_objects
