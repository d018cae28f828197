// Multi-head attention in block form: one large projection per Q, K, V, head h reading column
// block h (worksheet 003 part 4), the heads' outputs side by side, then W_o.
#pragma once

#include <cstddef>

#include <cxmat/arithmetic.hpp>
#include <cxmat/batch.hpp>
#include <cxmat/detail/attention_kernel.hpp>
#include <cxmat/matrix.hpp>
#include <cxmat/shape_rules.hpp>

namespace cxmat {

/// An attention output together with the attention weights that produced it.
template <class Output, class Weights>
struct attention_result {
  Output output;
  Weights weights;
};

namespace detail {

// Copies one weight row of head h into a batch of weights.
template <class Weights>
struct store_head_weights {
  Weights* weights;
  std::size_t head;
  template <class T>
  constexpr void operator()(std::size_t query, const T* row) const noexcept {
    for (std::size_t j = 0; j < Weights::cols; ++j) weights->items[head].elems[query][j] = row[j];
  }
};

// All H heads over projected Q (L x H·d_k), K (S x H·d_k), V (S x H·d_v): head h attends with
// column block h of each and writes column block h of out. A plain loop over heads: equal-width
// heads need no type-level iteration, and a loop is the cheapest form for the constant evaluator.
template <std::size_t H, class T, std::size_t L, std::size_t S, std::size_t QW, std::size_t VW,
          class ScoreMod, class Weights>
constexpr void multi_head_blocks(const T (&q)[L][QW], const T (&k)[S][QW], const T (&v)[S][VW],
                                 T (&out)[L][VW], const ScoreMod& score_mod, Weights* weights) noexcept {
  constexpr std::size_t dk = QW / H;
  constexpr std::size_t dv = VW / H;
  const T divisor = sqrt_of_size<T>(dk);
  for (std::size_t h = 0; h < H; ++h) {
    if (weights != nullptr) {
      attend<dk, dv>(q, h * dk, k, h * dk, v, h * dv, out, h * dv, divisor, score_mod,
                     store_head_weights<Weights>{weights, h});
    } else {
      attend<dk, dv>(q, h * dk, k, h * dk, v, h * dv, out, h * dv, divisor, score_mod, discard_weights{});
    }
  }
}

}  // namespace detail

/// Multi-head attention of projected queries, keys and values, without output projection.
/// Q is L x (H·d_k), K is S x (H·d_k), V is S x (H·d_v); head h uses column block h of each;
/// the result is the heads' outputs side by side, L x (H·d_v).
template <std::size_t H, class T, extent L, extent QW, extent S1, extent KW, extent S2, extent VW>
  requires HeadsDivideWidth<QW, H> && HeadsDivideWidth<VW, H> && QueryKeyWidthsMatch<QW, KW> &&
           KeyValueLengthsMatch<S1, S2>
constexpr matrix<T, L, VW> multi_head_attention_qkv(const matrix<T, L, QW>& q, const matrix<T, S1, KW>& k,
                                                    const matrix<T, S2, VW>& v) noexcept {
  matrix<T, L, VW> out{};
  detail::multi_head_blocks<H>(q.elems, k.elems, v.elems, out.elems, detail::no_score_mod{},
                               static_cast<batch<T, H, L, S1>*>(nullptr));
  return out;
}

/// Multi-head self-attention in block form, without output projection (worksheet 004):
/// X is n x d_model; Wq and Wk are d_model x (H·d_k), Wv is d_model x (H·d_v). Head h uses
/// column block h of X·Wq, X·Wk, X·Wv; the result is the concatenated heads, n x (H·d_v).
template <std::size_t H, class T, extent N, extent DM, extent DMq, extent QW, extent DMk, extent KW,
          extent DMv, extent VW>
  requires ProjectionFitsInput<DM, DMq> && ProjectionFitsInput<DM, DMk> && ProjectionFitsInput<DM, DMv> &&
           QueryKeyWidthsMatch<QW, KW> && HeadsDivideWidth<QW, H> && HeadsDivideWidth<VW, H>
constexpr matrix<T, N, VW> multi_head_attention(const matrix<T, N, DM>& x, const matrix<T, DMq, QW>& wq,
                                                const matrix<T, DMk, KW>& wk,
                                                const matrix<T, DMv, VW>& wv) noexcept {
  return multi_head_attention_qkv<H>(matmul(x, wq), matmul(x, wk), matmul(x, wv));
}

/// Multi-head self-attention in block form with output projection (worksheets 000, 001, 003):
/// as above, then the concatenated heads (n x H·d_v) times Wo ((H·d_v) x d_out): n x d_out.
template <std::size_t H, class T, extent N, extent DM, extent DMq, extent QW, extent DMk, extent KW,
          extent DMv, extent VW, extent VWo, extent DO>
  requires ProjectionFitsInput<DM, DMq> && ProjectionFitsInput<DM, DMk> && ProjectionFitsInput<DM, DMv> &&
           QueryKeyWidthsMatch<QW, KW> && HeadsDivideWidth<QW, H> && HeadsDivideWidth<VW, H> &&
           OutputProjectionFitsHeads<VW, VWo>
constexpr matrix<T, N, DO> multi_head_attention(const matrix<T, N, DM>& x, const matrix<T, DMq, QW>& wq,
                                                const matrix<T, DMk, KW>& wk, const matrix<T, DMv, VW>& wv,
                                                const matrix<T, VWo, DO>& wo) noexcept {
  return matmul(multi_head_attention<H>(x, wq, wk, wv), wo);
}

/// The attention weights of every head, H x n x n: head h's softmax(Q_h·K_hᵀ / √d_k).
template <std::size_t H, class T, extent N, extent DM, extent DMq, extent QW, extent DMk, extent KW>
  requires ProjectionFitsInput<DM, DMq> && ProjectionFitsInput<DM, DMk> && QueryKeyWidthsMatch<QW, KW> &&
           HeadsDivideWidth<QW, H>
constexpr batch<T, H, N, N> multi_head_attention_weights(const matrix<T, N, DM>& x, const matrix<T, DMq, QW>& wq,
                                                         const matrix<T, DMk, KW>& wk) noexcept {
  const auto q = matmul(x, wq);
  const auto k = matmul(x, wk);
  constexpr std::size_t dk = QW.size / H;
  const T divisor = detail::sqrt_of_size<T>(dk);
  batch<T, H, N, N> out{};
  for (std::size_t h = 0; h < H; ++h) {
    detail::scores<dk>(q.elems, h * dk, k.elems, h * dk, out.items[h].elems, divisor, detail::no_score_mod{});
    for (std::size_t i = 0; i < N.size; ++i) detail::softmax_row(out.items[h].elems[i], N.size);
  }
  return out;
}

/// Multi-head self-attention (block form, no W_o) and every head's weights, in one pass:
/// `.output` is n x (H·d_v), `.weights` is H x n x n.
template <std::size_t H, class T, extent N, extent DM, extent DMq, extent QW, extent DMk, extent KW,
          extent DMv, extent VW>
  requires ProjectionFitsInput<DM, DMq> && ProjectionFitsInput<DM, DMk> && ProjectionFitsInput<DM, DMv> &&
           QueryKeyWidthsMatch<QW, KW> && HeadsDivideWidth<QW, H> && HeadsDivideWidth<VW, H>
constexpr attention_result<matrix<T, N, VW>, batch<T, H, N, N>> multi_head_attention_with_weights(
    const matrix<T, N, DM>& x, const matrix<T, DMq, QW>& wq, const matrix<T, DMk, KW>& wk,
    const matrix<T, DMv, VW>& wv) noexcept {
  attention_result<matrix<T, N, VW>, batch<T, H, N, N>> result{};
  const auto q = matmul(x, wq);
  const auto k = matmul(x, wk);
  const auto v = matmul(x, wv);
  detail::multi_head_blocks<H>(q.elems, k.elems, v.elems, result.output.elems, detail::no_score_mod{},
                               &result.weights);
  return result;
}

/// As above, with the output projection: `.output` is n x d_out, `.weights` is H x n x n.
template <std::size_t H, class T, extent N, extent DM, extent DMq, extent QW, extent DMk, extent KW,
          extent DMv, extent VW, extent VWo, extent DO>
  requires ProjectionFitsInput<DM, DMq> && ProjectionFitsInput<DM, DMk> && ProjectionFitsInput<DM, DMv> &&
           QueryKeyWidthsMatch<QW, KW> && HeadsDivideWidth<QW, H> && HeadsDivideWidth<VW, H> &&
           OutputProjectionFitsHeads<VW, VWo>
constexpr attention_result<matrix<T, N, DO>, batch<T, H, N, N>> multi_head_attention_with_weights(
    const matrix<T, N, DM>& x, const matrix<T, DMq, QW>& wq, const matrix<T, DMk, KW>& wk,
    const matrix<T, DMv, VW>& wv, const matrix<T, VWo, DO>& wo) noexcept {
  const auto heads = multi_head_attention_with_weights<H>(x, wq, wk, wv);
  return {matmul(heads.output, wo), heads.weights};
}

}  // namespace cxmat
