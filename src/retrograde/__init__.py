"""retrograde: strongly solve two-player games by retrograde analysis.

Tiers of positions are solved in dependency order by numba kernels running in
chunks (in-process or on a dask cluster); outcomes and remoteness land in a zarr
store that agents, probes and reports read.
"""

__version__ = "0.1.0"
