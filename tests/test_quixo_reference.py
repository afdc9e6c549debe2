"""3x3 Quixo against an independent reference (`quixo_reference`, which imports nothing from
retrograde): every stored position's value and remoteness, and the moves of the game's rules."""

from __future__ import annotations

import json
import random
from collections import Counter

import pytest

import quixo_reference as qref
from conftest import run_cli
from retrograde import outcome as oc
from retrograde.games import make_game

#: 3x3 over all 3^9 boards with the side to move as x (the reference's counts; no draws).
TOTALS_3X3 = Counter(win=12_748, loss=6_935, draw=0)
NAMES = {qref.WIN: "win", qref.LOSS: "loss", qref.DRAW: "draw", qref.UNDECIDED: "none"}


@pytest.fixture(scope="module")
def reference():
    """board (x to move) -> (outcome, remoteness), for every 3x3 board (a few seconds)."""
    return qref.solve(3)


def test_the_reference_restates_the_outcome_codes():
    assert (qref.UNDECIDED, qref.LOSS, qref.DRAW, qref.WIN) == (oc.UNDECIDED, oc.LOSS, oc.DRAW, oc.WIN)


def test_reference_rules_on_hand_worked_boards():
    """The reference's own rules, on boards worked out by hand from SPEC §4."""
    after = {move: qref.write(board, "o") for move, board in qref.moves(qref.normalised("xo./.../... x")).items()}
    assert len(after) == 17 and "b1-b3" not in after  # o's cube at b1 cannot be taken
    assert after["a1-c1"] == "o.x/.../... o"  # x's own cube out of a1, row shifts left, x in at c1
    assert after["c1-a1"] == "xxo/.../... o"  # the blank out of c1, row shifts right
    assert after["b3-b1"] == "xx./.o./... o"  # column b shifts down
    assert "a1-a1" not in after and "b2-b1" not in after  # not back where it came from; not inside
    # Corners have 2 moves, the other border cells 3: 20 on the empty board.
    assert len(qref.moves("." * 9)) == 20 and len(qref.moves("." * 16)) == 32 and len(qref.moves("." * 25)) == 44
    # A push making lines of both sides loses for the mover: o (to move) has won.
    both = qref.moves(qref.normalised("xxo/xxo/oo. x"))["c3-a3"]
    assert qref.write(both, "o") == "xxo/xxo/xoo o"
    assert qref.terminal_value(qref.normalised("xxo/xxo/xoo o")) == qref.WIN
    # Only the mover's line: the mover has won, so the side to move has lost.
    only = qref.moves(qref.normalised("xx./oo./... x"))["c1-a1"]
    assert qref.terminal_value(qref.normalised(qref.write(only, "o"))) == qref.LOSS
    assert qref.moves(qref.normalised("xxx/oo./... o")) == {}  # finished: no moves


def test_reference_totals_and_the_start(reference):
    assert Counter(NAMES[o] for o, _ in reference.values()) == TOTALS_3X3
    value, remoteness = reference["." * 9]
    assert value == qref.WIN and remoteness % 2 == 1  # FACTS: the first player wins 3x3
    assert all(r == 0 for o, r in reference.values() if o == qref.DRAW)
    assert all(r == 0 for board, (o, r) in reference.items() if qref.terminal_value(board) is not None)


def test_every_stored_3x3_position_matches_the_reference(open_solved, reference):
    """Every index of every tier: a board that is its class's representative (the reference's
    own symmetry rule) holds the reference's outcome and remoteness, any other board is a hole
    (0, 0); each of the 3^9 boards has exactly one index; the tiers' recorded counts, each
    representative counting its whole class, are the reference's totals."""
    store = open_solved("quixo", {"size": 3})
    game = store.game
    seen: Counter = Counter()
    wrong = []
    stored = 0
    totals: Counter = Counter()
    for tier_plan in store.plan.tiers:
        tier = game.tier(tier_plan.name)
        outcome, remoteness = store.read_tier(tier.name)
        assert outcome.size == tier.size
        record = store.record(tier.name)
        totals.update(win=record.count("win"), loss=record.count("loss"), draw=record.count("draw"))
        for index in range(tier.size):
            text = game.format(game.position_at(tier, index))
            board = qref.normalised(text)
            seen[board] += 1
            got = (int(outcome[index]), int(remoteness[index]))
            kept = qref.representative(board) == board
            stored += kept
            want = reference[board] if kept else (qref.UNDECIDED, 0)
            if got != want:
                wrong.append(f"{tier.name}[{index}] {text!r}: stored {NAMES.get(got[0], got[0])}/{got[1]}, "
                             f"reference {NAMES[want[0]]}/{want[1]}")
    assert not wrong, f"{len(wrong)} stored positions disagree with the reference:\n" + "\n".join(wrong[:20])
    assert len(seen) == 3**9 and set(seen.values()) == {1}
    assert stored == len({qref.representative(board) for board in seen}) < 3**9 / 6
    assert totals == TOTALS_3X3


def _sample_positions(count: int, seed: int) -> list[str]:
    """Seeded boards of every kind (finished ones, both lines, few and many cubes), both sides to move."""
    rng = random.Random(seed)
    picked = [".../.../... x", "xxo/xxo/oo. x", "xxx/ooo/... x", "xxx/ooo/... o",
              "xo./.../... o", "ooo/xx./... x", "xox/oxo/oxo o"]
    for _ in range(count):
        blanks = rng.random()  # a share of blanks from none to all
        cells = "".join("." if rng.random() < blanks else rng.choice("xo") for _ in range(9))
        picked.append(qref.write(cells, rng.choice("xo")))
    return picked


def test_moves_match_the_reference_on_a_seeded_sample():
    game = make_game("quixo", {"size": 3})
    checked = finished = 0
    for text in _sample_positions(400, seed=11):
        board, side = qref.read(text)
        other = "o" if side == "x" else "x"
        # The reference plays x: for o to move, swap the symbols there and back.
        expected = {move: qref.write(after if side == "x" else qref.swap(after), other)
                    for move, after in qref.moves(qref.normalised(text)).items()}
        got = {move: game.format(child) for move, child in game.moves(game.parse(text))}
        assert got == expected, text
        checked += 1
        finished += not expected
    assert checked == 407 and finished > 20  # the sample holds finished games too


def reference_tier_counts(n: int, big: int) -> dict[str, dict[str, int]]:
    """The reference's win/loss/draw counts (x to move) of the full boards' tiers and of every
    tier where a side has at least `big` cubes: the independent count issue 34 asks of a deep
    store's top tiers (benchmarks/bench_quixo_counts.py runs it on 5x5)."""
    counts = {**qref.tier_counts(n, big), **qref.full_board_counts(n)}
    return {tier: {kind: found[kind] for kind in ("win", "loss", "draw")} for tier, found in counts.items()}


def test_full_boards_by_bit_masks_are_the_reference_rules_on_strings():
    """`full_board_counts` writes the rules again over bit masks: on 3x3 its counts are those of
    `solve` over the full boards."""
    expected: dict[str, Counter] = {}
    for board, (value, _) in qref.solve(3).items():
        if "." not in board:
            expected.setdefault(f"m{board.count('x')}o{board.count('o')}", Counter())[NAMES[value]] += 1
    assert {tier: found for tier, found in qref.full_board_counts(3).items() if found} == expected
    assert qref.solve_closed(qref.all_boards(3)) == qref.solve(3)  # the queue-free fixpoint, the other way


def test_a_stores_top_tiers_count_as_the_reference_counts(solved):
    """4x4 Quixo's tiers of 15 and 16 cubes (`status --json`, every position of a tier counted)
    against the reference: the full boards (a loopy group with draws) and the tiers where a
    side has 13 cubes or more."""
    status = json.loads(run_cli("status", "--store", str(solved("quixo", {"size": 4, "down_to": 15})),
                                "--json").stdout)
    stored = {tier["name"]: {kind: tier[kind] for kind in ("win", "loss", "draw")} for tier in status["tiers"]}
    expected = reference_tier_counts(4, 13)
    compared = sorted(set(stored) & set(expected))
    assert len(compared) == 17 + 6  # every full board's tier; m13o2, m14o1, m15o0 and their mirrors
    assert {tier: stored[tier] for tier in compared} == {tier: expected[tier] for tier in compared}
    assert expected["m8o8"]["draw"] > 0
