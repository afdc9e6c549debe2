"""The expert, rules and mcts agents, checked against solved stores, the seeds' rule texts,
and the plain-Python rules (`game.moves`, `game.primitive`) as the reference for the
mcts kernels."""

from __future__ import annotations

import itertools
from collections import Counter

import numpy as np
import pytest

from retrograde import outcome as oc
from retrograde.agents import build_agent, describe_agents, resolve_agent
from retrograde.agents.match import play_game
from retrograde.search.playouts import playout, seed_rng
from retrograde.data.probing import values
from retrograde.errors import BadAgent
from retrograde.games import make_game

TTT_LINES = ((0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6))


def every_position(game):
    """Every legal position of a (small) game instance."""
    return [p for tier in game.tiers() for i in range(tier.size) if (p := game.position_at(tier, i)) is not None]


# --- expert: Nim ------------------------------------------------------------------------------
NIM_INSTANCES = [
    {"heaps": [1, 3, 5, 7]},
    {"heaps": [2, 3, 4, 6], "misere": True},
    {"heaps": [3, 4, 5, 7], "max_take": 3},
    {"heaps": [2, 4, 5, 7], "max_take": 2, "misere": True},
    {"heaps": [1, 2, 6, 9], "max_take": 4, "misere": True},
]


@pytest.mark.parametrize("params", NIM_INSTANCES, ids=lambda p: ",".join(f"{k}={v}" for k, v in p.items()))
def test_nim_expert_never_blunders_from_any_won_position(open_solved, params):
    store = open_solved("nim", params)
    game = store.game
    expert = build_agent("expert", game, seed=3)
    positions = [p for p in every_position(game) if not game.primitive(p)]
    value_of = dict(zip(positions, (v.outcome for v in values(store, positions))))
    choices = [expert.choose(p) for p in positions]
    child_values = values(store, [child for _, child in choices])
    won = 0
    for position, (move, child), after in zip(positions, choices, child_values):
        assert (move, child) in game.moves(position)
        if value_of[position] == oc.WIN:
            won += 1
            assert after.outcome == oc.LOSS, f"{game.format(position)}: {move} lets the opponent win"
    assert 0 < won < len(positions)  # both kinds of position were checked


def test_nim_expert_from_a_lost_position_plays_a_seeded_random_move():
    game = make_game("nim", {"heaps": [1, 3, 5, 7]})  # nim-sum 0: lost for the mover
    picks = {build_agent("expert", game, seed=s).choose(game.initial_position)[0] for s in range(30)}
    assert len(picks) > 5
    assert build_agent("expert", game, seed=4).choose((1, 3, 5, 7)) == \
        build_agent("expert", game, seed=4).choose((1, 3, 5, 7))


# --- expert: tic-tac-toe (the seeds' magic square) ---------------------------------------------
def ttt_sides(position):
    """(mover's cells, opponent's cells) as sets."""
    xs, os = position
    cells = lambda mask: {c for c in range(9) if mask >> c & 1}  # noqa: E731
    return (cells(xs), cells(os)) if xs.bit_count() == os.bit_count() else (cells(os), cells(xs))


def completing_cells(own, other):
    """Free cells that complete a line of `own`'s cells."""
    return {c for line in TTT_LINES for c in line
            if c not in own | other and len(set(line) & own) == 2}


def test_magic_square_expert_wins_and_blocks_in_one_and_otherwise_plays_at_random(open_solved):
    """Measured fact: every move the magic-square rules decide keeps the position's value;
    it wins in one whenever it can, blocks a line of two when it holds two cells, and
    plays at random otherwise, which loses the value in some positions (forks, or a line
    of two left unblocked while it holds one cell)."""
    store = open_solved("tictactoe")
    game = store.game
    positions = [p for p in every_position(game) if not game.primitive(p)]
    value_of = dict(zip(positions, (v.outcome for v in values(store, positions))))
    expert = build_agent("expert", game, seed=11)
    choices = [expert.choose(p) for p in positions]
    after = dict(zip(positions, (v.outcome for v in values(store, [c for _, c in choices]))))
    kept, expected_kept, unblocked = 0, 0.0, 0
    for position, (move, child) in zip(positions, choices):
        own, other = ttt_sides(position)
        played = ttt_sides(child)[1] - own
        wins, threats = completing_cells(own, other), completing_cells(other, own)
        keeps = oc.WIN + oc.LOSS - after[position] == value_of[position]
        kept += keeps
        if wins:
            assert played <= wins, game.format(position)
        elif threats and len(own) >= 2:
            assert played <= threats, game.format(position)
        if wins or (threats and len(own) >= 2):
            assert keeps, game.format(position)
            expected_kept += 1
        else:  # a uniformly random move: its chance of keeping the value
            outcomes = [oc.WIN + oc.LOSS - v.outcome for v in values(store, [c for _, c in game.moves(position)])]
            expected_kept += outcomes.count(value_of[position]) / len(outcomes)
            unblocked += bool(threats)
    assert unblocked > 0  # positions where it holds one cell and leaves a line of two open
    # Measured: the strategy keeps the value of 92.5% of the 4,520 non-terminal positions in
    # expectation (4,180.0 of them); seed 11 kept 4,195. It is not a perfect player.
    assert len(positions) == 4520
    assert round(expected_kept / len(positions), 3) == 0.925
    assert abs(kept - expected_kept) < 60  # 5 standard deviations of the random choices


def test_magic_square_expert_plays_at_random_until_it_holds_two_cells():
    game = make_game("tictactoe")
    position = game.parse("xx./.o./... o")  # o holds one cell: it does not see x's threat
    picks = {build_agent("expert", game, seed=s).choose(position)[0] for s in range(40)}
    assert len(picks) > 3 and "c1" in picks


@pytest.mark.parametrize("spec,game_name,params,reason", [
    ("expert", "quixo", {"size": 3}, "an agent of nim and tictactoe only"),
    ("rules", "tictactoe", {}, "an agent of nim only"),
    ("rules:rule=best", "nim", {"heaps": [1, 2]}, "must be one of"),
    ("mcts:iterations=0", "nim", {"heaps": [1, 2]}, "between 1 and"),
    ("mcts:c=-1", "nim", {"heaps": [1, 2]}, "between 0 and"),
])
def test_agents_refuse_what_they_cannot_do_in_one_line(spec, game_name, params, reason):
    with pytest.raises(BadAgent, match=reason) as caught:
        build_agent(spec, make_game(game_name, params), seed=0)
    assert "\n" not in str(caught.value)


# --- rules --------------------------------------------------------------------------------------
@pytest.mark.parametrize("rule,heaps,max_take,misere,move", [
    ("largest-min", (3, 0, 5, 2), None, False, "3-1"),
    ("largest-min", (4, 4, 1), None, False, "1-1"),  # ties go to the first heap
    ("largest-max", (3, 0, 5, 2), None, False, "3-5"),
    ("largest-max", (3, 0, 5, 2), 3, False, "3-3"),
    ("smallest-min", (3, 0, 5, 2), None, False, "4-1"),
    ("smallest-max", (3, 0, 5, 2), None, False, "4-2"),
    ("smallest-max", (0, 6, 5, 7), 2, False, "3-2"),
    ("leave-one", (3, 0, 5, 2), None, False, "3-4"),
    ("leave-one", (3, 0, 5, 2), 3, False, "3-3"),
    ("leave-one", (1, 0, 1, 0), None, True, "1-1"),
    ("count-and-decide", (3, 0, 5, 2), None, False, "3-5"),  # 3 non-empty heaps: most from the largest
    ("count-and-decide", (3, 0, 5, 0), None, False, "1-1"),  # 2: one from the smallest
    ("fixed", (0, 0, 3), None, False, "3-3"),  # empties the board: wins now
    ("fixed", (2, 0, 3), None, False, "1-1"),
    ("fixed", (1, 3), None, False, "2-1"),  # 1-1 would leave one heap the opponent takes
    ("fixed", (0, 0, 3), 2, False, "3-1"),  # every move leaves a heap of <= k: the first move
    ("fixed", (1, 5), None, False, "2-1"),  # 1-1 leaves a heap of 5 the opponent takes...
    ("fixed", (1, 5), 4, False, "1-1"),  # ...unless at most 4 may be taken
    ("fixed", (0, 0, 3), None, True, "3-1"),  # misère: do not take the last object
    ("fixed", (0, 1, 0), None, True, "2-1"),  # misère, forced
])
def test_each_rule_plays_what_its_text_says(rule, heaps, max_take, misere, move):
    full = [max(h, 1) + 2 for h in heaps]
    game = make_game("nim", {"heaps": full, "max_take": max_take, "misere": misere})
    assert build_agent(f"rules:rule={rule}", game, seed=0).choose(heaps)[0] == move


@pytest.mark.parametrize("params", [{"heaps": [3, 5, 7, 9]}, {"heaps": [2, 6, 4, 8, 1], "max_take": 3},
                                    {"heaps": [5, 5, 9], "max_take": 2, "misere": True}])
def test_every_rule_plays_a_legal_move_within_the_bound(params):
    game = make_game("nim", params)
    rng = np.random.default_rng(7)
    positions = {tuple(int(rng.integers(h + 1)) for h in game.heaps) for _ in range(300)} - {(0,) * len(game.heaps)}
    for rule in ("fixed", "largest-min", "largest-max", "smallest-min", "smallest-max", "leave-one",
                 "count-and-decide"):
        agent = build_agent(f"rules:rule={rule}", game, seed=0)
        for position in positions:
            move, child = agent.choose(position)
            assert (move, child) in game.moves(position)
            assert sum(position) - sum(child) <= (params.get("max_take") or sum(position))


# --- report 000's players as its code played them (preset=000) -------------------------------
def _first_row(heaps):
    return next(i for i, h in enumerate(heaps) if h)


def _last_row(heaps):
    return max(i for i, h in enumerate(heaps) if h)


#: What each of report 000's rules does, in words: which row, and how many it takes.
REPORT_000 = {"min-from-highest-row": lambda heaps, k: (_first_row(heaps), "all"),
              "min-from-lowest-row": lambda heaps, k: (_first_row(heaps), 1),
              "max-from-lowest-row": lambda heaps, k: (_last_row(heaps), 1),
              "max-from-highest-row": lambda heaps, k: (_last_row(heaps), "all")}


@pytest.mark.parametrize("max_take", [None, 2])
@pytest.mark.parametrize("rule", [*REPORT_000, "count-and-decide"])
def test_report_000s_rules_play_what_its_code_played(rule, max_take):
    """Its sort keys pick the first or last non-empty row and take all of it or one object (all
    but the bound's excess under a bound); count-and-decide switches by the non-empty rows' parity."""
    game = make_game("nim", {"heaps": [4, 5, 6, 7], "max_take": max_take})
    odd, even = "min-from-highest-row", "max-from-lowest-row"
    options = f",odd={odd},even={even}" if rule == "count-and-decide" else ""
    agent = build_agent(f"rules:preset=000,rule={rule}{options}", game, seed=0)
    for heaps in itertools.product(range(3), range(4), range(2), range(5)):
        if not any(heaps):
            continue
        played = rule if rule != "count-and-decide" else (odd if sum(h > 0 for h in heaps) % 2 else even)
        row, count = REPORT_000[played](heaps, max_take)
        count = heaps[row] if count == "all" else count
        count = min(count, max_take or count)
        assert agent.choose(heaps)[0] == f"{row + 1}-{count}", (rule, heaps)


def test_report_000s_random_player_picks_a_row_then_a_count():
    """From 1,7 its pure_random empties the single heap half the time (a row first), ours an eighth
    (a move first); the counts of the heap of 7 are uniform."""
    game = make_game("nim", {"heaps": [1, 7]})
    draws = 4000
    for spec, single in (("random:preset=000", 0.5), ("random", 1 / 8)):
        agent = build_agent(spec, game, seed=3)
        moves = Counter(agent.choose((1, 7))[0] for _ in range(draws))
        assert abs(moves["1-1"] / draws - single) < 4 * (single * (1 - single) / draws) ** 0.5, spec
        sevens = [moves[f"2-{count}"] for count in range(1, 8)]
        assert max(sevens) - min(sevens) < 0.1 * sum(sevens), spec


@pytest.mark.parametrize("max_take", [None, 2, 4])
def test_report_003s_fixed_strategy_empties_the_board_else_takes_one_from_the_first_heap(max_take):
    """Its test of the position before the move discards nothing but where one heap is left."""
    game = make_game("nim", {"heaps": [3, 4, 5, 6], "max_take": max_take})
    agent = build_agent("rules:preset=003", game, seed=0)
    for heaps in itertools.product(range(4), range(5), range(3), range(7)):
        nonempty = [i for i, h in enumerate(heaps) if h]
        if not nonempty:
            continue
        first = nonempty[0]
        ends = len(nonempty) == 1 and (max_take is None or heaps[first] <= max_take)
        assert agent.choose(heaps)[0] == f"{first + 1}-{heaps[first] if ends else 1}", heaps


def test_report_003s_optimal_strategy_ignores_the_bound():
    """Unbounded, it moves to a nim-sum of 0 where one exists; with at most 3 taken, from a heap of
    5 (Grundy value 1: take 1) it finds no raw nim-sum 0 and plays at random, where `expert` takes 1."""
    free = make_game("nim", {"heaps": [3, 4, 5]})
    agent = build_agent("expert:preset=003", free, seed=0)
    for heaps in itertools.product(range(4), range(5), range(6)):
        total = heaps[0] ^ heaps[1] ^ heaps[2]
        if total:
            _, child = agent.choose(heaps)
            assert child[0] ^ child[1] ^ child[2] == 0, heaps
    bounded = make_game("nim", {"heaps": [5], "max_take": 3})
    agent = build_agent("expert:preset=003", bounded, seed=1)
    theirs = Counter(agent.choose((5,))[0] for _ in range(300))
    assert set(theirs) == {"1-1", "1-2", "1-3"} and min(theirs.values()) > 50
    assert {build_agent("expert", bounded, seed=seed).choose((5,))[0] for seed in range(20)} == {"1-1"}


def test_report_003s_evolved_strategy_plays_the_game_its_log_shows():
    """The log's match on 1,3,5: the evolved player (moving first) left 1,3,2, then 0,2,2 from
    0,3,2, 0,1,1 from 0,2,1, and took the last object."""
    agent = build_agent("ga:preset=003", make_game("nim", {"heaps": [1, 3, 5]}), seed=0)
    for before, after in (((1, 3, 5), (1, 3, 2)), ((0, 3, 2), (0, 2, 2)), ((0, 2, 1), (0, 1, 1)),
                          ((0, 0, 1), (0, 0, 0))):
        assert agent.choose(before)[1] == after


def test_report_003s_xor_genome_moves_to_a_nim_sum_of_zero():
    """Its genome (a & !b) | (!a & b) folds the heaps into their nim-sum: where a move leaves 0,
    the lowest score is 0 (the theory's winning move)."""
    game = make_game("nim", {"heaps": [3, 4, 5, 6]})
    agent = build_agent("ga:preset=003,genome=(0,0,1,1,1,0,0)", game, seed=0)
    for heaps in itertools.product(range(4), range(5), range(6), range(7)):
        if heaps[0] ^ heaps[1] ^ heaps[2] ^ heaps[3]:
            _, child = agent.choose(heaps)
            assert child[0] ^ child[1] ^ child[2] ^ child[3] == 0, heaps


@pytest.mark.parametrize("spec,reason", [
    ("random:preset=001", "no preset '001' for nim: presets: 000, 003"),
    ("mcts:preset=000", "no preset '000' for nim"),
    ("rules:preset=000,rule=largest-min", "must be one of min-from-highest-row"),
    ("rules:preset=000,depth=2", "has no option 'depth'"),
    ("ga:preset=003,genome=(0.1,0.2)", "give 4n\\+3 numbers"),
    ("ga:preset=003,genome=(0,0,1,1,1,0,2)", "give 4n\\+3 numbers"),
])
def test_a_preset_an_agent_lacks_is_refused_in_one_line(spec, reason):
    with pytest.raises(BadAgent, match=reason) as caught:
        build_agent(spec, make_game("nim", {"heaps": [1, 3, 5, 7]}), seed=0)
    assert "\n" not in str(caught.value)


def test_retrograde_agents_says_how_each_preset_differs():
    lines = describe_agents()
    for preset in ("000", "003"):
        assert any(line.strip().startswith(f"nim: preset={preset}: the reports' random player") and "ours" in line
                   for line in lines)
    assert any("preset=000: report 000's fixed rules" in line for line in lines)
    assert any("preset=003: report 003's fixed_strategy" in line and "ours" in line for line in lines)
    assert any("preset=003: report 003's optimal_strategy" in line and "ours" in line for line in lines)
    assert any("preset=003: report 003's evolved strategy" in line and "ours" in line for line in lines)


# --- mcts kernels against the plain-Python rules -----------------------------------------------
KERNEL_GAMES = [("quixo", {"size": 3}), ("quixo", {"size": 4}), ("quixo", {"size": 5}), ("tictactoe", {}),
                ("nim", {"heaps": [2, 3, 5, 7], "max_take": 3}), ("nim", {"heaps": [1, 4, 6], "misere": True})]


def reference_state(game, position) -> tuple[int, int]:
    """The kernels' state written out here from the notation: masks for boards, mixed radix for Nim."""
    if game.name == "nim":
        code, stride = 0, 1
        for h, start in zip(position, game.heaps):
            code, stride = code + h * stride, stride * (start + 1)
        return code, 0
    if game.name == "tictactoe":
        xs, os = position
        return (xs, os) if xs.bit_count() == os.bit_count() else (os, xs)
    cells, side = position
    other = "o" if side == "x" else "x"
    return (sum(1 << i for i, c in enumerate(cells) if c == side),
            sum(1 << i for i, c in enumerate(cells) if c == other))


def random_positions(game, count, seed):
    """Positions reached by random play from the start (non-terminal ones, with repeats removed)."""
    rng = np.random.default_rng(seed)
    found = {}
    while len(found) < count:
        position = game.initial_position
        for _ in range(int(rng.integers(0, 40))):
            moves = game.moves(position)
            if not moves:
                break
            position = moves[int(rng.integers(len(moves)))][1]
        if not game.primitive(position):
            found[position] = None
    return list(found)


@pytest.mark.parametrize("name,params", KERNEL_GAMES, ids=lambda x: str(x))
def test_kernel_children_and_outcomes_match_the_rules_in_move_order(name, params):
    game = make_game(name, params)
    rules = game.playouts
    arrays = (rules.params, rules.table, rules.lines)
    out_a = np.empty(game.max_moves, dtype=np.int64)
    out_b = np.empty(game.max_moves, dtype=np.int64)
    for position in random_positions(game, 60, seed=1):
        a, b = reference_state(game, position)
        assert rules.encode(position) == (a, b)
        assert rules.terminal(*arrays, a, b) == 0
        n = rules.children(*arrays, a, b, out_a, out_b)
        expected = [reference_state(game, child) for _, child in game.moves(position)]
        assert list(zip(out_a[:n].tolist(), out_b[:n].tolist())) == expected
        for _, child in game.moves(position):
            assert rules.terminal(*arrays, *reference_state(game, child)) == game.primitive(child)


@pytest.mark.parametrize("name,params", KERNEL_GAMES, ids=lambda x: str(x))
def test_a_kernel_playout_replays_as_legal_moves_to_the_result_it_reports(name, params):
    game = make_game(name, params)
    rules = game.playouts
    max_plies = 60
    trace = np.zeros((max_plies + 1, 2), dtype=np.int64)
    for k, position in enumerate(random_positions(game, 25, seed=2)):
        seed_rng(100 + k)
        result, plies = playout(rules.terminal, rules.random_child, rules.params, rules.table, rules.lines,
                                *reference_state(game, position), max_plies, trace)
        for ply in range(plies):  # replay the reported states through game.moves
            following = {reference_state(game, child): child for _, child in game.moves(position)}
            position = following[tuple(trace[ply + 1].tolist())]
        final = game.primitive(position)
        if final:
            assert result == (final if plies % 2 == 0 or final == oc.DRAW else oc.WIN + oc.LOSS - final)
        else:
            assert (result, plies) == (oc.DRAW, max_plies)


@pytest.mark.parametrize("name,params,text", [("quixo", {"size": 4}, "xo../.x../..o./...x o"),
                                              ("tictactoe", {}, "x../.o./... x"),
                                              ("nim", {"heaps": [3, 5, 4], "max_take": 3}, "3,5,2")])
def test_kernel_random_moves_are_uniform_over_the_legal_moves(name, params, text):
    game = make_game(name, params)
    rules = game.playouts
    position = game.parse(text)
    a, b = reference_state(game, position)
    moves = [reference_state(game, child) for _, child in game.moves(position)]
    seed_rng(5)
    draws = 200 * len(moves)
    drawn = Counter(rules.random_child(rules.params, rules.table, rules.lines, a, b) for _ in range(draws))
    # Distinct moves can reach the same child: a child is due as often as moves lead to it.
    due = Counter(moves)
    assert set(drawn) == set(due)
    chi2 = sum((drawn[child] - draws * k / len(moves)) ** 2 / (draws * k / len(moves)) for child, k in due.items())
    assert chi2 < 2 * len(due), chi2  # about len(due) - 1 if uniform


# --- mcts agent ---------------------------------------------------------------------------------
def test_mcts_takes_wins_in_one_and_blocks_losses_in_one_on_tictactoe(open_solved):
    """60 positions (found with the solved store) with a win in one, and 60 where the only
    moves that avoid a loss block the opponent's line of two."""
    store = open_solved("tictactoe")
    game = store.game
    positions = [p for p in every_position(game) if not game.primitive(p)]
    wins, blocks = [], []
    for position, value in zip(positions, values(store, positions)):
        moves = game.moves(position)
        after = values(store, [child for _, child in moves])
        if value.outcome == oc.WIN and value.remoteness == 1:
            wins.append((position, {m for (m, _), v in zip(moves, after)
                                    if v.outcome == oc.LOSS and v.remoteness == 0}))
        own, other = ttt_sides(position)
        keeping = {m for (m, _), v in zip(moves, after) if v.outcome != oc.WIN}
        if value.outcome != oc.LOSS and completing_cells(other, own) and not completing_cells(own, other):
            blocks.append((position, keeping))
    rng = np.random.default_rng(0)
    sample = [wins[i] for i in rng.choice(len(wins), 60, replace=False)] + \
        [blocks[i] for i in rng.choice(len(blocks), 60, replace=False)]
    agent = build_agent("mcts:iterations=1500", game, seed=9)
    for position, good in sample:
        assert agent.choose(position)[0] in good, game.format(position)


def test_mcts_same_seed_same_search():
    game = make_game("quixo", {"size": 4})
    position = random_positions(game, 1, seed=4)[0]
    first, second = (build_agent("mcts:iterations=300", game, seed=21) for _ in range(2))
    assert np.array_equal(first.root_visits(position), second.root_visits(position))
    assert first.choose(position) == second.choose(position)
    assert first.root_visits(position).sum() == 300


def test_mcts_beats_random_on_3x3_quixo():
    game = make_game("quixo", {"size": 3})
    wins = 0
    for seed in range(6):
        mcts = build_agent("mcts:iterations=300", game, seed=seed)
        rand = build_agent("random", game, seed=seed + 50)
        first, second = (mcts, rand) if seed % 2 == 0 else (rand, mcts)
        result = play_game(first, second, game.initial_position, max_plies=200).result
        wins += result == ("win" if seed % 2 == 0 else "loss")
    assert wins >= 5


@pytest.mark.parametrize("name,params", [("nim", {"heaps": [1, 3, 5, 7], "max_take": 3, "misere": True}),
                                         ("tictactoe", {}), ("quixo", {"size": 5})], ids=str)
def test_mcts_plays_whole_games_with_legal_moves(name, params):
    game = make_game(name, params)
    agent = build_agent("mcts:iterations=50,max_playout=30", game, seed=1)
    position = game.initial_position
    for _ in itertools.repeat(None, 40):
        if game.primitive(position):
            break
        move = agent.choose(position)
        assert move in game.moves(position)
        position = move[1]


def test_a_reports_player_claims_only_what_its_own_policy_claims():
    game = make_game("nim", {"heaps": [1, 3, 5, 7], "max_take": 3})
    assert resolve_agent("expert", game).claim == "never gives a Nim win away"
    assert resolve_agent("expert:preset=003", game).claim is None  # it ignores the bound
    assert resolve_agent("random:preset=000", game).claim is None and resolve_agent("random", game).claim is None
