// Masks mean removal: attention with some keys masked gives, to the bit, what attention over the
// other keys alone gives, wherever the masked keys sit (start, middle, alternating, random,
// trailing) and whatever their keys and values hold (inf, NaN, huge); a fully masked row is
// exactly +0. One check, two modes: each is a constexpr function, evaluated in a static_assert
// (the plain kernels) and at run time on opaque copies (the run-time kernels of this build's
// packet width). The reference is the same library call on the smaller key set, built here.
#include "test_support/catch.hpp"

#include <bit>
#include <cstddef>
#include <cstdint>
#include <limits>

#include <cxmat/attention/options.hpp>
#include <cxmat/attention/single_head.hpp>

#include "kernel_support.hpp"

namespace {

using cxmat::matrix;

constexpr std::size_t L = 5;       // queries
constexpr std::size_t S = 24;      // keys
constexpr std::size_t hidden = 8;  // masked keys per query
constexpr std::size_t kept = S - hidden;
constexpr std::size_t D = 8;   // d_k
constexpr std::size_t DV = 7;  // d_v: an odd width, so the value products have column tails

enum class pattern { start, middle, alternating, trailing, random };

// Which keys query i may not see: exactly `hidden` of them, placed by the pattern.
constexpr matrix<bool, L, S> allowed_keys(pattern p) {
  matrix<bool, L, S> allowed{};
  std::uint64_t state = 77;
  for (std::size_t i = 0; i < L; ++i) {
    std::size_t order[S]{};
    for (std::size_t j = 0; j < S; ++j) order[j] = j;
    for (std::size_t j = S - 1; j > 0; --j) {  // Fisher-Yates: the first `hidden` are masked
      const std::size_t r = static_cast<std::size_t>(kernel_test::next(state) % (j + 1));
      const std::size_t t = order[j];
      order[j] = order[r];
      order[r] = t;
    }
    std::size_t n_masked = 0;
    for (std::size_t j = 0; j < S; ++j) {
      bool masked = false;
      switch (p) {
        case pattern::start:
          masked = j < hidden;
          break;
        case pattern::middle:
          masked = j >= (S - hidden) / 2 && j < (S + hidden) / 2;
          break;
        case pattern::alternating:
          masked = j % 3 == i % 3;
          break;
        case pattern::trailing:
          masked = j >= kept;
          break;
        case pattern::random:
          for (std::size_t r = 0; r < hidden; ++r) masked = masked || order[r] == j;
          break;
      }
      allowed.elems[i][j] = !masked;
      n_masked += masked ? 1U : 0U;
    }
    if (n_masked != hidden) allowed.elems[i][0] = !allowed.elems[i][0];  // never: every pattern masks 8
  }
  return allowed;
}

template <class T>
constexpr bool same_bits(T a, T b) {
  if constexpr (sizeof(T) == 8) {
    return std::bit_cast<std::uint64_t>(a) == std::bit_cast<std::uint64_t>(b);
  } else {
    return std::bit_cast<std::uint32_t>(a) == std::bit_cast<std::uint32_t>(b);
  }
}

// Values (and, at run time, keys) whose masked rows hold what must not leak: inf, -inf, NaN, the
// largest value. In a constant expression an arithmetic operation whose result is NaN is not
// constant, and every key's score is computed before the mask applies, so there keys hold
// large finite values instead; values of masked keys are never read into arithmetic.
template <class T>
struct inputs {
  matrix<T, L, D> q;
  matrix<T, S, D> k;
  matrix<T, S, DV> v;
};

template <class T>
constexpr inputs<T> poisoned(const matrix<bool, L, S>& allowed, bool poison_keys) {
  constexpr T inf = std::numeric_limits<T>::infinity();
  constexpr T poison[4] = {inf, -inf, std::numeric_limits<T>::quiet_NaN(), std::numeric_limits<T>::max()};
  inputs<T> in{kernel_test::generated<matrix<T, L, D>>(1, 2.0), kernel_test::generated<matrix<T, S, D>>(2, 2.0),
               kernel_test::generated<matrix<T, S, DV>>(3)};
  // A key masked for every query may hold anything; a key seen by some query keeps its values.
  for (std::size_t j = 0; j < S; ++j) {
    bool seen = false;
    for (std::size_t i = 0; i < L; ++i) seen = seen || allowed.elems[i][j];
    if (seen) continue;
    for (std::size_t c = 0; c < D; ++c) in.k.elems[j][c] = poison_keys ? poison[(j + c) % 4] : T(1e4) * T(c % 3);
    for (std::size_t c = 0; c < DV; ++c) in.v.elems[j][c] = poison[(j + c + 1) % 4];
  }
  return in;
}

// Masked attention (output and weights) against attention over the kept keys, query by query.
template <class T>
constexpr bool masked_equals_removed(const inputs<T>& in, const matrix<bool, L, S>& allowed) {
  const auto out = cxmat::scaled_dot_product_attention(in.q, in.k, in.v, cxmat::mask(allowed));
  const auto w = cxmat::attention_weights(in.q, in.k, cxmat::mask(allowed));
  bool ok = true;
  for (std::size_t i = 0; i < L; ++i) {
    matrix<T, 1, D> qi{};
    matrix<T, kept, D> kr{};
    matrix<T, kept, DV> vr{};
    for (std::size_t c = 0; c < D; ++c) qi.elems[0][c] = in.q.elems[i][c];
    std::size_t r = 0;
    for (std::size_t j = 0; j < S && r < kept; ++j) {
      if (!allowed.elems[i][j]) continue;
      for (std::size_t c = 0; c < D; ++c) kr.elems[r][c] = in.k.elems[j][c];
      for (std::size_t c = 0; c < DV; ++c) vr.elems[r][c] = in.v.elems[j][c];
      ++r;
    }
    const auto out_r = cxmat::scaled_dot_product_attention(qi, kr, vr);
    const auto w_r = cxmat::attention_weights(qi, kr);
    for (std::size_t c = 0; c < DV; ++c) ok = ok && same_bits(out.elems[i][c], out_r.elems[0][c]);
    r = 0;
    for (std::size_t j = 0; j < S; ++j) {
      ok = ok && same_bits(w.elems[i][j], allowed.elems[i][j] ? w_r.elems[0][r++] : T(0));
    }
  }
  return ok;
}

// Every key of query 2 masked, with poisoned keys and values: its weights and output are +0.
template <class T>
constexpr bool fully_masked_row_is_zero(const inputs<T>& in, matrix<bool, L, S> allowed) {
  for (std::size_t j = 0; j < S; ++j) allowed.elems[2][j] = false;
  const auto out = cxmat::scaled_dot_product_attention(in.q, in.k, in.v, cxmat::mask(allowed));
  const auto w = cxmat::attention_weights(in.q, in.k, cxmat::mask(allowed));
  bool ok = true;
  for (std::size_t c = 0; c < DV; ++c) ok = ok && same_bits(out.elems[2][c], T(0));
  for (std::size_t j = 0; j < S; ++j) ok = ok && same_bits(w.elems[2][j], T(0));
  return ok;
}

template <class T, pattern P>
constexpr bool removal_at_compile_time() {
  constexpr auto allowed = allowed_keys(P);
  constexpr auto in = poisoned<T>(allowed, false);
  return masked_equals_removed(in, allowed) && fully_masked_row_is_zero(in, allowed);
}

static_assert(removal_at_compile_time<double, pattern::start>());
static_assert(removal_at_compile_time<double, pattern::middle>());
static_assert(removal_at_compile_time<double, pattern::alternating>());
static_assert(removal_at_compile_time<double, pattern::trailing>());
static_assert(removal_at_compile_time<double, pattern::random>());
static_assert(removal_at_compile_time<float, pattern::random>());
static_assert(removal_at_compile_time<float, pattern::alternating>());

// The patterns really mask `hidden` keys per query, and the poison really reaches the inputs.
static_assert([] {
  for (pattern p : {pattern::start, pattern::middle, pattern::alternating, pattern::trailing, pattern::random}) {
    const auto a = allowed_keys(p);
    for (std::size_t i = 0; i < L; ++i) {
      std::size_t n = 0;
      for (std::size_t j = 0; j < S; ++j) n += a.elems[i][j] ? 0U : 1U;
      if (n != hidden) return false;
    }
  }
  const auto in = poisoned<double>(allowed_keys(pattern::start), false);
  return in.v.elems[0][0] != in.v.elems[0][0] || in.v.elems[0][0] > 1e300 || in.v.elems[0][0] < -1e300;
}());

}  // namespace

TEMPLATE_TEST_CASE("run time: a masked key contributes exactly nothing, wherever it sits", "[kernels][masks]", float,
                   double) {
  for (pattern p : {pattern::start, pattern::middle, pattern::alternating, pattern::trailing, pattern::random}) {
    CAPTURE(static_cast<int>(p));
    const auto allowed = kernel_test::at_run_time(allowed_keys(p));
    inputs<TestType> in = poisoned<TestType>(allowed_keys(p), true);
    in.q = kernel_test::at_run_time(in.q);
    in.k = kernel_test::at_run_time(in.k);
    in.v = kernel_test::at_run_time(in.v);
    CHECK(masked_equals_removed(in, allowed));
    CHECK(fully_masked_row_is_zero(in, allowed));
  }
}

TEST_CASE("run time: an attended key with an infinite value makes its outputs infinite", "[kernels][masks]") {
  constexpr auto allowed = allowed_keys(pattern::middle);
  auto in = poisoned<double>(allowed, true);
  // Key 0 is seen by every query (the middle pattern masks keys 8 to 15) with weight > 0.
  in.v.elems[0][3] = std::numeric_limits<double>::infinity();
  in.v = kernel_test::at_run_time(in.v);
  const auto out = cxmat::scaled_dot_product_attention(in.q, in.k, in.v, cxmat::mask(allowed));
  for (std::size_t i = 0; i < L; ++i) {
    CHECK(out(i, 3) == std::numeric_limits<double>::infinity());
    for (std::size_t c = 0; c < DV; ++c) {
      if (c != 3) CHECK(out(i, c) == out(i, c));  // the other columns stay finite
      if (c != 3) CHECK(out(i, c) < 1e300);
    }
  }
}
