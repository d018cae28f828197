// The reference of the differential fuzz: what a result of type T may be, computed in long
// double from the documented formulas and rounding model, independently of cxmat.
//
// Each reference value is a `bound`: a definite NaN or infinity, an interval [lo, hi] that the
// result computed in T must lie in (the exact value of the formula, widened by the rounding
// errors that the documented evaluation may make), or `unknown` where IEEE arithmetic in T can
// go either way (a sum within a factor of a few of overflow, an infinity times a value that may
// round to zero). Intervals follow every operation: a product or sum rounds once (at most half
// an ulp relative, plus half a subnormal spacing), which also covers a fused multiply-add.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

namespace cxmat_fuzz {

using real = long double;

/// What is known about a result: a definite special value, an interval, or nothing.
enum class kind : std::uint8_t { finite, nan, pos_inf, neg_inf, unknown };

/// Classes of elements whose documented result the library may not (yet) deliver, so that a run
/// can exclude them by name (see fuzz_driver.hpp, CXMAT_FUZZ_SKIP).
enum flag : std::uint8_t {
  /// A key masked out (score -inf) holds a non-finite value: documented to contribute nothing.
  masked_nonfinite = 1,
  /// A key with weight 0 that is not masked (it lost to a +inf score, or its weight underflowed)
  /// holds a non-finite value. docs/numerics.md does not say what it contributes: IEEE gives NaN
  /// (0 * inf) and "nothing" is as defensible, so either is accepted.
  zero_weight_nonfinite = 2,
};

/// A reference value: kind, the exact value of the formula (`x`, for error reports) and, when
/// finite, the interval [lo, hi] the computed value must lie in.
struct bound {
  kind k = kind::finite;
  real x = 0;
  real lo = 0;
  real hi = 0;
  std::uint8_t flags = 0;
  // An infinity that is a product's exact value beyond the largest finite one: a fused
  // multiply-add adds it to the accumulator before rounding, so against an opposite infinity it
  // gives that infinity where the unfused product and sum give NaN.
  bool fused_overflow = false;
};

/// Whether the target may fuse a multiply and an add (one rounding, no overflow of the product
/// alone). x86 without FMA cannot, so there the reference can be definite about more elements.
#if (defined(__x86_64__) || defined(__i386__)) && !defined(__FMA__) && !defined(__FMA4__)
inline constexpr bool may_fuse = false;
#else
inline constexpr bool may_fuse = true;
#endif

/// Constants of the scalar type T as long doubles.
template <class T>
struct fp {
  static constexpr real eps = std::numeric_limits<T>::epsilon();
  static constexpr real max = std::numeric_limits<T>::max();
  static constexpr real tiny = std::numeric_limits<T>::denorm_min();
  // The reference's own rounding (long double), charged on top: tiny next to T's.
  static constexpr real ref_eps = 4 * std::numeric_limits<real>::epsilon();
};

inline bool is_special(const bound& b) { return b.k != kind::finite; }

template <class T>
bound exact(T v) {
  bound b;
  if (std::isnan(v)) {
    b.k = kind::nan;
  } else if (std::isinf(v)) {
    b.k = v > 0 ? kind::pos_inf : kind::neg_inf;
  } else {
    b.x = b.lo = b.hi = static_cast<real>(v);
  }
  return b;
}

inline bound special(kind k, std::uint8_t flags = 0) {
  bound b;
  b.k = k;
  b.flags = flags;
  return b;
}

inline bound zero() { return bound{}; }

inline real magnitude(const bound& b) { return std::max(std::fabs(b.lo), std::fabs(b.hi)); }

// One rounding to T of a value within [lo, hi]: widen by half an ulp and half a subnormal
// spacing, then decide overflow. `overflow_factor` is how far beyond the largest finite value
// the exact value must be for the result to be +-inf for certain (1 + eps for a plain operation;
// 3 for a product that a fused multiply-add may add to a finite sum before rounding).
template <class T>
bound round_to(bound b, real overflow_factor = 1 + fp<T>::eps) {
  const real m = magnitude(b);
  const real err = (fp<T>::eps / 2 + fp<T>::ref_eps) * m + fp<T>::tiny / 2;
  b.lo -= err;
  b.hi += err;
  if (b.lo > -fp<T>::max && b.hi < fp<T>::max) return b;
  const bool fusable = may_fuse && overflow_factor > 2;
  if (b.lo > fp<T>::max * overflow_factor || b.hi < -fp<T>::max * overflow_factor) {
    bound inf = special(b.lo > 0 ? kind::pos_inf : kind::neg_inf, b.flags);
    inf.fused_overflow = fusable;
    return inf;
  }
  return special(kind::unknown, b.flags);
}

inline bool is_inf(kind k) { return k == kind::pos_inf || k == kind::neg_inf; }

/// a * b rounded to T (fused: may be followed by an addition before rounding, where the target
/// fuses).
template <class T>
bound mul(const bound& a, const bound& b, bool fused = true) {
  const std::uint8_t flags = static_cast<std::uint8_t>(a.flags | b.flags);
  if (a.k == kind::nan || b.k == kind::nan) return special(kind::nan, flags);
  if (a.k == kind::unknown || b.k == kind::unknown) return special(kind::unknown, flags);
  if (is_inf(a.k) || is_inf(b.k)) {
    const bound& inf_side = is_inf(a.k) ? a : b;
    const bound& other = is_inf(a.k) ? b : a;
    const bool neg_inf = inf_side.k == kind::neg_inf;
    bool other_neg = false;
    if (is_inf(other.k)) {
      other_neg = other.k == kind::neg_inf;
    } else if (other.lo == 0 && other.hi == 0) {
      return special(kind::nan, flags);  // inf * 0
    } else if (other.lo > 0) {
      other_neg = false;
    } else if (other.hi < 0) {
      other_neg = true;
    } else {
      return special(kind::unknown, flags);  // the other factor may round to 0 or not
    }
    return special(neg_inf != other_neg ? kind::neg_inf : kind::pos_inf, flags);
  }
  const real p[4] = {a.lo * b.lo, a.lo * b.hi, a.hi * b.lo, a.hi * b.hi};
  bound r;
  r.flags = flags;
  r.x = a.x * b.x;
  r.lo = *std::min_element(p, p + 4);
  r.hi = *std::max_element(p, p + 4);
  return round_to<T>(r, fused && may_fuse ? real(3) : 1 + fp<T>::eps);
}

/// a + b rounded to T.
template <class T>
bound add(const bound& a, const bound& b) {
  const std::uint8_t flags = static_cast<std::uint8_t>(a.flags | b.flags);
  if (a.k == kind::nan || b.k == kind::nan) return special(kind::nan, flags);
  if (a.k == kind::unknown || b.k == kind::unknown) return special(kind::unknown, flags);
  if (is_inf(a.k) && is_inf(b.k)) {
    if (a.k == b.k) return special(a.k, flags);
    // NaN, or with a fused multiply-add the infinity that was not an overflowed product.
    return special(a.fused_overflow || b.fused_overflow ? kind::unknown : kind::nan, flags);
  }
  if (is_inf(a.k)) return special(a.k, flags);
  if (is_inf(b.k)) return special(b.k, flags);
  bound r;
  r.flags = flags;
  r.x = a.x + b.x;
  r.lo = a.lo + b.lo;
  r.hi = a.hi + b.hi;
  return round_to<T>(r);
}

/// Σ_k a[k] * b[k] in T, k increasing (the documented order of every product in cxmat).
template <class T>
bound dot(const bound* a, std::size_t a_stride, const bound* b, std::size_t b_stride, std::size_t n) {
  bound acc = zero();
  for (std::size_t k = 0; k < n; ++k) acc = add<T>(acc, mul<T>(a[k * a_stride], b[k * b_stride]));
  return acc;
}

/// a / d in T, for the default score divisor d = √d_k: d itself is rounded to T (one more
/// half ulp), then the quotient is rounded.
template <class T>
bound divide_by_root(const bound& a, std::size_t n) {
  if (a.k != kind::finite) return a;
  const real d = std::sqrt(static_cast<real>(n));
  bound r = a;
  r.x = a.x / d;
  r.lo = a.lo / d;
  r.hi = a.hi / d;
  const real divisor_error = (fp<T>::eps / 2) * std::max(std::fabs(r.lo), std::fabs(r.hi));
  r.lo -= divisor_error;
  r.hi += divisor_error;
  return round_to<T>(r);
}

/// A dense matrix of bounds.
struct bound_matrix {
  std::size_t rows = 0;
  std::size_t cols = 0;
  std::vector<bound> v;
  bound_matrix(std::size_t r, std::size_t c) : rows(r), cols(c), v(r * c) {}
  bound& operator()(std::size_t i, std::size_t j) { return v[i * cols + j]; }
  const bound& operator()(std::size_t i, std::size_t j) const { return v[i * cols + j]; }
};

template <class T, class M>
bound_matrix exact_matrix(const M& m) {
  bound_matrix out(M::rows, M::cols);
  for (std::size_t i = 0; i < M::rows; ++i) {
    for (std::size_t j = 0; j < M::cols; ++j) out(i, j) = exact<T>(m(i, j));
  }
  return out;
}

/// a (R x K) · b (K x C), columns [b_off, b_off + C) of b and [a_off, a_off + K) of a.
template <class T>
bound_matrix matmul(const bound_matrix& a, const bound_matrix& b) {
  bound_matrix out(a.rows, b.cols);
  for (std::size_t i = 0; i < a.rows; ++i) {
    for (std::size_t j = 0; j < b.cols; ++j) out(i, j) = dot<T>(&a(i, 0), 1, &b(0, j), b.cols, a.cols);
  }
  return out;
}

/// The weights of one row of scores by docs/numerics.md's rules, as bounds. `zero_possible[j]`
/// says whether weight j may be exactly 0 in T without the key being masked (a score of -inf).
/// For finite rows the interval of weight j is the exact softmax over the scores' intervals
/// (each widened by the rounding of x - max, half an ulp of |x - max|), widened by the stated
/// agreement of both softmax paths: (n + 4) ε relative plus two subnormal spacings.
template <class T>
std::vector<bound> softmax_row(const std::vector<bound>& s, std::vector<bool>& zero_possible,
                               std::vector<bool>& masked) {
  const std::size_t n = s.size();
  std::vector<bound> w(n);
  zero_possible.assign(n, false);
  masked.assign(n, false);
  bool any_nan = false;
  bool any_unknown = false;
  std::size_t pos_inf = 0;
  std::size_t neg_inf = 0;
  for (const bound& b : s) {
    any_nan = any_nan || b.k == kind::nan;
    any_unknown = any_unknown || b.k == kind::unknown;
    pos_inf += b.k == kind::pos_inf ? 1U : 0U;
    neg_inf += b.k == kind::neg_inf ? 1U : 0U;
  }
  for (std::size_t j = 0; j < n; ++j) masked[j] = s[j].k == kind::neg_inf;
  if (any_nan) {
    for (bound& b : w) b = special(kind::nan);
    return w;
  }
  if (any_unknown) {
    for (bound& b : w) b = special(kind::unknown);
    return w;
  }
  if (pos_inf != 0) {
    const real share = real(1) / static_cast<real>(pos_inf);
    for (std::size_t j = 0; j < n; ++j) {
      if (s[j].k == kind::pos_inf) {
        w[j].x = share;
        w[j].lo = share * (1 - fp<T>::eps);
        w[j].hi = share * (1 + fp<T>::eps);
      } else {
        zero_possible[j] = !masked[j];
      }
    }
    return w;
  }
  if (neg_inf == n) return w;  // fully masked: every weight exactly 0
  // Finite scores: the largest centre, and how far each score may be from its centre once x - max
  // is rounded.
  real top = -std::numeric_limits<real>::infinity();
  real spread_max = 0;
  for (const bound& b : s) {
    if (b.k == kind::finite) {
      top = std::max(top, b.x);
      spread_max = std::max(spread_max, b.hi - b.lo);
    }
  }
  std::vector<real> lo(n);
  std::vector<real> hi(n);
  for (std::size_t j = 0; j < n; ++j) {
    if (s[j].k != kind::finite) continue;
    const real d = std::fabs(top - s[j].x) + (s[j].hi - s[j].lo) + spread_max;
    const real widen = (fp<T>::eps / 2 + fp<T>::ref_eps) * d;
    lo[j] = s[j].lo - widen;
    hi[j] = s[j].hi + widen;
  }
  const real rel = (static_cast<real>(n) + 4) * fp<T>::eps + fp<T>::ref_eps * static_cast<real>(n);
  for (std::size_t j = 0; j < n; ++j) {
    if (s[j].k != kind::finite) continue;
    // w_j = 1 / (1 + Σ_{k≠j} exp(s_k - s_j)): smallest with s_j low and the others high.
    real others_high = 0;
    real others_low = 0;
    real others_exact = 0;
    for (std::size_t k = 0; k < n; ++k) {
      if (k == j || s[k].k != kind::finite) continue;
      others_high += std::exp(hi[k] - lo[j]);
      others_low += std::exp(lo[k] - hi[j]);
      others_exact += std::exp(s[k].x - s[j].x);
    }
    const real w_lo = real(1) / (1 + others_high);
    const real w_hi = real(1) / (1 + others_low);
    w[j].x = real(1) / (1 + others_exact);
    w[j].lo = std::max(real(0), w_lo * (1 - rel) - 2 * fp<T>::tiny);
    w[j].hi = w_hi * (1 + rel) + 2 * fp<T>::tiny;
    zero_possible[j] = w[j].lo <= 0;
  }
  return w;
}

/// One output element Σ_j w_j v_j over a row of weights and a column of values, with the
/// documented rules: a masked key contributes nothing (flagged masked_nonfinite where its value
/// is not finite, since the library may not yet honour it), a key of possibly-zero weight with a
/// non-finite value is set aside (flagged zero_weight_nonfinite: either outcome is accepted).
template <class T>
bound weighted_sum(const std::vector<bound>& w, const std::vector<bool>& zero_possible, const std::vector<bool>& masked,
                   const bound* v, std::size_t v_stride) {
  const std::size_t n = w.size();
  for (const bound& b : w) {
    if (b.k == kind::nan || b.k == kind::unknown) return special(b.k);
  }
  bound acc = zero();
  std::uint8_t flags = 0;
  for (std::size_t j = 0; j < n; ++j) {
    const bound& vj = v[j * v_stride];
    if (masked[j]) {
      if (vj.k != kind::finite) flags |= masked_nonfinite;
      continue;
    }
    if (zero_possible[j] && vj.k != kind::finite) {
      flags |= zero_weight_nonfinite;
      continue;
    }
    acc = add<T>(acc, mul<T>(w[j], vj));
  }
  acc.flags = static_cast<std::uint8_t>(acc.flags | flags);
  return acc;
}

}  // namespace cxmat_fuzz
