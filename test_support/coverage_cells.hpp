// The coverage matrix of the attention forms x options: every cell declared once, in
// CXMAT_COVERAGE_CELLS below. static_tests/attention/coverage.cpp checks each cell at compile
// time, runtime_tests/attention/coverage.cpp the supported ones at run time, and
// static_tests/reference/gen_coverage.py writes docs/coverage.md from this list.
//
// A cell is one of
//   SUPPORTED(form, option)          the call compiles and matches numpy float64
//                                    (test_support/coverage_reference.hpp);
//   REJECTED(form, option, error)    the call is rejected, and decltype of the call names
//                                    cxmat::shape_error::error<...> (the error the compiler prints);
//   NO_OVERLOAD(form, option)        the call is rejected with "no matching function" (no named error).
// A (form, option) pair that is not listed has no function at all (e.g. weights out of a form
// that has no _with_weights variant).
#pragma once

#include <cstddef>
#include <type_traits>
#include <utility>

#include <boost/hana/unpack.hpp>

#include <cxmat/attention.hpp>
#include <cxmat/attention/batched.hpp>
#include <cxmat/core/batch.hpp>
#include <cxmat/core/matrix.hpp>
#include <cxmat/ops/blocks.hpp>

#include "test_support/coverage_reference.hpp"

// clang-format off
#define CXMAT_COVERAGE_CELLS(SUPPORTED, REJECTED, NO_OVERLOAD)                              \
  SUPPORTED(sdpa, none)                                                                      \
  SUPPORTED(sdpa, mask)                                                                      \
  SUPPORTED(sdpa, key_padding)                                                               \
  REJECTED(sdpa, batch_key_padding, batch_key_padding_needs_a_batch)                         \
  SUPPORTED(sdpa, causal)                                                                    \
  SUPPORTED(sdpa, causal_lower_right)                                                        \
  SUPPORTED(sdpa, bias)                                                                      \
  SUPPORTED(sdpa, scale)                                                                     \
  REJECTED(sdpa, query_bias, attention_options_must_fit_l_by_s_scores)                       \
  REJECTED(sdpa, key_bias, attention_options_must_fit_l_by_s_scores)                         \
  REJECTED(sdpa, value_bias, attention_options_must_fit_l_by_s_scores)                       \
  REJECTED(sdpa, output_bias, attention_options_must_fit_l_by_s_scores)                      \
  SUPPORTED(sdpa, weights)                                                                   \
  SUPPORTED(self, none)                                                                      \
  SUPPORTED(self, mask)                                                                      \
  SUPPORTED(self, key_padding)                                                               \
  REJECTED(self, batch_key_padding, batch_key_padding_needs_a_batch)                         \
  SUPPORTED(self, causal)                                                                    \
  SUPPORTED(self, causal_lower_right)                                                        \
  SUPPORTED(self, bias)                                                                      \
  SUPPORTED(self, scale)                                                                     \
  SUPPORTED(self, query_bias)                                                                \
  SUPPORTED(self, key_bias)                                                                  \
  SUPPORTED(self, value_bias)                                                                \
  REJECTED(self, output_bias, output_bias_needs_w_o)                                         \
  SUPPORTED(mha_qkv, none)                                                                   \
  SUPPORTED(mha_qkv, mask)                                                                   \
  SUPPORTED(mha_qkv, key_padding)                                                            \
  REJECTED(mha_qkv, batch_key_padding, batch_key_padding_needs_a_batch)                      \
  SUPPORTED(mha_qkv, causal)                                                                 \
  SUPPORTED(mha_qkv, causal_lower_right)                                                     \
  SUPPORTED(mha_qkv, bias)                                                                   \
  SUPPORTED(mha_qkv, scale)                                                                  \
  REJECTED(mha_qkv, query_bias, attention_options_must_fit_l_by_s_scores)                    \
  REJECTED(mha_qkv, key_bias, attention_options_must_fit_l_by_s_scores)                      \
  REJECTED(mha_qkv, value_bias, attention_options_must_fit_l_by_s_scores)                    \
  REJECTED(mha_qkv, output_bias, attention_options_must_fit_l_by_s_scores)                   \
  SUPPORTED(mha, none)                                                                       \
  SUPPORTED(mha, mask)                                                                       \
  SUPPORTED(mha, key_padding)                                                                \
  REJECTED(mha, batch_key_padding, batch_key_padding_needs_a_batch)                          \
  SUPPORTED(mha, causal)                                                                     \
  SUPPORTED(mha, causal_lower_right)                                                         \
  SUPPORTED(mha, bias)                                                                       \
  SUPPORTED(mha, scale)                                                                      \
  SUPPORTED(mha, query_bias)                                                                 \
  SUPPORTED(mha, key_bias)                                                                   \
  SUPPORTED(mha, value_bias)                                                                 \
  REJECTED(mha, output_bias, output_bias_needs_w_o)                                          \
  SUPPORTED(mha, weights)                                                                    \
  SUPPORTED(mha_wo, none)                                                                    \
  SUPPORTED(mha_wo, mask)                                                                    \
  SUPPORTED(mha_wo, key_padding)                                                             \
  REJECTED(mha_wo, batch_key_padding, batch_key_padding_needs_a_batch)                       \
  SUPPORTED(mha_wo, causal)                                                                  \
  SUPPORTED(mha_wo, causal_lower_right)                                                      \
  SUPPORTED(mha_wo, bias)                                                                    \
  SUPPORTED(mha_wo, scale)                                                                   \
  SUPPORTED(mha_wo, query_bias)                                                              \
  SUPPORTED(mha_wo, key_bias)                                                                \
  SUPPORTED(mha_wo, value_bias)                                                              \
  SUPPORTED(mha_wo, output_bias)                                                             \
  SUPPORTED(mha_wo, weights)                                                                 \
  SUPPORTED(per_head, none)                                                                  \
  SUPPORTED(per_head, mask)                                                                  \
  SUPPORTED(per_head, key_padding)                                                           \
  REJECTED(per_head, batch_key_padding, batch_key_padding_needs_a_batch)                                                   \
  SUPPORTED(per_head, causal)                                                                \
  SUPPORTED(per_head, causal_lower_right)                                                    \
  SUPPORTED(per_head, bias)                                                                  \
  SUPPORTED(per_head, scale)                                                                 \
  REJECTED(per_head, query_bias, projection_bias_width_must_match_projection)                                                          \
  REJECTED(per_head, key_bias, projection_bias_width_must_match_projection)                                                            \
  REJECTED(per_head, value_bias, projection_bias_width_must_match_projection)                                                          \
  REJECTED(per_head, output_bias, output_bias_needs_w_o)                                                         \
  SUPPORTED(per_head, weights)                                                               \
  SUPPORTED(per_head_wo, none)                                                               \
  SUPPORTED(per_head_wo, mask)                                                               \
  SUPPORTED(per_head_wo, key_padding)                                                        \
  REJECTED(per_head_wo, batch_key_padding, batch_key_padding_needs_a_batch)                                                \
  SUPPORTED(per_head_wo, causal)                                                             \
  SUPPORTED(per_head_wo, causal_lower_right)                                                 \
  SUPPORTED(per_head_wo, bias)                                                               \
  SUPPORTED(per_head_wo, scale)                                                              \
  REJECTED(per_head_wo, query_bias, projection_bias_width_must_match_projection)                                                       \
  REJECTED(per_head_wo, key_bias, projection_bias_width_must_match_projection)                                                         \
  REJECTED(per_head_wo, value_bias, projection_bias_width_must_match_projection)                                                       \
  SUPPORTED(per_head_wo, output_bias)                                                      \
  SUPPORTED(cross, none)                                                                     \
  SUPPORTED(cross, mask)                                                                     \
  SUPPORTED(cross, key_padding)                                                              \
  REJECTED(cross, batch_key_padding, batch_key_padding_needs_a_batch)                        \
  SUPPORTED(cross, causal)                                                                   \
  SUPPORTED(cross, causal_lower_right)                                                       \
  SUPPORTED(cross, bias)                                                                     \
  SUPPORTED(cross, scale)                                                                    \
  SUPPORTED(cross, query_bias)                                                               \
  SUPPORTED(cross, key_bias)                                                                 \
  SUPPORTED(cross, value_bias)                                                               \
  SUPPORTED(cross, output_bias)                                                              \
  SUPPORTED(gqa, none)                                                                       \
  SUPPORTED(gqa, mask)                                                                       \
  SUPPORTED(gqa, key_padding)                                                                \
  REJECTED(gqa, batch_key_padding, batch_key_padding_needs_a_batch)                          \
  SUPPORTED(gqa, causal)                                                                     \
  SUPPORTED(gqa, causal_lower_right)                                                         \
  SUPPORTED(gqa, bias)                                                                       \
  SUPPORTED(gqa, scale)                                                                      \
  SUPPORTED(gqa, query_bias)                                                                 \
  SUPPORTED(gqa, key_bias)                                                                   \
  SUPPORTED(gqa, value_bias)                                                                 \
  REJECTED(gqa, output_bias, output_bias_needs_w_o)                                          \
  SUPPORTED(gqa_wo, none)                                                                    \
  SUPPORTED(gqa_wo, mask)                                                                    \
  SUPPORTED(gqa_wo, key_padding)                                                             \
  REJECTED(gqa_wo, batch_key_padding, batch_key_padding_needs_a_batch)                       \
  SUPPORTED(gqa_wo, causal)                                                                  \
  SUPPORTED(gqa_wo, causal_lower_right)                                                      \
  SUPPORTED(gqa_wo, bias)                                                                    \
  SUPPORTED(gqa_wo, scale)                                                                   \
  SUPPORTED(gqa_wo, query_bias)                                                              \
  SUPPORTED(gqa_wo, key_bias)                                                                \
  SUPPORTED(gqa_wo, value_bias)                                                              \
  SUPPORTED(gqa_wo, output_bias)                                                             \
  SUPPORTED(gqa_wo, weights)                                                                 \
  SUPPORTED(b_sdpa, none)                                                                    \
  SUPPORTED(b_sdpa, mask)                                                                    \
  SUPPORTED(b_sdpa, key_padding)                                                             \
  SUPPORTED(b_sdpa, batch_key_padding)                                                       \
  SUPPORTED(b_sdpa, causal)                                                                  \
  SUPPORTED(b_sdpa, causal_lower_right)                                                      \
  SUPPORTED(b_sdpa, bias)                                                                    \
  SUPPORTED(b_sdpa, scale)                                                                   \
  REJECTED(b_sdpa, query_bias, attention_options_must_fit_l_by_s_scores)                     \
  REJECTED(b_sdpa, key_bias, attention_options_must_fit_l_by_s_scores)                       \
  REJECTED(b_sdpa, value_bias, attention_options_must_fit_l_by_s_scores)                     \
  REJECTED(b_sdpa, output_bias, attention_options_must_fit_l_by_s_scores)                    \
  SUPPORTED(b_sdpa, weights)                                                                 \
  SUPPORTED(b_self, none)                                                                    \
  SUPPORTED(b_self, mask)                                                                    \
  SUPPORTED(b_self, key_padding)                                                             \
  SUPPORTED(b_self, batch_key_padding)                                                       \
  SUPPORTED(b_self, causal)                                                                  \
  SUPPORTED(b_self, causal_lower_right)                                                      \
  SUPPORTED(b_self, bias)                                                                    \
  SUPPORTED(b_self, scale)                                                                   \
  SUPPORTED(b_self, query_bias)                                                              \
  SUPPORTED(b_self, key_bias)                                                                \
  SUPPORTED(b_self, value_bias)                                                              \
  REJECTED(b_self, output_bias, output_bias_needs_w_o)                                       \
  SUPPORTED(b_mha, none)                                                                     \
  SUPPORTED(b_mha, mask)                                                                     \
  SUPPORTED(b_mha, key_padding)                                                              \
  SUPPORTED(b_mha, batch_key_padding)                                                        \
  SUPPORTED(b_mha, causal)                                                                   \
  SUPPORTED(b_mha, causal_lower_right)                                                       \
  SUPPORTED(b_mha, bias)                                                                     \
  SUPPORTED(b_mha, scale)                                                                    \
  SUPPORTED(b_mha, query_bias)                                                               \
  SUPPORTED(b_mha, key_bias)                                                                 \
  SUPPORTED(b_mha, value_bias)                                                               \
  REJECTED(b_mha, output_bias, output_bias_needs_w_o)                                        \
  SUPPORTED(b_mha_wo, none)                                                                  \
  SUPPORTED(b_mha_wo, mask)                                                                  \
  SUPPORTED(b_mha_wo, key_padding)                                                           \
  SUPPORTED(b_mha_wo, batch_key_padding)                                                     \
  SUPPORTED(b_mha_wo, causal)                                                                \
  SUPPORTED(b_mha_wo, causal_lower_right)                                                    \
  SUPPORTED(b_mha_wo, bias)                                                                  \
  SUPPORTED(b_mha_wo, scale)                                                                 \
  SUPPORTED(b_mha_wo, query_bias)                                                            \
  SUPPORTED(b_mha_wo, key_bias)                                                              \
  SUPPORTED(b_mha_wo, value_bias)                                                            \
  SUPPORTED(b_mha_wo, output_bias)                                                           \
  SUPPORTED(b_cross, none)                                                                   \
  SUPPORTED(b_cross, mask)                                                                   \
  SUPPORTED(b_cross, key_padding)                                                            \
  SUPPORTED(b_cross, batch_key_padding)                                                      \
  SUPPORTED(b_cross, causal)                                                                 \
  SUPPORTED(b_cross, causal_lower_right)                                                     \
  SUPPORTED(b_cross, bias)                                                                   \
  SUPPORTED(b_cross, scale)                                                                  \
  SUPPORTED(b_cross, query_bias)                                                             \
  SUPPORTED(b_cross, key_bias)                                                               \
  SUPPORTED(b_cross, value_bias)                                                             \
  SUPPORTED(b_cross, output_bias)                                                            \
  SUPPORTED(b_gqa, none)                                                                     \
  SUPPORTED(b_gqa, mask)                                                                     \
  SUPPORTED(b_gqa, key_padding)                                                              \
  SUPPORTED(b_gqa, batch_key_padding)                                                        \
  SUPPORTED(b_gqa, causal)                                                                   \
  SUPPORTED(b_gqa, causal_lower_right)                                                       \
  SUPPORTED(b_gqa, bias)                                                                     \
  SUPPORTED(b_gqa, scale)                                                                    \
  SUPPORTED(b_gqa, query_bias)                                                               \
  SUPPORTED(b_gqa, key_bias)                                                                 \
  SUPPORTED(b_gqa, value_bias)                                                               \
  REJECTED(b_gqa, output_bias, output_bias_needs_w_o)                                        \
  SUPPORTED(b_gqa_wo, none)                                                                  \
  SUPPORTED(b_gqa_wo, mask)                                                                  \
  SUPPORTED(b_gqa_wo, key_padding)                                                           \
  SUPPORTED(b_gqa_wo, batch_key_padding)                                                     \
  SUPPORTED(b_gqa_wo, causal)                                                                \
  SUPPORTED(b_gqa_wo, causal_lower_right)                                                    \
  SUPPORTED(b_gqa_wo, bias)                                                                  \
  SUPPORTED(b_gqa_wo, scale)                                                                 \
  SUPPORTED(b_gqa_wo, query_bias)                                                            \
  SUPPORTED(b_gqa_wo, key_bias)                                                              \
  SUPPORTED(b_gqa_wo, value_bias)                                                            \
  SUPPORTED(b_gqa_wo, output_bias)
// clang-format on

namespace cxmat_coverage {

/// The options of the matrix (columns of docs/coverage.md); `weights` asks for the attention
/// weights (the form's _with_weights function, attention_weights or head_weights).
namespace options {
struct none {};
struct mask {};
struct key_padding {};
struct batch_key_padding {};
struct causal {};
struct causal_lower_right {};
struct bias {};
struct scale {};
struct query_bias {};
struct key_bias {};
struct value_bias {};
struct output_bias {};
struct weights {};
}  // namespace options

/// The attention forms (rows of docs/coverage.md). Each has call(in, options...), whose return
/// type is that of the cxmat call (the named error type when the call is rejected), and a
/// weights(in) where the form has a way to return its weights. `self_shaped`: the scores are
/// n x n (L = S = n); `grouped`: H_kv = 1 key/value head (narrower W_k, W_v and their biases).
namespace forms {

template <class In>
constexpr auto per_head_heads(const In& in) noexcept {
  return cxmat::make_heads(cxmat::attention_head{cxmat::column_block<0, 2>(in.wq), cxmat::column_block<0, 2>(in.wk),
                                                 cxmat::column_block<0, 2>(in.wv)},
                           cxmat::attention_head{cxmat::column_block<1, 2>(in.wq), cxmat::column_block<1, 2>(in.wk),
                                                 cxmat::column_block<1, 2>(in.wv)});
}

struct sdpa {
  static constexpr bool self_shaped = false, grouped = false;
  template <class In, class... O>
  static constexpr auto call(const In& in, const O&... o)
      -> decltype(cxmat::scaled_dot_product_attention(in.q, in.k, in.v, o...)) {
    return cxmat::scaled_dot_product_attention(in.q, in.k, in.v, o...);
  }
  template <class In>
  static constexpr auto weights(const In& in) {
    return cxmat::attention_weights(in.q, in.k);
  }
};

struct self {
  static constexpr bool self_shaped = true, grouped = false;
  template <class In, class... O>
  static constexpr auto call(const In& in, const O&... o)
      -> decltype(cxmat::self_attention(in.x, in.wq, in.wk, in.wv, o...)) {
    return cxmat::self_attention(in.x, in.wq, in.wk, in.wv, o...);
  }
};

struct mha_qkv {
  static constexpr bool self_shaped = false, grouped = false;
  template <class In, class... O>
  static constexpr auto call(const In& in, const O&... o)
      -> decltype(cxmat::multi_head_attention_qkv<heads>(in.q, in.k, in.v, o...)) {
    return cxmat::multi_head_attention_qkv<heads>(in.q, in.k, in.v, o...);
  }
};

struct mha {
  static constexpr bool self_shaped = true, grouped = false;
  template <class In, class... O>
  static constexpr auto call(const In& in, const O&... o)
      -> decltype(cxmat::multi_head_attention<heads>(in.x, in.wq, in.wk, in.wv, o...)) {
    return cxmat::multi_head_attention<heads>(in.x, in.wq, in.wk, in.wv, o...);
  }
  template <class In>
  static constexpr auto weights(const In& in) {
    return cxmat::multi_head_attention_with_weights<heads>(in.x, in.wq, in.wk, in.wv);
  }
};

struct mha_wo {
  static constexpr bool self_shaped = true, grouped = false;
  template <class In, class... O>
  static constexpr auto call(const In& in, const O&... o)
      -> decltype(cxmat::multi_head_attention<heads>(in.x, in.wq, in.wk, in.wv, in.wo, o...)) {
    return cxmat::multi_head_attention<heads>(in.x, in.wq, in.wk, in.wv, in.wo, o...);
  }
  template <class In>
  static constexpr auto weights(const In& in) {
    return cxmat::multi_head_attention_with_weights<heads>(in.x, in.wq, in.wk, in.wv, in.wo);
  }
};

// Head h of the per-head form holds column block h of W_q, W_k, W_v, so its numbers are those
// of the block form; the reference computes it head by head all the same.
struct per_head {
  static constexpr bool self_shaped = true, grouped = false;
  template <class In, class... O>
  static constexpr auto call(const In& in, const O&... o)
      -> decltype(cxmat::multi_head_attention(in.x, per_head_heads(in), o...)) {
    return cxmat::multi_head_attention(in.x, per_head_heads(in), o...);
  }
  template <class In>
  static constexpr auto weights(const In& in) {
    return boost::hana::unpack(cxmat::head_weights(in.x, per_head_heads(in)),
                               [](const auto&... w) { return cxmat::batch<double, heads, keys, keys>{{w...}}; });
  }
};

struct per_head_wo {
  static constexpr bool self_shaped = true, grouped = false;
  template <class In, class... O>
  static constexpr auto call(const In& in, const O&... o)
      -> decltype(cxmat::multi_head_attention(in.x, per_head_heads(in), in.wo, o...)) {
    return cxmat::multi_head_attention(in.x, per_head_heads(in), in.wo, o...);
  }
};

struct cross {
  static constexpr bool self_shaped = false, grouped = false;
  template <class In, class... O>
  static constexpr auto call(const In& in, const O&... o)
      -> decltype(cxmat::cross_attention<heads>(in.xq, in.xkv, in.wq, in.wk, in.wv, in.wo, o...)) {
    return cxmat::cross_attention<heads>(in.xq, in.xkv, in.wq, in.wk, in.wv, in.wo, o...);
  }
};

struct gqa {
  static constexpr bool self_shaped = false, grouped = true;
  template <class In, class... O>
  static constexpr auto call(const In& in, const O&... o)
      -> decltype(cxmat::grouped_query_attention<heads, kv_heads>(in.xq, in.xkv, in.wq, in.wk_g, in.wv_g, o...)) {
    return cxmat::grouped_query_attention<heads, kv_heads>(in.xq, in.xkv, in.wq, in.wk_g, in.wv_g, o...);
  }
};

struct gqa_wo {
  static constexpr bool self_shaped = false, grouped = true;
  template <class In, class... O>
  static constexpr auto call(const In& in, const O&... o)
      -> decltype(cxmat::grouped_query_attention<heads, kv_heads>(in.xq, in.xkv, in.wq, in.wk_g, in.wv_g, in.wo,
                                                                  o...)) {
    return cxmat::grouped_query_attention<heads, kv_heads>(in.xq, in.xkv, in.wq, in.wk_g, in.wv_g, in.wo, o...);
  }
  template <class In>
  static constexpr auto weights(const In& in) {
    return cxmat::grouped_query_attention_with_weights<heads, kv_heads>(in.xq, in.xkv, in.wq, in.wk_g, in.wv_g, in.wo);
  }
};

struct b_sdpa {
  static constexpr bool self_shaped = false, grouped = false;
  template <class In, class... O>
  static constexpr auto call(const In& in, const O&... o)
      -> decltype(cxmat::scaled_dot_product_attention(in.qb, in.kb, in.vb, o...)) {
    return cxmat::scaled_dot_product_attention(in.qb, in.kb, in.vb, o...);
  }
  template <class In>
  static constexpr auto weights(const In& in) {
    return cxmat::attention_weights(in.qb, in.kb);
  }
};

struct b_self {
  static constexpr bool self_shaped = true, grouped = false;
  template <class In, class... O>
  static constexpr auto call(const In& in, const O&... o)
      -> decltype(cxmat::self_attention(in.xb, in.wq, in.wk, in.wv, o...)) {
    return cxmat::self_attention(in.xb, in.wq, in.wk, in.wv, o...);
  }
};

struct b_mha {
  static constexpr bool self_shaped = true, grouped = false;
  template <class In, class... O>
  static constexpr auto call(const In& in, const O&... o)
      -> decltype(cxmat::multi_head_attention<heads>(in.xb, in.wq, in.wk, in.wv, o...)) {
    return cxmat::multi_head_attention<heads>(in.xb, in.wq, in.wk, in.wv, o...);
  }
};

struct b_mha_wo {
  static constexpr bool self_shaped = true, grouped = false;
  template <class In, class... O>
  static constexpr auto call(const In& in, const O&... o)
      -> decltype(cxmat::multi_head_attention<heads>(in.xb, in.wq, in.wk, in.wv, in.wo, o...)) {
    return cxmat::multi_head_attention<heads>(in.xb, in.wq, in.wk, in.wv, in.wo, o...);
  }
};

struct b_cross {
  static constexpr bool self_shaped = false, grouped = false;
  template <class In, class... O>
  static constexpr auto call(const In& in, const O&... o)
      -> decltype(cxmat::cross_attention<heads>(in.xqb, in.xkvb, in.wq, in.wk, in.wv, in.wo, o...)) {
    return cxmat::cross_attention<heads>(in.xqb, in.xkvb, in.wq, in.wk, in.wv, in.wo, o...);
  }
};

struct b_gqa {
  static constexpr bool self_shaped = false, grouped = true;
  template <class In, class... O>
  static constexpr auto call(const In& in, const O&... o)
      -> decltype(cxmat::grouped_query_attention<heads, kv_heads>(in.xqb, in.xkvb, in.wq, in.wk_g, in.wv_g, o...)) {
    return cxmat::grouped_query_attention<heads, kv_heads>(in.xqb, in.xkvb, in.wq, in.wk_g, in.wv_g, o...);
  }
};

struct b_gqa_wo {
  static constexpr bool self_shaped = false, grouped = true;
  template <class In, class... O>
  static constexpr auto call(const In& in, const O&... o)
      -> decltype(cxmat::grouped_query_attention<heads, kv_heads>(in.xqb, in.xkvb, in.wq, in.wk_g, in.wv_g, in.wo,
                                                                  o...)) {
    return cxmat::grouped_query_attention<heads, kv_heads>(in.xqb, in.xkvb, in.wq, in.wk_g, in.wv_g, in.wo, o...);
  }
};

}  // namespace forms

/// The option value of column Opt for form F, from the inputs (its shape follows the form:
/// masks and biases are L x S, or n x n for self-attention; GQA's key/value biases are narrower).
template <class F>
constexpr auto make_option(options::mask, const inputs& in) noexcept {
  if constexpr (F::self_shaped) {
    return cxmat::mask(in.mask_ss);
  } else {
    return cxmat::mask(in.mask_ls);
  }
}
template <class F>
constexpr auto make_option(options::key_padding, const inputs& in) noexcept {
  return cxmat::key_padding(in.keep);
}
template <class F>
constexpr auto make_option(options::batch_key_padding, const inputs& in) noexcept {
  return cxmat::batch_key_padding(in.batch_keep);
}
template <class F>
constexpr auto make_option(options::causal, const inputs&) noexcept {
  return cxmat::causal;
}
template <class F>
constexpr auto make_option(options::causal_lower_right, const inputs&) noexcept {
  return cxmat::causal_lower_right;
}
template <class F>
constexpr auto make_option(options::bias, const inputs& in) noexcept {
  if constexpr (F::self_shaped) {
    return cxmat::bias(in.bias_ss);
  } else {
    return cxmat::bias(in.bias_ls);
  }
}
template <class F>
constexpr auto make_option(options::scale, const inputs& in) noexcept {
  return cxmat::scale(in.scale);
}
template <class F>
constexpr auto make_option(options::query_bias, const inputs& in) noexcept {
  return cxmat::query_bias(in.bq);
}
template <class F>
constexpr auto make_option(options::key_bias, const inputs& in) noexcept {
  if constexpr (F::grouped) {
    return cxmat::key_bias(in.bk_g);
  } else {
    return cxmat::key_bias(in.bk);
  }
}
template <class F>
constexpr auto make_option(options::value_bias, const inputs& in) noexcept {
  if constexpr (F::grouped) {
    return cxmat::value_bias(in.bv_g);
  } else {
    return cxmat::value_bias(in.bv);
  }
}
template <class F>
constexpr auto make_option(options::output_bias, const inputs& in) noexcept {
  return cxmat::output_bias(in.bo);
}

template <class F, class Opt>
using option_t = decltype(make_option<F>(Opt{}, std::declval<const inputs&>()));

/// The call of cell (F, Opt) compiles: its result is a complete type (a rejected call's type is
/// the incomplete shape_error, which no call expression outside decltype may have).
template <class F, class Opt>
inline constexpr bool accepts = requires(const inputs& in, const option_t<F, Opt>& o) {
  F::call(in, o);
};

/// Overload resolution of the call of cell (F, Opt) finds a function (accepted or a named error).
template <class F, class Opt>
inline constexpr bool resolves = requires {
  typename std::type_identity<decltype(F::call(std::declval<const inputs&>(),
                                               std::declval<const option_t<F, Opt>&>()))>::type;
};

template <class F, class Opt>
using call_t = decltype(F::call(std::declval<const inputs&>(), std::declval<const option_t<F, Opt>&>()));

/// Whether T is an instance of the error template E.
template <class T, template <class...> class E>
inline constexpr bool is_error = false;
template <template <class...> class E, class... A>
inline constexpr bool is_error<E<A...>, E> = true;

/// A bound |actual - expected| <= rel·|expected| + abs for every element.
struct tolerance {
  double rel;
  double abs;
};

template <class T, cxmat::extent R, cxmat::extent C, cxmat::extent R2, cxmat::extent C2>
constexpr bool close(const cxmat::matrix<T, R, C>& a, const cxmat::matrix<T, R2, C2>& e, tolerance tol) noexcept {
  if (R.size != R2.size || C.size != C2.size) return false;
  for (std::size_t i = 0; i < R.size; ++i) {
    for (std::size_t j = 0; j < C.size; ++j) {
      const double d = a.elems[i][j] - e.elems[i][j];
      const double m = e.elems[i][j] < 0 ? -e.elems[i][j] : e.elems[i][j];
      if (!(d <= tol.rel * m + tol.abs && -d <= tol.rel * m + tol.abs)) return false;
    }
  }
  return true;
}

template <class T, cxmat::extent B, cxmat::extent R, cxmat::extent C, cxmat::extent B2, cxmat::extent R2,
          cxmat::extent C2>
constexpr bool close(const cxmat::batch<T, B, R, C>& a, const cxmat::batch<T, B2, R2, C2>& e, tolerance tol) noexcept {
  if (B.size != B2.size) return false;
  for (std::size_t b = 0; b < B.size; ++b) {
    if (!close(a.items[b], e.items[b], tol)) return false;
  }
  return true;
}

/// The result of cell (F, Opt) on `in` is within `tol` of `expected`. For `weights`, the weights
/// are compared with `expected` and, where the function returns the output too, the output with
/// `expected_output` (the form's output without options).
template <class F, class Opt, class E, class N>
constexpr bool cell_matches(const inputs& in, const E& expected, const N& expected_output, tolerance tol) {
  if constexpr (std::is_same_v<Opt, options::weights>) {
    const auto r = F::weights(in);
    if constexpr (requires { r.weights; }) {
      return close(r.weights, expected, tol) && close(r.output, expected_output, tol);
    } else {
      return close(r, expected, tol);
    }
  } else if constexpr (std::is_same_v<Opt, options::none>) {
    return close(F::call(in), expected, tol);
  } else {
    return close(F::call(in, make_option<F>(Opt{}, in)), expected, tol);
  }
}

}  // namespace cxmat_coverage
