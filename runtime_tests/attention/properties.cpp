// Properties of attention on generated inputs over many shapes, each compared with an
// independent plain-loop reference (test_support/reference.hpp, std::exp) or with another form of
// the same computation.
#include <cmath>
#include <cstddef>
#include <random>
#include <utility>

#include <boost/hana/range.hpp>
#include <boost/hana/transform.hpp>
#include <boost/hana/unpack.hpp>

#include <cxmat/cxmat.hpp>

#include "test_support/catch.hpp"
#include "test_support/random.hpp"
#include "test_support/reference.hpp"

namespace {

// One test shape: L tokens of width D, H heads of width D / H, an output projection to DO.
template <std::size_t L, std::size_t D, std::size_t H, std::size_t DO>
struct layer_shape {
  static constexpr std::size_t tokens = L, width = D, heads = H, out = DO;
  using input = cxmat::matrix<double, L, D>;
  using projection = cxmat::matrix<double, D, D>;
  using output_projection = cxmat::matrix<double, D, DO>;
};

// Error bound against the reference, relative to max(|ref|, 1): a few ulps per accumulated term
// of sums of at most a few dozen terms; 1e-12 leaves room for different summation order.
constexpr double reference_tolerance = 1e-12;
constexpr int draws_per_shape = 25;

}  // namespace

TEMPLATE_TEST_CASE("multi-head attention properties on random inputs", "[property]", (layer_shape<1, 1, 1, 1>),
                   (layer_shape<2, 4, 2, 3>), (layer_shape<3, 6, 3, 6>), (layer_shape<5, 6, 3, 4>),
                   (layer_shape<7, 8, 4, 2>), (layer_shape<4, 12, 6, 5>), (layer_shape<9, 10, 5, 10>),
                   (layer_shape<16, 16, 4, 8>), (layer_shape<24, 32, 8, 16>)) {
  using S = TestType;
  constexpr std::size_t H = S::heads;
  std::mt19937_64 rng(0xC0FFEE + S::tokens * 131 + S::width * 7 + H);
  for (int draw = 0; draw < draws_per_shape; ++draw) {
    const auto X = cxmat_test::random_matrix<typename S::input>(rng, -2.0, 2.0);
    const auto Wq = cxmat_test::random_matrix<typename S::projection>(rng);
    const auto Wk = cxmat_test::random_matrix<typename S::projection>(rng);
    const auto Wv = cxmat_test::random_matrix<typename S::projection>(rng);
    const auto Wo = cxmat_test::random_matrix<typename S::output_projection>(rng);
    const auto result = cxmat::multi_head_attention_with_weights<H>(X, Wq, Wk, Wv);

    // Every weight row is a probability distribution.
    for (std::size_t h = 0; h < H; ++h) {
      for (std::size_t i = 0; i < S::tokens; ++i) {
        double sum = 0.0;
        for (std::size_t j = 0; j < S::tokens; ++j) {
          CHECK(result.weights(h, i, j) >= 0.0);
          sum += result.weights(h, i, j);
        }
        CHECK(std::abs(sum - 1.0) <= 1e-14 * static_cast<double>(S::tokens));
      }
    }

    // Equal to the independent reference.
    namespace ref = cxmat_test::reference;
    const auto expected =
        ref::multi_head(ref::matmul(ref::from(X), ref::from(Wq)), ref::matmul(ref::from(X), ref::from(Wk)),
                        ref::matmul(ref::from(X), ref::from(Wv)), H);
    CHECK(ref::max_relative_error(result.output, expected) <= reference_tolerance);
    const auto projected = cxmat::multi_head_attention<H>(X, Wq, Wk, Wv, Wo);
    CHECK(ref::max_relative_error(projected, ref::matmul(expected, ref::from(Wo))) <= reference_tolerance);

    // Block form equals per-head form (bit for bit: the same sums in the same order).
    const auto qb = cxmat::split_columns<H>(Wq);
    const auto kb = cxmat::split_columns<H>(Wk);
    const auto vb = cxmat::split_columns<H>(Wv);
    const auto heads =
        boost::hana::unpack(boost::hana::make_range(boost::hana::size_c<0>, boost::hana::size_c<H>), [&](auto... h) {
          return cxmat::make_heads(cxmat::attention_head{qb[h], kb[h], vb[h]}...);
        });
    CHECK(cxmat::multi_head_attention(X, heads) == result.output);
    CHECK(cxmat::multi_head_attention(X, heads, Wo) == projected);

    // One head is plain self-attention.
    CHECK(cxmat::multi_head_attention<1>(X, Wq, Wk, Wv) == cxmat::self_attention(X, Wq, Wk, Wv));

    // Permuting the tokens permutes the output rows (equivariance), up to summation order.
    const auto p = cxmat_test::random_permutation<S::tokens>(rng);
    const auto permuted = cxmat::multi_head_attention<H>(cxmat_test::permuted_rows(X, p), Wq, Wk, Wv);
    CHECK(cxmat::approx_equal(permuted, cxmat_test::permuted_rows(result.output, p), 1e-12, 1e-14));
  }
}

TEMPLATE_TEST_CASE("cross-attention with L != S and d_k != d_v matches the reference", "[property]",
                   (std::integer_sequence<std::size_t, 1, 7, 3, 2>), (std::integer_sequence<std::size_t, 4, 9, 5, 3>),
                   (std::integer_sequence<std::size_t, 8, 3, 2, 6>),
                   (std::integer_sequence<std::size_t, 16, 32, 8, 4>)) {
  constexpr auto dims = []<std::size_t... N>(std::integer_sequence<std::size_t, N...>) {
    return std::array<std::size_t, 4>{N...};
  }
  (TestType{});
  constexpr std::size_t L = dims[0], S = dims[1], DK = dims[2], DV = dims[3];
  std::mt19937_64 rng(L * 1000 + S);
  for (int draw = 0; draw < draws_per_shape; ++draw) {
    const auto q = cxmat_test::random_matrix<cxmat::matrix<double, L, DK>>(rng, -3.0, 3.0);
    const auto k = cxmat_test::random_matrix<cxmat::matrix<double, S, DK>>(rng, -3.0, 3.0);
    const auto v = cxmat_test::random_matrix<cxmat::matrix<double, S, DV>>(rng);
    namespace ref = cxmat_test::reference;
    const auto expected = ref::matmul(ref::weights(ref::from(q), ref::from(k)), ref::from(v));
    CHECK(ref::max_relative_error(cxmat::scaled_dot_product_attention(q, k, v), expected) <= reference_tolerance);
    CHECK(ref::max_relative_error(cxmat::attention_weights(q, k), ref::weights(ref::from(q), ref::from(k))) <=
          reference_tolerance);
  }
}
