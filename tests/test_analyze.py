"""`retrograde analyze`: its histograms, longest wins and losses, only moves and most
moves against a brute-force walk of every position of Nim 1,2,3 and tic-tac-toe by the plain
references of tests/reference.py (which import nothing of retrograde's), FACTS.md's counts,
the trickiest positions of two agents, its outputs, and bad input."""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

import pytest
import reference as ref
from conftest import solve_in_process, solve_killed_in_propagation, store_bytes

NIM = {"heaps": [1, 2, 3]}
VALUE = {ref.WIN: "win", ref.LOSS: "loss", ref.DRAW: "draw"}


# --- the references: each game's positions, values, moves (as the store writes them) and classes ---
def nim_walk():
    solver = ref.NimReference()
    children = {h: [(f"{i + 1}-{h[i] - c[i]}", c) for c in solver.children(h) for i in range(3) if c[i] != h[i]]
                for h in ref.nim_positions(NIM["heaps"])}
    return children, solver.solve, lambda text: tuple(int(n) for n in text.split(",")), lambda h: h


def ttt_walk():
    def moves(board):
        return [(f"{'abc'[cell % 3]}{cell // 3 + 1}", child) for cell, child in
                ((next(k for k in range(9) if board[k] != child[k]), child) for child in ref.ttt_successors(board))]

    return ({board: moves(board) for board in ref.ttt_reachable()}, ref.ttt_value,
            lambda text: text.split()[0].replace("/", ""), ref.ttt_representative)


WALKS = {"nim": (NIM, nim_walk), "tictactoe": (None, ttt_walk)}


def keeps(value: int, child_value: int) -> bool:
    """Whether a move into a child of `child_value` (its mover's view) keeps the mover's `value`."""
    return value == ref.LOSS or (value, child_value) in ((ref.WIN, ref.LOSS), (ref.DRAW, ref.DRAW))


def expected(walk):
    """What analyze must find, from the walk: histogram, only-move counts, and per class (its
    representative) the value, remoteness, moves and only-move flag."""
    children, value, _, representative = walk
    histogram = {"win": Counter(), "loss": Counter(), "draw": 0}
    only = {"win": 0, "draw": 0}
    classes = {}
    for position, moves in children.items():
        outcome, remoteness = value(position)
        kept = sum(keeps(outcome, value(child)[0]) for _, child in moves)
        is_only = outcome in (ref.WIN, ref.DRAW) and len(moves) >= 2 and kept == 1
        if outcome == ref.DRAW:
            histogram["draw"] += 1
        else:
            histogram[VALUE[outcome]][str(remoteness)] += 1
        if is_only:
            only[VALUE[outcome]] += 1
        classes[representative(position)] = (outcome, remoteness, len(moves), kept, is_only)
    return histogram, only, classes


def run_json(cli, store, *args):
    code, out, err = cli("analyze", "--store", str(store), "--json", "--quiet", *args)
    assert code in (0, None), err
    return json.loads(out), err


@pytest.mark.parametrize("game", ["nim", "tictactoe"])
def test_every_figure_matches_a_walk_of_every_position(game, solved, cli):
    params, make_walk = WALKS[game]
    walk = make_walk()
    children, value, parse, representative = walk
    histogram, only, classes = expected(walk)
    report, _ = run_json(cli, solved(game, params))
    assert report["positions"] == len(children)
    assert report["histogram"] == {"win": dict(histogram["win"]), "loss": dict(histogram["loss"]),
                                   "draw": histogram["draw"]}
    assert (report["win"], report["loss"], report["draw"]) == (
        sum(histogram["win"].values()), sum(histogram["loss"].values()), histogram["draw"])
    assert report["missing_tiers"] == []
    for kind, code in (("win", ref.WIN), ("loss", ref.LOSS)):
        examples = report["longest"][kind]
        assert [e["remoteness"] for e in examples] == sorted(
            (r for o, r, *_ in classes.values() if o == code), reverse=True)[:5]
        assert all(value(parse(e["position"])) == (code, e["remoteness"]) for e in examples)
        assert len({representative(parse(e["position"])) for e in examples}) == len(examples)
    assert report["only_move"]["count"] == only["win"] + only["draw"]
    assert (report["only_move"]["win"], report["only_move"]["draw"]) == (only["win"], only["draw"])
    examples = report["only_move"]["examples"]
    assert [e["moves"] for e in examples] == sorted((m for _, _, m, _, flag in classes.values() if flag),
                                                    reverse=True)[:5]
    for example in examples:
        position = parse(example["position"])
        assert classes[representative(position)][4]
        outcome, remoteness = value(position)
        assert (example["value"], example["remoteness"]) == (VALUE[outcome], None if outcome == ref.DRAW else remoteness)
        child = dict(children[position])[example["move"]]
        assert keeps(outcome, value(child)[0])
    assert [e["moves"] for e in report["most_moves"]] == sorted((m for _, _, m, _, _ in classes.values()),
                                                                reverse=True)[:5]
    assert all(len(children[parse(e["position"])]) == e["moves"] for e in report["most_moves"])


def test_tictactoe_counts_agree_with_the_published_facts(solved, cli):
    """FACTS.md: 5,478 positions reachable from the empty board, 958 finished: 942 lost by the side
    to move (626 won by x, 316 by o) and 16 full-board draws; perfect play draws."""
    report, _ = run_json(cli, solved("tictactoe"))
    assert report["positions"] == 5478
    assert report["histogram"]["loss"]["0"] == 626 + 316
    assert report["start"] == {"position": ".../.../... x", "value": "draw", "remoteness": None}
    assert report["most_moves"][0] == {"position": ".../.../... x", "moves": 9}


def test_the_terminal_tables_are_aligned(solved, cli):
    code, out, _ = cli("analyze", "--store", str(solved("nim", NIM)), "--quiet")
    assert code in (0, None)
    assert out.startswith("nim --heaps 1,2,3: 24 positions")
    assert "Start 1,2,3: loss in 6 for the first player." in out
    block = out.split("Remoteness histogram:")[1].split("\n\n")[0].splitlines()[1:]
    assert block[0].split() == ["remoteness", "win", "loss"]
    assert len({len(line) for line in block}) == 1, block  # right-aligned numbers: one width
    assert [line.split() for line in block[1:]][-1] == ["6", "0", "1"]
    for title in ("Longest wins:", "Longest losses:", "Only moves:", "Most moves:"):
        assert title in out


def test_out_writes_a_self_contained_page_and_the_json(solved, cli, tmp_path):
    store = solved("tictactoe")
    before = store_bytes(store)
    code, out, _ = cli("analyze", "--store", str(store), "--out", str(tmp_path / "analysis"), "--json", "--quiet")
    assert code in (0, None)
    assert sorted(p.name for p in (tmp_path / "analysis").iterdir()) == ["analysis.html", "analysis.json"]
    assert json.loads((tmp_path / "analysis" / "analysis.json").read_text()) == json.loads(out)
    page = (tmp_path / "analysis" / "analysis.html").read_text()
    assert page.count("data:image/png;base64,") == 1
    assert not re.search(r"(src|href)=\"?(https?:)?//", page)
    assert "Remoteness histogram" in page and ".../.../... x" in page
    assert store_bytes(store) == before and sorted(p.name for p in tmp_path.iterdir()) == ["analysis"]


def test_trickiest_positions_of_random_and_greedy(solved, cli):
    """Tic-tac-toe holds fewer candidate positions than the sample's size: every one is measured.
    The random agent's mean lost rate must match the share of value-losing moves, averaged over
    the candidates (8 choices in each of 431: within 0.04, over 4 standard errors)."""
    store = solved("tictactoe")
    report, _ = run_json(cli, store, "--agents", "random,greedy", "--seed", "3")
    _, _, classes = expected(ttt_walk())
    candidates = [(moves, kept) for outcome, _, moves, kept, _ in classes.values()
                  if outcome in (ref.WIN, ref.DRAW) and moves >= 2 and kept < moves]
    sample = report["trickiest_sample"]
    assert (sample["positions"], sample["candidates"], sample["tries"]) == (len(candidates), len(candidates), 8)
    assert sample["agents"] == ["random", "greedy"]
    random_mean = sum(1 - kept / moves for moves, kept in candidates) / len(candidates)
    assert abs(sample["mean_lost_rate"]["random"] - random_mean) < 0.04
    assert sample["mean_lost_rate"]["greedy"] < random_mean
    trickiest = report["trickiest"]
    assert len(trickiest) == 5 and {e["agent"] for e in trickiest} <= {"random", "greedy"}
    rates = [e["lost_rate"] for e in trickiest]
    assert rates == sorted(rates, reverse=True) and all(0 < r <= 1 and (8 * r).is_integer() for r in rates)
    for entry in trickiest:
        board = entry["position"].split()[0].replace("/", "")
        outcome, _ = ref.ttt_value(board)
        moves = ref.ttt_successors(board)
        kept = sum(keeps(outcome, ref.ttt_value(child)[0]) for child in moves)
        assert (entry["value"].split()[0], entry["moves"], entry["keeping"]) == (VALUE[outcome], len(moves), kept)
        assert kept < len(moves)
    assert "lost_rate" in report["trickiest_method"] and set(report["trickiest_by_agent"]) == {"random", "greedy"}
    again, _ = run_json(cli, store, "--agents", "random,greedy", "--seed", "3")
    assert again == report


def test_an_incomplete_store_names_its_missing_tiers_and_analyses_the_rest(cli, tmp_path):
    store = solve_in_process("quixo", {"size": 3, "down_to": 7}, tmp_path / "q3.zarr")
    report, err = run_json(cli, store)
    status = json.loads(cli("status", "--store", str(store), "--json")[1])
    held = {tier["name"] for tier in status["tiers"]}
    assert "m0o0" in report["missing_tiers"] and not held & set(report["missing_tiers"])
    assert len(report["missing_tiers"]) + len(held) == 55  # every tier of 3x3 Quixo: a + b <= 9
    assert report["positions"] == sum(t["win"] + t["loss"] + t["draw"] for t in status["tiers"])
    assert report["start"] is None
    (line,) = err.strip().splitlines()
    assert line.startswith("analyze: tiers m") and line.endswith("not solved; analysing the rest")


def test_a_stopped_solve_is_analysed_up_to_where_it_stopped(cli, tmp_path, monkeypatch):
    store = tmp_path / "q3.zarr"
    solve_killed_in_propagation(store, monkeypatch)
    status = json.loads(cli("status", "--store", str(store), "--json")[1])
    unsolved = {tier["name"] for tier in status["tiers"] if tier["status"] != "solved"}
    report, err = run_json(cli, store)
    assert unsolved and set(report["missing_tiers"]) == unsolved
    assert report["positions"] == sum(t["win"] + t["loss"] + t["draw"] for t in status["tiers"]
                                      if t["status"] == "solved")
    assert "not solved; analysing the rest" in err


@pytest.mark.parametrize("args, message", [
    ((), "Missing option '--store'"),
    (("--store", "{tmp}/nothing"), "no store at"),
    (("--store", "{tmp}"), "is not a retrograde store"),
    (("--store", "{store}", "--agents", "nosuch"), "unknown agent 'nosuch'"),
    (("--store", "{store}", "--agents", "random:depth=2"), "depth"),
    (("--store", "{store}", "--out", "{store}/zarr.json"), "exists and is not a folder"),
])
def test_bad_input_is_one_line_and_a_nonzero_exit(args, message, solved, cli, tmp_path):
    store = solved("nim", NIM)
    before = store_bytes(store)
    code, out, err = cli("analyze", *(a.format(tmp=tmp_path, store=store) for a in args))
    assert code not in (0, None) and out == "" and len(err.strip().splitlines()) == 1 and message in err, err
    assert store_bytes(store) == before and not (Path(tmp_path) / "nothing").exists()
