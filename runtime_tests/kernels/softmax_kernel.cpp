// Softmax at run time (packets of exp_nonpositive, lane-wise partial sums) against a long-double
// reference, against the constant-evaluation path, and against itself: the row and block forms,
// padded and unpadded rows, packets and single values. Row lengths straddle the packet widths
// (4, 8, 16 lanes) so that both the whole-packet part and the tail of a row are exercised.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include <cxmat/core/matrix.hpp>
#include <cxmat/ops/softmax.hpp>

#include "kernel_support.hpp"
#include "test_support/catch.hpp"

namespace {

using kernel_test::at_run_time;
using kernel_test::generated;

// Longer than a packet of any width, with a tail for every width.
constexpr std::size_t long_row = 37;

constexpr std::size_t lengths[] = {1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 100, 128, 129};

// A row of n scores uniform in [-scale, scale], every `masked_every`-th one -inf (0: none).
template <class T>
std::vector<T> scores(std::mt19937_64& rng, std::size_t n, double scale, std::size_t masked_every) {
  std::uniform_real_distribution<double> dist(-scale, scale);
  std::vector<T> row(n);
  for (std::size_t j = 0; j < n; ++j) {
    row[j] =
        (masked_every != 0 && j % masked_every == 1) ? -std::numeric_limits<T>::infinity() : static_cast<T>(dist(rng));
  }
  return row;
}

template <class T>
void check_against_reference() {
  std::mt19937_64 rng(sizeof(T));
  for (const std::size_t n : lengths) {
    for (const double scale : {1.0, 30.0, 300.0}) {
      for (const std::size_t masked_every : {std::size_t{0}, std::size_t{3}}) {
        const std::vector<T> x = scores<T>(rng, n, scale, masked_every);
        std::vector<long double> xl(x.begin(), x.end());
        std::vector<long double> exact(n);
        kernel_test::reference_softmax(xl.data(), exact.data(), n);
        std::vector<T> w = x;
        cxmat::detail::softmax_row(w.data(), n);
        long double max = -std::numeric_limits<long double>::infinity();
        for (const long double v : xl) max = std::fmax(max, v);
        for (std::size_t j = 0; j < n; ++j) {
          INFO("n = " << n << ", scale = " << scale << ", j = " << j << ", x = " << x[j] << ", weight " << w[j]
                      << ", exact " << static_cast<double>(exact[j]));
          CHECK(kernel_test::close_to_exact(w[j], exact[j], n, xl[j] - max));
        }
      }
    }
  }
}

// softmax_rows of generated scores, evaluated by the compiler.
template <class T, std::size_t R, std::size_t C>
constexpr cxmat::matrix<T, R, C> softmax_at_compile_time(std::uint64_t seed, double scale) {
  return cxmat::softmax_rows(generated<cxmat::matrix<T, R, C>>(seed, scale));
}

template <class T, std::size_t R, std::size_t C, std::uint64_t Seed, int Scale>
void check_paths_agree() {
  constexpr auto at_compile_time = softmax_at_compile_time<T, R, C>(Seed, Scale);
  const auto at_run = cxmat::softmax_rows(at_run_time(generated<cxmat::matrix<T, R, C>>(Seed, Scale)));
  for (std::size_t i = 0; i < R; ++i) {
    for (std::size_t j = 0; j < C; ++j) {
      INFO("C = " << C << ", scale " << Scale << ", (" << i << ", " << j << "): run time " << at_run(i, j)
                  << ", compile time " << at_compile_time(i, j));
      CHECK(kernel_test::paths_agree(at_run(i, j), at_compile_time(i, j), C));
    }
  }
}

// The row path (softmax_row_runtime) on each row of a copy of w.
template <class T, std::size_t M, std::size_t S>
void rows_one_by_one(T (&w)[M][S]) {
  for (std::size_t r = 0; r < M; ++r) {
    cxmat::detail::softmax_row_runtime(w[r], S, cxmat::detail::exp_zero_bound<T>());
  }
}

template <class T, std::size_t M, std::size_t S>
void check_block_equals_rows(std::uint64_t seed, bool with_special_row) {
  auto w = generated<cxmat::matrix<T, M, S>>(seed, 40.0);
  for (std::size_t r = 0; r < M; ++r) {
    if (S > 1) w(r, (r + 1) % S) = -std::numeric_limits<T>::infinity();  // some masked keys
  }
  if (with_special_row) {
    for (std::size_t j = 0; j < S; ++j) w(M / 2, j) = -std::numeric_limits<T>::infinity();
  }
  auto block = w;
  auto rows = w;
  cxmat::detail::softmax_rows_runtime(block.elems, cxmat::detail::exp_zero_bound<T>());
  rows_one_by_one(rows.elems);
  INFO("M = " << M << ", S = " << S << (with_special_row ? ", with a fully masked row" : ""));
  CHECK(block == rows);
}

template <class T>
void check_special_rules_on_long_rows() {
  using limits = std::numeric_limits<T>;
  constexpr std::size_t n = long_row;
  const T inf = limits::infinity();
  const auto base = [] {
    std::vector<T> row(long_row);
    for (std::size_t j = 0; j < long_row; ++j) row[j] = static_cast<T>(j % 7) - T(3);
    return row;
  };
  const auto run = [](std::vector<T> row) {
    cxmat::detail::softmax_row(row.data(), row.size());
    return row;
  };
  for (const std::size_t at : {std::size_t{2}, std::size_t{20}, std::size_t{36}}) {
    INFO("special entry at " << at);
    auto nan_row = base();
    nan_row[at] = limits::quiet_NaN();
    for (const T w : run(nan_row)) CHECK(std::isnan(w));

    auto nan_and_inf = base();
    nan_and_inf[at] = limits::quiet_NaN();
    nan_and_inf[(at + 5) % n] = inf;
    for (const T w : run(nan_and_inf)) CHECK(std::isnan(w));

    auto two_inf = base();
    two_inf[at] = inf;
    two_inf[(at + 11) % n] = inf;
    const auto shared = run(two_inf);
    for (std::size_t j = 0; j < n; ++j) CHECK(shared[j] == ((j == at || j == (at + 11) % n) ? T(0.5) : T(0)));

    auto masked_but_one = std::vector<T>(n, -inf);
    masked_but_one[at] = T(12345);
    const auto one_hot = run(masked_but_one);
    for (std::size_t j = 0; j < n; ++j) CHECK(one_hot[j] == (j == at ? T(1) : T(0)));

    auto nan_among_masked = std::vector<T>(n, -inf);
    nan_among_masked[at] = limits::quiet_NaN();
    for (const T w : run(nan_among_masked)) CHECK(std::isnan(w));
  }
  for (const T w : run(std::vector<T>(n, -inf))) CHECK(w == T(0));
  // Far below the maximum is exactly 0, and x - max overflowing to -inf is harmless.
  auto spread = base();
  spread[4] = limits::max();
  spread[30] = limits::lowest();
  const auto far = run(spread);
  for (std::size_t j = 0; j < n; ++j) CHECK(far[j] == (j == 4 ? T(1) : T(0)));
}

template <class T>
void check_padding_leaves_bits_unchanged() {
  std::mt19937_64 rng(7 + sizeof(T));
  for (const std::size_t n : lengths) {
    for (const std::size_t pad : {std::size_t{1}, std::size_t{3}, std::size_t{16}, std::size_t{33}}) {
      const std::vector<T> x = scores<T>(rng, n, 20.0, 0);
      std::vector<T> plain = x;
      std::vector<T> padded = x;
      padded.resize(n + pad, -std::numeric_limits<T>::infinity());
      cxmat::detail::softmax_row(plain.data(), plain.size());
      cxmat::detail::softmax_row(padded.data(), padded.size());
      INFO("n = " << n << ", padded by " << pad);
      for (std::size_t j = 0; j < n; ++j) CHECK(padded[j] == plain[j]);
      for (std::size_t j = n; j < n + pad; ++j) CHECK(padded[j] == T(0));
    }
  }
}

template <class T>
void check_exp_kernel() {
  using P = cxmat::detail::softmax_packet<T>;
  constexpr std::size_t lanes = cxmat::detail::packet_traits<P>::lanes;
  const T lowest = cxmat::detail::exp_zero_bound<T>() - T(2);
  std::mt19937_64 rng(3 * sizeof(T));
  std::uniform_real_distribution<double> wide(static_cast<double>(lowest), 0.0);
  std::uniform_real_distribution<double> near_zero(-1.0, 0.0);
  std::vector<T> d = {T(0),           -T(0),     -std::numeric_limits<T>::min(),
                      T(-1e-30),      T(-0.5),   T(-0.34657359),
                      T(-0.34657360), T(-1),     T(-87.3),
                      T(-88.7),       T(-100),   lowest,
                      T(-708.3),      T(-709.8), T(-745.1)};
  for (int i = 0; i < 200000; ++i) d.push_back(static_cast<T>(i % 2 == 0 ? wide(rng) : near_zero(rng)));
  std::erase_if(d, [lowest](T x) { return x < lowest; });
  while (d.size() % lanes != 0) d.push_back(T(0));

  long double worst_ulp = 0.0L;
  for (std::size_t i = 0; i < d.size(); i += lanes) {
    P x{};
    for (std::size_t l = 0; l < lanes; ++l) cxmat::detail::set_lane(x, l, d[i + l]);
    const P e = cxmat::detail::exp_nonpositive(x);
    for (std::size_t l = 0; l < lanes; ++l) {
      const T one = cxmat::detail::exp_nonpositive(d[i + l]);
      T lane{};
      __builtin_memcpy(&lane, reinterpret_cast<const unsigned char*>(&e) + l * sizeof(T), sizeof(T));
      INFO("d = " << d[i + l]);
      CHECK(lane == one);  // a packet lane and a single value: the same bits
      const long double exact = std::exp(static_cast<long double>(d[i + l]));
      const long double err = std::fabs(static_cast<long double>(one) - exact) / kernel_test::ulp_of<T>(exact);
      worst_ulp = std::fmax(worst_ulp, err);
    }
  }
  INFO("largest error " << static_cast<double>(worst_ulp) << " ulp");
  CHECK(worst_ulp <= 1.5L);
  CHECK(cxmat::detail::exp_nonpositive(T(0)) == T(1));
  CHECK(cxmat::detail::exp_nonpositive(lowest) == T(0));
}

}  // namespace

TEST_CASE("run-time softmax is within (n + 4 + |x - max| / 2) eps of the exact weights", "[kernels][softmax]") {
  SECTION("float") { check_against_reference<float>(); }
  SECTION("double") { check_against_reference<double>(); }
}

TEST_CASE("run-time and compile-time softmax agree within (n + 4) eps", "[kernels][softmax]") {
  check_paths_agree<float, 3, 3, 21, 5>();
  check_paths_agree<float, 3, 17, 22, 30>();
  check_paths_agree<float, 2, 40, 23, 100>();
  check_paths_agree<float, 2, 64, 24, 10>();
  check_paths_agree<double, 3, 5, 25, 5>();
  check_paths_agree<double, 3, 9, 26, 30>();
  check_paths_agree<double, 2, 37, 27, 300>();
  check_paths_agree<double, 2, 64, 28, 10>();
}

TEST_CASE("the block form of run-time softmax gives the row form's bits", "[kernels][softmax]") {
  for (const bool special : {false, true}) {
    check_block_equals_rows<float, 1, 1>(1, special);
    check_block_equals_rows<float, 3, 2>(2, special);
    check_block_equals_rows<float, 5, 5>(3, special);
    check_block_equals_rows<float, 8, 7>(4, special);
    check_block_equals_rows<float, 6, 15>(5, special);
    check_block_equals_rows<float, 8, 16>(6, special);
    check_block_equals_rows<float, 7, 17>(7, special);
    check_block_equals_rows<float, 8, 40>(8, special);
    check_block_equals_rows<double, 1, 1>(9, special);
    check_block_equals_rows<double, 5, 3>(10, special);
    check_block_equals_rows<double, 6, 7>(11, special);
    check_block_equals_rows<double, 8, 8>(12, special);
    check_block_equals_rows<double, 3, 9>(13, special);
    check_block_equals_rows<double, 8, 33>(14, special);
    // More rows than one block of the short-row path (softmax_block_rows): whole blocks, then
    // the rest.
    check_block_equals_rows<float, 13, 5>(15, special);
    check_block_equals_rows<float, 24, 30>(16, special);
    check_block_equals_rows<double, 17, 6>(17, special);
    check_block_equals_rows<double, 9, 13>(18, special);
  }
}

TEST_CASE("softmax's special rules hold at run time on rows longer than a packet", "[kernels][softmax]") {
  SECTION("float") { check_special_rules_on_long_rows<float>(); }
  SECTION("double") { check_special_rules_on_long_rows<double>(); }
}

TEST_CASE("masked entries appended to a row leave its weights unchanged to the bit", "[kernels][softmax]") {
  SECTION("float") { check_padding_leaves_bits_unchanged<float>(); }
  SECTION("double") { check_padding_leaves_bits_unchanged<double>(); }
}

TEST_CASE("the run-time exp kernel: within 1.5 ulp, packets and single values alike", "[kernels][exp]") {
  SECTION("float") { check_exp_kernel<float>(); }
  SECTION("double") { check_exp_kernel<double>(); }
}
