"""Native agent that asks for 64 GiB at every move: past the memory limit, each move is a
forfeit (memory)."""


def hog(position):
    hoard = bytearray(64 * 2**30)
    return position.moves[len(hoard) % len(position.moves)]
