"""retrograde: strongly solve two-player games by retrograde analysis.

Tiers of positions are solved in dependency order by numba kernels running in
chunks (in-process or on a dask cluster); outcomes and remoteness land in a zarr
store that agents, probes and reports read. `retrograde.open_store(path)` reads a
solved store from Python (see `retrograde.api`).
"""

__version__ = "0.1.0"

__all__ = ["Agent", "MissingTierError", "Position", "SolvedStore", "__version__", "agent", "explore", "match",
           "open_store", "solve", "train", "validate"]

#: Names served by `retrograde.api`, imported on first use: every CLI call imports this
#: package, and must not pay for zarr and numpy before it needs them.
_API = frozenset(__all__) - {"__version__"}


def __getattr__(name: str):
    if name in _API:
        from retrograde import api

        return getattr(api, name)
    raise AttributeError(f"module 'retrograde' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | _API)
