"""Solving algorithms: numba kernels that turn child values into a tier's values."""
