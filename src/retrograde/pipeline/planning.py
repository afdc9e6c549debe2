"""The plan stage: the store a solve writes to, opened (its own plan, or one that deepens it) or
planned from the game, then created or deepened. What is opened is written only after the solve's
estimate accepts it (`pipeline.solve`). zarr is imported only where a store is there: a new
solve its estimate refuses answers without it."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from retrograde.data.lock import missing_folder
from retrograde.data.plan import DEFAULT_CHUNK_SIZE, Plan, make_plan
from retrograde.errors import StoreError
from retrograde.games import Game
from retrograde.pipeline.sizing import checkpoint_seconds, small_group_chunks

if TYPE_CHECKING:
    from retrograde.data.store import Store


def open_planned(game: Game, store_path: str | Path, *, chunk_size: int | None = None) -> tuple[Store | None, Plan]:
    """The store at `store_path` opened for solving, and the plan to solve it to: its own, or one
    that extends it (a store to deepen); (None, the game's plan) where there is no store yet.
    Writes nothing: `plan_store` does.

    :raises StoreError: the path holds a store of another game, options or chunking.
    :raises RetrogradeError: RETROGRADE_CHECKPOINT_SECONDS is not a number of seconds, or
        RETROGRADE_SMALL_GROUP_CHUNKS not a whole number.
    """
    checkpoint_seconds()
    small_group_chunks()
    path = Path(store_path)
    if not path.exists() or (path.is_dir() and not any(path.iterdir())):
        if why := missing_folder(path, "store"):
            raise StoreError(why)
        return None, make_plan(game, chunk_size=chunk_size or DEFAULT_CHUNK_SIZE)
    from retrograde.data.store import Store  # zarr: only where there is a store to open

    store = Store.open(path, mode="r+")
    try:
        if chunk_size is not None and store.plan.chunk_size != chunk_size:
            raise StoreError(f"store {str(path)!r} was planned with --chunk-size {store.plan.chunk_size}, "
                             f"not {chunk_size}")
        if store.plan.game == game.name and store.plan.params == game.params:
            return store, store.plan
        wanted = make_plan(game, chunk_size=store.plan.chunk_size)
        if not wanted.extends(store.plan):
            raise StoreError(f"store {str(path)!r} holds {store.game.describe()}, not {game.describe()}")
        return store, wanted
    except BaseException:
        store.close()
        raise


def plan_store(game: Game, store: Store | None, plan: Plan, store_path: str | Path) -> Store:
    """The store to solve, what `open_planned` found: `store` itself where it holds `plan`,
    deepened where `plan` adds tiers to its own (Quixo with a lower --down-to), else a new store
    for `plan` (`game`'s) at `store_path`."""
    if store is None:
        from retrograde.data.store import Store  # zarr

        return Store.create(store_path, plan, game)
    return store if store.plan == plan else store.deepen(plan)


def plan_stage(game: Game, store_path: str | Path, *, chunk_size: int | None = None) -> Store:
    """Create the store for `game`, or reopen it (for solving) if it holds the same plan, or
    deepen it if `game` adds tiers to its plan (Quixo with a lower --down-to)."""
    return plan_store(game, *open_planned(game, store_path, chunk_size=chunk_size), store_path)
