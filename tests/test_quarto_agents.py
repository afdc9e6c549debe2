"""Quarto's agents: the search kernel, the endgame agent, greedy, the seeds' GA rule and its
hybrid, seed 000's look-ahead GA, the Q-learned placement, and their training.

The references here import nothing from retrograde: Quarto's rules, a depth-limited negamax
with the search's documented leaf scores, and an exact memoised negamax (value and
remoteness) are written again from SPEC §3-4.
"""

from __future__ import annotations

import time
from functools import lru_cache

import numpy as np
import pytest

from retrograde.agents import build_agent
from retrograde.agents.match import play_game
from retrograde.errors import BadAgent
from retrograde.games import make_game
from retrograde.games.quarto.search import QuartoSearch
from retrograde.training import train

W = 10**9  # the documented score scale: a win `ply` plies below the root scores W - ply
HEX = "0123456789abcdef"


# --- references -------------------------------------------------------------------------------
@lru_cache(maxsize=None)
def ref_lines(squares: bool) -> tuple[tuple[int, ...], ...]:
    rows = [tuple(r * 4 + c for c in range(4)) for r in range(4)]
    columns = [tuple(r * 4 + c for r in range(4)) for c in range(4)]
    blocks = [(r * 4 + c, r * 4 + c + 1, r * 4 + c + 4, r * 4 + c + 5) for r in range(3) for c in range(3)]
    return tuple(rows + columns + [(0, 5, 10, 15), (3, 6, 9, 12)] + (blocks if squares else []))


def shares(pieces) -> bool:
    return any(len({piece >> bit & 1 for piece in pieces}) == 1 for bit in range(4))


def has_line(board, squares) -> bool:
    return any(-1 not in (cells := [board[c] for c in line]) and shares(cells) for line in ref_lines(squares))


def deadly(board, squares) -> set[int]:
    """Pieces off the board that complete a line of three pieces sharing an attribute value."""
    found = set()
    for line in ref_lines(squares):
        pieces = [board[c] for c in line if board[c] >= 0]
        if len(pieces) == 3:
            found |= {p for p in range(16) if p not in board and shares(pieces + [p])}
    return found


def ref_moves(board, hand, squares):
    """(text, (board, hand)) of every move, in cell then piece order."""
    if has_line(board, squares) or -1 not in board:
        return []
    left = [p for p in range(16) if p not in board and p != hand]
    if hand < 0:
        return [(f":{HEX[p]}", (board, p)) for p in left]
    moves = []
    for cell in (c for c in range(16) if board[c] < 0):
        child = board[:cell] + (hand,) + board[cell + 1:]
        name = "abcd"[cell % 4] + str(cell // 4 + 1)
        if not left or has_line(child, squares):
            moves.append((name, (child, -1)))
        else:
            moves += [(f"{name}:{HEX[p]}", (child, p)) for p in left]
    return moves


def leaf(board, hand, squares, evaluation) -> int:
    """The documented evaluations: safe pieces less deadly ones, the parity of the safe ones, zero."""
    if evaluation == "zero" or hand < 0:
        return 0
    left = {p for p in range(16) if p not in board and p != hand}
    threats = deadly(board, squares)
    safe = len(left - threats)
    return (1 if safe % 2 else -1) if evaluation == "parity" else safe - len(left & threats)


def negamax(board, hand, depth, ply, squares, evaluation) -> int:
    """Plain negamax with the search's leaf scores: a hand that can win scores a win in one,
    a last placement without a line a draw."""
    if has_line(board, squares):
        return ply - W
    if -1 not in board:
        return 0
    if hand >= 0 and hand in deadly(board, squares):
        return W - ply - 1
    if hand >= 0 and board.count(-1) == 1:
        return 0
    if depth == 0:
        return leaf(board, hand, squares, evaluation)
    return max(-negamax(b, h, depth - 1, ply + 1, squares, evaluation) for _, (b, h) in ref_moves(board, hand, squares))


def reference_scores(position, depth, squares, evaluation) -> list[int]:
    board, hand = position
    return [-negamax(b, h, depth - 1, 1, squares, evaluation) for _, (b, h) in ref_moves(board, hand, squares)]


@lru_cache(maxsize=None)
def exact(board, hand, squares) -> int:
    """The exact score of a position for its side to move (W - r: a win in r plies)."""
    if has_line(board, squares):
        return -W
    if -1 not in board:
        return 0
    best = -2 * W
    for _, (b, h) in ref_moves(board, hand, squares):
        score = -exact(b, h, squares)
        best = max(best, score - 1 if score > W // 2 else score + 1 if score < -W // 2 else score)
    return best


def move_score(position, child, squares) -> int:
    """The exact score of playing into `child` from `position`, for the mover."""
    score = -exact(*child, squares)
    return score - 1 if score > W // 2 else score + 1 if score < -W // 2 else score


def random_positions(count, empty, seed, squares=False, quiet=False) -> list:
    """Seeded positions without a line, `empty` cells empty (a range), a free piece in hand
    (with `quiet`, one that cannot win at once)."""
    rng = np.random.default_rng(seed)
    found = []
    while len(found) < count:
        e = int(rng.integers(*empty))
        board = [-1] * 16
        pieces = rng.permutation(16)
        for cell, piece in zip(rng.permutation(16)[:16 - e], pieces):
            board[cell] = int(piece)
        board, hand = tuple(board), int(pieces[16 - e])
        if not has_line(board, squares) and not (quiet and hand in deadly(board, squares)):
            found.append((board, hand))
    return found


# --- the search kernel ---------------------------------------------------------------------------
@pytest.mark.parametrize("squares", [False, True])
def test_search_scores_every_move_as_plain_negamax(squares):
    game = make_game("quarto", {"squares": squares})
    search = QuartoSearch(game)
    pruned = full = 0
    for k, position in enumerate(random_positions(10, (3, 9), seed=1 + squares, squares=squares)):
        assert [text for text, _ in game.moves(position)] == [text for text, _ in ref_moves(*position, squares)]
        empty = position[0].count(-1)
        for depth in (1, 2, 3) if empty <= 6 else (1, 2):
            for evaluation in search.evals:
                expected = reference_scores(position, depth, squares, evaluation)
                scores = search.root_scores(position, depth, evaluation, seed=k, exact=True)
                assert scores.tolist() == expected, (game.format(position), depth, evaluation)
                windowed = search.root_scores(position, depth, evaluation, seed=k + 1)
                best = {j for j, s in enumerate(expected) if s == max(expected)}
                assert set(np.flatnonzero(windowed == windowed.max())) == best
                pruned += search.nodes
                full += len(expected)
    assert pruned > full  # the kernel searched below the root


def test_opening_and_finished_positions():
    game = make_game("quarto")
    search = QuartoSearch(game)
    scores = search.root_scores(game.initial_position, 3, "zero", seed=0, exact=True)
    assert len(scores) == 16 and (scores == 0).all()  # nothing is decided within 3 plies of the start
    finished = game.parse("0123/..../..../.... -")  # a row of pieces sharing attribute 3 (clear)
    assert game.primitive(finished) and len(search.root_scores(finished, 2, "threats", seed=0)) == 0


def test_search_plays_positions_off_the_instance():
    """The instance below a late root has few moves; the agents play any Quarto position."""
    game = make_game("quarto", {"root": make_game("quarto").format(random_positions(1, (4, 5), seed=3)[0])})
    position = random_positions(1, (12, 13), seed=4)[0]
    scores = QuartoSearch(game).root_scores(position, 1, "threats", seed=0)
    assert len(scores) == len(game.moves(position)) > game.max_moves


def test_exact_search_gives_every_best_move(seed=7):
    game = make_game("quarto")
    search = QuartoSearch(game)
    for k, position in enumerate(random_positions(12, (3, 7), seed=seed)):
        truth = [move_score(position, child, False) for _, child in game.moves(position)]
        scores = search.solve_scores(position, seed=k)
        assert scores.max() == max(truth), game.format(position)
        assert set(np.flatnonzero(scores == scores.max())) == {j for j, s in enumerate(truth) if s == max(truth)}


# --- agents ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("squares", [False, True])
def test_endgame_plays_perfectly_with_few_empty_cells(squares):
    """Its move keeps the exact value at the best remoteness: the fastest win, the slowest loss."""
    game = make_game("quarto", {"squares": squares})
    agent = build_agent("endgame:empty=5", game, seed=3)
    outcomes = set()
    for position in random_positions(40, (2, 6), seed=11 + squares, squares=squares, quiet=True):
        move, child = agent.choose(position)
        assert (move, child) in game.moves(position)
        best = max(move_score(position, c, squares) for _, c in game.moves(position))
        assert move_score(position, child, squares) == best, (game.format(position), move)
        outcomes.add((best > 0) - (best < 0))
    assert outcomes == {-1, 0, 1}  # won, drawn and lost positions were checked


def test_greedy_never_hands_over_a_winning_piece_when_it_can_avoid_it():
    game = make_game("quarto")
    greedy = build_agent("greedy", game, seed=5)
    avoidable = 0
    for position in random_positions(60, (4, 12), seed=21):
        board, hand = position
        moves = game.moves(position)
        wins = [text for text, (b, _) in moves if has_line(b, False)]
        move, (after, handed) = greedy.choose(position)
        if wins:
            assert move in wins
            continue
        safe = [text for text, (b, h) in moves if h < 0 or h not in deadly(b, False)]
        if safe and len(safe) < len(moves):
            avoidable += 1
            assert move in safe, (game.format(position), move)
    assert avoidable > 10


def test_ga_rule_follows_seed_002():
    game = make_game("quarto")
    for position in random_positions(40, (3, 13), seed=31):
        board, hand = position
        moves = game.moves(position)
        for spec in ("ga:alpha=1,beta=0", "ga:alpha=0,beta=1", "ga:alpha=0.1,beta=0.2,minimax=1"):
            move, (after, handed) = build_agent(spec, game, seed=2).choose(position)
            assert (move, (after, handed)) in moves
            winning = [text for text, (b, _) in moves if has_line(b, False)]
            if winning:
                assert move in winning
                continue
            if handed < 0:
                continue
            left = [p for p in range(16) if p not in after]
            if spec.endswith("minimax=1"):
                safe = [p for p in left if p not in deadly(after, False)]
                assert handed in (safe or left)
                continue
            likeness = {p: sum(4 - bin(p ^ q).count("1") for q in after if q >= 0) for p in left}
            target = max(likeness.values()) if spec.startswith("ga:alpha=1") else min(likeness.values())
            assert likeness[handed] == target, (game.format(position), spec, move)


def test_hybrid_takes_a_forced_win_below_eight_empty_cells():
    game = make_game("quarto")
    hybrid = build_agent("ga:alpha=0.1,beta=0.3,minimax=3", game, seed=4)
    found = 0
    for position in random_positions(30, (4, 6), seed=41):
        best = max(move_score(position, c, False) for _, c in game.moves(position))
        if best >= W - 3:  # a win within 3 plies
            found += 1
            assert move_score(position, hybrid.choose(position)[1], False) >= W - 3
    assert found > 3


def test_lookahead_wins_at_once_and_hands_over_a_safe_piece():
    game = make_game("quarto")
    agent = build_agent("lookahead:population=64,generations=8,offspring=20", game, seed=6)
    checked = 0
    for position in random_positions(25, (5, 12), seed=51):
        move, (after, handed) = agent.choose(position)
        assert (move, (after, handed)) in game.moves(position)
        winning = [text for text, (b, _) in game.moves(position) if has_line(b, False)]
        if winning:
            assert move in winning
        elif handed >= 0 and set(range(16)) - set(after) - deadly(after, False):
            checked += 1
            assert handed not in deadly(after, False), (game.format(position), move)
    assert checked > 5


SPECS = ["random", "greedy", "minimax:depth=3", "minimax:depth=2,eval=parity", "endgame", "ga:alpha=0.1,beta=0.2",
         "ga:alpha=0.1,beta=0.3,minimax=2", "lookahead:population=32,generations=4,offspring=10"]


@pytest.mark.parametrize("spec", SPECS)
def test_same_seed_same_games_and_legal_moves(spec):
    game = make_game("quarto")
    records = [play_game(build_agent(spec, game, seed=s), build_agent("random", game, seed=9),
                         game.initial_position, max_plies=17) for s in (1, 1, 2)]
    assert records[0] == records[1]
    assert records[0].plies <= 17
    position = game.initial_position
    for move in records[2].moves:
        position = dict(game.moves(position))[move]


@pytest.mark.parametrize("spec,game_text,reason", [
    ("endgame", "tictactoe", "an agent of quarto only"),
    ("lookahead", "nim --heaps 1,2", "an agent of quarto only"),
    ("lookahead:population=1", "quarto", "between 2 and"),
    ("endgame:empty=17", "quarto", "between 0 and 16"),
    ("ga", "quarto", "alpha= and beta="),
    ("ga:alpha=0.5", "quarto", "alpha= and beta="),
    ("ga:alpha=2,beta=0", "quarto", "between 0 and 1"),
    ("ga:alpha=0.1,beta=0.1", "nim --heaps 1,2", "ga has no option 'alpha'"),
    ("minimax:eval=cmax", "quarto", "must be one of threats, parity, zero"),
])
def test_bad_agents_are_one_line(spec, game_text, reason):
    from retrograde.games import parse_game

    with pytest.raises(BadAgent, match=reason) as caught:
        build_agent(spec, parse_game(game_text), seed=0)
    assert "\n" not in str(caught.value)


# --- training --------------------------------------------------------------------------------------
def test_ga_and_rl_train_reproducibly_and_play_from_their_artifacts(tmp_path):
    game = make_game("quarto")
    spec = "ga:population=4,offspring=4,generations=2,games=4"
    first, again = train(spec, game, tmp_path / "a.json", seed=3), train(spec, game, tmp_path / "b.json", seed=3)
    assert first.read_bytes() == again.read_bytes()
    ga = build_agent(f"ga:params={first},minimax=1", game, seed=1)
    assert 0 <= ga.weights.min() and ga.weights.max() <= 1 and len(ga.weights) == 2
    rl_spec = f"rl:episodes=60,pieces={first},opponent=(ga:alpha=0.1,beta=0.3)"
    rl = train(rl_spec, game, tmp_path / "q.npz", seed=2)
    assert rl.read_bytes() == train(rl_spec, game, tmp_path / "r.npz", seed=2).read_bytes()
    agent = build_agent(f"rl:params={rl}", game, seed=1)
    assert agent.model.features.pieces.tolist() == ga.weights.tolist()
    record = play_game(agent, build_agent("random", game, seed=2), game.initial_position, max_plies=17)
    assert record.result in ("win", "draw", "loss")
    with pytest.raises(BadAgent, match="rl has no option 'pieces'"):
        train("rl:episodes=5,pieces=x.json", make_game("tictactoe"), tmp_path / "t.npz", seed=1)


def test_rl_placement_q_values_game_ends_exactly(tmp_path):
    game = make_game("quarto")
    rl = build_agent(f"rl:params={train('rl:episodes=20', game, tmp_path / 'q.npz', seed=1)}", game, seed=1)
    position = game.parse("8.../456./..../.... 7")  # placing 7 on d2 completes 4567 (bit 2 set)
    moves, q, _ = rl.model.evaluate(position, np.random.default_rng(0))
    assert len(moves) == 12  # one move per empty cell
    assert q[[text for text, _ in moves].index("d2")] == 1.0
    assert rl.choose(position)[0] == "d2"


# --- speed -------------------------------------------------------------------------------------------
def test_minimax_depth_three_is_fast_from_ten_to_twelve_empty_cells():
    game = make_game("quarto")
    agent = build_agent("minimax:depth=3", game, seed=1)
    positions = random_positions(6, (10, 13), seed=61)
    agent.choose(positions[0])  # compiled or loaded from the cache
    slowest = 0.0
    for position in positions:
        start = time.perf_counter()
        agent.choose(position)
        slowest = max(slowest, time.perf_counter() - start)
    assert slowest < 1.0
