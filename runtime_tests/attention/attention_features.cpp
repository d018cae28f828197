// Masks, causal attention and grouped-query attention on generated inputs: each property
// compares two independent formulations of the same computation.
#include <cstddef>
#include <random>

#include <cxmat/cxmat.hpp>

#include "test_support/catch.hpp"
#include "test_support/random.hpp"

namespace {

constexpr int draws = 30;

template <std::size_t L, std::size_t S, std::size_t DK, std::size_t DV>
struct sdpa_shape {
  static constexpr std::size_t l = L, s = S, dk = DK, dv = DV;
  using queries = cxmat::matrix<double, L, DK>;
  using keys = cxmat::matrix<double, S, DK>;
  using values = cxmat::matrix<double, S, DV>;
};

// Calls check(draw, q, k, v) on `draws` generated inputs of shape S. (Catch2 runs a SECTION once
// per run of its test case, so each section does its own loop over draws.)
template <class S, class Check>
void for_each_draw(Check&& check) {
  std::mt19937_64 rng(S::l * 97 + S::s * 13 + S::dk);
  for (int draw = 0; draw < draws; ++draw) {
    const auto q = cxmat_test::random_matrix<typename S::queries>(rng, -2, 2);
    const auto k = cxmat_test::random_matrix<typename S::keys>(rng, -2, 2);
    const auto v = cxmat_test::random_matrix<typename S::values>(rng);
    check(static_cast<std::size_t>(draw), q, k, v);
  }
}

}  // namespace

TEMPLATE_TEST_CASE("masks on random inputs", "[property][mask]", (sdpa_shape<3, 3, 2, 2>), (sdpa_shape<5, 5, 4, 3>),
                   (sdpa_shape<8, 8, 8, 8>), (sdpa_shape<4, 7, 3, 5>), (sdpa_shape<7, 4, 2, 6>)) {
  using S = TestType;
  constexpr std::size_t L = S::l, K = S::s;

  SECTION("causal equals the explicit lower-triangular boolean mask, in both alignments") {
    cxmat::matrix<bool, L, K> upper_left{}, lower_right{};
    for (std::size_t i = 0; i < L; ++i) {
      for (std::size_t j = 0; j < K; ++j) {
        upper_left(i, j) = j <= i;
        lower_right(i, j) = j + L <= i + K;
      }
    }
    for_each_draw<S>([&](std::size_t, const auto& q, const auto& k, const auto& v) {
      CHECK(cxmat::scaled_dot_product_attention(q, k, v, cxmat::causal) ==
            cxmat::scaled_dot_product_attention(q, k, v, cxmat::mask(upper_left)));
      CHECK(cxmat::scaled_dot_product_attention(q, k, v, cxmat::causal_lower_right) ==
            cxmat::scaled_dot_product_attention(q, k, v, cxmat::mask(lower_right)));
    });
  }
  SECTION("masks of all true equal no mask") {
    for_each_draw<S>([](std::size_t, const auto& q, const auto& k, const auto& v) {
      const auto plain = cxmat::scaled_dot_product_attention(q, k, v);
      CHECK(cxmat::scaled_dot_product_attention(q, k, v, cxmat::mask(cxmat::filled<bool, L, K>(true))) == plain);
      CHECK(cxmat::scaled_dot_product_attention(q, k, v, cxmat::key_padding(cxmat::filled<bool, 1, K>(true))) == plain);
    });
  }
  SECTION("a key-padding mask equals removing the padded keys") {
    constexpr std::size_t kept = (K + 1) / 2;
    cxmat::matrix<bool, 1, K> keep{};
    for (std::size_t j = 0; j < kept; ++j) keep(0, j) = true;
    for_each_draw<S>([&keep](std::size_t, const auto& q, const auto& k, const auto& v) {
      cxmat::matrix<double, kept, S::dk> k_kept{};
      cxmat::matrix<double, kept, S::dv> v_kept{};
      for (std::size_t j = 0; j < kept; ++j) {
        for (std::size_t c = 0; c < S::dk; ++c) k_kept(j, c) = k(j, c);
        for (std::size_t c = 0; c < S::dv; ++c) v_kept(j, c) = v(j, c);
      }
      CHECK(cxmat::scaled_dot_product_attention(q, k, v, cxmat::key_padding(keep)) ==
            cxmat::scaled_dot_product_attention(q, k_kept, v_kept));
    });
  }
  SECTION("a fully masked row gives zero weights and a zero output row, not NaN") {
    for_each_draw<S>([](std::size_t draw, const auto& q, const auto& k, const auto& v) {
      auto allowed = cxmat::filled<bool, L, K>(true);
      const std::size_t blind = draw % L;
      for (std::size_t j = 0; j < K; ++j) allowed(blind, j) = false;
      const auto w = cxmat::attention_weights(q, k, cxmat::mask(allowed));
      const auto out = cxmat::scaled_dot_product_attention(q, k, v, cxmat::mask(allowed));
      for (std::size_t j = 0; j < K; ++j) CHECK(w(blind, j) == 0.0);
      for (std::size_t c = 0; c < S::dv; ++c) CHECK(out(blind, c) == 0.0);
    });
  }
}

TEST_CASE("grouped-query attention on random inputs", "[property][gqa]") {
  constexpr std::size_t L = 5, S = 7, DQ = 6, DKV = 4, DK = 3, DV = 2, DO = 5;
  std::mt19937_64 rng(2024);
  const auto random = [&rng]<class M>(M*) { return cxmat_test::random_matrix<M>(rng); };
  using xq_t = cxmat::matrix<double, L, DQ>;
  using xkv_t = cxmat::matrix<double, S, DKV>;
  using wq_t = cxmat::matrix<double, DQ, 4 * DK>;
  using wo_t = cxmat::matrix<double, 4 * DV, DO>;

  for (int draw = 0; draw < draws; ++draw) {
    const auto xq = random(static_cast<xq_t*>(nullptr));
    const auto xkv = random(static_cast<xkv_t*>(nullptr));
    const auto wq = random(static_cast<wq_t*>(nullptr));
    const auto wo = random(static_cast<wo_t*>(nullptr));

    // H_kv = H is plain multi-head (cross-)attention; with X_q = X_kv it is the worksheets'
    // block-form self-attention.
    const auto wk4 = random(static_cast<cxmat::matrix<double, DKV, 4 * DK>*>(nullptr));
    const auto wv4 = random(static_cast<cxmat::matrix<double, DKV, 4 * DV>*>(nullptr));
    CHECK(cxmat::grouped_query_attention<4, 4>(xq, xkv, wq, wk4, wv4, wo) ==
          cxmat::cross_attention<4>(xq, xkv, wq, wk4, wv4, wo));
    const auto wk_self = random(static_cast<cxmat::matrix<double, DQ, 4 * DK>*>(nullptr));
    const auto wv_self = random(static_cast<cxmat::matrix<double, DQ, 4 * DV>*>(nullptr));
    CHECK(cxmat::grouped_query_attention<4>(xq, xq, wq, wk_self, wv_self, wo) ==
          cxmat::multi_head_attention<4>(xq, wq, wk_self, wv_self, wo));

    // GQA equals MHA with each key/value head repeated for its group of query heads.
    const auto wk2 = random(static_cast<cxmat::matrix<double, DKV, 2 * DK>*>(nullptr));
    const auto wv2 = random(static_cast<cxmat::matrix<double, DKV, 2 * DV>*>(nullptr));
    const auto k0 = cxmat::column_block<0, 2>(wk2), k1 = cxmat::column_block<1, 2>(wk2);
    const auto v0 = cxmat::column_block<0, 2>(wv2), v1 = cxmat::column_block<1, 2>(wv2);
    CHECK(cxmat::grouped_query_attention<4, 2>(xq, xkv, wq, wk2, wv2, wo, cxmat::causal) ==
          cxmat::cross_attention<4>(xq, xkv, wq, cxmat::hconcat(k0, k0, k1, k1), cxmat::hconcat(v0, v0, v1, v1), wo,
                                    cxmat::causal));

    // MQA is GQA with one key/value head.
    const auto wk1 = random(static_cast<cxmat::matrix<double, DKV, DK>*>(nullptr));
    const auto wv1 = random(static_cast<cxmat::matrix<double, DKV, DV>*>(nullptr));
    CHECK(cxmat::grouped_query_attention<4, 1>(xq, xkv, wq, wk1, wv1, wo) ==
          cxmat::cross_attention<4>(xq, xkv, wq, cxmat::hconcat(wk1, wk1, wk1, wk1), cxmat::hconcat(wv1, wv1, wv1, wv1),
                                    wo));

    // Weights: H x L x S, the same output, and rows of the mean over heads sum to 1.
    const auto r = cxmat::grouped_query_attention_with_weights<4, 2>(xq, xkv, wq, wk2, wv2, wo);
    CHECK(r.output == cxmat::grouped_query_attention<4, 2>(xq, xkv, wq, wk2, wv2, wo));
    const auto avg = cxmat::mean(r.weights);
    for (std::size_t i = 0; i < L; ++i) {
      double sum = 0.0;
      for (std::size_t j = 0; j < S; ++j) sum += avg(i, j);
      CHECK(sum == Approx(1.0).epsilon(1e-14));
    }
  }
}
