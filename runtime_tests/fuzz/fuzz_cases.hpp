// The cases of the differential fuzz for one scalar type: inputs drawn from a `source`, cxmat's
// public functions run on them, each element checked against fuzz_reference.hpp. Included by
// fuzz_float.cpp and fuzz_double.cpp only.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include <cxmat/attention/multi_head.hpp>
#include <cxmat/attention/options.hpp>
#include <cxmat/attention/single_head.hpp>
#include <cxmat/core/matrix.hpp>
#include <cxmat/ops/arithmetic.hpp>
#include <cxmat/ops/softmax.hpp>

#include "fuzz_driver.hpp"
#include "fuzz_reference.hpp"

namespace cxmat_fuzz {

template <class T>
inline constexpr const char* type_name = sizeof(T) == sizeof(float) ? "float" : "double";

// ---------------------------------------------------------------------------------------------
// Inputs
// ---------------------------------------------------------------------------------------------

/// Value mixes: which kinds of values a matrix is drawn from (out of 256 per element).
enum mix : unsigned { ordinary, zeros_denormals, huge_values, everything, rare_specials, mix_count };
inline const char* const mix_names[] = {"ordinary", "zeros+denormals", "huge", "everything", "rare-specials"};

/// 1e30 for float, 1e300 for double: products of two overflow, sums of several do not.
template <class T>
constexpr T huge_magnitude() {
  return sizeof(T) == sizeof(float) ? T(1e30F) : T(1e300);
}

/// One value of the given mix: ordinary values are ±(1 + f)·2^e with a full-precision f and
/// e in [-4, 3]; specials are ±0, subnormals (any mantissa), ±(1 + f)·huge, ±inf and NaN.
template <class T>
T draw_value(source& src, unsigned m) {
  using limits = std::numeric_limits<T>;
  constexpr int fraction_bits = limits::digits - 1;
  const unsigned c = src.byte();
  const std::uint8_t shape = src.byte();
  const std::uint64_t f = src.bits(fraction_bits);
  const bool negative = (shape & 1U) != 0;
  const T frac = std::ldexp(static_cast<T>(f), -fraction_bits);  // exact: f < 2^fraction_bits
  const auto sign = [negative](T v) { return negative ? -v : v; };
  enum { ord, zero_v, denormal_v, huge_v, inf_v, nan_v } kind_of = ord;
  switch (m) {
    case zeros_denormals:
      kind_of = c < 32 ? zero_v : c < 64 ? denormal_v : ord;
      break;
    case huge_values:
      kind_of = c < 32 ? huge_v : ord;
      break;
    case everything:
      kind_of = c < 16 ? zero_v : c < 32 ? denormal_v : c < 64 ? huge_v : c < 80 ? inf_v : c < 96 ? nan_v : ord;
      break;
    case rare_specials:
      kind_of = c < 3 ? zero_v : c < 6 ? denormal_v : c < 9 ? huge_v : c < 11 ? inf_v : c < 12 ? nan_v : ord;
      break;
    default:
      break;
  }
  switch (kind_of) {
    case zero_v:
      return sign(T(0));
    case denormal_v: {
      const T mantissa = static_cast<T>(f == 0 ? 1 : f);
      return sign(std::ldexp(mantissa, limits::min_exponent - limits::digits));
    }
    case huge_v:
      return sign((1 + frac) * huge_magnitude<T>());
    case inf_v:
      return sign(limits::infinity());
    case nan_v:
      return limits::quiet_NaN();
    default:
      return sign(std::ldexp(1 + frac, static_cast<int>((shape >> 1U) % 8U) - 4));
  }
}

template <class M>
void fill(M& m, source& src, unsigned mx) {
  for (std::size_t i = 0; i < M::rows; ++i) {
    for (std::size_t j = 0; j < M::cols; ++j) m(i, j) = draw_value<typename M::value_type>(src, mx);
  }
}

/// Mask patterns (true = may attend), covering the cases that break blocked kernels: fully masked
/// rows, masks at the start, in the middle, at the end, alternating, random, everything masked.
enum pattern : unsigned {
  all_allowed,
  random_density,
  masked_rows,
  masked_prefix,
  masked_middle,
  alternating,
  masked_suffix,
  all_masked,
  pattern_count
};
inline const char* const pattern_names[] = {"all-allowed",   "random",      "fully-masked-rows", "masked-prefix",
                                            "masked-middle", "alternating", "masked-suffix",     "all-masked"};

template <class M>
void fill_mask(M& m, source& src, unsigned p) {
  constexpr std::size_t R = M::rows;
  constexpr std::size_t C = M::cols;
  const std::size_t a = src.below(C + 1);
  const std::size_t b = a + src.below(C + 1 - a);
  const unsigned density = src.byte();
  const unsigned parity = src.byte() & 1U;
  for (std::size_t i = 0; i < R; ++i) {
    const bool row_masked = p == masked_rows && src.byte() < 96;
    for (std::size_t j = 0; j < C; ++j) {
      bool allowed = true;
      switch (p) {
        case random_density:
          allowed = src.byte() < density;
          break;
        case masked_rows:
          allowed = !row_masked;
          break;
        case masked_prefix:
          allowed = j >= a;
          break;
        case masked_middle:
          allowed = j < a || j >= b;
          break;
        case alternating:
          allowed = (j & 1U) == parity;
          break;
        case masked_suffix:
          allowed = j < a;
          break;
        case all_masked:
          allowed = false;
          break;
        default:
          break;
      }
      m(i, j) = allowed;
    }
  }
}

/// Option packs: each a fixed set of option types (one instantiation of every function per shape,
/// which is what the fuzz costs to compile), with values drawn at run time. Together they reach
/// every phase of the score modification: scale, bias, mask, key padding, both causal alignments,
/// and the path without options (a mask drawn all-allowed leaves bias and scale on their own).
enum pack : unsigned { no_options, padding_causal, everything_lower_right, pack_count };
inline const char* const pack_names[] = {"no-options", "key_padding+causal", "mask+bias+causal_lower_right+scale"};

template <class T, std::size_t L, std::size_t S>
struct score_options {
  unsigned which = no_options;
  cxmat::matrix<bool, L, S> allowed_mask{};
  cxmat::matrix<bool, 1, S> keep{};
  cxmat::matrix<T, L, S> bias{};
  T factor = T(1);
  unsigned mask_pattern = all_allowed;
  unsigned padding_pattern = all_allowed;
  unsigned bias_mix = ordinary;

  bool has_scale() const { return which == everything_lower_right; }
  bool has_bias() const { return has_scale(); }
  /// The documented meaning of the pack's masks, written out: query i may attend to key j.
  bool allowed(std::size_t i, std::size_t j) const {
    switch (which) {
      case padding_causal:
        return keep(0, j) && j <= i;
      case everything_lower_right:
        return allowed_mask(i, j) && j + L <= i + S;
      default:
        return true;
    }
  }

  /// Calls call(options...) with the pack's options.
  template <class F>
  void apply(F&& call) const {
    switch (which) {
      case padding_causal:
        call(cxmat::key_padding(keep), cxmat::causal);
        break;
      case everything_lower_right:
        call(cxmat::mask(allowed_mask), cxmat::bias(bias), cxmat::causal_lower_right, cxmat::scale(factor));
        break;
      default:
        call();
        break;
    }
  }

  void draw(source& src, unsigned w) {
    which = w;
    mask_pattern = static_cast<unsigned>(src.below(pattern_count));
    padding_pattern = static_cast<unsigned>(src.below(pattern_count));
    bias_mix = static_cast<unsigned>(src.below(mix_count));
    fill_mask(allowed_mask, src, mask_pattern);
    fill_mask(keep, src, padding_pattern);
    // A bias may act as a float mask: some entries are -inf.
    for (std::size_t i = 0; i < L; ++i) {
      for (std::size_t j = 0; j < S; ++j) {
        bias(i, j) = src.byte() < 16 ? -std::numeric_limits<T>::infinity() : draw_value<T>(src, bias_mix);
      }
    }
    factor = draw_value<T>(src, src.byte() < 32 ? zeros_denormals : ordinary);
  }

  std::string describe() const {
    std::ostringstream os;
    os << "options " << pack_names[which];
    if (which == everything_lower_right) os << " (mask " << pattern_names[mask_pattern] << ")";
    if (which == padding_causal) os << " (key padding " << pattern_names[padding_pattern] << ")";
    if (has_bias()) os << " (bias " << mix_names[bias_mix] << ", scale " << factor << ")";
    return os.str();
  }
};

// ---------------------------------------------------------------------------------------------
// Checking
// ---------------------------------------------------------------------------------------------

template <class T>
real ulp_of(real x) {
  using limits = std::numeric_limits<T>;
  const real ax = std::fabs(x);
  if (ax < static_cast<real>(limits::min())) return static_cast<real>(limits::denorm_min());
  int e = 0;
  static_cast<void>(std::frexp(ax, &e));
  return std::ldexp(real(1), e - limits::digits);
}

inline std::string kind_text(const bound& b) {
  switch (b.k) {
    case kind::nan:
      return "NaN";
    case kind::pos_inf:
      return "+inf";
    case kind::neg_inf:
      return "-inf";
    case kind::unknown:
      return "unknown";
    default:
      return b.lo == 0 && b.hi == 0 ? "exactly 0" : "finite";
  }
}

template <class T>
std::string value_text(T v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "+inf" : "-inf";
  return "finite";
}

/// Compares one element with its reference and records the outcome. `context` describes the
/// case (called only on failure); `softmax_n` > 0 asks for the softmax error measure.
template <class T, class Context>
void check(report& rep, function_stats& st, const std::string& fn, T got, const bound& e, std::size_t i, std::size_t j,
           const Context& context, std::size_t softmax_n = 0) {
  if ((e.flags & rep.skip) != 0) {
    ++st.skipped;
    return;
  }
  if (e.k == kind::unknown) {
    ++st.unknown;
    return;
  }
  ++st.checked;
  const real g = static_cast<real>(got);
  bool ok = false;
  switch (e.k) {
    case kind::nan:
      ok = std::isnan(got);
      break;
    case kind::pos_inf:
      ok = std::isinf(got) && got > 0;
      break;
    case kind::neg_inf:
      ok = std::isinf(got) && got < 0;
      break;
    default:
      ok = std::isfinite(got) && g >= e.lo && g <= e.hi;
      break;
  }
  if (e.k != kind::finite || (e.lo == 0 && e.hi == 0)) ++st.special;
  if ((e.flags & zero_weight_nonfinite) != 0) {
    ++st.either;
    if (!ok && !std::isfinite(got)) ok = true;  // 0 * inf = NaN, or nothing: either is accepted
  }
  if (e.k == kind::finite && std::isfinite(got)) {
    const real err = std::fabs(g - e.x);
    st.worst_ulps = std::max(st.worst_ulps, err / ulp_of<T>(e.x));
    // Measured where the exact value is normal in T: below, the bound is the subnormal spacing.
    const bool normal = std::fabs(e.x) >= static_cast<real>(std::numeric_limits<T>::min());
    const real room = g >= e.x ? e.hi - e.x : e.x - e.lo;
    if (normal && room > 0) st.worst_fraction = std::max(st.worst_fraction, err / room);
    if (softmax_n != 0 && normal) {
      const real unit = (static_cast<real>(softmax_n) + 4) * fp<T>::eps * std::fabs(e.x);
      st.worst_softmax_units = std::max(st.worst_softmax_units, err / unit);
    }
  }
  if (ok) return;
  ++st.failed;
  const std::string flags = flag_names(e.flags);
  std::ostringstream sig;
  sig << fn << ": expected " << kind_text(e) << ", got " << value_text(got)
      << (flags.empty() ? std::string{} : " [" + flags + "]");
  ++rep.failure_signatures[sig.str()];
  if (rep.failures.size() < rep.max_failures_kept) {
    std::ostringstream os;
    os.precision(std::numeric_limits<T>::max_digits10);
    os << rep.label << ": " << fn << " " << context() << ": element (" << i << ", " << j << ") is " << got
       << ", expected " << kind_text(e);
    if (e.k == kind::finite)
      os << " in [" << static_cast<double>(e.lo) << ", " << static_cast<double>(e.hi) << "] (exact "
         << static_cast<double>(e.x) << ")";
    if (!flags.empty()) os << " [class " << flags << "]";
    rep.failures.push_back(os.str());
  }
}

// ---------------------------------------------------------------------------------------------
// Single-head functions
// ---------------------------------------------------------------------------------------------

/// The reference scores of q and k under the options: (q_i·k_j)/√d_k, or (q_i·k_j)·factor with a
/// scale, plus the bias, then -inf where a mask forbids the key (docs/numerics.md, "Masks").
template <class T, std::size_t L, std::size_t S>
bound score_of(const bound* q_row, const bound* k_row, std::size_t dk, const score_options<T, L, S>& o, std::size_t i,
               std::size_t j) {
  bound s = dot<T>(q_row, 1, k_row, 1, dk);
  s = o.has_scale() ? mul<T>(s, exact<T>(o.factor)) : divide_by_root<T>(s, dk);
  if (o.has_bias()) s = add<T>(s, exact<T>(o.bias(i, j)));
  if (!o.allowed(i, j)) s = special(kind::neg_inf);
  return s;
}

/// For a row of finite scores (some may be -inf), the documented agreement of softmax_rows:
/// within (n + 4) ε relative plus two subnormal spacings of the exact weights of the differences
/// x - max as T rounds them (docs/performance.md). Tighter than the interval of softmax_row,
/// which also allows for that rounding; rows with NaN or +inf keep their exact special weights.
template <class T>
void tighten_to_documented_agreement(const T* x, std::vector<bound>& w) {
  const std::size_t S = w.size();
  T top = -std::numeric_limits<T>::infinity();
  for (std::size_t j = 0; j < S; ++j) {
    if (std::isnan(x[j]) || x[j] == std::numeric_limits<T>::infinity()) return;
    top = std::max(top, x[j]);
  }
  if (top == -std::numeric_limits<T>::infinity()) return;  // fully masked: exactly 0 already
  std::vector<real> e(S);
  real sum = 0;
  for (std::size_t j = 0; j < S; ++j) {
    const T d = x[j] - top;  // rounded in T, as the kernel rounds it
    e[j] = std::exp(static_cast<real>(d));
    sum += e[j];
  }
  for (std::size_t j = 0; j < S; ++j) {
    if (x[j] == -std::numeric_limits<T>::infinity()) continue;  // masked: exactly 0 already
    const real exact_w = e[j] / sum;
    const real tol = (static_cast<real>(S) + 4) * fp<T>::eps * exact_w + 2 * fp<T>::tiny;
    w[j].x = exact_w;
    w[j].lo = exact_w - tol;
    w[j].hi = exact_w + tol;
  }
}

/// Input mixes and options of one single-head case.
struct single_head_setup {
  unsigned fn = 0;
  unsigned mq = ordinary, mk = ordinary, mv = ordinary;
  bool poisoned = false;
};

inline const char* const single_head_names[] = {"matmul", "softmax_rows", "attention_scores", "attention_weights",
                                                "scaled_dot_product_attention"};

template <class T, std::size_t L, std::size_t S, std::size_t DK, std::size_t DV>
void single_head(source& src, report& rep, focus f) {
  single_head_setup c;
  score_options<T, L, S> o;
  if (f == focus::masked_nonfinite) {
    c.fn = 4;
    o.draw(src, src.below(2) == 0 ? padding_causal : everything_lower_right);
  } else {
    c.fn = static_cast<unsigned>(src.below(5));
    c.mq = static_cast<unsigned>(src.below(mix_count));
    c.mk = static_cast<unsigned>(src.below(mix_count));
    c.mv = static_cast<unsigned>(src.below(mix_count));
    o.draw(src, static_cast<unsigned>(src.below(pack_count)));
  }
  const std::string fn = std::string(single_head_names[c.fn]) + "<" + type_name<T> + ">";
  function_stats& st = rep.stats[fn];
  ++st.calls;
  const auto context = [&] {
    std::ostringstream os;
    os << "L=" << L << " S=" << S << " d_k=" << DK << " d_v=" << DV << ", inputs " << mix_names[c.mq] << "/"
       << mix_names[c.mk] << "/" << mix_names[c.mv] << (c.poisoned ? " with non-finite masked values" : "") << ", "
       << o.describe();
    return os.str();
  };

  if (c.fn == 0) {  // matmul: L x S times S x DV, k increasing
    cxmat::matrix<T, L, S> a{};
    cxmat::matrix<T, S, DV> b{};
    fill(a, src, c.mq);
    fill(b, src, c.mv);
    const auto got = cxmat::matmul(a, b);
    const bound_matrix ref = matmul<T>(exact_matrix<T>(a), exact_matrix<T>(b));
    for (std::size_t i = 0; i < L; ++i) {
      for (std::size_t j = 0; j < DV; ++j) check(rep, st, fn, got(i, j), ref(i, j), i, j, context);
    }
    return;
  }
  if (c.fn == 1) {  // softmax_rows of scores with the options' masks as -inf entries
    cxmat::matrix<T, L, S> x{};
    fill(x, src, c.mq);
    for (std::size_t i = 0; i < L; ++i) {
      for (std::size_t j = 0; j < S; ++j) {
        if (!o.allowed(i, j)) x(i, j) = -std::numeric_limits<T>::infinity();
      }
    }
    const auto got = cxmat::softmax_rows(x);
    std::vector<bool> zero_possible;
    std::vector<bool> masked;
    for (std::size_t i = 0; i < L; ++i) {
      std::vector<bound> row(S);
      for (std::size_t j = 0; j < S; ++j) row[j] = exact<T>(x(i, j));
      std::vector<bound> w = softmax_row<T>(row, zero_possible, masked);
      tighten_to_documented_agreement(&x(i, 0), w);
      for (std::size_t j = 0; j < S; ++j) check(rep, st, fn, got(i, j), w[j], i, j, context, S);
    }
    return;
  }

  cxmat::matrix<T, L, DK> q{};
  cxmat::matrix<T, S, DK> k{};
  cxmat::matrix<T, S, DV> v{};
  fill(q, src, c.mq);
  fill(k, src, c.mk);
  fill(v, src, c.mv);
  if (f == focus::masked_nonfinite) {
    // Non-finite values in keys that some query may not see.
    for (std::size_t j = 0; j < S; ++j) {
      bool masked_somewhere = false;
      for (std::size_t i = 0; i < L; ++i) masked_somewhere = masked_somewhere || !o.allowed(i, j);
      if (!masked_somewhere || src.byte() >= 160) continue;
      const T specials[] = {std::numeric_limits<T>::infinity(), -std::numeric_limits<T>::infinity(),
                            std::numeric_limits<T>::quiet_NaN()};
      for (std::size_t col = 0; col < DV; ++col) {
        if (src.byte() < 128) v(j, col) = specials[src.below(3)];
      }
      c.poisoned = true;
    }
  }
  const bound_matrix qb = exact_matrix<T>(q);
  const bound_matrix kb = exact_matrix<T>(k);
  const bound_matrix vb = exact_matrix<T>(v);
  std::vector<bound> row(S);
  std::vector<bool> zero_possible;
  std::vector<bool> masked;

  if (c.fn == 2) {
    cxmat::matrix<T, L, S> got{};
    o.apply([&](const auto&... opts) { got = cxmat::attention_scores(q, k, opts...); });
    for (std::size_t i = 0; i < L; ++i) {
      for (std::size_t j = 0; j < S; ++j)
        check(rep, st, fn, got(i, j), score_of(&qb(i, 0), &kb(j, 0), DK, o, i, j), i, j, context);
    }
  } else if (c.fn == 3) {
    cxmat::matrix<T, L, S> got{};
    o.apply([&](const auto&... opts) { got = cxmat::attention_weights(q, k, opts...); });
    for (std::size_t i = 0; i < L; ++i) {
      for (std::size_t j = 0; j < S; ++j) row[j] = score_of(&qb(i, 0), &kb(j, 0), DK, o, i, j);
      const std::vector<bound> w = softmax_row<T>(row, zero_possible, masked);
      for (std::size_t j = 0; j < S; ++j) check(rep, st, fn, got(i, j), w[j], i, j, context);
    }
  } else {
    cxmat::matrix<T, L, DV> got{};
    o.apply([&](const auto&... opts) { got = cxmat::scaled_dot_product_attention(q, k, v, opts...); });
    for (std::size_t i = 0; i < L; ++i) {
      for (std::size_t j = 0; j < S; ++j) row[j] = score_of(&qb(i, 0), &kb(j, 0), DK, o, i, j);
      const std::vector<bound> w = softmax_row<T>(row, zero_possible, masked);
      for (std::size_t col = 0; col < DV; ++col) {
        check(rep, st, fn, got(i, col), weighted_sum<T>(w, zero_possible, masked, &vb(0, col), DV), i, col, context);
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Multi-head self-attention in block form, with and without W_o
// ---------------------------------------------------------------------------------------------

template <class T, std::size_t N, std::size_t DM, std::size_t H, std::size_t DKH, std::size_t DVH, std::size_t DO>
void multi_head(source& src, report& rep) {
  const bool with_wo = (src.byte() & 1U) != 0;
  const unsigned mx = static_cast<unsigned>(src.below(mix_count));
  const unsigned mw = static_cast<unsigned>(src.below(mix_count));
  score_options<T, N, N> o;
  o.draw(src, static_cast<unsigned>(src.below(pack_count)));
  const std::string fn =
      std::string(with_wo ? "multi_head_attention+W_o" : "multi_head_attention") + "<" + type_name<T> + ">";
  function_stats& st = rep.stats[fn];
  ++st.calls;
  const auto context = [&] {
    std::ostringstream os;
    os << "n=" << N << " d_model=" << DM << " H=" << H << " d_k=" << DKH << " d_v=" << DVH << " d_out=" << DO
       << ", inputs " << mix_names[mx] << ", weights " << mix_names[mw] << ", " << o.describe();
    return os.str();
  };
  cxmat::matrix<T, N, DM> x{};
  cxmat::matrix<T, DM, H * DKH> wq{};
  cxmat::matrix<T, DM, H * DKH> wk{};
  cxmat::matrix<T, DM, H * DVH> wv{};
  cxmat::matrix<T, H * DVH, DO> wo{};
  fill(x, src, mx);
  fill(wq, src, mw);
  fill(wk, src, mw);
  fill(wv, src, mw);
  fill(wo, src, mw);

  // Reference: the projections in T, then each head on its column blocks, side by side.
  const bound_matrix xb = exact_matrix<T>(x);
  const bound_matrix qb = matmul<T>(xb, exact_matrix<T>(wq));
  const bound_matrix kb = matmul<T>(xb, exact_matrix<T>(wk));
  const bound_matrix vb = matmul<T>(xb, exact_matrix<T>(wv));
  bound_matrix heads(N, H * DVH);
  std::vector<bound> row(N);
  std::vector<bool> zero_possible;
  std::vector<bool> masked;
  for (std::size_t h = 0; h < H; ++h) {
    for (std::size_t i = 0; i < N; ++i) {
      for (std::size_t j = 0; j < N; ++j) row[j] = score_of(&qb(i, h * DKH), &kb(j, h * DKH), DKH, o, i, j);
      const std::vector<bound> w = softmax_row<T>(row, zero_possible, masked);
      for (std::size_t col = 0; col < DVH; ++col) {
        heads(i, h * DVH + col) = weighted_sum<T>(w, zero_possible, masked, &vb(0, h * DVH + col), H * DVH);
      }
    }
  }
  if (with_wo) {
    cxmat::matrix<T, N, DO> got{};
    o.apply([&](const auto&... opts) { got = cxmat::multi_head_attention<H>(x, wq, wk, wv, wo, opts...); });
    const bound_matrix ref = matmul<T>(heads, exact_matrix<T>(wo));
    for (std::size_t i = 0; i < N; ++i) {
      for (std::size_t j = 0; j < DO; ++j) check(rep, st, fn, got(i, j), ref(i, j), i, j, context);
    }
  } else {
    cxmat::matrix<T, N, H * DVH> got{};
    o.apply([&](const auto&... opts) { got = cxmat::multi_head_attention<H>(x, wq, wk, wv, opts...); });
    for (std::size_t i = 0; i < N; ++i) {
      for (std::size_t j = 0; j < H * DVH; ++j) check(rep, st, fn, got(i, j), heads(i, j), i, j, context);
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Shapes
// ---------------------------------------------------------------------------------------------

/// Runs one case of scalar type T: a single-head function (L, S, d_k, d_v over odd sizes, one
/// even shape, and lengths past two packets) or multi-head attention. Every shape is one more
/// instantiation of every function; the kernel tests (runtime_tests/kernels) cover the blocking
/// and tails of every size class, the fuzz covers values and options through the public API.
template <class T>
void run_typed_case(source& src, report& rep, focus f) {
  using single_fn = void (*)(source&, report&, focus);
  static constexpr single_fn single_shapes[] = {
      &single_head<T, 1, 1, 1, 1>,   &single_head<T, 1, 3, 5, 7>,   &single_head<T, 3, 5, 7, 1>,
      &single_head<T, 7, 1, 3, 5>,   &single_head<T, 17, 17, 5, 3>, &single_head<T, 3, 33, 17, 5>,
      &single_head<T, 33, 7, 3, 17>, &single_head<T, 8, 16, 4, 2>,  &single_head<T, 17, 33, 33, 7>,
  };
  using multi_fn = void (*)(source&, report&);
  static constexpr multi_fn multi_shapes[] = {
      &multi_head<T, 1, 1, 1, 1, 1, 1>,  &multi_head<T, 3, 5, 3, 1, 2, 5>,   &multi_head<T, 7, 4, 2, 5, 3, 7>,
      &multi_head<T, 17, 6, 2, 3, 4, 3>, &multi_head<T, 33, 5, 1, 17, 3, 2>,
  };
  constexpr std::size_t n_single = sizeof(single_shapes) / sizeof(single_shapes[0]);
  constexpr std::size_t n_multi = sizeof(multi_shapes) / sizeof(multi_shapes[0]);
  const std::size_t pick = src.below(f == focus::any ? n_single + n_multi : n_single);
  if (pick < n_single) {
    single_shapes[pick](src, rep, f);
  } else {
    multi_shapes[pick - n_single](src, rep);
  }
}

}  // namespace cxmat_fuzz
