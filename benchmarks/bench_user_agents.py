"""Users' agents audited exactly (issue 33): each course API's sample player through the real
`retrograde validate`, the harness overhead of a player that answers at once, and the forfeits
of the misbehaving samples.

    python benchmarks/bench_user_agents.py                       # Nim, Quarto, Quixo 4x4 (minutes)
    python benchmarks/bench_user_agents.py --quixo5              # and 5x5 --down-to 23 (+10 min solve, 2.4 GB)
    python benchmarks/bench_user_agents.py --quixo5-store S.zarr # a 5x5 --down-to 23 store solved before

Per API: the sample player of tests/players/ (Quixo: a depth-2 minimax that deep-copies the
course's Game and calls its private move; Quarto: a careful player; Nim: the nim-sum strategy)
measured on --positions positions (move quality only: --games 1 between the player and itself,
no baselines), on --workers workers. Printed: the command, its wall time, the agent's moves per
second (positions over the agent's own seconds choosing, from timings.json: the harness included,
and each worker's start of the agent's process) and, for the instant player (a native callable
answering `position.moves[0]`), its milliseconds a move in that run. The harness overhead a move
is then measured alone (`harness_ms_a_move_warm`): the instant player's `choose` through its warm
host process, 2,000 times at positions of seeded random games, in this process. Then the
misbehaving Quixo samples on 4x4, each forfeit by reason.
"""

from __future__ import annotations

import argparse
import json
import shlex
import tempfile
import time
from pathlib import Path

import numpy as np

from common import given_or_solved, measure, print_options, report

from retrograde.agents.registry import resolve_agent
from retrograde.data.store import Store
from retrograde.games.quarto.game import Quarto, random_position

PLAYERS = Path(__file__).resolve().parent.parent / "tests" / "players"
INSTANT = "def instant(position):\n    return position.moves[0]\n"
#: (API, sample player spec) per store.
SAMPLES = {
    "nim": "python:file={p}/nim/nimsum.py,name=optimal,api=course",
    "quarto": "python:file={p}/quarto/careful.py,name=Careful,api=course",
    "quixo4": "python:file={p}/quixo/minimax.py,name=Minimax,api=course",
    "quixo5": "python:file={p}/quixo/minimax.py,name=Minimax,api=course",
}
#: The misbehaving samples (Quixo 4x4) and the move time they play under.
MISBEHAVING = ["python:file={p}/quixo/raises_third.py,name=RaisesOnThird,api=course",
               "python:file={p}/quixo/illegal.py,name=Inner,api=course",
               "python:file={p}/quixo/sleeper.py,name=Sleeper,api=course,move_time=0.5",
               "python:file={p}/quixo/chatty.py,name=Chatty,api=course"]


def validate(store: Path, out: Path, agents: str, positions: int, workers: int) -> tuple[dict, dict, dict, list]:
    """Run the real validate; (its measure, report.json, timings.json, the command)."""
    args = ["validate", "--store", str(store), "--out", str(out), "--agents", agents, "--positions", str(positions),
            "--games", "1", "--no-baselines", "--workers", str(workers), "--quiet"]
    measured = measure(args)
    return (measured, json.loads((out / "report.json").read_text()), json.loads((out / "timings.json").read_text()),
            args)


def audit(name: str, store: Path, spec: str, instant: str, folder: Path, options) -> None:
    """One API's figures: the sample player and the instant player, in one validate run."""
    measured, report_json, timings, args = validate(store, folder / f"report-{name}", f"{spec},{instant}",
                                                    options.positions, options.workers)
    figures = {"command": "python -m retrograde " + shlex.join(args), "wall_s": measured["wall"]}
    for spec_name, entry in report_json["agents"].items():
        seconds = timings["move_quality_s"][spec_name]
        moves = entry["move_quality"]["positions"]
        kind = "instant" if spec_name.startswith("instant") else "sample"
        figures[f"{kind}_agent"] = spec_name
        figures[f"{kind}_moves"] = moves
        figures[f"{kind}_moves_per_s"] = moves / seconds if seconds else float("nan")
        if kind == "instant":
            figures["instant_ms_a_move"] = 1000 * seconds / moves
        figures[f"{kind}_forfeits"] = json.dumps(entry["move_quality"].get("forfeits", {}))
    figures["harness_ms_a_move_warm"] = warm_overhead(store, instant)
    report(f"user agent, {name}", figures)


def warm_overhead(store: Path, instant: str, moves: int = 2000, seed: int = 0) -> float:
    """Milliseconds a move of the instant player through its warm host process: positions of
    seeded random games of the store's game (not over), each asked once after one warm-up move."""
    with Store.open(store) as opened:
        game = opened.game
    rng = np.random.default_rng(seed)
    positions, position = [], game.initial_position
    while len(positions) < moves:
        children = game.moves(position)
        position = children[int(rng.integers(len(children)))][1]
        if game.primitive(position):
            position = game.initial_position
        else:
            positions.append(position)
    player = resolve_agent(instant, game).build(game, seed=seed)
    player.choose(positions[0])
    started = time.perf_counter()
    for position in positions:
        player.choose(position)
    return 1000 * (time.perf_counter() - started) / len(positions)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--positions", type=int, default=2000, help="positions measured per store")
    parser.add_argument("--workers", type=int, default=2, help="validate --workers")
    parser.add_argument("--quixo5", action="store_true", help="also solve 5x5 --down-to 23 and audit it")
    parser.add_argument("--quixo5-store", type=Path, default=None, help="a 5x5 --down-to 23 store solved before")
    parser.add_argument("--quarto-seed", type=int, default=1, help="seed of the Quarto root (9 empty cells)")
    options = parser.parse_args()
    print_options(options)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        (folder / "instant.py").write_text(INSTANT)
        instant = f"python:file={folder / 'instant.py'},name=instant"
        root = Quarto().format(random_position(9, seed=options.quarto_seed))
        stores = {"nim": given_or_solved(None, folder, "nim.zarr", ["nim", "--heaps", "1,3,5,7"]),
                  "quarto": given_or_solved(None, folder, "quarto.zarr", ["quarto", "--from", root]),
                  "quixo4": given_or_solved(None, folder, "quixo4.zarr", ["quixo", "--size", "4"])}
        if options.quixo5 or options.quixo5_store:
            stores["quixo5"] = given_or_solved(options.quixo5_store, folder, "quixo5.zarr",
                                               ["quixo", "--size", "5", "--down-to", "23"])
        for name, store in stores.items():
            audit(name, store, SAMPLES[name].format(p=PLAYERS), instant, folder, options)
        misbehaving = ",".join(spec.format(p=PLAYERS) for spec in MISBEHAVING)
        measured, report_json, _, args = validate(stores["quixo4"], folder / "report-misbehaving", misbehaving,
                                                  200, options.workers)
        figures = {"command": "python -m retrograde " + shlex.join(args), "wall_s": measured["wall"]}
        for spec_name, entry in report_json["agents"].items():
            figures[spec_name] = json.dumps(entry["move_quality"].get("forfeits", {}))
        report("misbehaving samples, quixo 4x4, forfeits by reason in move quality", figures)


if __name__ == "__main__":
    main()
