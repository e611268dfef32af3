"""The information matrix's linear algebra, through scipy's LAPACK.

Its upper Cholesky factor, solves with it, its inverse and the inverse of the factor. An empty matrix
(no bots) gives empty results; a matrix that is not positive definite raises ``RatingsError``. A fit
runs them on one BLAS thread (``arena.ratings.threads.one_blas_thread``).
"""

from __future__ import annotations

import numpy as np
import scipy.linalg as sla  # type: ignore[import-untyped]

from arena.ratings.results import FloatArray, RatingsError


def cholesky(information: FloatArray) -> FloatArray:
    """Upper Cholesky factor (LAPACK potrf)."""
    if len(information) == 0:
        return np.zeros((0, 0))
    factor, info = sla.lapack.dpotrf(information, lower=False, clean=True)
    if info != 0:
        raise RatingsError(
            "the information matrix is not positive definite (bots not connected by games, and no prior?)"
        )
    return np.asarray(factor, dtype=np.float64)


def root(factor: FloatArray) -> FloatArray:
    """``inv(U)`` for the upper Cholesky factor U, so that the inverse information is ``R @ R.T``."""
    if len(factor) == 0:
        return np.zeros((0, 0))
    root, info = sla.lapack.dtrtri(factor, lower=False)
    if info != 0:
        raise RatingsError("could not invert the information matrix")
    return np.asarray(root, dtype=np.float64)


def inverse(factor: FloatArray) -> FloatArray:
    """The inverse of the information from its upper Cholesky factor (LAPACK potri), symmetric."""
    if len(factor) == 0:
        return np.zeros((0, 0))
    packed, info = sla.lapack.dpotri(factor, lower=False)
    if info != 0:
        raise RatingsError("could not invert the information matrix")
    upper = np.triu(packed)
    upper += np.triu(upper, 1).T
    return np.asarray(upper, dtype=np.float64)


def solve(factor: FloatArray, rhs: FloatArray) -> FloatArray:
    """``x`` such that ``information @ x = rhs``, from the information's upper Cholesky factor (LAPACK
    potrs)."""
    if len(rhs) == 0:
        return np.zeros(0)
    solution, info = sla.lapack.dpotrs(factor, rhs, lower=False)
    if info != 0:
        raise RatingsError("could not solve with the information matrix")
    return np.asarray(solution, dtype=np.float64)
