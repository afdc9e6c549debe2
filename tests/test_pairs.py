"""Game pairs: pentanomial counts, the Elo estimate with its interval and LOS, the SPRT, and
`match --sprt`. Expected figures are worked out by hand in the comments (pair scores 0, 1/4,
1/2, 3/4, 1; Z95 = 1.959964; empty cells count 1e-3 pairs, as in fishtest)."""

from __future__ import annotations

import json
import math

import pytest

from retrograde.agents import resolve_agent
from retrograde.games import make_game
from retrograde.pipeline.executors import InProcessExecutor, open_executor
from retrograde.validation import play_sprt
from retrograde.validation.pairs import Sprt, estimate, pentanomial
from retrograde.validation.tournament import INITIAL, OPENINGS, Pairing, Played, every_pairing, mirrors, tally

NIM123 = {"heaps": [1, 2, 3]}
# Game i of A moving first (A's result) and game i of B moving first (B's result): the six pairs
# score, for A, 1+1 (WW), 1/2+1/2 (DD), 0+0 (LL), 1+0 (WL), 1/2+1 (WD), 0+1/2 (LD).
A_FIRST = ["win", "draw", "loss", "win", "draw", "loss"]
B_FIRST = ["loss", "draw", "win", "win", "loss", "draw"]


def test_pairs_are_counted_from_each_seat_and_mirrored():
    assert pentanomial(A_FIRST, B_FIRST) == [1, 1, 2, 1, 1]
    first, second = (resolve_agent(spec, make_game("nim", NIM123)) for spec in ("random", "greedy"))
    a, b = Pairing(first, second, INITIAL, 6, "A first"), Pairing(second, first, INITIAL, 6, "B first")
    plies = [5, 9, 9, 7, 9, 9]
    a_records = [Played(*record) for record in zip(A_FIRST, plies)]
    b_records = [Played(*record) for record in zip(B_FIRST, plies)]
    entry = tally(a, a_records, 9, b_records)
    mirrored = tally(b, b_records, 9, a_records)
    assert entry["pairs"] == {"LL": 1, "LD": 1, "DD_WL": 2, "WD": 1, "WW": 1}
    assert mirrored["pairs"] == {"LL": 1, "LD": 1, "DD_WL": 2, "WD": 1, "WW": 1}  # LL<->WW, LD<->WD
    # mean pair score 3/6 = 1/2 from either side: Elo 0, LOS 1/2
    assert entry["elo"] == mirrored["elo"] == 0.0 and entry["los"] == mirrored["los"] == 0.5
    assert entry["elo_ci95"] == [-x for x in reversed(mirrored["elo_ci95"])]
    # the SPEC §7 keys stay; the two drawn games that ran to the cap of 9 plies count as draws and as capped
    assert (entry["first_wins"], entry["draws"], entry["second_wins"], entry["capped"]) == (2, 2, 2, 2)
    assert tally(a, a_records, 9)["pairs"] is None and tally(a, a_records, 9)["elo"] is None


def test_each_pairing_is_mirrored_by_the_same_agents_in_swapped_seats_from_the_same_starts():
    plan = every_pairing(["x", "y"], 4, openings=True)
    assert [(p.first, p.second, p.start) for p in plan] == [
        ("x", "x", INITIAL), ("x", "y", INITIAL), ("y", "x", INITIAL), ("y", "y", INITIAL),
        ("x", "x", OPENINGS), ("x", "y", OPENINGS), ("y", "x", OPENINGS), ("y", "y", OPENINGS)]
    assert mirrors(plan) == [None, 2, 1, None, None, 6, 5, None]  # self-play in one seat has no mirror
    same = [Pairing("x", "x", INITIAL, 4, "A first"), Pairing("x", "x", INITIAL, 4, "B first")]
    assert mirrors(same) == [1, 0]  # a match of an agent against itself: two players, both seats


def test_elo_interval_and_los_of_pair_counts():
    # counts LL 1, LD 2, DD_WL 3, WD 4, WW 5: N = 15, mu = (0.5 + 1.5 + 3 + 5) / 15 = 2/3,
    # Elo = -400 log10(1/mu - 1) = 400 log10 2 = 120.41; var = (1·4/9 + 2·25/144 + 3/36 + 4/144
    # + 5/9) / 15 = 0.097222, sd of the mean sqrt(var/15) = 0.080508; mu -+ 1.959964 sd =
    # 0.508875, 0.824459 -> Elo 6.17, 268.72; LOS = Phi((2/3 - 1/2) / 0.080508) = Phi(2.0702) = 0.98078
    assert estimate([1, 2, 3, 4, 5]) == {"elo": 120.4, "elo_ci95": [6.2, 268.7], "los": 0.9808}
    # an empty cell counts 1e-3 pairs: LL 0, LD 1, DD_WL 6, WD 2, WW 1 -> N = 10.001,
    # mu = (0.25 + 3 + 1.5 + 1) / 10.001 = 0.574943, Elo 52.47, interval -32.14 to 143.90, LOS 0.8875
    assert estimate([0, 1, 6, 2, 1]) == {"elo": 52.5, "elo_ci95": [-32.1, 143.9], "los": 0.8875}
    # won every pair: mu 0.99975 clamped to 0.999, Elo 400 log10 999 = 1199.83, finite interval
    won = estimate([0, 0, 0, 0, 10])
    assert won["elo"] == 1199.8 and won["elo_ci95"][1] == 1199.8 and 800 < won["elo_ci95"][0] < 1199.8
    assert won["los"] == 1.0
    assert estimate([0, 0, 0, 0, 0]) == {"elo": None, "elo_ci95": None, "los": None}


def test_sprt_llr_on_a_sequence_of_pairs():
    test = Sprt(0, 50)
    assert test.lower == pytest.approx(math.log(0.05 / 0.95)) and test.upper == pytest.approx(-test.lower)
    # mu0 = 1/2, mu1 = 1 / (1 + 10^(-50/400)) = 0.571463
    loss_both, split, win_both = ("loss", "win"), ("win", "win"), ("win", "loss")
    ld, wd = ("loss", "draw"), ("draw", "loss")
    sequence = [loss_both] + [ld] * 2 + [split] * 3 + [wd] * 4 + [win_both] * 5
    counts = pentanomial([a for a, _ in sequence], [b for _, b in sequence])
    assert counts == [1, 2, 3, 4, 5]
    # LLR = 15 · 0.071463 · (4/3 - 1.071463) / (2 · 0.097222) = 1.44366: no verdict yet
    assert test.llr(counts) == pytest.approx(1.443656, abs=1e-5) and test.verdict(test.llr(counts)) is None
    sequence += [win_both] * 10
    counts = pentanomial([a for a, _ in sequence], [b for _, b in sequence])
    # N = 25, mu = 20/25 = 0.8, var = (0.64 + 2·0.3025 + 3·0.09 + 4·0.0025 + 15·0.04) / 25 = 0.085;
    # LLR = 25 · 0.071463 · (1.6 - 1.071463) / 0.17 = 5.5545 >= 2.944: H1
    assert test.llr(counts) == pytest.approx(5.554543, abs=1e-5) and test.verdict(test.llr(counts)) == "H1 accepted"
    assert test.verdict(-3.0) == "H0 accepted" and Sprt(0, 50, 0.1, 0.2).lower == pytest.approx(math.log(0.2 / 0.9))


def test_match_sprt_accepts_h1_for_the_solved_player(cli, solved):
    path = str(solved("nim", NIM123))
    code, out, _ = cli("match", "lookup", "random", "--store", path, "--sprt", "0,50", "--quiet")
    assert code == 0
    assert "SPRT: H1 accepted, LLR " in out and "[-2.94, 2.94]" in out and "pairs of lookup vs random: LL 0, LD 0" in out
    code, out, _ = cli("match", "lookup", "random", "--store", path, "--sprt", "0,50", "--quiet", "--json")
    result = json.loads(out)
    sprt = result["sprt"]
    assert sprt["result"] == "H1 accepted" and sprt["llr"] >= sprt["upper"] and sprt["pairs"] <= 50
    assert (sprt["elo0"], sprt["elo1"], sprt["alpha"], sprt["beta"]) == (0, 50, 0.05, 0.05)
    a_first, b_first = result["tournaments"]
    assert a_first["games"] == b_first["games"] == sprt["pairs"] == sum(a_first["pairs"].values())
    # from an opening lost for the mover lookup may lose as first, then wins with the seats swapped:
    # it never loses a pair
    assert a_first["start"] == "openings" and a_first["pairs"]["LL"] == a_first["pairs"]["LD"] == 0
    assert a_first["pairs"]["WW"] == b_first["pairs"]["LL"] and a_first["elo"] > 0 > b_first["elo"]


def test_match_sprt_of_equal_players_stops_at_the_cap_or_accepts_h0(cli):
    code, out, _ = cli("match", "random", "random", "--game", "tictactoe", "--sprt", "0,50", "--games", "20",
                       "--quiet", "--json")
    sprt = json.loads(out)["sprt"]
    assert code == 0 and sprt["result"] in ("inconclusive", "H0 accepted") and sprt["pairs"] <= 20
    if sprt["result"] == "inconclusive":
        assert sprt["pairs"] == 20 and sprt["lower"] < sprt["llr"] < sprt["upper"]


@pytest.mark.parametrize("bad, words", [("0", "give elo0,elo1"), ("0,50,0.05", "give elo0,elo1"),
                                        ("a,b", "give elo0,elo1"), ("0,nan", "give elo0,elo1"),
                                        ("50,0", "elo0 must be below elo1"), ("0,0", "elo0 must be below elo1"),
                                        ("0,50,0.5,0.05", "between 0 and 0.5"), ("0,50,0.05,0", "between 0 and 0.5")])
def test_bad_sprt_is_one_line_and_exit_2(cli, bad, words):
    code, out, err = cli("match", "random", "random", "--game", "tictactoe", "--sprt", bad)
    assert code == 2 and out == "" and err.count("\n") == 1 and words in err


def test_sprt_refuses_a_start_position_and_a_game_too_short_for_openings(cli):
    code, out, err = cli("match", "random", "random", "--game", "tictactoe", "--sprt", "0,50", "--from", "x../.../...")
    assert code == 2 and out == "" and err.count("\n") == 1 and "--from" in err
    code, out, err = cli("match", "random", "random", "--game", "nim --heaps 1", "--sprt", "0,50")
    assert code == 2 and out == "" and err.count("\n") == 1 and "too short for openings" in err


def test_match_prints_the_pairs_of_a_over_b(cli):
    code, out, _ = cli("match", "expert", "random", "--game", "nim --heaps 1,2,3", "--games", "10", "--quiet")
    # nim 1,2,3 is lost for the mover: the expert wins as second and, against random, often as first
    assert code == 0 and "pairs of expert vs random: LL 0, LD 0, DD/WL " in out and ", LOS " in out


def test_sprt_verdict_does_not_depend_on_workers():
    # greedy against random at tic-tac-toe, H0 300 against H1 500: decided after batch 3, the first
    # of the third round (batches 3-6): the batches played past the decision are not counted
    game = make_game("tictactoe")
    alone = play_sprt("greedy", "random", game, Sprt(300, 500), pairs=300, seed=3, executor=InProcessExecutor())
    with open_executor(workers=2) as executor:
        cluster = play_sprt("greedy", "random", game, Sprt(300, 500), pairs=300, seed=3, executor=executor)
    assert alone == cluster
    assert alone["sprt"]["result"] == "H0 accepted" and alone["sprt"]["pairs"] == 40
