// An independent plain implementation of the integer arithmetic of TFLite's int8 reference kernels
// (and CMSIS-NN's), written from the documented formulas for the tests. It shares no code with
// cxmat::q8: wide integers (__int128) and floor divisions instead of nudges and masks, whole
// matrices instead of strided rows. Constexpr, so the static tests use it too.
#pragma once

#include <cstddef>
#include <cstdint>

namespace q8_ref {

__extension__ typedef __int128 i128;

constexpr i128 floor_div(i128 a, i128 b) {  // b > 0
  const i128 q = a / b;
  return (a % b != 0 && a < 0) ? q - 1 : q;
}
constexpr std::int32_t saturate32(i128 v) {
  return static_cast<std::int32_t>(v > 2147483647 ? i128{2147483647} : (v < -i128{2147483648} ? -i128{2147483648} : v));
}

// SaturatingRoundingDoublingHighMul: the nearest integer to a·b/2^31, ties toward +inf; saturated
// (only INT32_MIN·INT32_MIN = 2^62 overflows, giving 2^31 -> INT32_MAX).
constexpr std::int32_t srdhm(std::int32_t a, std::int32_t b) {
  return saturate32(floor_div(i128{a} * b + (i128{1} << 30), i128{1} << 31));
}

// RoundingDivideByPOT: the nearest integer to x/2^e, ties away from zero.
constexpr std::int32_t rdbpot(std::int32_t x, int e) {
  if (e == 0) return x;
  const i128 m = x < 0 ? -i128{x} : i128{x};
  const i128 r = floor_div(m + (i128{1} << (e - 1)), i128{1} << e);
  return static_cast<std::int32_t>(x < 0 ? -r : r);
}

// x·2^e wrapped to 32 bits (two's complement), as x * (1 << e) on the targets.
constexpr std::int32_t shl_wrap(std::int32_t x, int e) {
  i128 v = i128{x} * (i128{1} << e);
  v = v % (i128{1} << 32);
  if (v < 0) v += i128{1} << 32;
  return static_cast<std::int32_t>(v >= (i128{1} << 31) ? v - (i128{1} << 32) : v);
}

// MultiplyByQuantizedMultiplier (double rounding), shift in [-31, 30], any int32 multiplier.
// For shift > 0 TFLite forms x·2^shift in int32 first, which overflows where |x·2^shift| >= 2^31
// (undefined behaviour in C++; it wraps on the targets): here the product is exact in i128, and
// the result is SaturatingRoundingDoublingHighMul's formula on it, nearest to x·2^shift·m/2^31 with
// ties toward +inf, saturated to int32. The same value wherever TFLite's is defined.
constexpr std::int32_t mbqm(std::int32_t acc, std::int32_t multiplier, int shift) {
  if (shift > 0)
    return saturate32(floor_div(i128{acc} * multiplier * (i128{1} << shift) + (i128{1} << 30), i128{1} << 31));
  return rdbpot(srdhm(acc, multiplier), -shift);
}

// The same formula for any shift (what cxmat computes at run time for the shifts it refuses):
// above 30, x·m·2^(shift - 31) exactly (an integer), saturated; below -31, srdhm(x, m) divided by
// 2^-shift, rounded half away from zero.
constexpr std::int32_t mbqm_any_shift(std::int32_t acc, std::int32_t multiplier, std::int64_t shift) {
  if (shift >= -31 && shift <= 30) return mbqm(acc, multiplier, static_cast<int>(shift));
  if (shift > 30) {
    const i128 p = i128{acc} * multiplier;
    if (p == 0) return 0;
    if (shift - 31 > 64) return p > 0 ? 2147483647 : -2147483647 - 1;
    return saturate32(p * (i128{1} << (shift - 31)));
  }
  const i128 h = srdhm(acc, multiplier), m = h < 0 ? -h : h;
  if (-shift > 100) return 0;
  const i128 r = floor_div(2 * m + (i128{1} << -shift), i128{1} << (1 - shift));
  return static_cast<std::int32_t>(h < 0 ? -r : r);
}

constexpr std::int32_t clamp(std::int32_t v, std::int32_t lo, std::int32_t hi) {
  return v < lo ? lo : (v > hi ? hi : v);
}

// FULLY_CONNECTED / BATCH_MATMUL int8: out[i][j] from a (R x K) and bt (C x K), both row-major.
// Per-channel (TFLite's per-channel fully-connected weights): multipliers and shifts, when not
// null, give output column j its own multipliers[j], shifts[j] instead of multiplier, shift.
struct product {
  std::int32_t lhs_offset, rhs_offset, output_offset, multiplier, shift, act_min, act_max;
  const std::int32_t* multipliers = nullptr;
  const std::int32_t* shifts = nullptr;
};
constexpr void matmul_t(const std::int8_t* a, const std::int8_t* bt, const std::int32_t* bias, std::size_t r,
                        std::size_t c, std::size_t k, const product& p, std::int8_t* out) {
  for (std::size_t i = 0; i < r; ++i) {
    for (std::size_t j = 0; j < c; ++j) {
      i128 acc = 0;
      for (std::size_t t = 0; t < k; ++t) acc += i128{a[i * k + t] + p.lhs_offset} * (bt[j * k + t] + p.rhs_offset);
      if (bias) acc += bias[j];
      const std::int32_t m = p.multipliers ? p.multipliers[j] : p.multiplier;
      const int s = p.shifts ? p.shifts[j] : p.shift;
      const std::int32_t v = mbqm(static_cast<std::int32_t>(acc), m, s) + p.output_offset;
      out[i * c + j] = static_cast<std::int8_t>(clamp(v, p.act_min, p.act_max));
    }
  }
}

// TFLite's int8 ADD (reference_integer_ops::AddFunc) of one element: both inputs shifted left by
// left_shift, each scaled by its multiplier (MultiplyByQuantizedMultiplierSmallerThanOneExp, i.e.
// mbqm with a shift <= 0), summed, scaled by the output multiplier, offset and clamped.
struct add_p {
  std::int32_t in1_offset, in2_offset, out_offset, left_shift, m1, s1, m2, s2, mo, so, act_min, act_max;
};
constexpr std::int8_t add(std::int8_t a, std::int8_t b, const add_p& p) {
  const std::int32_t x1 = shl_wrap(a + p.in1_offset, p.left_shift), x2 = shl_wrap(b + p.in2_offset, p.left_shift);
  const std::int32_t sum = mbqm(x1, p.m1, p.s1) + mbqm(x2, p.m2, p.s2);
  return static_cast<std::int8_t>(clamp(mbqm(sum, p.mo, p.so) + p.out_offset, p.act_min, p.act_max));
}

// cxmat's integer layer norm (docs/quantized.md), from its documented formula with wide integers:
// c_j = D·d_j - Σd, W = 2^8·Σc² + eps, k from the bit length of W, r = ⌊√(W·4^k)⌋ by bisection,
// inv = ⌊(2^61 - 1)/r⌋, a_j = c_j·inv/2^(27-k) rounded half away from zero (0 if all c are 0), then
// y_j = clamp(rdbpot(sat32(mbqm(a_j, m_j, s_j) + bias_j), 8) + out_offset).
struct layer_norm_p {
  std::int32_t in_offset, out_offset;
  std::int64_t eps;
  const std::int32_t *multipliers, *shifts, *bias;
};
constexpr i128 isqrt_bisect(i128 v) {
  i128 lo = 0, hi = i128{1} << 32;  // lo² <= v < hi² for v < 2^64
  while (hi - lo > 1) {
    const i128 mid = (lo + hi) / 2;
    if (mid * mid <= v) {
      lo = mid;
    } else {
      hi = mid;
    }
  }
  return lo;
}
constexpr i128 round_half_away_div(i128 v, i128 d) {  // d > 0
  const i128 m = v < 0 ? -v : v, r = floor_div(2 * m + d, 2 * d);
  return v < 0 ? -r : r;
}
constexpr void layer_norm(const std::int8_t* x, std::int8_t* y, std::size_t d, const layer_norm_p& p) {
  i128 sum = 0;
  for (std::size_t j = 0; j < d; ++j) sum += x[j] + p.in_offset;
  i128 c[512]{};  // d <= 512
  i128 squares = 0;
  for (std::size_t j = 0; j < d; ++j) {
    c[j] = static_cast<i128>(d) * (x[j] + p.in_offset) - sum;
    squares += c[j] * c[j];
  }
  const i128 w = 256 * squares + (p.eps > 0 ? p.eps : 1);
  int bits = 0;
  while ((i128{1} << bits) <= w) ++bits;  // w < 2^bits, w >= 2^(bits - 1)
  const int k = static_cast<int>(floor_div(62 - bits, 2));
  const i128 scaled = k >= 0 ? w * (i128{1} << (2 * k)) : floor_div(w, i128{1} << (-2 * k));
  const i128 r = isqrt_bisect(scaled);
  const i128 inv = floor_div((i128{1} << 61) - 1, r);
  for (std::size_t j = 0; j < d; ++j) {
    const auto a = squares == 0 ? 0 : static_cast<std::int32_t>(round_half_away_div(c[j] * inv, i128{1} << (27 - k)));
    const std::int32_t s = saturate32(i128{mbqm(a, p.multipliers[j], p.shifts[j])} + p.bias[j]);
    y[j] = static_cast<std::int8_t>(clamp(rdbpot(s, 8) + p.out_offset, -128, 127));
  }
}

// Fixed-point pieces of the softmax, as the TFLite/gemmlowp documentation states them: a Q(m)
// number with raw value v stands for v / 2^(31-m); products of Qa and Qb numbers are Q(a+b).
constexpr std::int32_t sat_mul_pot(std::int32_t x, int e) {  // x·2^e saturated (e > 0)
  return saturate32(i128{x} * (i128{1} << e));
}

// exp(a) for a <= 0 in Q5.26 -> Q0.31: a = b + c, b = (a mod 1/4) - 1/4 in [-1/4, 0), c = a - b <= 0 a multiple of 1/4;
// exp(b) from the 4th-order Taylor series around -1/8, then one factor exp(-2^k) per bit of -c.
constexpr std::int32_t exp_neg(std::int32_t a) {
  if (a == 0) return 2147483647;
  const std::int64_t quarter = std::int64_t{1} << 24;
  const auto bmod = static_cast<std::int64_t>(a - floor_div(a, quarter) * quarter);     // in [0, quarter)
  const std::int64_t bb = bmod - quarter;                                               // in [-quarter, 0)
  const std::int64_t rest = bb - a;                                                     // >= 0, multiple of quarter
  const std::int32_t x = static_cast<std::int32_t>(bb * 32 + (std::int64_t{1} << 28));  // Q0.31: b + 1/8
  const std::int32_t x2 = srdhm(x, x), x3 = srdhm(x2, x), x4 = srdhm(x2, x2);
  const std::int32_t poly = rdbpot(srdhm(rdbpot(x4, 2) + x3, 715827883) + x2, 1);  // x²/2 + x³/6 + x⁴/24
  const std::int32_t e18 = 1895147668;                                             // exp(-1/8) in Q0.31
  std::int32_t r = e18 + srdhm(e18, x + poly);
  const std::int32_t f[7] = {1672461947, 1302514674, 790015084, 290630308, 39332535, 720401, 242};
  for (int k = 0; k < 7; ++k) {
    if (((rest >> (24 + k)) & 1) != 0) r = srdhm(r, f[k]);
  }
  return r;
}

// 1/(1+x) for x in [0,1) in Q0.31, by Newton-Raphson on d = (1+x)/2 in Q2.29: y0 = 48/17 - 32/17·d,
// y <- y + y·(1 - d·y) three times, result y/2 in Q0.31.
constexpr std::int32_t recip_one_plus(std::int32_t x) {
  const i128 s = i128{x} + 2147483647;
  const auto d = static_cast<std::int32_t>(s >= 0 ? (s + 1) / 2 : (s - 1) / 2);
  std::int32_t y = 1515870810 + srdhm(d, -1010580540);
  for (int it = 0; it < 3; ++it) y = y + sat_mul_pot(srdhm(y, (1 << 29) - srdhm(d, y)), 2);
  return sat_mul_pot(y, 1);
}

struct softmax_p {
  std::int32_t multiplier, left_shift, diff_min;
};

// int8 softmax of one row of n (keep: entries taking part, or null for all).
constexpr void softmax(const std::int8_t* in, std::int8_t* out, std::size_t n, const bool* keep, const softmax_p& p) {
  int mx = -1000;
  for (std::size_t c = 0; c < n; ++c) {
    if ((!keep || keep[c]) && in[c] > mx) mx = in[c];
  }
  std::int64_t sum = 0;
  std::int32_t e[512]{};
  bool on[512]{};
  for (std::size_t c = 0; c < n; ++c) {
    const int d = in[c] - mx;
    on[c] = (!keep || keep[c]) && d >= p.diff_min;
    if (on[c]) {
      e[c] = exp_neg(srdhm(shl_wrap(d, p.left_shift), p.multiplier));
      sum += std::int64_t{rdbpot(e[c], 12)};  // Q0.31 -> Q12.19
    }
  }
  if (sum == 0) {
    for (std::size_t c = 0; c < n; ++c) out[c] = -128;
    return;
  }
  // sum = 2^(12-h)·(1+f): h = leading zeros of the 32-bit sum.
  int h = 0;
  while ((sum << h) < (std::int64_t{1} << 31)) ++h;
  const auto f = static_cast<std::int32_t>((sum << h) - (std::int64_t{1} << 31));
  const std::int32_t inv = recip_one_plus(f);
  for (std::size_t c = 0; c < n; ++c) {
    if (!on[c]) {
      out[c] = -128;
      continue;
    }
    const std::int32_t v = rdbpot(srdhm(inv, e[c]), (12 - h) + 23) - 128;
    out[c] = static_cast<std::int8_t>(clamp(v, -128, 127));
  }
}

// The int8 attention layer from its parameters, whole matrices at a time: X (n x dm), weights
// [out, in], biases; Q from X, K and V from X (self-attention) or from the memory M (s x dm,
// cross-attention), then per head scores (n x s), softmax, P·V into C (n x H·dv), then C·Woᵀ when
// wo is given. Every tensor up to 32 x 32.
struct layer_ref {
  std::size_t n, dm, h, dk, dv, dout;  // dout = 0: no output projection
  const std::int8_t *wq, *wk, *wv, *wo;
  const std::int32_t *bq, *bk, *bv, *bo;
  product query, key, value, scores, context, output;
  softmax_p sm;
  std::size_t s = 0;  // the number of keys (memory rows); 0: n (self-attention)
};
// mask: n x s (true = may attend) or null; probs, when not null, receives H x n x s
// probabilities; memory: s x dm, or null for self-attention (keys and values from x).
constexpr void attention(const layer_ref& l, const std::int8_t* x, const bool* mask, std::int8_t* y,
                         std::int8_t* probs = nullptr, const std::int8_t* memory = nullptr) {
  std::int8_t q[32 * 32]{}, k[32 * 32]{}, v[32 * 32]{}, c[32 * 32]{};
  const std::size_t qw = l.h * l.dk, vw = l.h * l.dv, ns = l.s == 0 ? l.n : l.s;
  const std::int8_t* kv = memory ? memory : x;
  matmul_t(x, l.wq, l.bq, l.n, qw, l.dm, l.query, q);
  matmul_t(kv, l.wk, l.bk, ns, qw, l.dm, l.key, k);
  matmul_t(kv, l.wv, l.bv, ns, vw, l.dm, l.value, v);
  for (std::size_t hd = 0; hd < l.h; ++hd) {
    std::int8_t qh[32 * 32]{}, kh[32 * 32]{}, vth[32 * 32]{}, s[32 * 32]{}, ch[32 * 32]{};
    for (std::size_t i = 0; i < l.n; ++i) {
      for (std::size_t t = 0; t < l.dk; ++t) qh[i * l.dk + t] = q[i * qw + hd * l.dk + t];
    }
    for (std::size_t j = 0; j < ns; ++j) {
      for (std::size_t t = 0; t < l.dk; ++t) kh[j * l.dk + t] = k[j * qw + hd * l.dk + t];
      for (std::size_t t = 0; t < l.dv; ++t) vth[t * ns + j] = v[j * vw + hd * l.dv + t];  // V_hᵀ
    }
    matmul_t(qh, kh, nullptr, l.n, ns, l.dk, l.scores, s);
    for (std::size_t i = 0; i < l.n; ++i) softmax(s + i * ns, s + i * ns, ns, mask ? mask + i * ns : nullptr, l.sm);
    if (probs) {
      for (std::size_t t = 0; t < l.n * ns; ++t) probs[hd * l.n * ns + t] = s[t];
    }
    matmul_t(s, vth, nullptr, l.n, l.dv, ns, l.context, ch);
    for (std::size_t i = 0; i < l.n; ++i) {
      for (std::size_t t = 0; t < l.dv; ++t) c[i * vw + hd * l.dv + t] = ch[i * l.dv + t];
    }
  }
  if (l.dout == 0) {
    for (std::size_t i = 0; i < l.n * vw; ++i) y[i] = c[i];
  } else {
    matmul_t(c, l.wo, l.bo, l.n, l.dout, vw, l.output, y);
  }
}

}  // namespace q8_ref
