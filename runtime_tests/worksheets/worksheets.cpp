// The worksheets at run time: the same calls as static_tests/, on inputs the compiler cannot
// fold, checked against the same numpy references and against the compile-time results.
#include <cxmat/cxmat.hpp>

#include "test_support/catch.hpp"
#include "test_support/checks.hpp"
#include "test_support/runtime_value.hpp"
#include "test_support/worksheet_data.hpp"

using cxmat_test::at_run_time;
using cxmat_test::matches_reference;

TEST_CASE("worksheet 000: two heads and W_o at run time", "[worksheet]") {
  namespace ws = worksheet_data::ws000;
  const auto X = at_run_time(ws::X);
  const auto Q0 = X * at_run_time(ws::W0q), K0 = X * at_run_time(ws::W0k), V0 = X * at_run_time(ws::W0v);
  const auto Q1 = X * at_run_time(ws::W1q), K1 = X * at_run_time(ws::W1k), V1 = X * at_run_time(ws::W1v);
  CHECK(matches_reference(Q0, ws::ref::Q0));
  CHECK(matches_reference(V1, ws::ref::V1));
  CHECK(matches_reference(cxmat::attention_scores(Q0, K0), ws::ref::scores0));
  CHECK(matches_reference(cxmat::attention_scores(Q1, K1), ws::ref::scores1));
  CHECK(matches_reference(cxmat::attention_weights(Q0, K0), ws::ref::weights0));
  CHECK(matches_reference(cxmat::attention_weights(Q1, K1), ws::ref::weights1));
  const auto Z =
      cxmat::hconcat(cxmat::scaled_dot_product_attention(Q0, K0, V0), cxmat::scaled_dot_product_attention(Q1, K1, V1));
  CHECK(matches_reference(Z, ws::ref::Z));
  const auto Wo = at_run_time(ws::Wo);
  CHECK(matches_reference(Z * Wo, ws::ref::output));

  SECTION("per-head and block forms give the same output") {
    const auto heads =
        cxmat::make_heads(cxmat::attention_head{at_run_time(ws::W0q), at_run_time(ws::W0k), at_run_time(ws::W0v)},
                          cxmat::attention_head{at_run_time(ws::W1q), at_run_time(ws::W1k), at_run_time(ws::W1v)});
    const auto per_head = cxmat::multi_head_attention(X, heads, Wo);
    const auto block = cxmat::multi_head_attention<2>(
        X, cxmat::hconcat(heads[boost::hana::size_c<0>].wq, heads[boost::hana::size_c<1>].wq),
        cxmat::hconcat(heads[boost::hana::size_c<0>].wk, heads[boost::hana::size_c<1>].wk),
        cxmat::hconcat(heads[boost::hana::size_c<0>].wv, heads[boost::hana::size_c<1>].wv), Wo);
    CHECK(matches_reference(per_head, ws::ref::output));
    CHECK(block == per_head);
  }
  SECTION("the run-time result equals the compile-time one") {
    constexpr auto heads = cxmat::make_heads(cxmat::attention_head{ws::W0q, ws::W0k, ws::W0v},
                                             cxmat::attention_head{ws::W1q, ws::W1k, ws::W1v});
    constexpr auto at_compile_time = cxmat::multi_head_attention(ws::X, heads, ws::Wo);
    CHECK(cxmat::approx_equal(Z * Wo, at_compile_time, 1e-13));
  }
}

TEST_CASE("worksheet 001: M with its intermediates at run time", "[worksheet]") {
  namespace ws = worksheet_data::ws001;
  const auto X = at_run_time(ws::X);
  const auto Q1 = X * at_run_time(ws::W1q), K1 = X * at_run_time(ws::W1k), V1 = X * at_run_time(ws::W1v);
  const auto Q2 = X * at_run_time(ws::W2q), K2 = X * at_run_time(ws::W2k), V2 = X * at_run_time(ws::W2v);
  CHECK(matches_reference(cxmat::attention_scores(Q1, K1), ws::ref::scores));
  CHECK(matches_reference(cxmat::attention_weights(Q2, K2), ws::ref::weights));
  const auto head1 = cxmat::scaled_dot_product_attention(Q1, K1, V1);
  const auto head2 = cxmat::scaled_dot_product_attention(Q2, K2, V2);
  CHECK(matches_reference(head1, ws::ref::head1));
  CHECK(matches_reference(head2, ws::ref::head2));
  CHECK(matches_reference(cxmat::hconcat(head1, head2), ws::ref::concat));
  CHECK(matches_reference(cxmat::hconcat(head1, head2) * at_run_time(ws::Wo), ws::ref::M));
}

TEST_CASE("worksheet 003: forward passes at run time", "[worksheet]") {
  namespace ws = worksheet_data::ws003;
  const auto X = at_run_time(ws::X);
  const auto Q = X * at_run_time(ws::Wq), K = X * at_run_time(ws::Wk);
  CHECK(matches_reference(cxmat::attention_weights(Q, K), ws::ref::weights));
  const auto Y =
      cxmat::self_attention(X, at_run_time(ws::Wq), at_run_time(ws::Wk), at_run_time(ws::Wv)) * at_run_time(ws::Wo);
  CHECK(matches_reference(Y, ws::ref::Y));
  const auto heads = cxmat::multi_head_attention_qkv<2>(at_run_time(ws::Q), at_run_time(ws::K), at_run_time(ws::V));
  CHECK(matches_reference(heads, ws::ref::mha_concat));
}

TEST_CASE("worksheet 004: H = 1 and H = 3 at run time, and permutation equivariance", "[worksheet]") {
  namespace ws = worksheet_data::ws004;
  const auto X = at_run_time(ws::X);
  const auto Wq = at_run_time(ws::Wq), Wk = at_run_time(ws::Wk), Wv = at_run_time(ws::Wv);
  const auto one = cxmat::multi_head_attention_with_weights<1>(X, Wq, Wk, Wv);
  const auto three = cxmat::multi_head_attention_with_weights<3>(X, Wq, Wk, Wv);
  CHECK(matches_reference(one.output, ws::ref::output_h1));
  CHECK(matches_reference(one.weights[0], ws::ref::weights_h1));
  CHECK(matches_reference(three.output, ws::ref::output_h3));
  CHECK(matches_reference(three.weights[0], ws::ref::weights_h3_0));
  CHECK(matches_reference(three.weights[1], ws::ref::weights_h3_1));
  CHECK(matches_reference(three.weights[2], ws::ref::weights_h3_2));
  const auto swapped = cxmat::multi_head_attention<3>(cxmat::permute_rows<1, 0, 2, 3, 4>(X), Wq, Wk, Wv);
  CHECK(cxmat::approx_equal(swapped, cxmat::permute_rows<1, 0, 2, 3, 4>(three.output), 1e-12, 1e-15));
}
