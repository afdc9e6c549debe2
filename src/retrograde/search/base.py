"""What every game's search shares: the score scale, seeded move-ordering noise, the iterative
alpha-beta walk (`alpha_beta`, the one driver every game plugs its kernels into), and the
`Search` interface the `minimax` and `greedy` agents drive.

Scores are integers from the side to move's view (negamax). A decided position at `ply`
plies below the root scores `WIN_SCORE - ply` for a win and `ply - WIN_SCORE` for a loss
(faster wins and slower losses score higher), a draw 0; heuristic evaluations stay far
inside +-WIN_SCORE. Kernels cannot draw from the agent's numpy Generator, so the agent draws
a seed from it and the kernel runs a splitmix64 stream from that seed (`random_bits`).

`alpha_beta` walks the tree iteratively (numba cannot cache recursive functions: numba issue
6061) with one `frames` row a ply and one `states` row a ply (the node's state, the game's
columns). A game plugs in (`plug`) three `njit(inline="always")` kernels over its own `Context`,
a namedtuple of the arrays and numbers they read:

* `enter(context, states, kids, keys, order, frames, rng, ply, depth)`: score the node
  states[ply] (decided, stored, or a leaf at `depth` 0) or expand it: its children into
  kids[ply] and their keys into keys[ply], returning `expanded(...)` (which orders them into
  order[ply] and starts the node: EXPANDED);
* `descend(context, states, kids, ply, child)`: write the state of kids[ply, child] into
  states[ply + 1];
* `leave(context, states, frames, ply)` (optional): the node at `ply` > 0 is searched, its
  value frames[ply, BEST], before it is settled into its parent;
* `leaves(context, states, kids, keys, order, frames, rng, count, root)` (optional): the node
  states[0] was expanded into its `count` children (kids[0]): root[j] = minus the j-th child's
  score as `enter` scores it as a leaf (ply 1, depth 0), what `leaves_by_enter` does a child at
  a time (a game's own loop saves a call a child, which passes every array of the context);
* `greedy(tactics, heuristic, states, kids, count, root)` (optional): the greedy agent's score of
  each move at the node states[0], which `enter` expanded one ply deep (its `count` children in
  kids[0]), into root[:count]: what `greedy_by_search` computes with two searches, for a game
  that can tell a move's tactics without a search tree (Quixo).

The game's own `search` kernel fills states[0] and calls `alpha_beta`, which numba compiles
for that Context type with the game's kernels inlined (numba overloads chosen by the type): no
call through a function pointer a node, and the game's `search` comes from numba's cache, which
a dispatcher passed as an argument or held in a closure would defeat (their cache keys change
from process to process). `alpha_beta` itself is not cached: it is compiled into each game's
`search`, whose cache a change of the game's search file renews, but not a change of this file:
numba keys a cached kernel on its own file only, so after editing this file in a checkout, delete
the games' cached searches (`find src -name '*search*.nb[ci]' -delete`; an install's upgrade
rewrites every file, which renews them all).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import ClassVar

import numpy as np
from numba import types
from numba.extending import overload

from retrograde import outcome as oc
from retrograde.jit import njit
from retrograde.search.scores import GREEDY, LOOKUP_BY_OUTCOME, RANDOM, WIN_SCORE, pick_best
from retrograde.search.tablebase import UNKNOWN, Tablebase

#: Alpha-beta bounds: beyond every score, with room for the root's `alpha - 1`.
INF = 1 << 60
#: What a game's `enter` returns for a node it expanded (children to search) instead of a score.
EXPANDED = 1 << 62
#: Columns of the `frames` array of an iterative search: one row a ply on the current path.
ALPHA, BETA, BEST, COUNT, NEXT, CHILD = range(6)

__all__ = ["EXPANDED", "INF", "UNKNOWN", "WIN_SCORE", "Search", "alpha_beta", "back_up", "exact_rows", "expanded",
           "greedy_by_search", "greedy_rows", "leaves_by_enter", "next_child", "open_frames", "open_search",
           "order_moves", "pick_best", "pick_rows", "play_games", "plug", "random_bits", "settle", "start_node",
           "take_child", "walk"]


@njit
def random_bits(state):
    """31 random bits from the splitmix64 stream in `state` (uint64[1]), advancing it."""
    state[0] += np.uint64(0x9E3779B97F4A7C15)
    z = state[0]
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    z = z ^ (z >> np.uint64(31))
    return np.int64(z >> np.uint64(33))


@njit
def order_moves(keys, count, order, state):
    """Fill order[:count] with move numbers by `keys` (int64, below 2**30) descending; equal
    keys come in random order (a fresh draw from `state` breaks each tie)."""
    for i in range(count):
        keys[i] = (keys[i] << 31) | random_bits(state)
        j = i
        while j > 0 and keys[order[j - 1]] < keys[i]:
            order[j] = order[j - 1]
            j -= 1
        order[j] = i


@njit
def open_frames(depth):
    """Frames for a search `depth` plies deep, the root's window (-inf, inf)."""
    frames = np.zeros((depth + 1, 6), dtype=np.int64)
    frames[0, ALPHA] = -INF
    frames[0, BETA] = INF
    return frames


@njit
def open_search(depth, width, seed):
    """(keys, order, frames, random stream) of a search `depth` plies deep over positions of at
    most `width` moves: a row of move keys and of move order a ply, the frames, and the
    splitmix64 stream started at `seed`."""
    return (np.empty((depth + 1, width), dtype=np.int64), np.empty((depth + 1, width), dtype=np.int64),
            open_frames(depth), np.full(1, seed, dtype=np.uint64))


@njit
def start_node(frames, ply, count):
    """The node at `ply` was expanded into `count` children (their order in order[ply])."""
    frames[ply, BEST] = -INF
    frames[ply, COUNT] = count
    frames[ply, NEXT] = 0


@njit
def expanded(frames, keys, order, rng, ply, count, ordered=True):
    """End an `enter` that wrote `count` children of the node at `ply`: order them by keys[ply]
    (`order_moves`) or, not `ordered`, in move order, start the node, and return EXPANDED."""
    if ordered:
        order_moves(keys[ply], count, order[ply], rng)
    else:
        for i in range(count):
            order[ply, i] = i
    start_node(frames, ply, count)
    return EXPANDED


@njit
def next_child(frames, order, ply, exact):
    """The next child of the node at `ply` to search, its window set in frames[ply + 1]; -1 when
    the node is done (every child searched, or a cutoff). The root searches each child with
    (best so far - 1, inf), so that every move tying the best is scored exactly, or with
    (-inf, inf) when `exact`."""
    if frames[ply, NEXT] == frames[ply, COUNT] or frames[ply, ALPHA] >= frames[ply, BETA]:
        return -1
    child = order[ply, frames[ply, NEXT]]
    frames[ply, NEXT] += 1
    frames[ply, CHILD] = child
    low = frames[ply, ALPHA]
    if ply == 0:
        low = -INF if exact else low - 1
    frames[ply + 1, ALPHA] = -frames[ply, BETA]
    frames[ply + 1, BETA] = -low
    return child


@njit
def settle(frames, ply, value, root):
    """Take the value of the child just searched (from the node's side) into the node at `ply`;
    at the root, also into root[child]."""
    if ply == 0:
        root[frames[0, CHILD]] = value
    if value > frames[ply, BEST]:
        frames[ply, BEST] = value
    if value > frames[ply, ALPHA]:
        frames[ply, ALPHA] = value


@njit
def take_child(frames, ply, value, root):
    """After entering a child of the node at `ply`: descend into it if it was expanded, else
    settle its score into the node. Returns the ply to go on at."""
    if value == EXPANDED:
        return ply + 1
    settle(frames, ply, -value, root)
    return ply


@njit
def back_up(frames, ply, root):
    """Every child of the node at `ply` is searched: settle its best into its parent. Returns
    the parent's ply (-1 when the node is the root: the search is done)."""
    if ply > 0:
        settle(frames, ply - 1, -frames[ply, BEST], root)
    return ply - 1


def _enter(context, states, kids, keys, order, frames, rng, ply, depth):
    """The game's `enter` for its Context (see the module docstring); numba resolves it (`plug`)."""


def _descend(context, states, kids, ply, child):
    """The game's `descend` for its Context; numba resolves it (`plug`)."""


def _leave(context, states, frames, ply):
    """The game's `leave` for its Context; numba resolves it (`plug`)."""


def _leaves(context, states, kids, keys, order, frames, rng, count, root):
    """The game's `leaves` for its Context, or `leaves_by_enter`; numba resolves it (`plug`)."""


def _greedy(tactics, heuristic, states, kids, count, root):
    """The game's `greedy` for its Context, or `greedy_by_search`; numba resolves it (`plug`)."""


@njit(inline="always")
def _searched(context, states, frames, ply):
    """The `leave` of a game that keeps nothing of a searched node."""


def plug(context: type, *, enter, descend, leave=_searched, leaves=None, greedy=None) -> None:
    """Make `alpha_beta` run the kernels `enter`, `descend`, `leave` and `leaves`, and the greedy
    agent's scores `greedy` (`leaves_by_enter` and `greedy_by_search` where None; see the module
    docstring), for a `context` of this namedtuple class. Each must be `njit(inline="always")`:
    numba then inlines its code into the driver, where a call a node through the context's arrays
    cost a third of the walk's speed (benchmarks/bench_alphabeta.py)."""
    leaves = leaves or leaves_by_enter
    greedy = greedy or greedy_by_search
    for kernel in (enter, descend, leave, leaves, greedy):
        if getattr(kernel, "targetoptions", {}).get("inline") != "always":
            raise TypeError(f"plug: {getattr(kernel, '__name__', kernel)!r} is not njit(inline=\"always\")")

    def ours(value) -> bool:
        return isinstance(value, types.BaseNamedTuple) and value.instance_class is context

    @overload(_enter)
    def _(context, states, kids, keys, order, frames, rng, ply, depth):
        if ours(context):
            return lambda context, states, kids, keys, order, frames, rng, ply, depth: enter(
                context, states, kids, keys, order, frames, rng, ply, depth)

    @overload(_descend)
    def _(context, states, kids, ply, child):
        if ours(context):
            return lambda context, states, kids, ply, child: descend(context, states, kids, ply, child)

    @overload(_leave)
    def _(context, states, frames, ply):
        if ours(context):
            return lambda context, states, frames, ply: leave(context, states, frames, ply)

    @overload(_leaves)
    def _(context, states, kids, keys, order, frames, rng, count, root):
        if ours(context):
            return lambda context, states, kids, keys, order, frames, rng, count, root: leaves(
                context, states, kids, keys, order, frames, rng, count, root)

    @overload(_greedy)
    def _(tactics, heuristic, states, kids, count, root):
        if ours(tactics):
            return lambda tactics, heuristic, states, kids, count, root: greedy(tactics, heuristic, states, kids, count,
                                                                                root)


@njit(cache=False)  # compiled into each game's cached `search`, with that game's kernels as they are now
def alpha_beta(context, states, kids, depth, exact, seed, root):
    """Alpha-beta (negamax) `depth` plies deep from the node states[0], with the kernels plugged
    in for `context`'s type: root[j] gets the score of the j-th move of game.moves (see
    `next_child`; root's length bounds every node's moves); returns the number of nodes visited.
    `states` and `kids` are the game's: depth + 1 rows of node states and of children."""
    keys, order, frames, rng = open_search(depth, root.shape[0], seed)
    return walk(context, states, kids, keys, order, frames, rng, depth, exact, root)


@njit(cache=False)  # compiled into each game's cached `search_many`, as `alpha_beta` is
def exact_rows(context, states, kids, rows, depth, scores):
    """`alpha_beta` from each (mover, opponent) row of `rows`, every move scored exactly, into the row
    of `scores` (left as they are at a decided position), the search buffers opened once; row i's
    random order starts at seed i. Returns the number of nodes visited."""
    keys, order, frames, rng = open_search(depth, scores.shape[1], 0)
    nodes = 0
    for i in range(rows.shape[0]):
        states[0] = rows[i]
        rng[0] = i
        frames[0, ALPHA] = -INF
        frames[0, BETA] = INF
        nodes += walk(context, states, kids, keys, order, frames, rng, depth, True, scores[i])
    return nodes


@njit(inline="always")
def walk(context, states, kids, keys, order, frames, rng, depth, exact, root):
    """`alpha_beta` in search buffers opened by `open_search`, the root's window in frames[0]. One
    ply deep and `exact`, every child is entered once as a leaf in the full window (what the walk
    would do, without its frames)."""
    if _enter(context, states, kids, keys, order, frames, rng, 0, depth) != EXPANDED:
        return 1
    if depth == 1 and exact:
        frames[1, ALPHA] = -INF
        frames[1, BETA] = INF
        _leaves(context, states, kids, keys, order, frames, rng, frames[0, COUNT], root)
        return 1 + frames[0, COUNT]
    nodes = 1
    ply = 0
    while ply >= 0:
        child = next_child(frames, order, ply, exact)
        if child < 0:  # every child searched: back up to the parent (-1 after the root)
            if ply > 0:
                _leave(context, states, frames, ply)
            ply = back_up(frames, ply, root)
            continue
        _descend(context, states, kids, ply, child)
        nodes += 1
        value = _enter(context, states, kids, keys, order, frames, rng, ply + 1, depth - ply - 1)
        ply = take_child(frames, ply, value, root)
    return nodes


@njit(inline="always")
def leaves_by_enter(context, states, kids, keys, order, frames, rng, count, root):
    """`leaves` a child at a time: `descend` into it and `enter` it as a leaf in the full window
    (frames[1]), as the walk would."""
    for child in range(count):
        _descend(context, states, kids, 0, child)
        root[child] = -_enter(context, states, kids, keys, order, frames, rng, 1, 0)


@njit(inline="always")
def greedy_by_search(tactics, heuristic, states, kids, count, root):
    """The greedy agent's score of each of the `count` moves at the undecided node states[0] into
    root[:count] (`agents.greedy`): its exact value 2 plies deep with the `tactics` context (the
    `zero` evaluation) where that is not 0, else its value 1 ply deep with `heuristic`'s evaluation."""
    alpha_beta(tactics, states, kids, 2, True, 0, root)
    decisive = root[:count].copy()
    alpha_beta(heuristic, states, kids, 1, True, 0, root)
    for j in range(count):
        if decisive[j] != 0:
            root[j] = decisive[j]


@njit(cache=False)  # compiled into each game's cached `greedy_many`, as `alpha_beta` is
def greedy_rows(tactics, heuristic, states, kids, rows, scores):
    """The greedy agent's scores (`_greedy`) at each (mover, opponent) row of `rows` into the row of
    `scores` (left as they are at a decided position): `states` and `kids` hold 3 plies."""
    keys, order, frames, stream = open_search(1, scores.shape[1], 0)
    for i in range(rows.shape[0]):
        states[0] = rows[i]
        if _enter(tactics, states, kids, keys, order, frames, stream, 0, 1) == EXPANDED:
            _greedy(tactics, heuristic, states, kids, frames[0, COUNT], scores[i])


@njit
def _pick(root, count, by_outcome, rng):
    """The move number drawn (`rng.integers`, as `pick_best` draws) among root[:count]'s highest
    scores, or highest signs with `by_outcome`."""
    best = -INF
    for j in range(count):
        value = np.sign(root[j]) if by_outcome else root[j]
        best = max(best, value)
    ties = 0
    for j in range(count):
        ties += (np.sign(root[j]) if by_outcome else root[j]) == best
    k = rng.integers(0, ties)
    for j in range(count):
        if (np.sign(root[j]) if by_outcome else root[j]) == best:
            if k == 0:
                return j
            k -= 1
    return -1


@njit
def pick_rows(scores, rng, seeds, picked):
    """`scores.pick_best_rows` in a kernel: picked[i] = `_pick` among row i's moves (the prefix
    before UNKNOWN), drawing from `rng` row by row, with `seeds` a search seed before each pick
    (one 64-bit draw, as `choose`'s integers(1 << 63))."""
    for i in range(scores.shape[0]):
        if seeds:
            rng.integers(0, 1 << 62)
        count = 0
        while count < scores.shape[1] and scores[i, count] != UNKNOWN:
            count += 1
        picked[i] = _pick(scores[i], count, False, rng)


@njit(cache=False)  # compiled into each game's cached `play_many`, as `alpha_beta` is
def play_games(exact, tactics, heuristic, states, kids, starts, kinds, first, second, max_plies, root, results):
    """Games from each row of `starts` (a root state), the agent of kind kinds[0] (`LOOKUP`, ...)
    drawing from `first` moving first, kinds[1] from `second` second, each game to its end or to
    `max_plies` moves, as `agents.match.play_game` plays them: results[g] = (the first mover's
    outcome code, plies). Contexts: `exact` reads the store (the lookup agent's moves), `tactics`
    and `heuristic` read none (the greedy agent's two searches: the zero and its evaluation).
    `states` and `kids` hold 3 plies; `root` a score a move."""
    keys, order, frames, stream = open_search(1, root.shape[0], 0)
    for g in range(starts.shape[0]):
        states[0] = starts[g]
        results[g, 0], results[g, 1] = oc.DRAW, max_plies
        for ply in range(max_plies + 1):
            decided = _enter(tactics, states, kids, keys, order, frames, stream, 0, 1)
            if decided != EXPANDED:  # a win, loss or draw of the side to move
                code = oc.DRAW if decided == 0 else oc.WIN if (decided > 0) == (ply % 2 == 0) else oc.LOSS
                results[g, 0], results[g, 1] = code, ply
                break
            if ply == max_plies:
                break
            count = frames[0, COUNT]
            kind = kinds[ply % 2]
            rng = first if ply % 2 == 0 else second
            if kind == RANDOM:
                move = rng.integers(0, count)
            elif kind == GREEDY:
                rng.integers(0, 1 << 62)  # the seed `choose` draws: one 64-bit draw, as integers(1 << 63)
                _greedy(tactics, heuristic, states, kids, count, root)
                move = _pick(root, count, False, rng)
            else:
                root[:] = UNKNOWN
                alpha_beta(exact, states, kids, 1, True, 0, root)
                move = _pick(root, count, kind == LOOKUP_BY_OUTCOME, rng)
            _descend(tactics, states, kids, 0, move)  # kids[0]: the root's children, whichever search ran last
            states[0] = states[1]
    return results


class Search(ABC):
    """Depth-limited alpha-beta (negamax) over one game instance, run in numba kernels: what a
    game's `search` hook returns.

    `evals` names the leaf evaluations the game has, its default first. Positions below the root
    whose tier the `tablebase` holds (empty unless a store's is attached: `data.tablebase`) take
    their exact stored score instead of being searched.
    """

    evals: ClassVar[tuple[str, ...]]
    #: Why the search takes no store's values (None: it does, through `tablebase`).
    reads_no_store: ClassVar[str | None] = None
    #: The variable-depth rule `adaptive_depth` plays, in words (None: the game has none).
    variable_depth: ClassVar[str | None] = None

    def __init__(self, game):
        self.game = game
        self.tablebase = Tablebase(self.slots)
        #: Positions visited by the last search (every node: interior, leaf, terminal, probed).
        self.nodes = 0

    # --- per game -----------------------------------------------------------------
    #: Number of tablebase slots (tier keys map onto 0..slots-1).
    slots: int

    @abstractmethod
    def slot(self, key: tuple[int, ...]) -> int:
        """The tablebase slot of the tier with this key."""

    @abstractmethod
    def tiers_within(self, position, depth: int) -> list[str]:
        """Names of the tiers a search of `depth` plies from `position` can reach below it."""

    @abstractmethod
    def _run(self, position, depth: int, evaluation: int, exact: bool, seed: int,
             table: tuple[np.ndarray, np.ndarray, np.ndarray], scores: np.ndarray) -> int:
        """Run the game's kernel from `position`: write scores[j] for the j-th move of
        game.moves(position); return the number of nodes visited."""

    def rows_at(self, tier, indices: np.ndarray) -> np.ndarray | None:
        """Optional (with `_run_many`): the kernel's root state of each position `indices` of `tier`
        (one int64 row each), for `scores_many`; None where the game searches one position at a time."""
        return None

    def _run_many(self, rows: np.ndarray, depth: int, evaluation: int, table: tuple[np.ndarray, np.ndarray, np.ndarray],
                  scores: np.ndarray) -> int:
        """With `rows_at`: every move's exact score from each row into the row of `scores` (as
        `_run` with `exact`), in one kernel call; return the number of nodes visited."""
        raise NotImplementedError(f"{self.game.name}'s search takes one position at a time")

    def _greedy_many(self, rows: np.ndarray, zero: int, evaluation: int, scores: np.ndarray) -> None:
        """Optional (with `rows_at`): `greedy_rows` over `rows` into `scores`, the tactics context with
        the evaluation numbered `zero`, the heuristic one with `evaluation`, neither reading a store."""
        raise NotImplementedError(f"{self.game.name}'s search has no greedy kernel")

    def greedy_many(self, rows: np.ndarray, evaluation: str) -> np.ndarray:
        """The greedy agent's score of every move at each of many positions (`rows_at`'s rows): its
        exact score 2 plies deep with `zero` where that is not 0, else 1 ply deep with `evaluation`
        (UNKNOWN past a position's moves, all of a decided position's row). One kernel call where
        the game has `_greedy_many`, else two `scores_many`."""
        if type(self)._greedy_many is Search._greedy_many:
            tactics = self.scores_many(rows, 2, "zero")
            return np.where(tactics != 0, tactics, self.scores_many(rows, 1, evaluation))
        scores = np.full((len(rows), self.game.max_moves), UNKNOWN, dtype=np.int64)
        self._greedy_many(np.ascontiguousarray(rows, dtype=np.int64), self.evals.index("zero"),
                          self.evals.index(evaluation), scores)
        return scores

    def row(self, position) -> np.ndarray | None:
        """Optional (with `_play_many`): the kernel's root state of `position`, as `rows_at` gives
        stored ones; None where the game plays no whole game in kernels."""
        return None

    def _play_many(self, starts: np.ndarray, kinds: np.ndarray, zero: int, evaluation: int,
                   first: np.random.Generator, second: np.random.Generator, max_plies: int, table: tuple,
                   results: np.ndarray) -> None:
        """With `row`: `play_games` from each row of `starts` into `results`: the exact context
        reads `table` (the tablebase's arrays) with the evaluation numbered `zero`, the greedy
        agent's contexts read none, with `zero` and `evaluation`."""
        raise NotImplementedError(f"{self.game.name}'s search plays no whole game")

    def play_many(self, starts: list, kinds: tuple[int, int], first: np.random.Generator,
                  second: np.random.Generator, max_plies: int) -> np.ndarray | None:
        """Whole games in the kernels (`play_games`) from each position of `starts`, agents of
        `kinds`, drawing from `first` and `second`: rows (the first mover's outcome code, plies),
        or None where the game plays none. A store's tiers the lookup agent reads are required of
        the tablebase first."""
        if type(self)._play_many is Search._play_many:
            return None
        rows = np.array([self.row(position) for position in starts], dtype=np.int64)
        results = np.empty((len(starts), 2), dtype=np.int64)
        self._play_many(rows, np.array(kinds, dtype=np.int64), self.evals.index("zero"), 0, first, second, max_plies,
                        self.tablebase.arrays(), results)
        return results

    def adaptive_depth(self, position, depth: int) -> int:
        """Optional (with `variable_depth`): the depth the game's variable-depth rule searches
        `position` to, within 1..`depth` (`minimax:adaptive=1`)."""
        raise NotImplementedError(f"{self.game.name} has no variable-depth rule")

    def solve_scores(self, position, *, seed: int, exact: bool = False) -> np.ndarray:
        """Optional (required of a game whose positions are validated by sampling): every move's
        exact score, searched to the end of the game; every move tying the best exact, the
        others bounds below it, every move exact with `exact`."""
        raise NotImplementedError(f"{self.game.name}'s search does not search to the end of the game")

    # --- shared ---------------------------------------------------------------------
    def tier_slots(self) -> dict[str, int]:
        """The slot of each tier of the game, for a tablebase to lay tiers out by."""
        return {tier.name: self.slot(tier.key) for tier in self.game.tiers()}

    def root_scores(self, position, depth: int, evaluation: str, *, seed: int,
                    exact: bool = False) -> np.ndarray:
        """Score of every move of `game.moves(position)` (in that order) for the side to move,
        searched `depth` plies deep with leaf evaluation `evaluation` (one of `evals`).

        Every move scoring the best is scored exactly; with `exact=False` the others only get an
        upper bound below the best (alpha-beta at the root with window (best - 1, inf)), which
        keeps the set of best moves exact. `seed` starts the random order of equally keyed
        moves. Sets `nodes`.
        """
        self.tablebase.require(self.tiers_within(position, depth))
        scores = np.full(self.game.max_moves, UNKNOWN, dtype=np.int64)
        self.nodes = self._run(position, depth, self.evals.index(evaluation), exact, seed, self.tablebase.arrays(),
                               scores)
        return scores[:np.count_nonzero(scores != UNKNOWN)]  # the root's moves fill a prefix

    def scores_many(self, rows: np.ndarray, depth: int, evaluation: str) -> np.ndarray:
        """Every move's exact score at each of many positions (`rows_at`'s rows), `depth` plies deep
        with leaf evaluation `evaluation`: scores[i, j] for the j-th move of game.moves at row i,
        UNKNOWN past its moves (all of a decided position's row). The tablebase holds what was
        required of it before (the caller requires every tier the rows' searches reach). Sets `nodes`."""
        scores = np.full((len(rows), self.game.max_moves), UNKNOWN, dtype=np.int64)
        self.nodes = self._run_many(np.ascontiguousarray(rows, dtype=np.int64), depth, self.evals.index(evaluation),
                                    self.tablebase.arrays(), scores)
        return scores

    def best_move(self, position, depth: int, evaluation: str, rng: np.random.Generator) -> int:
        """The number of a best-scored move of `position` (`root_scores` `depth` plies deep, its
        seed and the tie-break drawn from `rng`)."""
        return pick_best(self.root_scores(position, depth, evaluation, seed=int(rng.integers(1 << 63))), rng)
