"""Deeper solves: `solve quixo --down-to N` on a store solved with a higher N adds the new tiers
to it (no new store, nothing solved again) and ends with the bytes of a store planned with N
from the start."""

from __future__ import annotations

import pytest

from conftest import assert_same_store, solve_in_process, store_bytes
from retrograde.data.store import Store
from retrograde.games import make_game
from retrograde.pipeline.planning import plan_stage


def _solve(cli, store, down_to: int):
    return cli("solve", "quixo", "--size", "3", "--down-to", str(down_to), "--store", str(store),
               "--workers", "0", "--quiet")


def test_a_lower_down_to_deepens_the_store_and_solves_only_the_new_tiers(tmp_path, cli, solved):
    store = tmp_path / "q3.zarr"
    code, _, stderr = _solve(cli, store, 7)
    assert code == 0, stderr
    with Store.open(store) as shallow:
        kept = {tier.name for tier in shallow.plan.tiers}
    files = {path: (path.stat().st_ino, path.stat().st_mtime_ns)
             for name in kept for path in (store / "tiers" / name).rglob("*") if path.is_file()}
    code, stdout, stderr = _solve(cli, store, 4)
    assert code == 0, stderr
    assert "quixo --size 3 --down-to 4:" in stdout
    assert {path: (path.stat().st_ino, path.stat().st_mtime_ns) for path in files} == files, \
        "a tier solved before was written again"
    expected = tmp_path / "direct.zarr"
    solve_in_process("quixo", {"size": 3, "down_to": 4}, expected)
    assert_same_store(store, expected, "deepened from --down-to 7 to 4")
    code, _, stderr = _solve(cli, store, 0)  # down to the empty board: the whole game
    assert code == 0, stderr
    assert_same_store(store, solved("quixo", {"size": 3}), "deepened to the whole game")


def test_an_interrupted_deepening_is_finished_by_the_next(tmp_path, cli, monkeypatch):
    """A kill after the new tiers are written but before the plan names them leaves the old store;
    a deepening to another depth then replaces those folders."""
    from retrograde.data import durable

    store = tmp_path / "q3.zarr"
    assert _solve(cli, store, 7)[0] == 0
    before = store_bytes(store)
    real = durable.write_atomically

    def killed_at_the_plan(target, write, **kw):
        if target.name == "zarr.json" and target.parent == store:
            raise KeyboardInterrupt
        real(target, write, **kw)

    monkeypatch.setattr(durable, "write_atomically", killed_at_the_plan)
    with pytest.raises(KeyboardInterrupt):
        plan_stage(make_game("quixo", {"size": 3, "down_to": 2}), store)
    monkeypatch.setattr(durable, "write_atomically", real)
    assert {name for name in store_bytes(store) if name not in before}, "no new tier was written"
    with Store.open(store) as reopened:
        assert reopened.game.params["down_to"] == 7 and reopened.complete
    assert _solve(cli, store, 5)[0] == 0
    expected = tmp_path / "direct.zarr"
    solve_in_process("quixo", {"size": 3, "down_to": 5}, expected)
    assert_same_store(store, expected, "deepened after an interrupted deepening")


@pytest.mark.parametrize("options, words", [
    (("--size", "3", "--down-to", "8"), "holds quixo --size 3 --down-to 7, not quixo --size 3 --down-to 8"),
    (("--size", "4", "--down-to", "2"), "holds quixo --size 3 --down-to 7, not quixo --size 4"),
])
def test_a_shallower_or_other_game_is_refused_and_changes_nothing(tmp_path, cli, options, words):
    store = tmp_path / "q3.zarr"
    assert _solve(cli, store, 7)[0] == 0
    before = store_bytes(store)
    code, _, stderr = cli("solve", "quixo", *options, "--store", str(store), "--workers", "0", "--quiet")
    assert code != 0 and words in stderr, stderr
    assert store_bytes(store) == before
