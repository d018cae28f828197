// Copyright the cxmat authors.
// SPDX-License-Identifier: BSL-1.0
// A trace of multi-head attention: every intermediate of one call (projections, per-head Q, K,
// V, scores, weights and outputs, concatenation, output projection), computed by the library's
// public functions in a constant expression, so that a teacher can static_assert any step, and
// printed step by step with names and shapes the way the worksheet solutions print them.
#pragma once

#include <array>
#include <cstddef>
#include <ostream>
#include <string>
#include <type_traits>
#include <utility>

#include <cxmat/attention/multi_head.hpp>
#include <cxmat/attention/options.hpp>
#include <cxmat/attention/rules.hpp>
#include <cxmat/attention/single_head.hpp>
#include <cxmat/core/batch.hpp>
#include <cxmat/core/matrix.hpp>
#include <cxmat/core/shape_rules.hpp>
#include <cxmat/io/print.hpp>
#include <cxmat/ops/arithmetic.hpp>
#include <cxmat/ops/blocks.hpp>

namespace cxmat {

namespace detail {

template <class O>
inline constexpr bool is_projection_bias_option_v = false;
template <projection P, class U, extent W>
inline constexpr bool is_projection_bias_option_v<projection_bias<P, U, W>> = true;

// Calls f with the options that act on scores (masks, causal, bias, scale), in their order,
// dropping the projection biases: attention_scores and its kin take only those.
template <class F>
constexpr auto with_score_options(const F& f) {
  return f();
}
template <class F, class O, class... Rest>
constexpr auto with_score_options(const F& f, const O& o, const Rest&... rest) {
  if constexpr (is_projection_bias_option_v<std::remove_cvref_t<O>>) {
    return with_score_options(f, rest...);
  } else {
    return with_score_options([&f, &o](const auto&... kept) { return f(o, kept...); }, rest...);
  }
}

// X·W plus the projection bias of P among the options, if any (the biased projection of
// multi_head_attention: the product first, then the bias row added to every row).
template <projection P, class T, extent R, extent C, class O>
constexpr void add_bias_of(matrix<T, R, C>& /*m*/, const O& /*option*/) noexcept {}
template <projection P, class T, extent R, extent C, extent W>
constexpr void add_bias_of(matrix<T, R, C>& m, const projection_bias<P, T, W>& b) noexcept {
  for (std::size_t i = 0; i < R.size; ++i) {
    for (std::size_t j = 0; j < C.size; ++j) m.elems[i][j] += b.values.elems[0][j];
  }
}
template <projection P, class A, class B, class... O>
constexpr auto biased_product(const A& a, const B& b, const O&... opts) noexcept {
  auto out = matmul(a, b);
  (add_bias_of<P>(out, opts), ...);
  return out;
}

template <class T, extent H, extent R, extent C, std::size_t... I>
constexpr auto hconcat_items(const batch<T, H, R, C>& b, std::index_sequence<I...> /*unused*/) noexcept {
  return hconcat(b.items[I]...);
}

template <class T, extent H, extent R, extent C>
using concat_of_heads_t =
    decltype(hconcat_items(std::declval<const batch<T, H, R, C>&>(), std::make_index_sequence<H.size>{}));

}  // namespace detail

/// Every intermediate of multi-head attention on L queries and S keys with H heads:
/// x (L x d_model; for the _qkv form, a copy of q), q (L x H·d_k), k (S x H·d_k),
/// v (S x H·d_v), the per-head blocks q_heads / k_heads / v_heads (H x L x d_k, H x S x d_k,
/// H x S x d_v), scores and weights (H x L x S), head_outputs (H x L x d_v), concat
/// (L x H·d_v) and output (L x d_out; equal to concat without W_o). The head axis is named H.
template <std::size_t H, class T, extent L, extent S, extent DM, extent QW, extent KW, extent VW, class Output,
          bool Projected, bool OutputProjected>
struct attention_trace {
  /// Number of heads.
  static constexpr std::size_t heads = H;
  /// Whether q, k, v were computed from x here (false for trace_multi_head_attention_qkv).
  static constexpr bool has_input_projections = Projected;
  /// Whether an output projection W_o was applied after the concatenation.
  static constexpr bool has_output_projection = OutputProjected;
  /// Width of one head's queries and keys (the d_k of the √d_k scaling).
  static constexpr std::size_t head_key_width = QW.size / H;

  using concat_type = detail::concat_of_heads_t<T, heads_v<H>, L, divided_v<VW, H>>;

  matrix<T, L, DM> x;
  matrix<T, L, QW> q;
  matrix<T, S, KW> k;
  matrix<T, S, VW> v;
  batch<T, heads_v<H>, L, divided_v<QW, H>> q_heads;
  batch<T, heads_v<H>, S, divided_v<KW, H>> k_heads;
  batch<T, heads_v<H>, S, divided_v<VW, H>> v_heads;
  batch<T, heads_v<H>, L, S> scores;
  batch<T, heads_v<H>, L, S> weights;
  batch<T, heads_v<H>, L, divided_v<VW, H>> head_outputs;
  concat_type concat;
  Output output;
};

namespace detail {

// The per-head steps shared by every trace: split, scores, weights, outputs, concatenation.
template <std::size_t H, class Trace, class... O>
constexpr void trace_heads(Trace& t, const O&... opts) noexcept {
  const auto qh = split_columns<H>(t.q);
  const auto kh = split_columns<H>(t.k);
  const auto vh = split_columns<H>(t.v);
  for (std::size_t h = 0; h < H; ++h) {
    t.q_heads.items[h] = qh[h];
    t.k_heads.items[h] = kh[h];
    t.v_heads.items[h] = vh[h];
    with_score_options(
        [&](const auto&... score_opts) {
          t.scores.items[h] = attention_scores(qh[h], kh[h], score_opts...);
          t.weights.items[h] = attention_weights(qh[h], kh[h], score_opts...);
          t.head_outputs.items[h] = scaled_dot_product_attention(qh[h], kh[h], vh[h], score_opts...);
          return 0;
        },
        opts...);
  }
  t.concat = hconcat_items(t.head_outputs, std::make_index_sequence<H>{});
}

}  // namespace detail

/// Multi-head self-attention (block form, no W_o) with every intermediate: the trace of
/// multi_head_attention<H>(x, wq, wk, wv, opts...), whose `.output` equals that call's result.
/// Takes exactly the arguments multi_head_attention takes, and checks them with its rule list.
template <std::size_t H, Matrix X, Matrix Wq, Matrix Wk, Matrix Wv, AttentionOption... O>
requires rules_hold<rules_of::multi_head_attention<H, X, Wq, Wk, Wv, O...>>
constexpr auto trace_multi_head_attention(const X& x, const Wq& wq, const Wk& wk, const Wv& wv,
                                          const O&... opts) noexcept {
  using T = detail::element_of<X>;
  using concat_type = detail::concat_of_heads_t<T, heads_v<H>, X::row_extent, divided_v<Wv::col_extent, H>>;
  attention_trace<H, T, X::row_extent, X::row_extent, X::col_extent, Wq::col_extent, Wk::col_extent, Wv::col_extent,
                  concat_type, true, false>
      t{};
  t.x = x;
  t.q = detail::biased_product<projection::query>(x, wq, opts...);
  t.k = detail::biased_product<projection::key>(x, wk, opts...);
  t.v = detail::biased_product<projection::value>(x, wv, opts...);
  detail::trace_heads<H>(t, opts...);
  t.output = t.concat;
  return t;
}

/// Shape error of trace_multi_head_attention<H>(x, wq, wk, wv, opts...): multi_head_attention's.
template <std::size_t H, Matrix X, Matrix Wq, Matrix Wk, Matrix Wv, AttentionOption... O>
decltype(detail::first_failure<rules_of::multi_head_attention<H, X, Wq, Wk, Wv, O...>>::error())
trace_multi_head_attention(const X& x, const Wq& wq, const Wk& wk, const Wv& wv, const O&... opts) noexcept;

/// As above with the output projection: the trace of multi_head_attention<H>(x, wq, wk, wv,
/// wo, opts...); `.output` = concat·W_o (+ output_bias).
template <std::size_t H, Matrix X, Matrix Wq, Matrix Wk, Matrix Wv, Matrix Wo, AttentionOption... O>
requires rules_hold<rules_of::multi_head_attention_wo<H, X, Wq, Wk, Wv, Wo, O...>>
constexpr auto trace_multi_head_attention(const X& x, const Wq& wq, const Wk& wk, const Wv& wv, const Wo& wo,
                                          const O&... opts) noexcept {
  using T = detail::element_of<X>;
  attention_trace<H, T, X::row_extent, X::row_extent, X::col_extent, Wq::col_extent, Wk::col_extent, Wv::col_extent,
                  matrix<T, X::row_extent, Wo::col_extent>, true, true>
      t{};
  t.x = x;
  t.q = detail::biased_product<projection::query>(x, wq, opts...);
  t.k = detail::biased_product<projection::key>(x, wk, opts...);
  t.v = detail::biased_product<projection::value>(x, wv, opts...);
  detail::trace_heads<H>(t, opts...);
  t.output = detail::biased_product<projection::output>(t.concat, wo, opts...);
  return t;
}

/// Shape error of trace_multi_head_attention<H>(x, wq, wk, wv, wo, opts...): multi_head_attention's.
template <std::size_t H, Matrix X, Matrix Wq, Matrix Wk, Matrix Wv, Matrix Wo, AttentionOption... O>
decltype(detail::first_failure<rules_of::multi_head_attention_wo<H, X, Wq, Wk, Wv, Wo, O...>>::error())
trace_multi_head_attention(const X& x, const Wq& wq, const Wk& wk, const Wv& wv, const Wo& wo,
                           const O&... opts) noexcept;

/// Single-head self-attention with every intermediate: trace_multi_head_attention<1>;
/// `.output` equals self_attention(x, wq, wk, wv, opts...).
template <Matrix X, Matrix Wq, Matrix Wk, Matrix Wv, AttentionOption... O>
requires rules_hold<rules_of::multi_head_attention<1, X, Wq, Wk, Wv, O...>>
constexpr auto trace_self_attention(const X& x, const Wq& wq, const Wk& wk, const Wv& wv, const O&... opts) noexcept {
  return trace_multi_head_attention<1>(x, wq, wk, wv, opts...);
}

/// Shape error of trace_self_attention(x, wq, wk, wv, opts...).
template <Matrix X, Matrix Wq, Matrix Wk, Matrix Wv, AttentionOption... O>
decltype(detail::first_failure<rules_of::multi_head_attention<1, X, Wq, Wk, Wv, O...>>::error()) trace_self_attention(
    const X& x, const Wq& wq, const Wk& wk, const Wv& wv, const O&... opts) noexcept;

/// As above with the output projection: `.output` equals self_attention(x, wq, wk, wv, opts...)·W_o.
template <Matrix X, Matrix Wq, Matrix Wk, Matrix Wv, Matrix Wo, AttentionOption... O>
requires rules_hold<rules_of::multi_head_attention_wo<1, X, Wq, Wk, Wv, Wo, O...>>
constexpr auto trace_self_attention(const X& x, const Wq& wq, const Wk& wk, const Wv& wv, const Wo& wo,
                                    const O&... opts) noexcept {
  return trace_multi_head_attention<1>(x, wq, wk, wv, wo, opts...);
}

/// Shape error of trace_self_attention(x, wq, wk, wv, wo, opts...).
template <Matrix X, Matrix Wq, Matrix Wk, Matrix Wv, Matrix Wo, AttentionOption... O>
decltype(detail::first_failure<rules_of::multi_head_attention_wo<1, X, Wq, Wk, Wv, Wo, O...>>::error())
trace_self_attention(const X& x, const Wq& wq, const Wk& wk, const Wv& wv, const Wo& wo, const O&... opts) noexcept;

/// Multi-head attention of given projections Q (L x H·d_k), K (S x H·d_k), V (S x H·d_v), with
/// every intermediate: the trace of multi_head_attention_qkv<H>(q, k, v, opts...). Its `.x` is
/// a copy of q (there is no input).
template <std::size_t H, Matrix Q, Matrix K, Matrix V, AttentionOption... O>
requires rules_hold<rules_of::multi_head_attention_qkv<H, Q, K, V, O...>>
constexpr auto trace_multi_head_attention_qkv(const Q& q, const K& k, const V& v, const O&... opts) noexcept {
  using T = detail::element_of<Q>;
  constexpr auto L = Q::row_extent;
  constexpr auto S = K::row_extent;
  constexpr auto VW = V::col_extent;
  using concat_type = detail::concat_of_heads_t<T, heads_v<H>, L, divided_v<VW, H>>;
  attention_trace<H, T, L, S, Q::col_extent, Q::col_extent, K::col_extent, VW, concat_type, false, false> t{};
  t.x = q;
  t.q = q;
  t.k = k;
  for (std::size_t i = 0; i < S.size; ++i) {
    for (std::size_t j = 0; j < VW.size; ++j) t.v.elems[i][j] = v.elems[i][j];
  }
  detail::trace_heads<H>(t, opts...);
  t.output = t.concat;
  return t;
}

/// Shape error of trace_multi_head_attention_qkv<H>(q, k, v, opts...): multi_head_attention_qkv's.
template <std::size_t H, Matrix Q, Matrix K, Matrix V, AttentionOption... O>
decltype(detail::first_failure<rules_of::multi_head_attention_qkv<H, Q, K, V, O...>>::error())
trace_multi_head_attention_qkv(const Q& q, const K& k, const V& v, const O&... opts) noexcept;

/// How print writes a trace: the number format, and (numbers.first_head_number) the number of
/// the first head: 0, its index in code and in worksheet 003, by default; 1 as in worksheets
/// 000-002.
struct trace_print_options {
  print_options numbers{};
};

namespace detail {

// The per-head steps of a trace: each head's Q_h, K_h, V_h (with several heads), every head's
// scores, weights and output, and the concatenation (with several heads).
template <std::size_t H, class T, extent L, extent S, extent DM, extent QW, extent KW, extent VW, class Output,
          bool Projected, bool OutputProjected>
void print_trace_heads(std::ostream& os,
                       const attention_trace<H, T, L, S, DM, QW, KW, VW, Output, Projected, OutputProjected>& t,
                       const trace_print_options& opt) {
  const auto& num = opt.numbers;
  const auto head = [&num](std::size_t h) { return head_number(h, num.first_head_number); };
  const std::string dk = std::to_string(QW.size / H);
  // "Head 1 - step" with several heads; the step alone with one.
  const auto head_label = [&](std::size_t h, const std::string& step) {
    return H == 1 ? step : cat("Head ", head(h), " - ", step);
  };
  // "Q_1" with several heads, "Q" with one.
  const auto sub = [&](const char* m, std::size_t h) { return H == 1 ? std::string(m) : cat(m, "_", head(h)); };
  const auto columns = [](std::size_t h, std::size_t width) {
    return cat("[:, ", std::to_string(h * width), ":", std::to_string((h + 1) * width), "]");
  };
  if constexpr (H > 1) {
    for (std::size_t h = 0; h < H; ++h) {
      print(os, head_label(h, cat(sub("Q", h), " = Q", columns(h, t.q_heads.cols))), t.q_heads.items[h], num);
      print(os, head_label(h, cat(sub("K", h), " = K", columns(h, t.k_heads.cols))), t.k_heads.items[h], num);
      print(os, head_label(h, cat(sub("V", h), " = V", columns(h, t.v_heads.cols))), t.v_heads.items[h], num);
    }
  }
  for (std::size_t h = 0; h < H; ++h) {
    print(os,
          head_label(
              h, cat("Attention Scores ", sub("S", h), " = ", sub("Q", h), " ", sub("K", h), "^T / sqrt(", dk, ")")),
          t.scores.items[h], num);
  }
  for (std::size_t h = 0; h < H; ++h) {
    print(os, head_label(h, cat("Softmax Attention Weights ", sub("A", h), " = softmax(", sub("S", h), ")")),
          t.weights.items[h], num);
  }
  for (std::size_t h = 0; h < H; ++h) {
    print(os, head_label(h, cat("Weighted Sum ", sub("Z", h), " = ", sub("A", h), " ", sub("V", h))),
          t.head_outputs.items[h], num);
  }
  if constexpr (H > 1) {
    std::string parts;
    for (std::size_t h = 0; h < H; ++h) parts += cat(h != 0 ? ", " : "", sub("Z", h));
    print(os, cat("Multi-Head Output Z = Concat(", parts, ")"), t.concat, num);
  }
}

}  // namespace detail

/// Writes every step of a trace, each as "step (shape):" and its values, in the worksheets'
/// order: input and projections, each head's Q_h, K_h, V_h, then every head's scores, weights
/// and output, the concatenation, and the output projection.
template <std::size_t H, class T, extent L, extent S, extent DM, extent QW, extent KW, extent VW, class Output,
          bool Projected, bool OutputProjected>
std::ostream& print(std::ostream& os,
                    const attention_trace<H, T, L, S, DM, QW, KW, VW, Output, Projected, OutputProjected>& t,
                    const trace_print_options& opt = {}) {
  const auto& num = opt.numbers;
  if constexpr (Projected) {
    print(os, "X", t.x, num);
    print(os, "Q = X W_q", t.q, num);
    print(os, "K = X W_k", t.k, num);
    print(os, "V = X W_v", t.v, num);
  } else {
    print(os, "Q", t.q, num);
    print(os, "K", t.k, num);
    print(os, "V", t.v, num);
  }
  detail::print_trace_heads(os, t, opt);
  if constexpr (OutputProjected) print(os, "Output Y = Z W_o", t.output, num);
  return os;
}

}  // namespace cxmat
