"""The project-wide numba wrapper: nopython mode, on-disk caching, GIL released.

Kernel modules import numba only through this module, so that command paths
that need no kernel (probe, status) never pay numba's import and compile time.
"""

import numba


def njit(fn=None, **options):
    """`numba.njit` with caching and nogil on (kernels run inside dask worker threads): as a
    decorator, bare or with options, or given a signature (`@njit(signature)`: compiled at once,
    and a first-class function of that type for other kernels)."""
    options.setdefault("cache", True)
    options.setdefault("nogil", True)
    if fn is None:
        return lambda f: numba.njit(f, **options)
    if not callable(fn):  # a signature
        return lambda f: numba.njit(fn, **options)(f)
    return numba.njit(fn, **options)
