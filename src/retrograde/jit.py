"""The project-wide numba wrapper: nopython mode, on-disk caching, GIL released.

Kernel modules import numba only through this module, so that command paths
that need no kernel (probe, status) never pay numba's import and compile time.
"""

import numba


def njit(fn=None, **options):
    """`numba.njit` with caching and nogil on (kernels run inside dask worker threads)."""
    options.setdefault("cache", True)
    options.setdefault("nogil", True)
    if fn is None:
        return lambda f: numba.njit(f, **options)
    return numba.njit(fn, **options)
