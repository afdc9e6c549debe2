"""A test engine for retrograde's engine protocol (docs/engine.md), self-contained: it plays Nim
in normal play by the nim-sum (each heap modulo k + 1 where takes are bounded by k) and refuses
every other game.

    python3 engine.py [--misbehave KIND] [--at N]

KIND (from its N-th `position` on, default 1; its `id` then names KIND): crash (exits with status 3), hang (never
answers), garbage (answers a move that is not one), forfeit (gives the move up itself).
It logs every message it gets on stderr.
"""

import argparse
import json
import sys
import time
from functools import reduce
from operator import xor


def nim_sum(heaps, k):
    return reduce(xor, (h if k is None else h % (k + 1) for h in heaps), 0)


def nim_move(heaps, k):
    """HEAP-COUNT (1-based heap): the first take leaving nim-sum 0, else one from the first heap."""
    takes = [(i, n) for i, h in enumerate(heaps) for n in range(1, (h if k is None else min(h, k)) + 1)]
    for i, n in takes:
        after = list(heaps)
        after[i] -= n
        if nim_sum(after, k) == 0:
            return f"{i + 1}-{n}"
    i, n = takes[0]
    return f"{i + 1}-{n}"


def answer(word, rest, state, misbehave, at):
    """The reply to one message (None: no reply)."""
    if word == "retrograde":
        name = "nimsum-engine" + (f"-{misbehave}" if misbehave else "")
        return f"id {name} 1.0" if rest == "1" else "refuse protocol 1 only"
    if word == "game":
        name, _, params = rest.partition(" ")
        params = json.loads(params or "{}")
        if name != "nim":
            return f"refuse this engine plays nim only, not {name}"
        if params.get("misere"):
            return "refuse this engine plays normal nim only, not misère"
        state["k"] = params.get("max_take")
        return "ready"
    if word == "new":
        return "ready"
    if word == "position":
        state["asked"] += 1
        if misbehave and state["asked"] >= at:
            if misbehave == "crash":
                sys.exit(3)
            if misbehave == "hang":
                time.sleep(3600)
            if misbehave == "garbage":
                return "move banana"
            if misbehave == "forfeit":
                return "forfeit exception the engine gives up"
        return "move " + nim_move([int(h) for h in rest.split(",")], state["k"])
    return f"forfeit exception unknown message {word!r}"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--misbehave", choices=("crash", "hang", "garbage", "forfeit"))
    parser.add_argument("--at", type=int, default=1, help="the position from which it misbehaves")
    options = parser.parse_args()
    state = {"k": None, "asked": 0}
    for line in sys.stdin:
        print(f"engine got: {line.rstrip()}", file=sys.stderr, flush=True)
        word, _, rest = line.strip().partition(" ")
        if word == "quit":
            return
        reply = answer(word, rest.strip(), state, options.misbehave, options.at)
        if reply is not None:
            print(reply, flush=True)


if __name__ == "__main__":
    main()
