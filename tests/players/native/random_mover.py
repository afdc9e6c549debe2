"""Native agent: a callable that answers a legal move drawn from the generator its constructor
is given (`rng`: retrograde passes a seeded one)."""


class RandomMover:
    def __init__(self, rng):
        self.rng = rng

    def __call__(self, position):
        return position.moves[self.rng.integers(len(position.moves))]
