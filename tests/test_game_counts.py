"""Game counts (`--games`): every command that takes one accepts up to 10^7 games a pairing
(pairs with --sprt), refuses more in one line before anything runs, and plays any accepted
count in flat memory: batches are made as they are run and counted as they finish."""

import json
import time
from collections.abc import Sequence

import psutil

from conftest import run_cli
from processes import assert_one_error_line, kill_group, start
from retrograde.pipeline.executors import InProcessExecutor

#: The bound docs/match.md documents, written out (not imported from the code under test).
BOUND = 10_000_000
MB = 1 << 20


def _over_the_bound(solved, tmp_path) -> list[list[str]]:
    store = str(solved("tictactoe"))
    out = str(tmp_path / "report")
    return [["match", "random", "random", "--game", "tictactoe", "--games", str(BOUND + 1)],
            ["match", "random", "random", "--game", "tictactoe", "--games", str(10 ** 12)],
            ["match", "lookup", "random", "--store", store, "--games", str(BOUND + 1), "--sprt", "0,50"],
            ["validate", "--store", store, "--out", out, "--games", str(BOUND + 1)],
            ["validate", "--game", "quarto", "--out", out, "--games", str(BOUND + 1)]]


def test_a_count_over_the_bound_is_refused_in_one_line_and_nothing_runs(cli, solved, tmp_path, monkeypatch):
    def played(*args, **kwargs):
        raise AssertionError("a game was played")

    monkeypatch.setattr("retrograde.validation.tournament.play_game", played)
    for args in _over_the_bound(solved, tmp_path):
        code, out, err = cli(*args, "--workers", "0")
        assert code == 2, (args, err)
        assert out == ""
        assert_one_error_line(err, f"--games {args[args.index('--games') + 1]}", "10,000,000")
        assert not (tmp_path / "report").exists()  # validate made no report folder


def test_a_sequential_match_capped_at_the_bound_draws_only_the_openings_it_plays(cli, solved):
    """An SPRT that decides in its first pairs gives the same result capped at 100 pairs or at
    the bound: the 10^7 openings are never drawn (that alone took minutes)."""
    store = str(solved("tictactoe"))
    args = ["match", "lookup", "random", "--store", store, "--sprt", "0,50", "--json", "--quiet", "--workers", "0"]
    capped = run_cli(*args, "--games", str(BOUND), timeout=60)
    assert capped.returncode == 0, capped.stderr
    assert (0, capped.stdout, "") == cli(*args, "--games", "100")
    assert json.loads(capped.stdout)["sprt"]["pairs"] < 100


def _rss_after_cpu(process: psutil.Process, seconds: float, deadline: float) -> int:
    """The process's resident bytes once it has used `seconds` of CPU time (a loaded machine
    gives it less than the wall clock)."""
    while sum(process.cpu_times()[:2]) < seconds:
        assert time.monotonic() < deadline, "the match got too little CPU time"
        assert process.status() != psutil.STATUS_ZOMBIE, "the match ended"
        time.sleep(0.05)
    return process.memory_info().rss


def test_a_match_at_the_bound_plays_in_flat_memory(tmp_path):
    """10^7 games a seat of random players: once playing (its memory is flat from about 1 s of
    CPU time on), 1.5 s more of play add no memory. (Before, every batch task was made up front
    and every game kept: about 30 MB a CPU second.) The match is killed, never waited for."""
    with open(tmp_path / "out", "w") as out, open(tmp_path / "err", "w") as err:
        proc = start(["match", "random", "random", "--game", "tictactoe", "--games", str(BOUND), "--quiet",
                      "--workers", "0"], stdout=out, stderr=err)
    try:
        process, deadline = psutil.Process(proc.pid), time.monotonic() + 60
        playing = _rss_after_cpu(process, 2.0, deadline)
        later = _rss_after_cpu(process, 3.5, deadline)
    finally:
        kill_group(proc)
    assert later - playing < 4 * MB, f"grew {(later - playing) / MB:.1f} MB in 1.5 s of play"


class OutOfOrder(InProcessExecutor):
    """Draws tasks `window` at a time from the iterator it is given and hands their results back
    last first, as a cluster finishing them out of order would."""

    def __init__(self, window: int):
        super().__init__()
        self.window = window
        self.given: list[type] = []

    def run(self, tasks):
        self.given.append(type(tasks))
        tasks = iter(tasks)
        while window := [task for _, task in zip(range(self.window), tasks)]:
            yield from reversed(list(super().run(window)))


def test_pairs_are_counted_whatever_order_batches_finish_in(open_solved):
    """Pairings of 23 and 17 games from the openings (3 batches against 2, the last ones short):
    the entries do not depend on the order batches finish in, and pair i is game i of each seat,
    17 pairs in all."""
    from retrograde.agents import resolve_agent
    from retrograde.validation.tournament import OPENINGS, Pairing, random_openings, run_tournament

    store = open_solved("tictactoe")
    random, greedy = (resolve_agent(spec, store.game) for spec in ("random", "greedy"))
    pairings = [Pairing(random, greedy, OPENINGS, 23, "A first"), Pairing(greedy, random, OPENINGS, 17, "B first")]

    def entries(executor) -> Sequence[dict]:
        return run_tournament(store.game, store, pairings, seed=6, executor=executor, max_plies=10,
                              openings=random_openings(store.game, 23, 6), quiet=True)

    shuffled = OutOfOrder(3)
    in_order, out_of_order = entries(InProcessExecutor()), entries(shuffled)
    assert in_order == out_of_order
    assert not issubclass(shuffled.given[0], Sequence)  # the tasks came one by one, not as a list
    assert [entry["games"] for entry in in_order] == [23, 17]
    assert [sum(entry["pairs"].values()) for entry in in_order] == [17, 17]
    assert in_order[0]["pairs"] == dict(zip(("LL", "LD", "DD_WL", "WD", "WW"),
                                            reversed(in_order[1]["pairs"].values())))
