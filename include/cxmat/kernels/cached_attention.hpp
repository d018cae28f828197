// Copyright the cxmat authors.
// SPDX-License-Identifier: BSL-1.0
// Causal attention over a cache of keys and values: R new query rows at positions p .. p+R-1,
// each over the cached rows 0 .. its own position and no further. The causal mask is the loop
// bound, so rows past a query's position (and the empty rows of the cache) cost nothing: no
// score, no -inf, no exp. One head over column windows, like attend (attention.hpp), and with
// its arithmetic: each score is the dot product of fold.hpp (or of loops.hpp at run time) divided
// by the divisor, softmax_row gives the weights, and each output row is summed from +0 over keys
// in increasing order, skipping keys of weight 0. So in constant evaluation a query's output is
// bit for bit attend's under a causal mask, whose masked keys add nothing.
#pragma once

#include <cstddef>
#include <type_traits>
#include <utility>

#include <cxmat/kernels/fold.hpp>
#include <cxmat/kernels/loops.hpp>
#include <cxmat/kernels/runtime_simd.hpp>
#include <cxmat/kernels/softmax.hpp>
#include <cxmat/math/fp.hpp>

namespace cxmat::detail {

// What a cached attention call does with each query row's weights once softmax has made them:
// nothing (the default, no code), or a recorder's call sink(position, weights, keys) with the
// query's position and its weights over keys 0 .. keys-1 (a trace for teaching: what each head
// attends to). The weights are those the output is summed with, not a second computation.
struct no_weights_sink {
  template <class T>
  constexpr void operator()(std::size_t /*position*/, const T* /*weights*/, std::size_t /*keys*/) const noexcept {}
};

// The constant-evaluation form: one fold expression per score and per key's share of an output
// row (d_k, d_v <= fold_block), as attend_plain, reading the cache where it is.
template <std::size_t DK, std::size_t DV, class T, std::size_t R, std::size_t QW, std::size_t S, std::size_t KW,
          std::size_t VW, std::size_t OW, class Sink, std::size_t... Cs, std::size_t... Vs>
constexpr void attend_cached_plain(const T (&q)[R][QW], std::size_t q_off, const T (&k)[S][KW], std::size_t k_off,
                                   const T (&v)[S][VW], std::size_t v_off, T (&out)[R][OW], std::size_t out_off,
                                   std::size_t position, const T& divisor, const Sink& sink, std::index_sequence<Cs...>,
                                   std::index_sequence<Vs...>) noexcept {
  constexpr bool folded = DK <= fold_block && DV <= fold_block;
  for (std::size_t i = 0; i < R; ++i) {
    const std::size_t keys = position + i + 1;
    T qi[DK]{};
    T row[S];  // entries 0 .. keys-1 are written before they are read
    T oi[DV]{};
    if constexpr (folded) {
      ((qi[Cs] = q[i][q_off + Cs]), ...);
      for (std::size_t j = 0; j < keys; ++j) row[j] = T((T{} + ... + (qi[Cs] * k[j][k_off + Cs])) / divisor);
    } else {
      copy_window(qi, &q[i][q_off]);
      for (std::size_t j = 0; j < keys; ++j) {
        T kj[DK]{};
        copy_window(kj, &k[j][k_off]);
        row[j] = T(dot<T>(qi, kj) / divisor);
      }
    }
    softmax_row(static_cast<T*>(row), keys);
    sink(position + i, static_cast<const T*>(row), keys);
    if constexpr (folded) {
      for (std::size_t j = 0; j < keys; ++j)
        row[j] != T(0) ? (((oi[Vs] = oi[Vs] + row[j] * v[j][v_off + Vs]), ...), 0) : 0;
      ((out[i][out_off + Vs] = oi[Vs]), ...);
    } else {
      for (std::size_t j = 0; j < keys; ++j) {
        if (row[j] == T(0)) continue;
        T vj[DV]{};
        copy_window(vj, &v[j][v_off]);
        scaled_add(oi, row[j], vj);
      }
      copy_window_to(&out[i][out_off], oi);
    }
  }
}

// The run-time form: loops that read the windows where they are (loops.hpp), the same terms in
// the same order (eight keys' scores at a time, each its own sum); softmax_row's run-time form
// over the filled length.
template <std::size_t DK, std::size_t DV, class T, std::size_t R, std::size_t QW, std::size_t S, std::size_t KW,
          std::size_t VW, std::size_t OW, class Sink>
inline void attend_cached_loops(const T (&q)[R][QW], std::size_t q_off, const T (&k)[S][KW], std::size_t k_off,
                                const T (&v)[S][VW], std::size_t v_off, T (&out)[R][OW], std::size_t out_off,
                                std::size_t position, const T& divisor, const Sink& sink) noexcept {
  constexpr std::size_t lanes = 8;  // keys scored side by side: independent sums that overlap
  for (std::size_t i = 0; i < R; ++i) {
    const std::size_t keys = position + i + 1;
    const T* qi = &q[i][q_off];
    T row[S];  // entries 0 .. keys-1 written below
    std::size_t j = 0;
    if constexpr (S >= lanes) {
      for (; j + lanes <= keys; j += lanes) {
        T acc[lanes]{};
        for (std::size_t c = 0; c < DK; ++c) {
          for (std::size_t l = 0; l < lanes; ++l) acc[l] = multiply_add_scalar(qi[c], k[j + l][k_off + c], acc[l]);
        }
        for (std::size_t l = 0; l < lanes; ++l) row[j + l] = T(acc[l] / divisor);
      }
    }
    for (; j < keys; ++j) row[j] = T(dot_loop(qi, &k[j][k_off], DK) / divisor);
    softmax_row(static_cast<T*>(row), keys);
    sink(position + i, static_cast<const T*>(row), keys);
    T oi[DV]{};
    for (j = 0; j < keys; ++j) {
      if (row[j] != T(0)) scaled_add_loop<DV>(oi, 0, row[j], v[j], v_off);
    }
    for (std::size_t c = 0; c < DV; ++c) out[i][out_off + c] = oi[c];
  }
}

// For each new query row i (columns [q_off, q_off + DK) of q, at position `position + i`):
//   s_j   = (q_i · k_j) / divisor          for the cached keys j = 0 .. position + i
//   w     = softmax(s)                     (softmax_row's rules for NaN and infinities)
//   out_i = sum_j w_j v_j over w_j != 0    (columns [out_off, out_off + DV) of out)
// and sink(position + i, w, position + i + 1). The caller has written rows 0 .. position + R - 1
// of k and v; position + R <= S.
template <std::size_t DK, std::size_t DV, class T, std::size_t R, std::size_t QW, std::size_t S, std::size_t KW,
          std::size_t VW, std::size_t OW, class Sink = no_weights_sink>
constexpr void attend_cached(const T (&q)[R][QW], std::size_t q_off, const T (&k)[S][KW], std::size_t k_off,
                             const T (&v)[S][VW], std::size_t v_off, T (&out)[R][OW], std::size_t out_off,
                             std::size_t position, const T& divisor, const Sink& sink = {}) noexcept {
  by_evaluation<has_runtime_products>(
      [&](auto...) {
        attend_cached_loops<DK, DV>(q, q_off, k, k_off, v, v_off, out, out_off, position, divisor, sink);
      },
      [&] {
        attend_cached_plain<DK, DV>(q, q_off, k, k_off, v, v_off, out, out_off, position, divisor, sink,
                                    std::make_index_sequence < DK <= fold_block ? DK : 0 > {},
                                    std::make_index_sequence < DV <= fold_block ? DV : 0 > {});
      });
}

// What a model's recorder receives, per layer and head: nothing by default.
struct no_attention_sink {
  template <class T>
  constexpr void operator()(std::size_t /*layer*/, std::size_t /*head*/, std::size_t /*position*/, const T* /*weights*/,
                            std::size_t /*keys*/) const noexcept {}
};

// Grouped-query heads over a cache: query head h attends with key/value head h / (H / H_kv), as
// grouped_heads (attention/detail/grouped_heads.hpp) does without a cache. A recorder (see
// no_attention_sink) gets each head's weights with `layer` and the head's index.
template <std::size_t H, std::size_t Hkv, class T, std::size_t R, std::size_t QW, std::size_t S, std::size_t KW,
          std::size_t OW, class Recorder = no_attention_sink>
constexpr void cached_heads(const T (&q)[R][QW], const T (&k)[S][KW], const T (&v)[S][KW], T (&out)[R][OW],
                            std::size_t position, const T& divisor, const Recorder& recorder = {},
                            std::size_t layer = 0) noexcept {
  constexpr std::size_t dk = QW / H;
  constexpr std::size_t dv = KW / Hkv;
  constexpr std::size_t group = H / Hkv;
  for (std::size_t h = 0; h < H; ++h) {
    const std::size_t kv = h / group;
    if constexpr (std::is_same_v<Recorder, no_attention_sink>) {
      attend_cached<dk, dv>(q, h * dk, k, kv * dk, v, kv * dv, out, h * dv, position, divisor);
    } else {
      const auto sink = [&](std::size_t p, const T* w, std::size_t keys) { recorder(layer, h, p, w, keys); };
      attend_cached<dk, dv>(q, h * dk, k, kv * dk, v, kv * dv, out, h * dv, position, divisor, sink);
    }
  }
}

}  // namespace cxmat::detail
