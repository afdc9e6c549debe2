"""Nim as a person sees it: each heap a row of counters in the explorer, and why a move is
illegal (not HEAP-COUNT, no such heap, more than the heap holds or --max-take allows)."""

from __future__ import annotations

from retrograde.games.capabilities import Display, Picture, Token


class NimDisplay(Display):
    def picture(self, position):
        """Each heap a row of counters, as long as its start (row labels: the heap numbers moves name)."""
        width = max(self.game.heaps)
        counter = Token("disc", "token")
        take = "any number of objects" if self.game.max_take is None else f"1 to {self.game.max_take} objects"
        last = "loses" if self.game.misere else "wins"
        return Picture(len(position), width, tuple(counter if c < h else None for h in position for c in range(width)),
                       style="rows", row_labels=tuple(str(i) for i in range(1, len(position) + 1)),
                       caption=f"take {take} from one heap; taking the last object {last}")

    def why_illegal(self, position, text):
        """Not HEAP-COUNT, no such heap, nothing taken, an empty heap, more than the heap holds,
        or more than --max-take allows."""
        heap, dash, take = text.partition("-")
        if not (dash and heap.isdigit() and take.isdigit()):
            return f"{text!r} is not a move: nim moves are HEAP-COUNT, e.g. 2-3 takes 3 objects from heap 2"
        heap, take = int(heap), int(take)
        if not 1 <= heap <= len(position):
            return f"there is no heap {heap}: the heaps are 1 to {len(position)}"
        size = position[heap - 1]
        if take == 0:
            return "take at least 1 object"
        if size == 0:
            return f"heap {heap} is empty"
        if take > size:
            return f"heap {heap} holds only {size}"
        if self.game.max_take is not None and take > self.game.max_take:
            return f"at most {self.game.max_take} may be taken per turn (--max-take {self.game.max_take})"
        return super().why_illegal(position, text)
