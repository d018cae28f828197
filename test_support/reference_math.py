"""Reference arithmetic for the generated test data: the same on every machine.

numpy picks its exp, sqrt and matrix-product kernels by the CPU it runs on (AVX2, AVX-512,
OpenBLAS's core type), and those kernels round differently in the last bit, so a float64 numpy
result written as text differs from machine to machine. The reference scripts therefore compute
on numpy arrays of mpmath numbers (dtype object) at PRECISION bits: their inputs are the float64
values exactly, every operation is carried far beyond double precision, and each result is rounded
once to the nearest double by to_float. numpy only holds the arrays: `@`, slicing, concatenation
and sums run Python's arithmetic on the mpmath numbers, in an order that does not depend on the CPU.

    import reference_math as rm
    x = rm.exact([[1, 2], [3, 4]])              # float64 values, exactly
    w = rm.softmax(x @ x.T / rm.sqrt(2))        # rows; masked entries and fully masked rows below
    rm.to_float(w)                              # float64, each value rounded once

Used by static_tests/reference/*.py and exercises/reference/answers.py (each puts test_support/ on
sys.path). Needs numpy and mpmath (Debian: python3-numpy, python3-mpmath).
"""
import mpmath
import numpy as np

PRECISION = 200  # bits: an error below 2^-190 relative before the one rounding to double
mpmath.mp.prec = PRECISION


def _elementwise(fn):
    ufunc = np.frompyfunc(fn, 1, 1)

    def apply(a):
        out = ufunc(a)
        return out if isinstance(out, np.ndarray) else mpmath.mpf(out)

    return apply


def exact(values):
    """The float64 values of `values` (lists, scalars or arrays) as an object array of mpmath numbers."""
    a = np.asarray(values, dtype=np.float64)
    return np.frompyfunc(mpmath.mpf, 1, 1)(a).astype(object) if a.ndim else mpmath.mpf(float(a))


exp = _elementwise(mpmath.exp)
sqrt = _elementwise(mpmath.sqrt)
log = _elementwise(mpmath.log)
tanh = _elementwise(mpmath.tanh)
erf = _elementwise(mpmath.erf)
sin = _elementwise(mpmath.sin)
cos = _elementwise(mpmath.cos)


def to_float(a):
    """Each element rounded once to the nearest double (mpmath rounds to nearest, ties to even)."""
    return np.vectorize(float, otypes=[np.float64])(np.asarray(a, dtype=object))


def softmax(s, allowed=None):
    """Softmax of each row of s; where `allowed` (bool, s's shape) is false the key is masked
    (weight 0), and a row with no allowed key is all zeros (cxmat's documented rule)."""
    s = np.asarray(s, dtype=object)
    if allowed is None:
        allowed = np.ones(s.shape, dtype=bool)
    out = np.zeros(s.shape, dtype=object)
    for i in range(s.shape[0]):
        keep = np.asarray(allowed[i], dtype=bool)
        if not keep.any():
            out[i] = mpmath.mpf(0)
            continue
        row = s[i][keep]
        e = exp(row - max(row))
        out[i][keep] = e / sum(e)
        out[i][~keep] = mpmath.mpf(0)
    return out
