"""Native Nim agent built with constructor keywords from the command line (`heap=3,whole=True,
note=hello`: Python literals where they are one, else text): it takes from its favourite heap
(1-based) while that holds objects, else from the first heap holding any; the whole heap where
`whole`, else one object. It reads the heaps from `position.board`."""


class Favourite:
    def __init__(self, heap, whole=False, note=""):
        if not (isinstance(heap, int) and isinstance(whole, bool) and isinstance(note, str)):
            raise TypeError(f"heap={heap!r}, whole={whole!r}, note={note!r}: expected an int, a bool and text")
        self.heap, self.whole = heap, whole

    def choose(self, position):
        heaps = position.board
        i = self.heap - 1 if heaps[self.heap - 1] else next(i for i, h in enumerate(heaps) if h)
        return f"{i + 1}-{heaps[i] if self.whole else 1}"
