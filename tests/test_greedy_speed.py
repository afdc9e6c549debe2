"""The greedy agent's scores without a search tree (issue 34, point 1): Quixo's `greedy` kernel
scores every move from the two sides' longest lines, playing the opponent's replies only where a
side holds n - 1 cubes in a line. Its scores must be exactly those of the greedy agent's two
alpha-beta searches (`Search.scores_many` 2 plies deep with `zero`, then 1 ply with the
evaluation), on thousands of boards of every density, and those of the greedy rules written here
from the game's own `moves` and `primitive`; whole games played with it in kernels must be the
games the agents play move by move through those searches."""

from __future__ import annotations

import numpy as np
import pytest

from retrograde import outcome as oc
from retrograde.agents import build_agent, match
from retrograde.games import make_game
from retrograde.search.scores import UNKNOWN

W = 10**9  # the documented score scale: a win `ply` plies below the root scores W - ply
#: The greedy agent's tactics scores: a move completing the opponent's line, one completing only
#: ours, one the opponent answers with its line, one every reply answers with our line, the rest.
TACTICS = {1 - W: "gives the win", W - 1: "wins now", 2 - W: "loses to a reply", W - 2: "every reply loses", 0: "quiet"}


def random_boards(n: int, count: int, seed: int) -> np.ndarray:
    """(mover, opponent) masks of `count` random n x n boards, from nearly empty to full (some with
    a line already: a decided position)."""
    rng = np.random.default_rng(seed)
    blank = rng.uniform(0, 0.7, size=(count, 1))
    draw = rng.uniform(size=(count, n * n))
    side = rng.integers(0, 2, size=(count, n * n))
    bits = np.int64(1) << np.arange(n * n, dtype=np.int64)
    cubes = draw >= blank
    return np.stack([(bits * (cubes & (side == 0))).sum(axis=1), (bits * (cubes & (side == 1))).sum(axis=1)],
                    axis=1).astype(np.int64)


def by_two_searches(search, rows: np.ndarray, evaluation: str) -> tuple[np.ndarray, np.ndarray]:
    """The greedy agent's scores as its two alpha-beta searches give them, and the tactics search's."""
    tactics = search.scores_many(rows, 2, "zero")
    return np.where(tactics != 0, tactics, search.scores_many(rows, 1, evaluation)), tactics


@pytest.mark.parametrize("size, count", [(3, 4000), (4, 4000), (5, 300)])
def test_the_greedy_kernel_scores_what_the_two_searches_score(size, count):
    game = make_game("quixo", {"size": size})
    search = game.search
    rows = random_boards(size, count, seed=size)
    for evaluation in search.evals:
        expected, tactics = by_two_searches(search, rows, evaluation)
        assert np.array_equal(search.greedy_many(rows, evaluation), expected), evaluation
    decided = tactics[:, 0] == UNKNOWN
    assert 0 < decided.sum() < count / 2 and (tactics[decided] == UNKNOWN).all()
    seen = {TACTICS[score] for score in np.unique(tactics[~decided]).tolist() if score != UNKNOWN}
    assert seen == set(TACTICS.values()) or size == 5 and len(seen) >= 4, seen  # every case met


def test_a_game_without_a_greedy_kernel_scores_with_the_two_searches_in_one_call():
    """Connect Four plugs no `greedy`: `greedy_rows` runs `greedy_by_search` at each row, which must
    score what the two `scores_many` calls score (decided boards left UNKNOWN)."""
    game = make_game("connect4", {"width": 5, "height": 4})
    search = game.search
    rng = np.random.default_rng(4)
    positions = []
    while len(positions) < 600:
        position = game.initial_position
        for _ in range(int(rng.integers(0, 20))):
            moves = game.moves(position)
            if not moves:
                break
            position = moves[int(rng.integers(len(moves)))][1]
        positions.append(position)
    rows = np.array([search.row(p) for p in positions], dtype=np.int64)
    for evaluation in search.evals:
        expected, tactics = by_two_searches(search, rows, evaluation)
        assert np.array_equal(search.greedy_many(rows, evaluation), expected), evaluation
    assert (tactics[:, 0] == UNKNOWN).any() and {W - 1, 2 - W} <= set(np.unique(tactics).tolist())


def rules_scores(game, position) -> list[int]:
    """Each move's greedy score from the rules: the game's own moves, primitive and longest lines."""
    n = game.size
    lines = [[r * n + c for c in range(n)] for r in range(n)] + [[r * n + c for r in range(n)] for c in range(n)]
    lines += [[i * n + i for i in range(n)], [i * n + n - 1 - i for i in range(n)]]

    def cmax(position) -> int:  # N**C - N**O, from the side to move's view
        mover, opponent = game.search.row(position)
        own, other = (max(sum(mask >> cell & 1 for cell in line) for line in lines) for mask in (mover, opponent))
        return n ** own - n ** other

    scores = []
    for _, child in game.moves(position):
        code = game.primitive(child)  # from the opponent's view: it moves next
        if code:
            scores.append(W - 1 if code == oc.LOSS else 1 - W)
            continue
        replies = [game.primitive(grandchild) for _, grandchild in game.moves(child)]  # from ours
        scores.append(2 - W if oc.LOSS in replies else W - 2 if all(code == oc.WIN for code in replies)
                      else -cmax(child))
    return scores


@pytest.mark.parametrize("size, count", [(3, 150), (4, 60)])
def test_the_greedy_kernel_scores_what_the_rules_say(size, count):
    game = make_game("quixo", {"size": size})
    search = game.search
    rng = np.random.default_rng(size)
    positions = []
    while len(positions) < count:  # random plies from the start, then a board of every density
        position = game.initial_position
        for _ in range(int(rng.integers(2, 40))):
            moves = game.moves(position)
            position = moves[int(rng.integers(len(moves)))][1]
            if game.primitive(position):
                break
        if not game.primitive(position):
            positions.append(position)
    scores = search.greedy_many(np.array([search.row(p) for p in positions], dtype=np.int64), "cmax")
    seen = set()
    for position, row in zip(positions, scores):
        expected = rules_scores(game, position)
        assert row[:len(expected)].tolist() == expected, game.format(position)
        assert (row[len(expected):] == UNKNOWN).all()
        seen.update(TACTICS.get(score, "quiet") for score in expected)
    assert len(seen) >= 4, seen


@pytest.mark.parametrize("size", [3, 4])
def test_greedy_games_in_kernels_are_the_games_played_move_by_move(size):
    """`match.kernel_results` (the greedy kernel) against `match.play_game` (each move through the
    agent's `choose`: its two searches), from the start and positions a few random plies in: the
    same games, each agent's generator left where it would be."""
    game = make_game("quixo", {"size": size})
    play = np.random.default_rng(9)
    starts = [game.initial_position]
    while len(starts) < 12:
        position = game.initial_position
        for _ in range(int(play.integers(1, 8))):
            moves = game.moves(position)
            position = moves[int(play.integers(len(moves)))][1]
        if not game.primitive(position):
            starts.append(position)
    for a, b in [("greedy", "greedy"), ("greedy", "random"), ("random", "greedy")]:
        fast = [build_agent(spec, game, seed=seed) for spec, seed in ((a, 1), (b, 2))]
        slow = [build_agent(spec, game, seed=seed) for spec, seed in ((a, 1), (b, 2))]
        played = match.kernel_results(*fast, starts, max_plies=40)
        expected = [match.play_game(*slow, start, max_plies=40) for start in starts]
        assert played == [(record.result, record.plies) for record in expected], (a, b)
        assert [agent.rng.integers(1 << 40) for agent in fast] == [agent.rng.integers(1 << 40) for agent in slow]
