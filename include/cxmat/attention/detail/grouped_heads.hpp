// Copyright the cxmat authors.
// SPDX-License-Identifier: BSL-1.0
// The multi-head driver shared by every multi-head function: projections (with optional
// biases), then each query head attending with its key/value head through the one kernel.
#pragma once

#include <cstddef>

#include <cxmat/attention/detail/apply_options.hpp>
#include <cxmat/attention/options.hpp>
#include <cxmat/attention/rules.hpp>
#include <cxmat/core/extent.hpp>
#include <cxmat/core/matrix.hpp>
#include <cxmat/kernels/attention.hpp>

namespace cxmat::detail {

// Copies each weight row of head h into a batch of weights (H x L x S).
template <class Weights>
struct store_head_weights {
  Weights* weights;
  std::size_t head;
  template <class T>
  constexpr void operator()(std::size_t query, const T* row) const noexcept {
    for (std::size_t j = 0; j < Weights::cols; ++j) weights->items[head].elems[query][j] = row[j];
  }
};

// Query head h attends with key/value head h / (H / H_kv), using column blocks of q, k, v, and
// writes column block h of out. A plain loop over heads: equal-width heads need no type-level
// iteration, and a loop is the cheapest form for the constant evaluator.
template <std::size_t H, std::size_t Hkv, class T, std::size_t L, std::size_t S, std::size_t QW, std::size_t KW,
          std::size_t VW, std::size_t OW, class ScoreMod, class Weights>
constexpr void grouped_heads(const T (&q)[L][QW], const T (&k)[S][KW], const T (&v)[S][VW], T (&out)[L][OW],
                             const T& divisor, const ScoreMod& score_mod, Weights* weights) noexcept {
  constexpr std::size_t dk = QW / H;
  constexpr std::size_t dv = VW / Hkv;
  constexpr std::size_t group = H / Hkv;
  for (std::size_t h = 0; h < H; ++h) {
    const std::size_t kv = h / group;
    if (weights != nullptr) {
      attend<dk, dv>(q, h * dk, k, kv * dk, v, kv * dv, out, h * dv, divisor, score_mod,
                     store_head_weights<Weights>{weights, h});
    } else {
      attend<dk, dv>(q, h * dk, k, kv * dk, v, kv * dv, out, h * dv, divisor, score_mod, discard_weights{});
    }
  }
}

// Heads over already projected Q (L x H·d_k), K (S x H_kv·d_k), V (S x H_kv·d_v), with options
// (rotary() rotates each of the H query heads and each of the H_kv key heads), written into out
// (L x H·d_v, the caller's matrix: a workspace's), whatever it held. out must not be q, k or v.
template <std::size_t H, std::size_t Hkv, class T, extent LO, extent OW, extent L, extent S1, extent S2, extent QW,
          extent KW, extent VW, class Weights, class... O>
constexpr void heads_of_projections_into(matrix<T, LO, OW>& out, const matrix<T, L, QW>& q, const matrix<T, S1, KW>& k,
                                         const matrix<T, S2, VW>& v, Weights* weights, const O&... opts) noexcept {
  const T divisor = score_divisor<T, O...>(QW.size / H);
  const auto& qr = rotated_queries<H>(q, S1.size, opts...);
  const auto& kr = rotated_keys<Hkv>(k, opts...);
  check_scores(qr.elems, kr.elems, QW.size / H, divisor, opts...);
  const auto score_mod = make_score_mod<T>(L.size, S1.size, opts...);
  check_values(v.elems, key_visibility<T, decltype(score_mod)>{score_mod, L.size});
  for (auto& out_row : out.elems) {
    for (auto& out_element : out_row) out_element = T{};
  }
  grouped_heads<H, Hkv>(qr.elems, kr.elems, v.elems, out.elems, divisor, score_mod, weights);
}

// The same, the heads returned.
template <std::size_t H, std::size_t Hkv, class T, extent L, extent S1, extent S2, extent QW, extent KW, extent VW,
          class Weights, class... O>
constexpr auto heads_of_projections(const matrix<T, L, QW>& q, const matrix<T, S1, KW>& k, const matrix<T, S2, VW>& v,
                                    Weights* weights, const O&... opts) noexcept {
  matrix<T, L, concat_width<H, Hkv, VW>> out;
  heads_of_projections_into<H, Hkv>(out, q, k, v, weights, opts...);
  return out;
}

// Projections of X_q and X_kv (with their biases, if given) into q, k and v, then the heads into
// out: every intermediate in the caller's matrices (a workspace's), whatever they held.
template <std::size_t H, std::size_t Hkv, class T, extent LO, extent OW, extent LQ, extent QW, extent SK, extent KW,
          extent SV, extent VW, extent L, extent DQ, extent S, extent DKV, extent DQq, extent QWw, extent DKk,
          extent KWw, extent DKv, extent VWw, class Weights, class... O>
constexpr void grouped_attention_into(matrix<T, LO, OW>& out, matrix<T, LQ, QW>& q, matrix<T, SK, KW>& k,
                                      matrix<T, SV, VW>& v, const matrix<T, L, DQ>& xq, const matrix<T, S, DKV>& xkv,
                                      const matrix<T, DQq, QWw>& wq, const matrix<T, DKk, KWw>& wk,
                                      const matrix<T, DKv, VWw>& wv, Weights* weights, const O&... opts) noexcept {
  project_into<projection::query>(q, xq, wq, opts...);
  project_into<projection::key>(k, xkv, wk, opts...);
  project_into<projection::value>(v, xkv, wv, opts...);
  heads_of_projections_into<H, Hkv>(out, q, k, v, weights, opts...);
}

// The same with the projections and the heads on the stack, the heads returned.
template <std::size_t H, std::size_t Hkv, class T, extent L, extent DQ, extent S, extent DKV, extent QW, extent KW,
          extent VW, extent DQq, extent DKk, extent DKv, class Weights, class... O>
constexpr auto grouped_attention(const matrix<T, L, DQ>& xq, const matrix<T, S, DKV>& xkv, const matrix<T, DQq, QW>& wq,
                                 const matrix<T, DKk, KW>& wk, const matrix<T, DKv, VW>& wv, Weights* weights,
                                 const O&... opts) noexcept {
  matrix<T, L, QW> q;
  matrix<T, S, KW> k;
  matrix<T, S, VW> v;
  matrix<T, L, concat_width<H, Hkv, VW>> out;
  grouped_attention_into<H, Hkv>(out, q, k, v, xq, xkv, wq, wk, wv, weights, opts...);
  return out;
}

}  // namespace cxmat::detail
