"""`check_game` and `check_capabilities`: the self-tests every game must pass (like GamesmanOne's
game tests): its rules and kernels agree (`base.REQUIRED`), and its capabilities keep their
contracts (`base.CAPABILITIES`).

On sampled positions of every tier it checks that indices round-trip, that the
notation round-trips, that every move lands in a declared child tier on a legal
position, that terminal positions have no moves, that `locate_stored` agrees with
the rules, and that the numba expand kernel agrees with the plain-Python rules.
A game that folds symmetric positions together must refer to children by their
representatives and treat every other index as a hole. For loopy games (a game whose tiers loop
must give the `loopy` capability) it also checks the parents kernel: it names each parent with a move into the position's class once,
weighed by its moves into the class, and every move inside a loopy group is found again
from the child's side; and the expand kernel in a group's first pass, where children
inside the group are only counted, once a move (or given by value, if the game says so),
and the game's `expand_kernel` gives what `expand` gives there.
"""

from __future__ import annotations

from collections import Counter

import numpy as np

from retrograde import outcome as oc
from retrograde.games.base import IN_GROUP, LOSING_CHILD, WINNING_CHILD, Expansion, Game
from retrograde.games.capabilities import Costs, Features, Genome, Loopy, NetworkInput, Policy, Sampling, course_of
from retrograde.games.tiers import Tier, solve_steps


def _sample(tier: Tier, samples: int, rng: np.random.Generator) -> list[int]:
    if tier.size <= samples:
        return list(range(tier.size))
    return sorted(set(int(i) for i in rng.integers(0, tier.size, samples)))


def _child_offsets(tiers: dict[str, Tier], tier: Tier) -> np.ndarray:
    """Where each of the tier's child tiers starts in the concatenation the kernels index."""
    return np.cumsum([0] + [tiers[c].size for c in tier.children])[:-1].astype(np.int64)


def _references(row: np.ndarray) -> list[int]:
    """A row's child or parent references: up to its first -1."""
    refs = row.tolist()
    return refs[: refs.index(-1)] if -1 in refs else refs


def _stored_at(game: Game, position) -> tuple[str, int]:
    """Where a store keeps the position's value (its representative's tier and index)."""
    names, indices = game.locate_stored([position])
    return str(names[0]), int(indices[0])


def check_game(game: Game, *, samples: int = 200, seed: int = 0) -> list[str]:
    """Return a list of problems found (empty when the game is consistent)."""
    rng = np.random.default_rng(seed)
    problems: list[str] = []
    stored: dict = {}  # position -> where a store keeps it, for the locate_stored check
    symmetry = game.symmetry
    representative = symmetry.representative if symmetry is not None else (lambda position: position)
    tiers = {tier.name: tier for tier in game.tiers()}
    for tier in tiers.values():
        offsets = _child_offsets(tiers, tier)
        for index in _sample(tier, samples, rng):
            where = f"{game.name} {tier.name}[{index}]"
            position = game.position_at(tier, index)
            expansion = game.expand(tier, index, index + 1, offsets)
            if position is None:
                if expansion.primitive[0] != oc.ILLEGAL:
                    problems.append(f"{where}: kernel treats a hole as a position")
                continue
            text = game.format(position)
            if game.locate(position) != (tier.name, index):
                problems.append(f"{where}: locate({text!r}) = {game.locate(position)}")
            if game.parse(text) != position:
                problems.append(f"{where}: parse(format(p)) != p for {text!r}")
            stored[position] = game.locate(representative(position))
            if stored[position][0] != tier.name:
                problems.append(f"{where}: the representative of {text!r} is in tier {stored[position][0]}")
            if stored[position] != (tier.name, index):  # a symmetric position's hole
                if expansion.primitive[0] != oc.ILLEGAL:
                    problems.append(f"{where}: kernel treats a hole (a position not its class's "
                                    f"representative) as a position")
                continue
            moves = game.moves(position)
            primitive = game.primitive(position)
            if bool(primitive) == bool(moves):
                problems.append(f"{where}: {text!r} terminal={primitive} but has {len(moves)} moves")
            expected = []
            for move, child in moves:
                child_tier, child_index = stored[child] = game.locate(representative(child))
                if child_tier not in tier.children:
                    problems.append(f"{where}: move {move} leads to tier {child_tier}, not a declared child")
                    continue
                if game.position_at(tiers[child_tier], child_index) is None:
                    problems.append(f"{where}: move {move} leads to an illegal index {child_tier}[{child_index}]")
                expected.append(int(offsets[tier.children.index(child_tier)]) + child_index)
            got = _references(expansion.children[0])
            if int(expansion.primitive[0]) != primitive or sorted(got) != sorted(expected):
                problems.append(f"{where}: kernel gives primitive {int(expansion.primitive[0])}, "
                                f"children {sorted(got)}; rules give {primitive}, {sorted(expected)}")
    names, indices = game.locate_stored(list(stored))
    for position, name, index in zip(stored, names.tolist(), indices.tolist()):
        if (name, index) != stored[position]:
            problems.append(f"{game.name}: locate_stored gives {name}[{index}] for {game.format(position)!r}, "
                            f"the rules give {stored[position]}")
    return problems + _check_loopy(game, tiers, samples, rng)


def _parents_of(game: Game, tiers: dict[str, Tier], offsets: dict[str, int], name: str,
                index: int) -> tuple[Counter, Counter]:
    """The parents kernel's answer for one position: how often it names each (tier, index), and
    the weights it gives each, summed."""
    starts = sorted(offsets.items(), key=lambda item: item[1])
    named: Counter = Counter()
    weights: Counter = Counter()
    refs, given = game.loopy.parents(tiers[name], np.array([index]), offsets)
    for ref, weight in zip(_references(refs[0]), given[0].tolist()):
        tier = [n for n, start in starts if start <= ref][-1]
        named[(tier, ref - offsets[tier])] += 1
        weights[(tier, ref - offsets[tier])] += weight
    return named, weights


def first_pass_references(game: Game, tier: Tier, group: tuple[str, ...], child_offsets: np.ndarray,
                          position) -> list[int]:
    """The references the expand kernel must give, by the rules, for a position of `tier` in
    the first pass of loopy group `group`: children inside the group counted once a move (or
    by value if terminal), the others by reference."""
    by_value = {oc.WIN: WINNING_CHILD, oc.LOSS: LOSING_CHILD} if game.loopy.group_terminals_by_value else {}
    expected = []
    for _, child in game.moves(position):
        name, index = _stored_at(game, child)
        if name not in group:
            expected.append(int(child_offsets[tier.children.index(name)]) + index)
        elif game.primitive(child) in by_value:
            expected.append(by_value[game.primitive(child)])
        else:
            expected.append(IN_GROUP)
    return [LOSING_CHILD] if LOSING_CHILD in expected else expected


def _check_loopy(game: Game, tiers: dict[str, Tier], samples: int, rng: np.random.Generator) -> list[str]:
    """The first pass's references, and the parents kernel against the moves: it must name each
    non-terminal stored position with a move into the stored position's class exactly once, and
    no other, weighing each by its moves into the class (what a win's propagation takes off,
    matching the first pass's count of a move each)."""
    problems: list[str] = []
    for step in solve_steps(tuple(tiers.values())):
        if not step.loopy:
            continue
        if not isinstance(game.loopy, Loopy):
            problems.append(f"{game.name}: tiers {', '.join(step.tiers)} loop, and the game gives no `loopy` capability")
            break
        offsets, total = {}, 0
        for name in step.tiers:
            offsets[name], total = total, total + tiers[name].size
        for name in step.tiers:
            tier = tiers[name]
            child_offsets = _child_offsets(tiers, tier)
            in_group = [(start, start + tiers[c].size) for c, start in zip(tier.children, child_offsets)
                        if c in step.tiers]
            kernel, *arrays = game.loopy.expand_kernel(tier, step.tiers)
            for index in _sample(tier, max(1, samples // 4), rng):
                where = f"{game.name} {name}[{index}]"
                expected = game.expand(tier, index, index + 1, child_offsets, group=step.tiers)
                given = Expansion.buffers(2, game.max_moves)  # a row more than it fills
                kernel(*arrays, index, index + 1, child_offsets, given.primitive, given.children)
                if given.primitive[0] != expected.primitive[0] or \
                        _references(given.children[0]) != _references(expected.children[0]):
                    problems.append(f"{where}: expand_kernel gives {given.primitive[0]}, "
                                    f"{_references(given.children[0])}; expand gives {expected.primitive[0]}, "
                                    f"{_references(expected.children[0])}")
                position = game.position_at(tier, index)
                if position is None or _stored_at(game, position) != (name, index):
                    continue  # a hole
                if not game.primitive(position):
                    row = _references(game.expand(tier, index, index + 1, child_offsets, group=step.tiers).children[0])
                    got = [IN_GROUP if any(lo <= ref < hi for lo, hi in in_group) else ref for ref in row]
                    expected = first_pass_references(game, tier, step.tiers, child_offsets, position)
                    if sorted(got) != sorted(expected):
                        problems.append(f"{where}: kernel gives {sorted(got)} in the group's first pass; "
                                        f"rules give {sorted(expected)}")
                named, weights = _parents_of(game, tiers, offsets, name, index)
                for (parent_tier, parent_index), count in named.items():
                    parent = game.position_at(tiers[parent_tier], parent_index)
                    if parent is None or game.primitive(parent):
                        continue  # never expanded by the solver
                    into = sum(_stored_at(game, child) == (name, index) for _, child in game.moves(parent))
                    weight = weights[(parent_tier, parent_index)]
                    if count != 1 or weight != into or _stored_at(game, parent) != (parent_tier, parent_index):
                        problems.append(f"{where}: parents kernel names {parent_tier}[{parent_index}] "
                                        f"{count} times, weight {weight}; it has {into} moves into the position")
                if game.primitive(position):
                    continue
                for child_tier, child_index in {_stored_at(game, child) for _, child in game.moves(position)}:
                    if child_tier in offsets and \
                            _parents_of(game, tiers, offsets, child_tier, child_index)[0][(name, index)] != 1:
                        problems.append(f"{where}: its move into {child_tier}[{child_index}] is not found once "
                                        f"by the parents kernel")
    return problems


def sample_positions(game: Game, count: int, rng: np.random.Generator) -> list:
    """Up to `count` non-terminal positions of the game, at random indices of random tiers."""
    tiers = [tier for tier in game.tiers() if tier.size]
    found: list = []
    for _ in range(50 * count):
        if len(found) == count:
            break
        tier = tiers[int(rng.integers(len(tiers)))]
        position = game.position_at(tier, int(rng.integers(tier.size)))
        if position is not None and not game.primitive(position):
            found.append(position)
    return found


def check_capabilities(game: Game, *, samples: int = 40, seed: int = 0) -> list[str]:
    """Return a list of broken contracts of the game's capabilities (`base.CAPABILITIES`) and
    class texts, checked on sampled positions: required class texts and examples; `costs`; the
    search's scores one ply deep against the rules; the playout kernels against `moves` and
    `primitive`; the game's own agents, genome and features choosing legal moves; features in
    [0, 1] with exact values where a move ends the game; the Q network's input; sampling tiers
    that the game of its default options has."""
    cls = type(game)
    problems = [f"{game.name}: the required {name} is missing" for name in ("name", "summary", "notation",
                                                                            "tier_legend")
                if not isinstance(getattr(cls, name, None), str) or not getattr(cls, name)]
    if not cls.examples:
        problems.append(f"{game.name}: the required `examples` names no instance")
    rng = np.random.default_rng(seed)
    positions = sample_positions(game, samples, rng)
    costs = game.costs
    if costs is not None and not (isinstance(costs, Costs) and costs.solve_rate > 0 and 0 < costs.position_share <= 1
                                  and 0 < costs.scratch_share <= 1):
        problems.append(f"{game.name}: costs is not a Costs of a positive rate and shares in (0, 1]")
    for check in (_check_search, _check_playouts, _check_players, _check_features, _check_network_input):
        problems.extend(check(game, positions, rng))
    sampling = game.sampling
    if sampling is not None:  # validated as `validate --game NAME`: the instance of the default options
        names = {tier.name for tier in cls().tiers()}
        if not isinstance(sampling, Sampling) or not set(sampling.tiers) <= names or not sampling.baselines:
            problems.append(f"{game.name}: sampling names tiers the game lacks, or no baselines")
    return problems


def _moved_value(game: Game, child) -> int:
    """What a move into `child` scores one ply deep (search.base's scale, the mover's view): a
    terminal child its exact value (a win in one if the child's side to move has lost, a draw 0);
    any other child less than a win in one (the bound its score must stay inside: a search may
    know deeper values)."""
    from retrograde.search.base import WIN_SCORE

    value = game.primitive(child)
    return {oc.LOSS: WIN_SCORE - 1, oc.WIN: 1 - WIN_SCORE, oc.DRAW: 0}.get(value, WIN_SCORE - 1)


def _check_search(game: Game, positions: list, rng) -> list[str]:
    search = game.search
    if search is None:
        return []
    if not search.evals or "zero" not in search.evals:
        return [f"{game.name}: its search's evals must include zero (decided positions only)"]
    problems = []
    for position in positions:
        scores = search.root_scores(position, 1, "zero", seed=0, exact=True).tolist()
        children = [child for _, child in game.moves(position)]
        if len(scores) != len(children) or any(
                score != _moved_value(game, child) if game.primitive(child) else abs(score) >= _moved_value(game, child)
                for score, child in zip(scores, children)):
            problems.append(f"{game.name}: search one ply deep from {game.format(position)!r} scores {scores} for "
                            f"moves into {[game.primitive(child) for child in children]} (outcome codes)")
    return problems


def _check_playouts(game: Game, positions: list, rng) -> list[str]:
    rules = game.playouts
    if rules is None:
        return []
    problems = []
    arrays = (rules.params, rules.table, rules.lines)
    out_a = np.empty(game.max_moves, dtype=np.int64)
    out_b = np.empty(game.max_moves, dtype=np.int64)
    for position in positions:
        count = rules.children(*arrays, *rules.encode(position), out_a, out_b)
        children = [(int(a), int(b)) for a, b in zip(out_a[:count], out_b[:count])]
        expected = [tuple(rules.encode(child)) for _, child in game.moves(position)]
        if children != expected or rules.terminal(*arrays, *rules.encode(position)) != 0:
            problems.append(f"{game.name}: the playout kernels disagree with moves at {game.format(position)!r}")
        for _, child in game.moves(position):
            if rules.terminal(*arrays, *rules.encode(child)) != game.primitive(child):
                problems.append(f"{game.name}: the playout kernels' terminal value of {game.format(child)!r} "
                                "is not the rules'")
    return problems


def _legal(game: Game, position, move) -> bool:
    return tuple(move) in {(text, child) for text, child in game.moves(position)}


def _check_players(game: Game, positions: list, rng) -> list[str]:
    """The game's own agents and its genome's player choose legal moves."""
    players = []
    for name, policy in (game.policies or {}).items():
        if not (isinstance(policy, type) and issubclass(policy, Policy) and policy.name == name):
            return [f"{game.name}: policies[{name!r}] is not a Policy class named {name!r}"]
        players.append((f"agent {name}", policy(game, np.random.default_rng(0)).choose))
    genomes = [("its genome", game.genome)] + [(f"report {report}'s genome", genome(game))
                                               for report, genome in course_of(game).genomes.items()]
    for who, genome in genomes:
        if genome is None:
            continue
        if not (isinstance(genome, Genome) and genome.names and genome.low < genome.high):
            return [f"{game.name}: {who} is not a Genome of named genes in a range"]
        player = genome.player(rng.uniform(genome.low, genome.high, len(genome.names)))
        players.append((who, lambda position, player=player: player.choose(position, rng)))
    return [f"{game.name}: {who} plays an illegal move at {game.format(position)!r}"
            for who, choose in players for position in positions[:10] if not _legal(game, position, choose(position))]


def _check_features(game: Game, positions: list, rng) -> list[str]:
    features = game.features
    if features is None:
        return []
    if not isinstance(features, Features):
        return [f"{game.name}: features is not a Features"]
    problems = []
    for position in positions:
        moves, values, exact = features(position, rng)
        where = f"{game.name}: features at {game.format(position)!r}"
        if values.shape != (len(moves), len(features.names)) or exact.shape != (len(moves),):
            problems.append(f"{where}: shapes {values.shape}, {exact.shape} for {len(moves)} moves")
            continue
        if not ((values >= 0) & (values <= 1)).all():
            problems.append(f"{where}: a feature outside [0, 1]")
        for (text, child), known in zip(moves, exact):
            value = {oc.LOSS: 1.0, oc.WIN: -1.0, oc.DRAW: 0.0}.get(game.primitive(child), np.nan)
            if not _legal(game, position, (text, child)) or not np.array_equal([known], [value], equal_nan=True):
                problems.append(f"{where}: move {text} is illegal or its value {known} is not the rules' {value}")
    return problems


def _check_network_input(game: Game, positions: list, rng) -> list[str]:
    """The Q network's view: `inputs` numbers, the moves of `game.moves` in its order, each its own
    output in range, and a move always the same output."""
    encoding = game.network_input
    if encoding is None:
        return []
    if not isinstance(encoding, NetworkInput):
        return [f"{game.name}: network_input is not a NetworkInput"]
    problems, output_of = [], {}
    for position in positions:
        moves, board, actions = encoding(position)
        where = f"{game.name}: network input at {game.format(position)!r}"
        if board.shape != (encoding.inputs,) or [m for m, _ in moves] != [m for m, _ in game.moves(position)]:
            problems.append(f"{where}: {board.shape} inputs, or moves other than game.moves")
            continue
        if len(set(actions.tolist())) != len(moves) or not all(0 <= a < encoding.actions for a in actions.tolist()):
            problems.append(f"{where}: outputs not one a move in [0, {encoding.actions})")
        for (text, _), action in zip(moves, actions.tolist()):
            if output_of.setdefault(text, action) != action:
                problems.append(f"{where}: move {text} has output {action} here, {output_of[text]} elsewhere")
    return problems
