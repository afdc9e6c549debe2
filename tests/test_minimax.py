"""The minimax and greedy agents and their search kernels, against slow plain-Python references
written here (plain minimax over `game.moves`/`primitive`, the evaluations re-implemented) and
against solved stores (exact truth); minimax reads a store handed to it only when its spec says
tablebase=1."""

from __future__ import annotations

import numpy as np
import pytest

from retrograde import outcome as oc
from retrograde.agents.match import play_game
from retrograde.agents.registry import build_agent
from retrograde.data.tablebase import StoreTablebase
from retrograde.data.probing import analyse
from retrograde.errors import BadAgent
from retrograde.games import make_game

#: The documented score scale: a win `ply` plies below the root scores W - ply, a loss ply - W.
W = 10**9
OPEN_LINE = (0, 1, 10, 100)  # tic-tac-toe `lines`: an open line holding 0..3 marks
TTT_LINES = ((0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6))


def probing(game, store):
    """The game's search, taking the exact values `store` holds."""
    search = game.search
    search.tablebase = StoreTablebase.for_search(search, store)
    return search


# --- plain-Python references -------------------------------------------------------------
def quixo_lines(n: int) -> list[tuple[int, ...]]:
    rows = [tuple(r * n + c for c in range(n)) for r in range(n)]
    cols = [tuple(r * n + c for r in range(n)) for c in range(n)]
    return rows + cols + [tuple(i * n + i for i in range(n)), tuple(i * n + n - 1 - i for i in range(n))]


def quixo_longest(position, n: int) -> tuple[int, int]:
    """(most cubes of the side to move, of the opponent) in one row, column or diagonal."""
    cells, side = position
    other = "o" if side == "x" else "x"
    lines = quixo_lines(n)
    return (max(sum(cells[i] == side for i in line) for line in lines),
            max(sum(cells[i] == other for i in line) for line in lines))


def leaf_function(game, evaluation: str):
    """The evaluation `evaluation` of `game`, re-implemented from its documentation."""
    if evaluation == "zero":
        return lambda position: 0
    if game.name == "quixo":
        n = game.size

        def quixo(position):
            own, other = quixo_longest(position, n)
            return n ** own - n ** other if evaluation == "cmax" else own - other
        return quixo
    if game.name == "tictactoe":
        def lines(position):
            xs, os = position
            mover, opponent = (xs, os) if xs.bit_count() == os.bit_count() else (os, xs)
            score = 0
            for line in TTT_LINES:
                own = sum(mover >> c & 1 for c in line)
                other = sum(opponent >> c & 1 for c in line)
                score += OPEN_LINE[own] if other == 0 else -OPEN_LINE[other] if own == 0 else 0
            return score
        return lines

    def parity(heaps):
        odd = sum(h > 0 for h in heaps) % 2 == 1
        return 1 if odd != game.misere else -1
    return parity


def negamax(game, position, depth: int, ply: int, leaf, counter: list[int]) -> int:
    """Plain minimax (no pruning), from the side to move's view."""
    counter[0] += 1
    code = game.primitive(position)
    if code:
        return {oc.WIN: W - ply, oc.LOSS: ply - W, oc.DRAW: 0}[code]
    if depth == 0:
        return leaf(position)
    return max(-negamax(game, child, depth - 1, ply + 1, leaf, counter) for _, child in game.moves(position))


def reference_scores(game, position, depth: int, evaluation: str) -> tuple[list[int], int]:
    """Each root move's minimax score, and the number of positions visited (root included)."""
    counter = [1]
    leaf = leaf_function(game, evaluation)
    return [-negamax(game, child, depth - 1, 1, leaf, counter) for _, child in game.moves(position)], counter[0]


def best_set(scores) -> set[int]:
    return {j for j, score in enumerate(scores) if score == max(scores)}


def random_positions(game, count: int, plies: tuple[int, int], seed: int) -> list:
    """Non-terminal positions after a seeded random number of random plies."""
    rng = np.random.default_rng(seed)
    found = []
    while len(found) < count:
        position = game.initial_position
        for _ in range(int(rng.integers(*plies))):
            moves = game.moves(position)
            if not moves:
                break
            position = moves[int(rng.integers(len(moves)))][1]
        if not game.primitive(position):
            found.append(position)
    return found


def every_position(game) -> list:
    """Every legal non-terminal position of a small game (from its tiers)."""
    positions = (game.position_at(tier, i) for tier in game.tiers() for i in range(tier.size))
    return [p for p in positions if p is not None and not game.primitive(p)]


def stored_scores(store, positions) -> list[list[int]]:
    """Each move's exact score at depth 1 read from a solved store (win in r plies: W - r)."""
    def score(value) -> int:
        if value.outcome == oc.WIN:
            return W - value.remoteness
        return value.remoteness - W if value.outcome == oc.LOSS else 0
    return [[score(move.value) for move in analysis.moves] for analysis in analyse(store, positions)]


# --- the kernels against plain minimax --------------------------------------------------------
CASES = [  # game, params, evaluation, (depth, positions) pairs, random plies
    ("nim", {"heaps": [1, 3, 5, 7]}, "zero", [(1, 12), (2, 12), (3, 8), (5, 3)], (4, 12)),
    ("nim", {"heaps": [1, 3, 5, 7], "misere": True}, "parity", [(1, 12), (2, 12), (3, 8), (5, 3)], (4, 12)),
    ("nim", {"heaps": [2, 3, 4], "max_take": 2, "misere": True}, "zero", [(3, 12), (6, 6)], (0, 6)),
    ("nim", {"heaps": [2, 3, 4], "max_take": 2}, "parity", [(1, 12), (3, 12)], (0, 6)),
    ("tictactoe", {}, "lines", [(1, 20), (2, 20), (3, 12), (5, 4)], (0, 7)),
    ("tictactoe", {}, "zero", [(3, 10)], (0, 7)),
    ("quixo", {"size": 3}, "cmax", [(1, 20), (2, 15), (3, 8)], (0, 14)),
    ("quixo", {"size": 3}, "inline", [(1, 10), (2, 8), (3, 4)], (0, 14)),
    ("quixo", {"size": 4}, "cmax", [(1, 12), (2, 8), (3, 2)], (4, 30)),
    ("quixo", {"size": 4}, "inline", [(2, 6)], (4, 30)),
    ("quixo", {"size": 5}, "cmax", [(1, 8), (2, 4), (3, 1)], (6, 40)),
    ("quixo", {"size": 5}, "inline", [(2, 3)], (6, 40)),
]


@pytest.mark.parametrize("name,params,evaluation,runs,plies", CASES, ids=lambda v: str(v))
def test_root_scores_equal_plain_minimax(name, params, evaluation, runs, plies):
    game = make_game(name, params)
    search = game.search
    pruned = full = 0
    for depth, count in runs:
        for k, position in enumerate(random_positions(game, count, plies, seed=depth)):
            expected, visited = reference_scores(game, position, depth, evaluation)
            exact = search.root_scores(position, depth, evaluation, seed=k, exact=True)
            assert exact.tolist() == expected, (game.format(position), depth)
            windowed = search.root_scores(position, depth, evaluation, seed=k + 1)
            assert windowed.max() == max(expected) and best_set(windowed) == best_set(expected)
            assert (windowed <= max(expected)).all()
            pruned += search.nodes
            full += visited
    assert pruned < full  # alpha-beta visits fewer positions, for the same values


def test_a_push_completing_both_lines_loses_for_the_mover():
    game = make_game("quixo", {"size": 3})
    search = game.search
    position = game.parse("xxo/xxo/oo. x")
    moves = [text for text, _ in game.moves(position)]
    scores = search.root_scores(position, 1, "cmax", seed=0, exact=True)
    assert scores[moves.index("c3-a3")] == 1 - W  # x's column and o's column: x loses
    assert scores.max() < W - 1  # no move wins at once here
    position = game.parse("xx./oo./... x")
    moves = [text for text, _ in game.moves(position)]
    scores = search.root_scores(position, 1, "cmax", seed=0, exact=True)
    assert scores[moves.index("c1-a1")] == W - 1  # x's row alone: x wins


# --- exact truth: full depth without a store, depth 1 with one ---------------------------------
@pytest.mark.parametrize("name,params,depth", [
    ("tictactoe", None, 9),
    ("nim", {"heaps": [2, 3, 4]}, 9),
    ("nim", {"heaps": [2, 3, 4], "misere": True}, 9),
    ("nim", {"heaps": [1, 2, 4, 2], "max_take": 2}, 9),
    ("nim", {"heaps": [1, 2, 4, 2], "max_take": 2, "misere": True}, 9),
])
def test_full_depth_scores_every_move_as_the_store(open_solved, name, params, depth):
    store = open_solved(name, params)
    game = store.game
    search = game.search
    positions = every_position(game)
    for position, truth in zip(positions, stored_scores(store, positions)):
        scores = search.root_scores(position, depth, search.evals[0], seed=1, exact=True)
        assert scores.tolist() == truth, game.format(position)
    agent = build_agent(f"minimax:depth={depth}", game, seed=3)
    for position, truth in zip(positions[::7], stored_scores(store, positions[::7])):
        move, child = agent.choose(position)
        assert truth[[text for text, _ in game.moves(position)].index(move)] == max(truth)


@pytest.mark.parametrize("name,params", [("tictactoe", None), ("nim", {"heaps": [2, 3, 4], "max_take": 3}),
                                         ("quixo", {"size": 3})])
def test_depth_one_with_a_store_plays_perfectly(open_solved, name, params):
    store = open_solved(name, params)
    game = store.game
    search = probing(game, store)
    positions = every_position(game)
    rng = np.random.default_rng(5)
    positions = [positions[i] for i in rng.choice(len(positions), min(len(positions), 600), replace=False)]
    if name == "quixo":  # position_at shows x to move: the same boards with o to move too
        positions += [(cells.translate(str.maketrans("xo", "ox")), "o") for cells, _ in positions[:100]]
    truths = stored_scores(store, positions)
    for position, truth in zip(positions, truths):
        assert search.root_scores(position, 1, search.evals[0], seed=2, exact=True).tolist() == truth
    agent = build_agent("minimax:depth=1,tablebase=1", game, seed=4, store=store)
    for position, truth in zip(positions[:200], truths):
        move, _ = agent.choose(position)
        assert truth[[text for text, _ in game.moves(position)].index(move)] == max(truth), game.format(position)


def test_only_stored_tiers_are_probed(open_solved):
    """A store of the tiers with 7+ cubes: children there score exactly, others by the evaluation."""
    partial = open_solved("quixo", {"size": 3, "down_to": 7})
    full = open_solved("quixo", {"size": 3})
    game = partial.game
    search = probing(game, partial)
    plain = game.search
    positions = [p for p in every_position(full.game) if p[0].count(".") == 3][::5]  # 6 cubes
    assert len(positions) > 100
    for position, truth in zip(positions, stored_scores(full, positions)):
        scores = search.root_scores(position, 1, "cmax", seed=0, exact=True)
        heuristic = plain.root_scores(position, 1, "cmax", seed=0, exact=True)
        for j, (_, child) in enumerate(game.moves(position)):
            expected = truth[j] if child[0].count(".") <= 2 else heuristic[j]
            assert scores[j] == expected
    nothing = probing(game, full)
    nothing.tablebase.max_bytes = 0  # nothing fits: the search searches instead
    position = positions[0]
    assert (nothing.root_scores(position, 2, "cmax", seed=0, exact=True)
            == plain.root_scores(position, 2, "cmax", seed=0, exact=True)).all()


# --- the agent: determinism, ties, options --------------------------------------------------
def test_same_seed_same_game_and_seeds_differ_among_ties():
    game = make_game("quixo", {"size": 5})
    first = [play_game(build_agent("minimax:depth=2", game, seed=1), build_agent("minimax:depth=2", game, seed=2),
                       game.initial_position, max_plies=30).moves for _ in range(2)]
    assert first[0] == first[1]
    openings = {build_agent("minimax:depth=1", game, seed=s).choose(game.initial_position)[0] for s in range(12)}
    assert len(openings) > 3  # every opening move ties at depth 1: the seed picks one


def test_agent_reports_nodes_and_plays_a_best_move():
    game = make_game("quixo", {"size": 4})
    agent = build_agent("minimax:depth=2,eval=inline", game, seed=9)
    for position in random_positions(game, 6, (4, 30), seed=11):
        move, child = agent.choose(position)
        assert (move, child) in game.moves(position)
        expected, visited = reference_scores(game, position, 2, "inline")
        assert [text for text, _ in game.moves(position)].index(move) in best_set(expected)
        assert 0 < agent.nodes <= visited


def test_adaptive_depth_follows_seed_004():
    game = make_game("quixo", {"size": 4})
    agent = build_agent("minimax:depth=3,adaptive=1", game, seed=2)
    checked_wins = 0
    for position in random_positions(game, 30, (6, 40), seed=12):
        move, child = agent.choose(position)
        moves = [text for text, _ in game.moves(position)]
        wins = {text for text, kid in game.moves(position) if game.primitive(kid) == oc.LOSS}
        if wins:
            assert move in wins
            checked_wins += 1
            continue
        own, other = quixo_longest(position, 4)
        depth = max(1, min(abs(own - other) + 1, other, 3))
        expected, _ = reference_scores(game, position, depth, "cmax")
        assert moves.index(move) in best_set(expected)
    assert checked_wins > 0


@pytest.mark.parametrize("spec,game,message", [
    ("minimax:eval=lines", ("quixo", {"size": 4}), "eval=lines: must be one of cmax, inline, zero"),
    ("minimax:eval=cmax", ("nim", {"heaps": [1, 2]}), "must be one of zero, parity"),
    ("minimax:adaptive=1", ("tictactoe", {}), "adaptive=1: tictactoe has no variable-depth rule"),
    ("minimax:depth=0", ("tictactoe", {}), "depth=0: must be between 1 and 16"),
    ("minimax:eval=best", ("tictactoe", {}), "must be one of"),
    ("minimax:width=3", ("tictactoe", {}), "has no option 'width'"),
    ("greedy:depth=2", ("tictactoe", {}), "has no option 'depth'"),
])
def test_bad_options_are_one_clear_line(spec, game, message):
    with pytest.raises(BadAgent, match=message.replace("(", r"\(").replace(")", r"\)")) as error:
        build_agent(spec, make_game(*game), seed=0)
    assert "\n" not in str(error.value)


def test_a_store_of_another_game_is_refused(open_solved):
    store = open_solved("tictactoe")
    with pytest.raises(BadAgent, match="holds tictactoe, not nim"):
        build_agent("minimax:tablebase=1", make_game("nim", {"heaps": [1, 2]}), seed=0, store=store)


# --- greedy -------------------------------------------------------------------------------------
def greedy_keys(game, position) -> list[tuple[int, int]]:
    """Each move's rank by the greedy rules: (class, evaluation), higher is better."""
    leaf = leaf_function(game, {"quixo": "cmax", "tictactoe": "lines", "nim": "zero"}[game.name])
    keys = []
    for _, child in game.moves(position):
        code = game.primitive(child)
        replies = [game.primitive(grandchild) for _, grandchild in game.moves(child)]
        if code == oc.LOSS:  # the opponent, to move, has lost: a win now
            keys.append((4, 0))
        elif code == oc.WIN:  # a move that hands the opponent the win
            keys.append((0, 0))
        elif oc.LOSS in replies:  # the opponent can win at once
            keys.append((1, 0))
        elif replies and all(reply == oc.WIN for reply in replies):  # every reply loses at once
            keys.append((3, 0))
        else:
            keys.append((2, -leaf(child)))
    return keys


@pytest.mark.parametrize("name,params,plies", [
    ("quixo", {"size": 3}, (0, 12)), ("quixo", {"size": 4}, (4, 40)), ("quixo", {"size": 5}, (8, 60)),
    ("tictactoe", {}, (0, 7)), ("nim", {"heaps": [1, 3, 5, 7]}, (0, 12)),
    ("nim", {"heaps": [1, 3, 5, 7], "max_take": 3, "misere": True}, (0, 12)),
])
def test_greedy_wins_now_and_avoids_a_win_in_one(name, params, plies):
    game = make_game(name, params)
    agent = build_agent("greedy", game, seed=6)
    seen_win = seen_threat = seen_tactics = 0
    for position in random_positions(game, 40, plies, seed=13):
        keys = greedy_keys(game, position)
        best = best_set(keys)
        assert best_set(agent.scores(position).tolist()) == best, game.format(position)
        move, _ = agent.choose(position)
        chosen = keys[[text for text, _ in game.moves(position)].index(move)]
        assert chosen == max(keys)
        seen_win += chosen[0] == 4
        seen_threat += chosen[0] == 2 and any(key[0] == 1 for key in keys)
        seen_tactics += len({key[0] for key in keys}) > 1
    assert seen_tactics  # the rules were exercised (misère Nim has no win now, only forced ones)
    assert (seen_win and seen_threat) or params.get("misere")


def test_greedy_takes_the_win_and_blocks_in_tictactoe():
    game = make_game("tictactoe")
    agent = build_agent("greedy", game, seed=0)
    assert agent.choose(game.parse("xx./oo./..."))[0] == "c1"  # x wins at once rather than block
    assert agent.choose(game.parse("xx./o../..."))[0] == "c1"  # o must block


def test_ties_first_plays_the_first_best_move_so_equal_agents_replay_one_game():
    """Report 001's minimax kept the first best move: whatever the seeds, depth 2 against itself on
    4x4 replays one game, which circles to the ply cap (its Table 4: 100% draws); with ties drawn
    by the seed the games differ."""
    game = make_game("quixo", {"size": 4})
    position = game.initial_position
    first = build_agent("minimax:depth=2,eval=cmax,ties=first", game, seed=1)
    scores = first._scores(position, 2)
    assert first.choose(position) == game.moves(position)[int(np.flatnonzero(scores == scores.max())[0])]
    games = {play_game(build_agent("minimax:depth=2,eval=cmax,ties=first", game, seed=seed),
                       build_agent("minimax:depth=2,eval=cmax,ties=first", game, seed=seed + 7), position,
                       max_plies=200).moves for seed in range(3)}
    assert len(games) == 1 and len(next(iter(games))) == 200
    shuffled = {play_game(build_agent("minimax:depth=2,eval=cmax", game, seed=seed),
                          build_agent("minimax:depth=2,eval=cmax", game, seed=seed + 7), position,
                          max_plies=200).moves for seed in range(3)}
    assert len(shuffled) > 1


def test_minimax_reads_the_store_only_when_its_spec_asks(open_solved):
    """validate hands every agent the store; minimax must measure its own search unless told."""
    store = open_solved("tictactoe")
    assert build_agent("lookup", store.game, seed=0, store=store).store is store
    assert build_agent("minimax:depth=1", store.game, seed=0, store=store).store is None  # would play perfectly
    assert build_agent("minimax:depth=1,tablebase=1", store.game, seed=0, store=store).store is store
    with pytest.raises(BadAgent, match="tablebase=1 reads a solved store"):
        build_agent("minimax:tablebase=1", store.game, seed=0)


def test_the_driver_takes_only_kernels_it_can_inline():
    from collections import namedtuple

    from retrograde.jit import njit
    from retrograde.search.base import plug

    @njit
    def called(context, states, kids, ply, child):
        """A descend numba would call a node, not inline."""

    with pytest.raises(TypeError, match="not njit"):
        plug(namedtuple("Context", "x"), enter=called, descend=called)
