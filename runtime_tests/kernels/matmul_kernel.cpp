// The matrix product at run time (the blocked vector kernel for float and double, loops for
// other types and without packets) against a plain-loop reference in long double and against
// the same product computed by the constant evaluator, over shapes that reach every tail of the
// blocking: rows beyond the last block of rows, columns beyond the last panel, narrower packets,
// single columns; and integer products, which accumulate in accumulator_t<T> in every form.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <type_traits>

#include <cxmat/core/matrix.hpp>
#include <cxmat/ops/arithmetic.hpp>

#include "kernel_support.hpp"
#include "test_support/catch.hpp"

namespace {

using kernel_test::at_run_time;
using kernel_test::generated;

template <std::size_t M, std::size_t K, std::size_t N>
struct shape {
  static constexpr std::size_t m = M, k = K, n = N;
};

// Largest |c - exact| / (K ε Σ_k |a_ik b_kj|) over the elements: at most 1 whatever the order of
// the sum and whether multiply-adds are fused (each of the K roundings is below ε/2 of a partial
// sum bounded by Σ |a b|). A wrong element (index, tail, packet) gives an error of order 1 / ε.
template <class A, class B, class C>
long double error_ratio(const A& a, const B& b, const C& c) {
  using T = typename A::value_type;
  constexpr std::size_t M = A::rows, K = A::cols, N = B::cols;
  long double worst = 0.0L;
  for (std::size_t i = 0; i < M; ++i) {
    for (std::size_t j = 0; j < N; ++j) {
      long double exact = 0.0L;
      long double magnitude = 0.0L;
      for (std::size_t k = 0; k < K; ++k) {
        const long double p = static_cast<long double>(a(i, k)) * static_cast<long double>(b(k, j));
        exact += p;
        magnitude += std::fabs(p);
      }
      const long double bound = static_cast<long double>(K) * kernel_test::eps<T> * magnitude;
      const long double err = std::fabs(static_cast<long double>(c(i, j)) - exact);
      if (err > 0.0L) worst = std::fmax(worst, bound > 0.0L ? err / bound : 1e30L);
    }
  }
  return worst;
}

template <class T, std::size_t M, std::size_t K, std::size_t N>
void check_run_time_product(std::uint64_t seed) {
  const auto a = at_run_time(generated<cxmat::matrix<T, M, K>>(seed));
  const auto b = at_run_time(generated<cxmat::matrix<T, K, N>>(seed + 1));
  const auto c = cxmat::matmul(a, b);
  INFO("M = " << M << ", K = " << K << ", N = " << N);
  CHECK(error_ratio(a, b, c) <= 1.0L);
}

// The constant evaluator's product of the same generated inputs.
template <class T, std::size_t M, std::size_t K, std::size_t N>
constexpr cxmat::matrix<T, M, N> product_at_compile_time(std::uint64_t seed) {
  return cxmat::matmul(generated<cxmat::matrix<T, M, K>>(seed), generated<cxmat::matrix<T, K, N>>(seed + 1));
}

template <class T, std::size_t M, std::size_t K, std::size_t N, std::uint64_t Seed>
void check_paths_agree() {
  constexpr auto at_compile_time = product_at_compile_time<T, M, K, N>(Seed);
  const auto a = at_run_time(generated<cxmat::matrix<T, M, K>>(Seed));
  const auto b = at_run_time(generated<cxmat::matrix<T, K, N>>(Seed + 1));
  const auto at_run_time = cxmat::matmul(a, b);
  INFO("M = " << M << ", K = " << K << ", N = " << N);
  // Both sum over k in increasing order; they may differ only where the run-time kernel fuses a
  // multiply-add, and then each is within K ε Σ|ab| / 2 of the exact value.
  CHECK(error_ratio(a, b, at_compile_time) <= 1.0L);
  CHECK(error_ratio(a, b, at_run_time) <= 1.0L);
  if constexpr (!kernel_test::may_fuse) CHECK(at_run_time == at_compile_time);
}

// An integer product at run time against the same product computed by the constant evaluator
// and against a sum in long long: integers have no run-time kernels, so run time takes the loops
// (or, with CXMAT_RUNTIME_KERNELS=0, the folds), which must accumulate in accumulator_t<T> too.
// Elements span T's range, so the sums lie far outside T.
template <class T, std::size_t M, std::size_t K, std::size_t N, std::uint64_t Seed>
void check_integer_paths_agree() {
  constexpr double scale = static_cast<double>(std::numeric_limits<T>::max());
  constexpr auto at_compile_time =
      cxmat::matmul(generated<cxmat::matrix<T, M, K>>(Seed, scale), generated<cxmat::matrix<T, K, N>>(Seed + 1, scale));
  const auto a = at_run_time(generated<cxmat::matrix<T, M, K>>(Seed, scale));
  const auto b = at_run_time(generated<cxmat::matrix<T, K, N>>(Seed + 1, scale));
  const auto at_run_time = cxmat::matmul(a, b);
  static_assert(std::is_same_v<typename decltype(at_run_time)::value_type, cxmat::accumulator_t<T>>);
  INFO("M = " << M << ", K = " << K << ", N = " << N);
  CHECK(at_run_time == at_compile_time);
  bool exact = true;
  for (std::size_t i = 0; i < M; ++i) {
    for (std::size_t j = 0; j < N; ++j) {
      long long sum = 0;
      for (std::size_t k = 0; k < K; ++k) sum += static_cast<long long>(a(i, k)) * static_cast<long long>(b(k, j));
      exact = exact && static_cast<long long>(at_run_time(i, j)) == sum;
    }
  }
  CHECK(exact);
}

}  // namespace

TEST_CASE("integer matmul accumulates in accumulator_t at run time as at compile time", "[kernels][matmul]") {
  check_integer_paths_agree<std::int8_t, 5, 33, 7, 21>();
  check_integer_paths_agree<std::int8_t, 1, 1, 1, 22>();
  check_integer_paths_agree<std::int16_t, 4, 9, 6, 23>();
  check_integer_paths_agree<std::int32_t, 3, 2, 4, 24>();  // two full-scale int32 terms fit int64
}

TEMPLATE_TEST_CASE("run-time matmul is within K eps sum|ab| of the exact product", "[kernels][matmul]",
                   (shape<1, 1, 1>), (shape<1, 7, 3>), (shape<2, 5, 4>), (shape<3, 2, 7>), (shape<5, 6, 6>),
                   (shape<7, 16, 8>), (shape<8, 3, 12>), (shape<9, 9, 15>), (shape<6, 33, 16>), (shape<13, 8, 17>),
                   (shape<16, 64, 31>), (shape<17, 5, 32>), (shape<8, 17, 33>), (shape<11, 12, 47>),
                   (shape<24, 16, 48>), (shape<5, 128, 50>), (shape<19, 7, 64>), (shape<33, 31, 65>),
                   (shape<64, 64, 64>), (shape<3, 100, 100>), (shape<128, 128, 128>)) {
  using S = TestType;
  const std::uint64_t seed = 1000 * S::m + 100 * S::k + S::n;
  SECTION("float") { check_run_time_product<float, S::m, S::k, S::n>(seed); }
  SECTION("double") { check_run_time_product<double, S::m, S::k, S::n>(seed); }
  SECTION("long double (plain loops at run time too)") { check_run_time_product<long double, S::m, S::k, S::n>(seed); }
}

TEST_CASE("run-time and compile-time matmul agree (bit for bit where nothing is fused)", "[kernels][matmul]") {
  check_paths_agree<float, 1, 1, 1, 11>();
  check_paths_agree<float, 5, 6, 6, 12>();
  check_paths_agree<float, 9, 17, 33, 13>();
  check_paths_agree<float, 17, 16, 20, 14>();
  check_paths_agree<double, 3, 4, 5, 15>();
  check_paths_agree<double, 8, 9, 16, 16>();
  check_paths_agree<double, 13, 24, 19, 17>();
  check_paths_agree<double, 16, 32, 32, 18>();
}
