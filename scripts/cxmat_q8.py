# Copyright the cxmat authors.
# SPDX-License-Identifier: BSL-1.0
"""Offline int8 calibration for scripts/cxmat_import.py (--type q8 --calibrate offline).

The arithmetic of cxmat::q8::calibrate (include/cxmat/quantized/calibrate.hpp, quantize.hpp,
requantize.hpp, linear.hpp, layer_norm.hpp, softmax.hpp, add.hpp, encoder_layer.hpp,
decoder_layer.hpp), in numpy float64: the float layer runs on the representative inputs, every
tensor's min/max is observed, and every parameter is derived from those ranges by the library's
rules (round half away from zero, the range widened to contain 0, TFLite's QuantizeMultiplier,
symmetric per-channel weights, the refusals of zero-width, dominated and non-finite ranges). The
results are plain Python values (ints, floats, lists) that cxmat_import.py writes as the int8
module's aggregate initializer, so the compiler only reads constants.

Given the same observed ranges the derived parameters are the library's, bit for bit. The float
pass sums in the library's order, but exp, erf and the float attention's own order can differ
from the library's in the last bits, so an observed range can differ by about 1e-16 relative;
a parameter then changes only where it lies exactly on a rounding boundary.
"""
import fractions
import math

import numpy as np

DOMINANCE = 64.0  # CXMAT_Q8_CALIBRATION_DOMINANCE
DBL_MAX = float(np.finfo(np.float64).max)
SOFTMAX_OUTPUT = (1.0 / 256.0, -128)  # softmax_output_quantization


class Refused(Exception):
    """A tensor calibration refuses: status (calibration_status's name) and tensor
    (calibration_tensor's name)."""

    def __init__(self, status, tensor, detail):
        super().__init__(f"{tensor}: {detail}")
        self.status, self.tensor, self.detail = status, tensor, detail


# ------------------------------------------------------------------------------------------------
# quantize.hpp, requantize.hpp, softmax.hpp, add.hpp: scalars and arrays
# ------------------------------------------------------------------------------------------------


def round_half_away(v):
    """detail::round_half_away on an array (or a float): halves away from zero, saturated to 2^62."""
    v = np.asarray(v, dtype=np.float64)
    a = np.minimum(np.abs(v), 2.0 ** 62)
    r = np.trunc(a)
    r = r + (a - r >= 0.5)
    return np.where(v < 0, -r, r).astype(np.int64)


def choose_quantization(rmin, rmax):
    """choose_quantization: asymmetric int8 of [rmin, rmax] widened to contain 0."""
    rmin, rmax = float(rmin), float(rmax)
    if rmin > 0:
        rmin = 0.0
    if rmax < 0:
        rmax = 0.0
    if rmax == rmin:
        return (1.0, 0)
    scale = (rmax - rmin) / 255.0
    zp_from_min = -128.0 - rmin / scale
    zp_from_max = 127.0 - rmax / scale
    err_min = 128.0 + abs(rmin) / scale
    err_max = 127.0 + abs(rmax) / scale
    zp = zp_from_min if err_min < err_max else zp_from_max
    if zp < -128.0:
        return (scale, -128)
    if zp > 127.0:
        return (scale, 127)
    return (scale, int(round_half_away(zp)))


def choose_symmetric(max_abs):
    """choose_symmetric_quantization's scale: max|w| / 127, 1 for all-zero weights."""
    max_abs = abs(float(max_abs))
    return 1.0 if max_abs == 0 else max_abs / 127.0


def quantize(m, q):
    """quantize(m, q): int8 values, round(m / scale) + zero point, clamped."""
    v = np.asarray(m, dtype=np.float64) / q[0]
    v = np.clip(v, -1e9, 1e9)
    return np.clip(round_half_away(v) + q[1], -128, 127).astype(np.int64)


def quantize_bias_1(m):
    """quantize_bias(m, 1.0): int32 values."""
    v = np.clip(np.asarray(m, dtype=np.float64) / 1.0, -4e18, 4e18)
    return np.clip(round_half_away(v), -2 ** 31, 2 ** 31 - 1).astype(np.int64)


def frexp_multiplier(real):
    """detail::frexp_multiplier: (multiplier, shift) with real = multiplier · 2^(shift - 31)."""
    real = float(real)
    if real == 0.0:
        return (0, 0)
    q, shift = math.frexp(abs(real))  # q in [0.5, 1), as the library's scaling by powers of two
    scaled = q * 2.0 ** 31
    fixed = int(scaled)
    if scaled - float(fixed) >= 0.5:
        fixed += 1
    if fixed == 2 ** 31:
        fixed //= 2
        shift += 1
    if shift < -31:
        return (0, 0)
    return (-fixed if real < 0 else fixed, shift)


def quantize_multiplier(real):
    """quantize_multiplier: TFLite's QuantizeMultiplier, shifts above 30 saturated."""
    m, shift = frexp_multiplier(real)
    if shift <= 30:
        return (m, shift)
    return (-(2 ** 31 - 1) if m < 0 else 2 ** 31 - 1, 30)


def product_params(lhs, rhs, out, extra=1.0):
    """detail::product_params: matmul_params (lhs_offset, rhs_offset, output_offset, requantizer,
    activation_min, activation_max)."""
    return [-lhs[1], -rhs[1], out[1], quantize_multiplier(lhs[0] * rhs[0] * extra / out[0]), -128, 127]


def make_softmax_params(input_scale, beta=1.0):
    real = beta * input_scale * 2.0 ** 26
    if real > 2.0 ** 31 - 1.0:
        real = 2.0 ** 31 - 1.0
    m, shift = frexp_multiplier(real)
    radius = ((31 << 26) >> min(shift, 62)) if shift >= 0 else 0
    return (m, shift, -radius)


def make_add_params(in1, in2, out):
    twice_max = 2.0 * (in1[0] if in1[0] > in2[0] else in2[0])
    return [-in1[1], -in2[1], out[1], 20, quantize_multiplier(in1[0] / twice_max),
            quantize_multiplier(in2[0] / twice_max), quantize_multiplier(twice_max / (float(1 << 20) * out[0])),
            -128, 127]


# ------------------------------------------------------------------------------------------------
# calibrate.hpp: ranges, refusals, weights
# ------------------------------------------------------------------------------------------------


# ------------------------------------------------------------------------------------------------
# Clipping of the activations' ranges (the importer's --clip; the library calibrates min/max only)
# ------------------------------------------------------------------------------------------------

# None: min/max (q8::calibrate's rule). ("percentile", p): each activation tensor's range is
# [P_(100-p), P_p], order statistics of its calibration values. ("mse",): the range [a·min, a·max]
# whose int8 quantization of the calibration values has the least mean squared error, a among
# MSE_FACTORS. Weights are never clipped.
CLIPPING = None
MSE_FACTORS = [1.0 - k / 128.0 for k in range(0, 127)]  # 1, 127/128, ..., 2/128


def parse_clipping(text):
    """--clip's value: 'minmax', 'percentile:P' (50 < P < 100) or 'mse'."""
    if text in (None, "minmax"):
        return None
    if text == "mse":
        return ("mse",)
    if text.startswith("percentile:"):
        try:
            p = fractions.Fraction(text.split(":", 1)[1])  # exact: 99.9 is 999/10, not a binary fraction
        except (ValueError, ZeroDivisionError):
            p = None
        if p is not None and 50 < p < 100:
            return ("percentile", p)
    raise ValueError(f"--clip {text!r}: expected minmax, percentile:P with 50 < P < 100 (e.g. percentile:99.99) "
                     "or mse")


def percentile_range(v, p):
    """The (100 - p)-th and p-th percentiles of the values v as order statistics (no interpolation):
    sorted[floor(q·(n - 1))] for the low end, q = (100 - p) / 100, and sorted[ceil(q·(n - 1))] for the
    high end, q = p / 100, so that each end is a calibration value and at most about (100 - p) %
    of the values lie beyond it."""
    p = fractions.Fraction(p)  # exact ranks (a float 99.9 would round 0.1 % of 1000 down to 0)
    s = np.sort(np.asarray(v, dtype=np.float64).ravel())
    n = s.size
    lo = s[math.floor((100 - p) / 100 * (n - 1))]
    hi = s[math.ceil(p / 100 * (n - 1))]
    return float(lo), float(hi)


def quantization_mse(v, q):
    """The mean squared error of the values v quantized with q and read back (quantize, then
    scale·(x - zero point))."""
    back = q[0] * (quantize(v, q) - q[1]).astype(np.float64)
    errors = (np.asarray(v, dtype=np.float64) - back) ** 2
    # math.fsum: the sum correctly rounded, so the comparison of candidates does not depend on the
    # order numpy's CPU-dispatched kernels add in.
    return math.fsum(errors.tolist()) / errors.size


def mse_range(v, lo, hi):
    """[a·lo, a·hi] for the factor a of MSE_FACTORS whose quantization of v has the least mean
    squared error (the first, i.e. the widest, of equal ones)."""
    best, best_error = (lo, hi), None
    for a in MSE_FACTORS:
        q = choose_quantization(a * lo, a * hi)
        e = quantization_mse(v, q)
        if best_error is None or e < best_error:
            best, best_error = (a * lo, a * hi), e
    return best


class Range:
    """detail::range: min, max and the two largest magnitudes (a repeated value fills both) of every
    value observed; with CLIPPING, also the values themselves, for the clipped range."""

    def __init__(self):
        self.lo, self.hi, self.first, self.second, self.count = DBL_MAX, -DBL_MAX, 0.0, 0.0, 0
        self.nan = False
        self.values = [] if CLIPPING else None
        self.clip = None  # clipped()'s range, once computed

    def add(self, values):
        v = np.asarray(values, dtype=np.float64).ravel()
        if v.size == 0:
            return self
        self.count += v.size
        if np.isnan(v).any():
            self.nan = True
            v = v[~np.isnan(v)]
            if v.size == 0:
                return self
        self.lo, self.hi = min(self.lo, float(v.min())), max(self.hi, float(v.max()))
        if self.values is not None:
            self.values.append(v)
            self.clip = None
        a = np.abs(v)
        top = np.sort(np.concatenate([a if a.size <= 2 else np.partition(a, a.size - 2)[-2:],
                                      [self.first, self.second]]))
        self.first, self.second = float(top[-1]), float(top[-2])
        return self

    def finite(self):
        if self.count == 0:
            return True
        return not self.nan and -DBL_MAX <= self.lo and self.hi <= DBL_MAX

    def check(self, tensor):
        """check_range: non-finite, zero-width and dominated ranges refused, naming the tensor."""
        if not self.finite():
            raise Refused("non_finite_range", tensor, "a computed value leaves double's range (NaN or infinite)")
        if self.count == 0:
            return
        if self.lo == self.hi:
            raise Refused("zero_width_range", tensor, f"every calibration value is {self.lo!r} (a range of zero "
                          "width)")
        if self.values is not None:
            # Clipped: one outlier no longer sets the range, so the dominance rule does not apply; a
            # clipped range of zero width (most values equal) is refused as one.
            lo, hi = self.clipped()
            if lo == hi:
                raise Refused("zero_width_range", tensor, f"the clipped range is [{lo!r}, {hi!r}] (--clip "
                              f"{clipping_text()}: most calibration values are equal)")
            return
        if dominates(self.first, self.second):
            raise Refused("dominated_range", tensor, dominated_text(self.first, self.second))

    def clipped(self):
        """The range the quantization covers: [lo, hi], or CLIPPING's (computed once, after the last add)."""
        if self.values is None or self.count == 0:
            return self.lo, self.hi
        if self.clip is None:
            v = np.concatenate(self.values)
            self.clip = percentile_range(v, CLIPPING[1]) if CLIPPING[0] == "percentile" else mse_range(v, self.lo,
                                                                                                        self.hi)
        return self.clip

    def asymmetric(self):
        return (1.0, 0) if self.count == 0 else choose_quantization(*self.clipped())


def clipping_text():
    return "minmax" if CLIPPING is None else ("mse" if CLIPPING[0] == "mse" else f"percentile:{float(CLIPPING[1]):g}")


def dominates(first, second):
    return second > 0 and first > DOMINANCE * second


def dominated_text(first, second):
    return (f"its largest magnitude {first!r} is more than {DOMINANCE:g} times the next largest, {second!r} "
            "(CXMAT_Q8_CALIBRATION_DOMINANCE): one value would set the range")


def check_weight(w, tensor):
    """check_weight: a weight tensor dominated by one value is refused."""
    a = np.sort(np.abs(np.asarray(w, dtype=np.float64)).ravel())
    first, second = float(a[-1]), float(a[-2]) if a.size > 1 else 0.0
    if dominates(first, second):
        raise Refused("dominated_range", tensor, dominated_text(first, second))


def weight_range(w):
    w = np.asarray(w, dtype=np.float64)
    return (min(DBL_MAX, float(w.min())), max(-DBL_MAX, float(w.max())))


def symmetric_of(w):
    return (choose_symmetric(np.abs(np.asarray(w, dtype=np.float64)).max()), 0)


def channel_scales(w, per_channel):
    """Each output channel's scale of W (in x out): column j's max|w| / 127, or the tensor's."""
    if per_channel:
        return [choose_symmetric(m) for m in np.abs(w).max(axis=0)]
    return [symmetric_of(w)[0]] * w.shape[1]


def quantize_channels(w, scales):
    """W (in x out) into [out, in] int8, channel j with scales[j] (the same arithmetic per tensor)."""
    return np.stack([quantize(w[:, j], (scales[j], 0)) for j in range(w.shape[1])])


def quantized_bias(b, input_scale, scales):
    return quantize_bias_1([b[j] / (input_scale * scales[j]) for j in range(len(scales))])


def use_of(q, w):
    """weight_use of quantized weights q (out x in) of W (in x out)."""
    elements = q.size
    return [elements, int(((q == 0) & (w.T != 0)).sum()), float(int(np.abs(q).sum())) / float(elements)]


def report_entry(tensor, lo, hi, q):
    """calibration_report::add: (tensor, min, max, scale, zero point, range_used, clipped)."""
    def steps(v):
        r = v / q[0]
        return int(round_half_away(-1e9 if r < -1e9 else (1e9 if r > 1e9 else r))) + q[1]
    qlo, qhi = steps(lo), steps(hi)
    clo, chi = max(qlo, -128), min(qhi, 127)
    return [tensor, lo, hi, q[0], q[1], float(chi - clo) / 255.0, int(qlo < -128) + int(qhi > 127)]


# ------------------------------------------------------------------------------------------------
# The float layers (cxmat's float API, in the library's summation order)
# ------------------------------------------------------------------------------------------------


def matmul(x, w):
    """x (..., k) · w (k, m), each element summed over k in increasing order from 0."""
    out = np.zeros(x.shape[:-1] + (w.shape[1],))
    for t in range(w.shape[0]):
        out += x[..., t, None] * w[t]
    return out


def layer_norm(x, gamma, beta, eps):
    d = x.shape[-1]
    s = np.zeros(x.shape[:-1])
    for j in range(d):
        s += x[..., j]
    mean = s / float(d)
    dev = x - mean[..., None]
    sq = np.zeros(x.shape[:-1])
    for j in range(d):
        sq += dev[..., j] * dev[..., j]
    rstd = 1.0 / np.sqrt(sq / float(d) + eps)
    return dev * rstd[..., None] * gamma + beta


_erf = np.frompyfunc(math.erf, 1, 1)


def activate(act, x):
    if act == "relu":
        return np.where(x > 0, x, np.where(np.isnan(x), x, x * 0.0))
    if act == "gelu":
        return x * 0.5 * (1.0 + _erf(x * 0.7071067811865476).astype(np.float64))
    if act == "gelu_tanh":
        u = 0.7978845608028654 * (x + 0.044715 * x * x * x)
        return x / (1.0 + np.exp(-2.0 * u))
    if act == "silu":
        return x / (1.0 + np.exp(-x))
    raise ValueError(act)


def attention(att, xq, xkv, heads, ranges=None):
    """Multi-head attention with output projection (att: dict w_q, w_k, w_v (in x out), w_o, b_q,
    b_k, b_v, b_o; biases may be None) of queries xq (B x n x d) on xkv (B x s x d); with ranges,
    observe's tensors (query, key, value, scores, context, output) are added to them."""
    def biased(m, b):
        return m if b is None else m + b
    q, k, v = biased(matmul(xq, att["w_q"]), att["b_q"]), biased(matmul(xkv, att["w_k"]), att["b_k"]), \
        biased(matmul(xkv, att["w_v"]), att["b_v"])
    qw, vw = q.shape[-1], v.shape[-1]
    dk, dv = qw // heads, vw // heads
    root = math.sqrt(float(dk))
    ctx = np.zeros(q.shape[:-1] + (vw,))
    scores_all = []
    for h in range(heads):
        qh, kh, vh = q[..., h * dk:(h + 1) * dk], k[..., h * dk:(h + 1) * dk], v[..., h * dv:(h + 1) * dv]
        s = np.zeros(q.shape[:-1] + (k.shape[-2],))
        for t in range(dk):
            s += qh[..., :, t, None] * kh[..., None, :, t]
        s = s / root
        scores_all.append(s)
        e = np.exp(s - s.max(axis=-1, keepdims=True))
        total = np.zeros(s.shape[:-1])
        for j in range(s.shape[-1]):
            total += e[..., j]
        acc = np.zeros(q.shape[:-1] + (dv,))
        for j in range(s.shape[-1]):
            acc += e[..., j, None] * vh[..., j, None, :]
        ctx[..., h * dv:(h + 1) * dv] = np.where(total[..., None] > 0, acc / total[..., None], 0.0)
    y = matmul(ctx, att["w_o"]) + (att["b_o"] if att["b_o"] is not None else 0.0)
    if ranges is not None:
        for r, t in zip(ranges, (q, k, v, np.stack(scores_all), ctx, y)):
            r.add(t)
    return y


def linear(lin, x):
    return matmul(x, lin["weight"]) + lin["bias"]


# ------------------------------------------------------------------------------------------------
# The module calibrations (the library's calibrate_layer, calibrate_linear, calibrate_encoder,
# calibrate_decoder). Modules are dicts of their members, named as the C++ structs name them.
# ------------------------------------------------------------------------------------------------


def quantize_linear(lin, qin, qout, per_channel, relu=False):
    w, b = lin["weight"], lin["bias"]
    tensor = symmetric_of(w)
    scales = channel_scales(w, per_channel)
    params = product_params(qin, tensor, qout)
    if relu:
        params[4] = max(qout[1], -128)
    return {"weight": quantize_channels(w, scales), "bias": quantized_bias(b, qin[0], scales), "params": params,
            "channels": [product_params(qin, (s, 0), qout)[3] for s in scales] if per_channel else None}


def quantize_layer_norm(norm, qin, qout):
    gamma, beta, eps = norm["weight"], norm["bias"], norm["eps"]
    n = gamma.shape[0]
    width = float(n)
    e = float(eps) * 256.0 * width * width * width / (qin[0] * qin[0])
    e = (2.0 ** 61 if e > 2.0 ** 61 else e) if e >= 1.0 else 1.0
    root = math.sqrt(width) * 2.0 ** -22 / qout[0]
    return {"input_offset": -qin[1], "output_offset": qout[1], "eps": int(round_half_away(e)),
            "scale": [quantize_multiplier(float(g) * root) for g in gamma],
            "bias": quantize_bias_1([float(b) * 256.0 / qout[0] for b in beta])}


def activation_table(act, qin, qout):
    real = np.array([qin[0] * (float(i - 128) - qin[1]) for i in range(256)])
    return quantize(activate(act, real), qout)


def calibrate_attention(xs, ms, att, heads, per_channel):
    """calibrate_layer with the output projection: self-attention (ms None) or cross-attention."""
    names = ("wq", "wk", "wv", "wo")
    for key, name in zip(("w_q", "w_k", "w_v", "w_o"), names):
        check_weight(att[key], name)
    rx, rm = Range().add(xs), Range()
    if ms is not None:
        rm.add(ms)
    r = [Range() for _ in range(6)]
    attention(att, xs, xs if ms is None else ms, heads, r)
    rx.check("input")
    if ms is not None:
        rm.check("memory")
    for rr, name in zip(r, ("query", "key", "value", "scores", "context", "output")):
        rr.check(name)
    qx = rx.asymmetric()
    qm = rm.asymmetric() if ms is not None else qx
    qq, qk, qv, qs, qc, qy = (rr.asymmetric() for rr in r)
    wq, wk, wv, wo = (att[k] for k in ("w_q", "w_k", "w_v", "w_o"))
    tq, tk, tv, to = (symmetric_of(w) for w in (wq, wk, wv, wo))
    sq, sk, sv, so = (channel_scales(w, per_channel) for w in (wq, wk, wv, wo))
    zero = {k: np.zeros(att[w].shape[1]) if att[k] is None else att[k]
            for k, w in (("b_q", "w_q"), ("b_k", "w_k"), ("b_v", "w_v"), ("b_o", "w_o"))}
    dk = wq.shape[1] // heads
    layer = {
        "wq": quantize_channels(wq, sq), "wk": quantize_channels(wk, sk), "wv": quantize_channels(wv, sv),
        "bq": quantized_bias(zero["b_q"], qx[0], sq), "bk": quantized_bias(zero["b_k"], qm[0], sk),
        "bv": quantized_bias(zero["b_v"], qm[0], sv),
        "query": product_params(qx, tq, qq), "key": product_params(qm, tk, qk), "value": product_params(qm, tv, qv),
        "scores": product_params(qq, qk, qs, 1.0 / math.sqrt(float(dk))),
        "softmax": make_softmax_params(qs[0]),
        "context": product_params(SOFTMAX_OUTPUT, qv, qc),
        "channels": {"query": [product_params(qx, (s, 0), qq)[3] for s in sq],
                     "key": [product_params(qm, (s, 0), qk)[3] for s in sk],
                     "value": [product_params(qm, (s, 0), qv)[3] for s in sv]} if per_channel else None,
        "wo": quantize_channels(wo, so), "bo": quantized_bias(zero["b_o"], qc[0], so),
        "output": product_params(qc, to, qy),
        "output_channels": [product_params(qc, (s, 0), qy)[3] for s in so] if per_channel else None,
    }
    report = [report_entry("input", rx.lo, rx.hi, qx)]
    if ms is not None:
        report.append(report_entry("memory", rm.lo, rm.hi, qm))
    for name, w, t in (("wq", wq, tq), ("wk", wk, tk), ("wv", wv, tv)):
        report.append(report_entry(name, *weight_range(w), t))
    for name, rr, q in zip(("query", "key", "value", "scores", "context"), r, (qq, qk, qv, qs, qc)):
        report.append(report_entry(name, rr.lo, rr.hi, q))
    report.append(report_entry("wo", *weight_range(wo), to))
    report.append(report_entry("output", r[5].lo, r[5].hi, qy))
    quant = {"input": qx, "query": qq, "key": qk, "value": qv, "scores": qs, "context": qc, "output": qy,
             "memory": qm, "wq": tq, "wk": tk, "wv": tv, "wo": to}
    uses = [use_of(layer[k], w) for k, w in (("wq", wq), ("wk", wk), ("wv", wv), ("wo", wo))]
    return {"layer": layer, "quant": quant, "report": report, "uses": uses, "scales": (sq, sk, sv, so)}


def calibrate_linear(xs, lin, per_channel=True):
    check_weight(lin["weight"], "linear_weight")
    rx, ry = Range().add(xs), Range().add(linear(lin, xs))
    rx.check("input")
    ry.check("output")
    qx, qy = rx.asymmetric(), ry.asymmetric()
    return {"module": quantize_linear(lin, qx, qy, per_channel), "input": qx, "output": qy,
            "report": [report_entry("input", rx.lo, rx.hi, qx),
                       report_entry("linear_weight", *weight_range(lin["weight"]), symmetric_of(lin["weight"])),
                       report_entry("output", ry.lo, ry.hi, qy)]}


ATTENTION_NAMES = {"input": "attention_input", "output": "attention_output"}
CROSS_NAMES = {"input": "cross_attention_input", "output": "cross_attention_output", "wq": "cross_wq",
               "wk": "cross_wk", "wv": "cross_wv", "wo": "cross_wo", "bq": "cross_bq", "bk": "cross_bk",
               "bv": "cross_bv", "bo": "cross_bo"}


def renamed(report, names):
    return [[names.get(e[0], e[0])] + e[1:] for e in report]


def attention_of(xs, ms, att, heads, per_channel, names):
    try:
        return calibrate_attention(xs, ms, att, heads, per_channel)
    except Refused as r:
        raise Refused(r.status, names.get(r.tensor, r.tensor), r.detail) from None


def observe_feed_forward(layer, h, norm_ff, norm_last, norm_first, ranges):
    """observe_feed_forward: returns the float layer's output."""
    act = layer["activation"]
    normed = layer_norm(h, *norm_ff)
    ranges["normed"].add(normed)
    pre = linear(layer["linear1"], normed)
    ranges["pre"].add(pre)
    hidden = activate(act, pre)
    ranges["act"].add(hidden)
    f2 = linear(layer["linear2"], hidden)
    ranges["f2"].add(f2)
    if norm_first:
        y = h + f2
    else:
        s = normed + f2
        ranges["sum"].add(s)
        y = layer_norm(s, *norm_last)
    ranges["y"].add(y)
    return y


def check_feed_forward(act, norm_first, ranges, normed, sum_name):
    ranges["normed"].check(normed)
    if act != "relu":
        ranges["pre"].check("feed_forward_hidden")
        ranges["act"].check("feed_forward_activation")
    else:
        ranges["act"].check("feed_forward_hidden")
    ranges["f2"].check("feed_forward_output")
    if not norm_first:
        ranges["sum"].check(sum_name)
    ranges["y"].check("output")


def feed_forward_module(layer, q, per_channel):
    """quantize_feed_forward: linear1, the activation table (None for ReLU), linear2."""
    act = layer["activation"]
    if act == "relu":
        linear1 = quantize_linear(layer["linear1"], q["n"], q["act"], per_channel, relu=True)
        table = None
    else:
        linear1 = quantize_linear(layer["linear1"], q["n"], q["pre"], per_channel)
        table = activation_table(act, q["pre"], q["act"])
    return linear1, table, quantize_linear(layer["linear2"], q["act"], q["f2"], per_channel)


def report_feed_forward(report, layer, ranges, q, normed, sum_name, norm_first):
    r = ranges
    report.append(report_entry(normed, r["normed"].lo, r["normed"].hi, q["n"]))
    if layer["activation"] != "relu":
        report.append(report_entry("feed_forward_hidden", r["pre"].lo, r["pre"].hi, q["pre"]))
        report.append(report_entry("feed_forward_activation", r["act"].lo, r["act"].hi, q["act"]))
    else:
        report.append(report_entry("feed_forward_hidden", r["act"].lo, r["act"].hi, q["act"]))
    for name, key in (("linear1_weight", "linear1"), ("linear2_weight", "linear2")):
        w = layer[key]["weight"]
        report.append(report_entry(name, *weight_range(w), symmetric_of(w)))
    report.append(report_entry("feed_forward_output", r["f2"].lo, r["f2"].hi, q["f2"]))
    if not norm_first:
        report.append(report_entry(sum_name, r["sum"].lo, r["sum"].hi, r["sum"].asymmetric()))
    report.append(report_entry("output", r["y"].lo, r["y"].hi, q["y"]))


def ff_ranges():
    return {k: Range() for k in ("normed", "pre", "act", "f2", "sum", "y")}


def ff_quantizations(r):
    return {"n": r["normed"].asymmetric(), "pre": r["pre"].asymmetric(), "act": r["act"].asymmetric(),
            "f2": r["f2"].asymmetric(), "y": r["y"].asymmetric()}


def norm_args(layer, k):
    n = layer[f"norm{k}"]
    return (n["weight"], n["bias"], n["eps"])


def calibrate_encoder(xs, layer, heads, per_channel=True):
    """calibrate_encoder. layer: dict self_attn, linear1, linear2, norm1, norm2, activation,
    norm_first. `outputs` is the float layer's output on xs (a stack's next calibration inputs)."""
    nf = layer["norm_first"]
    check_weight(layer["linear1"]["weight"], "linear1_weight")
    check_weight(layer["linear2"]["weight"], "linear2_weight")
    rx = Range().add(xs)
    rx.check("input")
    att_in = layer_norm(xs, *norm_args(layer, 1)) if nf else xs
    ac = attention_of(att_in, None, layer["self_attn"], heads, per_channel, ATTENTION_NAMES)
    h1 = xs + attention(layer["self_attn"], att_in, att_in, heads)
    rh1, r = Range().add(h1), ff_ranges()
    y = observe_feed_forward(layer, h1, norm_args(layer, 2 if nf else 1), norm_args(layer, 2), nf, r)
    rh1.check("residual1")
    normed = "norm2_output" if nf else "norm1_output"
    check_feed_forward(layer["activation"], nf, r, normed, "residual2")
    qx = rx.asymmetric() if nf else ac["quant"]["input"]
    qa, qh1, q = ac["quant"]["output"], rh1.asymmetric(), ff_quantizations(r)
    linear1, table, linear2 = feed_forward_module(layer, q, per_channel)
    m = {"self_attn": ac["layer"], "linear1": linear1, "act": table, "linear2": linear2,
         "add1": make_add_params(qx, qa, qh1)}
    if nf:
        m["norm1"] = quantize_layer_norm(layer["norm1"], qx, ac["quant"]["input"])
        m["norm2"] = quantize_layer_norm(layer["norm2"], qh1, q["n"])
        m["add2"] = make_add_params(qh1, q["f2"], q["y"])
    else:
        qh2 = r["sum"].asymmetric()
        m["norm1"] = quantize_layer_norm(layer["norm1"], qh1, q["n"])
        m["add2"] = make_add_params(q["n"], q["f2"], qh2)
        m["norm2"] = quantize_layer_norm(layer["norm2"], qh2, q["y"])
    report = [report_entry("input", rx.lo, rx.hi, qx)] + renamed(ac["report"], ATTENTION_NAMES)
    report.append(report_entry("residual1", rh1.lo, rh1.hi, qh1))
    report_feed_forward(report, layer, r, q, normed, "residual2", nf)
    return {"module": m, "input": qx, "output": q["y"], "report": report, "outputs": y}


def calibrate_decoder(xs, ms, layer, heads, per_channel=True):
    """calibrate_decoder (no masks: the importer calibrates without them). layer: dict self_attn,
    multihead_attn, linear1, linear2, norm1, norm2, norm3, activation, norm_first."""
    nf = layer["norm_first"]
    check_weight(layer["linear1"]["weight"], "linear1_weight")
    check_weight(layer["linear2"]["weight"], "linear2_weight")
    rx, rm = Range().add(xs), Range().add(ms)
    rx.check("input")
    rm.check("memory")
    sa_in = layer_norm(xs, *norm_args(layer, 1)) if nf else xs
    ac1 = attention_of(sa_in, None, layer["self_attn"], heads, per_channel, ATTENTION_NAMES)
    h1 = xs + attention(layer["self_attn"], sa_in, sa_in, heads)
    rh1 = Range().add(h1)
    ca_in = layer_norm(h1, *norm_args(layer, 2 if nf else 1))
    rh1.check("residual1")
    ac2 = attention_of(ca_in, ms, layer["multihead_attn"], heads, per_channel, CROSS_NAMES)
    h2 = (h1 if nf else ca_in) + attention(layer["multihead_attn"], ca_in, ms, heads)
    rh2, r = Range().add(h2), ff_ranges()
    y = observe_feed_forward(layer, h2, norm_args(layer, 3 if nf else 2), norm_args(layer, 3), nf, r)
    rh2.check("residual2")
    normed = "norm3_output" if nf else "norm2_output"
    check_feed_forward(layer["activation"], nf, r, normed, "residual3")
    qx = rx.asymmetric() if nf else ac1["quant"]["input"]
    qa1, qh1, qc = ac1["quant"]["output"], rh1.asymmetric(), ac2["quant"]["input"]
    qa2, qh2, q = ac2["quant"]["output"], rh2.asymmetric(), ff_quantizations(r)
    linear1, table, linear2 = feed_forward_module(layer, q, per_channel)
    m = {"self_attn": ac1["layer"], "multihead_attn": ac2["layer"], "linear1": linear1, "act": table,
         "linear2": linear2, "add1": make_add_params(qx, qa1, qh1)}
    if nf:
        m["norm1"] = quantize_layer_norm(layer["norm1"], qx, ac1["quant"]["input"])
        m["norm2"] = quantize_layer_norm(layer["norm2"], qh1, qc)
        m["add2"] = make_add_params(qh1, qa2, qh2)
        m["norm3"] = quantize_layer_norm(layer["norm3"], qh2, q["n"])
        m["add3"] = make_add_params(qh2, q["f2"], q["y"])
    else:
        qh3 = r["sum"].asymmetric()
        m["norm1"] = quantize_layer_norm(layer["norm1"], qh1, qc)
        m["add2"] = make_add_params(qc, qa2, qh2)
        m["norm2"] = quantize_layer_norm(layer["norm2"], qh2, q["n"])
        m["add3"] = make_add_params(q["n"], q["f2"], qh3)
        m["norm3"] = quantize_layer_norm(layer["norm3"], qh3, q["y"])
    report = [report_entry("input", rx.lo, rx.hi, qx)] + renamed(ac1["report"], ATTENTION_NAMES)
    report.append(report_entry("residual1", rh1.lo, rh1.hi, qh1))
    report += renamed(ac2["report"], CROSS_NAMES)
    report.append(report_entry("residual2", rh2.lo, rh2.hi, qh2))
    report_feed_forward(report, layer, r, q, normed, "residual3", nf)
    return {"module": m, "input": qx, "output": q["y"], "memory": ac2["quant"]["memory"], "report": report,
            "outputs": y}


# ------------------------------------------------------------------------------------------------
# The calibrations as C++ aggregate initializers (the members in the structs' order)
# ------------------------------------------------------------------------------------------------


def _double(v):
    text = repr(float(v))
    return text if ("e" in text or "." in text) else text + ".0"


def _ints(values):
    return "{" + ", ".join(str(int(v)) for v in values) + "}"


def _matrix(a):
    """A matrix's initializer, a row per line."""
    a = np.asarray(a)
    a = a.reshape(1, -1) if a.ndim == 1 else a
    return "{{" + ",\n".join(_ints(row) for row in a) + "}}"


def _req(r):
    return f"{{{int(r[0])}, {int(r[1])}}}"


def _reqs(rs):
    return "{" + ", ".join(_req(r) for r in rs) + "}"


def _params(p):
    return f"{{{p[0]}, {p[1]}, {p[2]}, {_req(p[3])}, {p[4]}, {p[5]}}}"


def _quant(q):
    return f"{{{_double(q[0])}, {int(q[1])}}}"


def attention_text(layer):
    """attention_layer's initializer: its attention_heads base, then wo, bo, output, output_channels."""
    c = layer["channels"]
    channels = "{}" if c is None else f"{{{_reqs(c['query'])}, {_reqs(c['key'])}, {_reqs(c['value'])}}}"
    heads = ", ".join([_matrix(layer[k]) for k in ("wq", "wk", "wv", "bq", "bk", "bv")]
                      + [_params(layer[k]) for k in ("query", "key", "value", "scores")]
                      + [_ints(layer["softmax"]), _params(layer["context"]), channels])
    oc = "{}" if layer["output_channels"] is None else "{" + _reqs(layer["output_channels"]) + "}"
    return f"{{{{{heads}}}, {_matrix(layer['wo'])}, {_matrix(layer['bo'])}, {_params(layer['output'])}, {oc}}}"


def linear_text(m):
    channels = "{}" if m["channels"] is None else "{" + _reqs(m["channels"]) + "}"
    return f"{{{_matrix(m['weight'])}, {_matrix(m['bias'])}, {_params(m['params'])}, {channels}}}"


def norm_text(n):
    return (f"{{{n['input_offset']}, {n['output_offset']}, {n['eps']}, {_reqs(n['scale'])}, "
            f"{_ints(n['bias'])}}}")


def add_text(p):
    return "{" + ", ".join([str(v) for v in p[:4]] + [_req(r) for r in p[4:7]] + [str(v) for v in p[7:]]) + "}"


def layer_text(m):
    """encoder_layer's or decoder_layer's initializer."""
    act = "{}" if m["act"] is None else "{" + _ints(m["act"]) + "}"
    parts = [attention_text(m["self_attn"])]
    if "multihead_attn" in m:
        parts.append(attention_text(m["multihead_attn"]))
    parts += [linear_text(m["linear1"]), act, linear_text(m["linear2"])]
    norms = ("norm1", "norm2", "norm3") if "norm3" in m else ("norm1", "norm2")
    parts += [norm_text(m[k]) for k in norms]
    parts += [add_text(m[k]) for k in ("add1", "add2", "add3") if k in m]
    return "{" + ", ".join(parts) + "}"


STATUS_OK = "cxmat::q8::calibration_status::ok, cxmat::q8::calibration_tensor::none, 0, 0, 0"


REPORT_CAPACITY = 40  # calibration_report::capacity: later tensors are not reported


def report_text(report):
    report = report[:REPORT_CAPACITY]
    entries = ", ".join(f"{{cxmat::q8::calibration_tensor::{e[0]}, {_double(e[1])}, {_double(e[2])}, "
                        f"{_double(e[3])}, {int(e[4])}, {_double(e[5])}, {int(e[6])}}}" for e in report)
    return f"{{{{{entries}}}, {len(report)}}}"


def module_calibration_text(c, module_text):
    """module_calibration's initializer (decoder_calibration's when c has a memory quantization)."""
    text = (f"{{{module_text}, {_quant(c['input'])}, {_quant(c['output'])}, {STATUS_OK}, "
            f"{report_text(c['report'])}}}")
    return f"{{{text}, {_quant(c['memory'])}}}" if "memory" in c else text


def attention_calibration_text(c):
    """calibration<attention_layer>'s initializer (multihead_attention's --type q8)."""
    q = c["quant"]
    quants = ", ".join(_quant(q[k]) for k in ("input", "query", "key", "value", "scores", "context", "output",
                                              "memory", "wq", "wk", "wv", "wo"))
    uses = ", ".join(f"{{{u[0]}, {u[1]}, {_double(u[2])}}}" for u in c["uses"])
    scales = ", ".join("{{{" + ", ".join(_double(s) for s in ss) + "}}}" for ss in c["scales"])
    return (f"{{{attention_text(c['layer'])}, {quants}, {STATUS_OK}, {uses}, {scales}, "
            f"{report_text(c['report'])}}}")
