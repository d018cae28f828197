// Positions and rotary position embedding at run time: the mpmath references of the static tests
// (test_support/positions_reference.hpp) on inputs the compiler cannot see, double within 1e-12
// relative and float within a stated bound, and generated inputs against a plain implementation
// of the documented rotation written here with <cmath> (std::pow, std::sin, std::cos).
#include <cmath>
#include <cstddef>
#include <random>

#include <cxmat/cxmat.hpp>
#include <cxmat/io/trace.hpp>
#include <cxmat/transformer/positions.hpp>

#include "test_support/catch.hpp"
#include "test_support/positions_reference.hpp"
#include "test_support/random.hpp"
#include "test_support/runtime_value.hpp"

namespace {

using cxmat::matrix;
using cxmat_test::at_run_time;
namespace ref = cxmat_positions;

template <class A, class B>
bool near(const A& actual, const B& reference, double rel = 1e-12, double abs = 1e-300) {
  return cxmat::approx_equal(actual, reference, rel, abs);
}

template <cxmat::extent R, cxmat::extent C>
matrix<float, R, C> to_float(const matrix<double, R, C>& m) {
  matrix<float, R, C> out{};
  for (std::size_t i = 0; i < R.size; ++i) {
    for (std::size_t j = 0; j < C.size; ++j) out(i, j) = static_cast<float>(m(i, j));
  }
  return out;
}

// Query head h of grouped-query attention (H = 4, H_kv = 2) on rotated Q and K, by
// scaled_dot_product_attention on its column blocks, with the queries at the last positions.
template <std::size_t H, class Q, class K, class V, class Y>
bool head_matches(const Q& q, const K& k, const V& v, const Y& got) {
  const auto expected =
      cxmat::scaled_dot_product_attention(cxmat::column_block<H, 4>(q), cxmat::column_block<H / 2, 2>(k),
                                          cxmat::column_block<H / 2, 2>(v), cxmat::causal_lower_right);
  return near(cxmat::column_block<H, 4>(got), expected, 1e-12, 1e-14);
}

// Each head's rows turned at positions first, first + 1, ...: the formula of docs/positions.md.
template <class M>
M rotate_plainly(const M& m, std::size_t heads, long long first, double base, bool interleaved) {
  M out = m;
  const std::size_t dk = M::cols / heads;
  for (std::size_t r = 0; r < M::rows; ++r) {
    for (std::size_t h = 0; h < heads; ++h) {
      for (std::size_t i = 0; i < dk / 2; ++i) {
        const double theta = static_cast<double>(first + static_cast<long long>(r)) *
                             std::pow(base, -2.0 * static_cast<double>(i) / static_cast<double>(dk));
        const std::size_t a = h * dk + (interleaved ? 2 * i : i);
        const std::size_t b = interleaved ? a + 1 : a + dk / 2;
        out(r, a) = m(r, a) * std::cos(theta) - m(r, b) * std::sin(theta);
        out(r, b) = m(r, b) * std::cos(theta) + m(r, a) * std::sin(theta);
      }
    }
  }
  return out;
}

}  // namespace

TEST_CASE("sinusoidal positions equal the mpmath values", "[positions][sinusoidal]") {
  CHECK(near(cxmat::add_sinusoidal_positions(at_run_time(matrix<double, 6, 8>{})), ref::sinusoidal_6x8));
  CHECK(near(cxmat::add_sinusoidal_positions(at_run_time(matrix<double, 3, 5>{})), ref::sinusoidal_3x5));
  // float: the angles are computed in float; |error| <= 1e-6 at positions below 6.
  const auto f = cxmat::sinusoidal_positions<float, 6, 8>();
  for (std::size_t i = 0; i < 6; ++i) {
    for (std::size_t j = 0; j < 8; ++j)
      CHECK(std::fabs(static_cast<double>(f(i, j)) - ref::sinusoidal_6x8(i, j)) <= 1e-6);
  }
}

TEST_CASE("rotary attention equals the mpmath values", "[positions][rotary]") {
  const auto q = at_run_time(ref::a_q);
  const auto k = at_run_time(ref::a_k);
  const auto v = at_run_time(ref::a_v);
  SECTION("single head on given Q, K, V") {
    CHECK(near(cxmat::attention_scores(q, k, cxmat::rotary()), ref::a_scores_rotate_half));
    CHECK(near(cxmat::attention_scores(q, k, cxmat::rotary_interleaved()), ref::a_scores_interleaved));
    CHECK(near(cxmat::scaled_dot_product_attention(q, k, v, cxmat::rotary()), ref::a_output_rotate_half));
    CHECK(near(cxmat::scaled_dot_product_attention(q, k, v, cxmat::rotary_interleaved()), ref::a_output_interleaved));
  }
  SECTION("block multi-head with biases, causal and W_o") {
    const auto x = at_run_time(ref::b_x);
    const auto bq = cxmat::query_bias(ref::b_bq);
    const auto bk = cxmat::key_bias(ref::b_bk);
    CHECK(near(cxmat::multi_head_attention<2>(x, ref::b_wq, ref::b_wk, ref::b_wv, ref::b_wo, bq, bk, cxmat::causal,
                                              cxmat::rotary()),
               ref::b_output_rotate_half));
    CHECK(near(cxmat::multi_head_attention<2>(x, ref::b_wq, ref::b_wk, ref::b_wv, ref::b_wo, bq, bk, cxmat::causal,
                                              cxmat::rotary_interleaved()),
               ref::b_output_interleaved));
    // float, same layer: within 1e-5 of the largest output.
    const auto xf = to_float(x);
    const auto yf = cxmat::multi_head_attention<2>(
        xf, to_float(ref::b_wq), to_float(ref::b_wk), to_float(ref::b_wv), to_float(ref::b_wo),
        cxmat::query_bias(to_float(ref::b_bq)), cxmat::key_bias(to_float(ref::b_bk)), cxmat::causal, cxmat::rotary());
    for (std::size_t i = 0; i < 4; ++i) {
      for (std::size_t j = 0; j < 4; ++j) {
        CHECK(std::fabs(static_cast<double>(yf(i, j)) - ref::b_output_rotate_half(i, j)) <= 1e-5);
      }
    }
  }
  SECTION("the trace of a rotary call: same output; its q_heads and k_heads are before the rotation") {
    const auto x = at_run_time(ref::b_x);
    const auto t = cxmat::trace_multi_head_attention<2>(x, ref::b_wq, ref::b_wk, ref::b_wv, ref::b_wo,
                                                        cxmat::query_bias(ref::b_bq), cxmat::key_bias(ref::b_bk),
                                                        cxmat::causal, cxmat::rotary());
    CHECK(near(t.output, ref::b_output_rotate_half));
    const auto w = cxmat::multi_head_attention_weights<2>(x, ref::b_wq, ref::b_wk, cxmat::query_bias(ref::b_bq),
                                                          cxmat::key_bias(ref::b_bk), cxmat::causal, cxmat::rotary());
    CHECK(near(t.weights.items[0], w.items[0]));
    CHECK(near(t.weights.items[1], w.items[1]));
    CHECK(
        near(t.scores.items[1], cxmat::attention_scores(cxmat::column_block<1, 2>(t.q), cxmat::column_block<1, 2>(t.k),
                                                        cxmat::causal, cxmat::rotary())));
    CHECK(t.q_heads.items[1] == cxmat::column_block<1, 2>(t.q));
  }
  SECTION("partial rotary, queries at the last positions") {
    const auto dq = at_run_time(ref::d_q);
    CHECK(
        near(cxmat::scaled_dot_product_attention(dq, ref::d_k, ref::d_v, cxmat::causal_lower_right, cxmat::rotary<4>()),
             ref::d_output_rotate_half));
    CHECK(near(cxmat::scaled_dot_product_attention(dq, ref::d_k, ref::d_v, cxmat::causal_lower_right,
                                                   cxmat::rotary_interleaved<4>()),
               ref::d_output_interleaved));
  }
  SECTION("grouped-query cross-attention, queries at the last positions (causal_lower_right)") {
    const auto xq = at_run_time(ref::c_xq);
    CHECK(near(cxmat::grouped_query_attention<2, 1>(xq, ref::c_xkv, ref::c_wq, ref::c_wk, ref::c_wv,
                                                    cxmat::causal_lower_right, cxmat::rotary(ref::base_c)),
               ref::c_output_rotate_half));
    CHECK(near(cxmat::grouped_query_attention<2, 1>(xq, ref::c_xkv, ref::c_wq, ref::c_wk, ref::c_wv,
                                                    cxmat::causal_lower_right, cxmat::rotary_interleaved(ref::base_c)),
               ref::c_output_interleaved));
  }
}

TEST_CASE("rotary attention equals attention of plainly rotated Q and K", "[positions][rotary][property]") {
  std::mt19937_64 rng(2021);
  for (int draw = 0; draw < 20; ++draw) {
    const double base = draw % 3 == 0 ? 10000.0 : draw % 3 == 1 ? 500000.0 : 10.0;
    const bool interleaved = draw % 2 == 1;
    // GQA: L = 3 queries at positions 4..6 (lower right), S = 7 keys, H = 4, H_kv = 2, d_k = 6.
    const auto q = cxmat_test::random_matrix<matrix<double, 3, 24>>(rng, -2, 2);
    const auto k = cxmat_test::random_matrix<matrix<double, 7, 12>>(rng, -2, 2);
    const auto v = cxmat_test::random_matrix<matrix<double, 7, 6>>(rng);
    const auto x = cxmat_test::random_matrix<matrix<double, 3, 5>>(rng);
    const auto xkv = cxmat_test::random_matrix<matrix<double, 7, 4>>(rng);
    const auto wq = cxmat_test::random_matrix<matrix<double, 5, 24>>(rng);
    const auto wk = cxmat_test::random_matrix<matrix<double, 4, 12>>(rng);
    const auto wv = cxmat_test::random_matrix<matrix<double, 4, 6>>(rng);
    const auto q_plain = rotate_plainly(x * wq, 4, 4, base, interleaved);
    const auto k_plain = rotate_plainly(xkv * wk, 2, 0, base, interleaved);
    const auto v_kv = xkv * wv;
    const auto got = interleaved ? cxmat::grouped_query_attention<4, 2>(x, xkv, wq, wk, wv, cxmat::causal_lower_right,
                                                                        cxmat::rotary_interleaved(base))
                                 : cxmat::grouped_query_attention<4, 2>(x, xkv, wq, wk, wv, cxmat::causal_lower_right,
                                                                        cxmat::rotary(base));
    CHECK(head_matches<0>(q_plain, k_plain, v_kv, got));
    CHECK(head_matches<1>(q_plain, k_plain, v_kv, got));
    CHECK(head_matches<2>(q_plain, k_plain, v_kv, got));
    CHECK(head_matches<3>(q_plain, k_plain, v_kv, got));
    // Single head, no mask: positions from 0.
    const auto q1 = cxmat::column_block<0, 4>(q);
    const auto k1 = cxmat::column_block<0, 2>(k);
    const auto v1 = cxmat::column_block<0, 2>(v);
    const auto single_expected = cxmat::scaled_dot_product_attention(rotate_plainly(q1, 1, 0, base, interleaved),
                                                                     rotate_plainly(k1, 1, 0, base, interleaved), v1);
    const auto single = interleaved ? cxmat::scaled_dot_product_attention(q1, k1, v1, cxmat::rotary_interleaved(base))
                                    : cxmat::scaled_dot_product_attention(q1, k1, v1, cxmat::rotary(base));
    CHECK(near(single, single_expected, 1e-12, 1e-14));
  }
}
