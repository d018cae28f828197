// Copyright the cxmat authors.
// SPDX-License-Identifier: BSL-1.0
// Options of the attention functions: masks, causal attention, score bias, explicit scale,
// projection biases and rotary position embedding. Each is a small value passed after the
// matrices, in any order:
//   scaled_dot_product_attention(Q, K, V, cxmat::mask(allowed), cxmat::causal)
// Every option's shape is checked against the L x S scores in its type.
#pragma once

#include <cstddef>
#include <limits>
#include <type_traits>

#include <cxmat/core/extent.hpp>
#include <cxmat/core/matrix.hpp>
#include <cxmat/kernels/rotary.hpp>

namespace cxmat {

// ---------------------------------------------------------------------------------------------
// Masks. ONE POLARITY EVERYWHERE IN CXMAT: true = "may attend", false = "masked out".
// This is the convention of torch.nn.functional.scaled_dot_product_attention's boolean
// attn_mask and of JAX/Flax masks. It is the OPPOSITE of torch.nn.MultiheadAttention's boolean
// attn_mask and key_padding_mask, where true means "ignore": invert those when porting.
// ---------------------------------------------------------------------------------------------

/// A boolean L x S mask: query i may attend to key j where allowed(i, j) is true.
template <extent L, extent S>
struct attention_mask {
  matrix<bool, L, S> allowed;
};

/// Wraps a boolean L x S matrix (true = may attend) as a mask option.
template <extent L, extent S>
constexpr attention_mask<L, S> mask(const matrix<bool, L, S>& allowed) noexcept {
  return {allowed};
}

/// A key-padding mask of length S: key j takes part where keep(0, j) is true (true = a real
/// token, false = padding). Same polarity as every cxmat mask.
template <extent S>
struct key_padding_mask {
  matrix<bool, 1, S> keep;
};

/// Wraps a boolean 1 x S row (true = real key, false = padding) as a key-padding option.
template <extent S>
constexpr key_padding_mask<S> key_padding(const matrix<bool, 1, S>& keep) noexcept {
  return {keep};
}

/// Key padding for a batch: row b of keep (B x S) is the key-padding mask of batch item b (true =
/// a real token), so sequences of different lengths share one batch. Taken by the batched
/// attention functions (batched.hpp).
template <extent B, extent S>
struct batch_key_padding_mask {
  matrix<bool, B, S> keep;
};

/// Wraps a boolean B x S matrix (row b: item b's keys, true = real, false = padding).
template <extent B, extent S>
constexpr batch_key_padding_mask<B, S> batch_key_padding(const matrix<bool, B, S>& keep) noexcept {
  return {keep};
}

/// Where the causal triangle sits when there are L queries and S keys with L != S.
enum class causal_alignment {
  /// Query i attends to keys j <= i (torch SDPA's is_causal). With L > S the extra queries see
  /// every key; with L < S the last keys are never seen.
  upper_left,
  /// Query i attends to keys j <= i + (S - L): the last query sees every key, as when L new
  /// tokens attend to a cache of S - L earlier ones plus themselves. With L > S the first
  /// L - S queries see no key (fully masked: zero output).
  lower_right,
};

/// Causal attention: a query attends to no key after it (see causal_alignment).
template <causal_alignment Alignment>
struct causal_mask {
  static constexpr causal_alignment alignment = Alignment;
};

/// Causal mask aligned at the upper left (query i sees keys 0..i), as torch SDPA's is_causal.
inline constexpr causal_mask<causal_alignment::upper_left> causal{};
/// Causal mask aligned at the lower right (the last query sees all keys): decoding with a cache.
inline constexpr causal_mask<causal_alignment::lower_right> causal_lower_right{};

/// An additive L x S bias on the scores (after scaling, before softmax), e.g. a relative
/// position bias or a float mask with -inf entries.
template <class T, extent L, extent S>
struct score_bias {
  matrix<T, L, S> values;
};

/// Wraps an L x S matrix as an additive score bias.
template <class T, extent L, extent S>
constexpr score_bias<T, L, S> bias(const matrix<T, L, S>& values) noexcept {
  return {values};
}

/// An explicit scale: scores are (q·k) * factor instead of (q·k) / √d_k.
template <class T>
struct score_scale {
  T factor;
};

/// Scores are (q·k) * factor instead of the default (q·k) / √d_k.
template <class T>
constexpr score_scale<T> scale(T factor) noexcept {
  return {factor};
}

/// Which projection a projection bias belongs to.
enum class projection { query, key, value, output };

/// A bias row added to every row of one projection (X·W + b), as nn.Linear's bias.
template <projection P, class T, extent W>
struct projection_bias {
  matrix<T, 1, W> values;
};

/// Bias of the query projection: Q = X_q·W_q + b_q (b_q is 1 x width of Q).
template <class T, extent W>
constexpr projection_bias<projection::query, T, W> query_bias(const matrix<T, 1, W>& b) noexcept {
  return {b};
}
/// Bias of the key projection: K = X_kv·W_k + b_k.
template <class T, extent W>
constexpr projection_bias<projection::key, T, W> key_bias(const matrix<T, 1, W>& b) noexcept {
  return {b};
}
/// Bias of the value projection: V = X_kv·W_v + b_v.
template <class T, extent W>
constexpr projection_bias<projection::value, T, W> value_bias(const matrix<T, 1, W>& b) noexcept {
  return {b};
}
/// Bias of the output projection: Y = Concat(heads)·W_o + b_o.
template <class T, extent W>
constexpr projection_bias<projection::output, T, W> output_bias(const matrix<T, 1, W>& b) noexcept {
  return {b};
}

/// The two layouts of rotary position embedding: which columns of a head form a rotated pair.
enum class rotary_layout {
  /// Columns i and i + d_k/2 (the first half turns against the second): GPT-NeoX, and LLaMA,
  /// Mistral, Qwen in Hugging Face transformers (`rotate_half`); flash-attn's interleaved=False.
  rotate_half,
  /// Columns 2i and 2i + 1 (neighbours): GPT-J (`rotate_every_two`), RoFormer, Meta's original
  /// LLaMA code (complex pairs); flash-attn's interleaved=True.
  interleaved,
};

/// Rotary position embedding (RoPE, Su et al. 2021) of the queries and keys: see rotary().
/// RotaryDims columns of each head are rotated, all of them when 0.
template <rotary_layout Layout, std::size_t RotaryDims = 0>
struct rotary_embedding {
  double base;
};

/// Rotary position embedding in the rotate-half layout. Before the scores, each head's query and
/// key rows (after the projections and their biases) are rotated pair by pair: the pair
/// (x_i, x_{i+d_k/2}) of a row at position p turns by θ = p · base^(-2i/d_k), i < d_k/2, so that
/// q·k depends on the positions only through their difference. Positions are the row indices of
/// the queries and of the keys, except with causal_lower_right, where the L queries are the last
/// L of the S keys' positions (S - L + i: decoding with a cache). Values are not rotated. The head
/// width d_k must be even. Angles are computed in the element type (float: in float).
/// `rotary<RotaryDims>(base)` rotates only the first RotaryDims columns of each head (even, at
/// most d_k), with d_k replaced by RotaryDims above: GPT-NeoX's rotary_pct, GPT-J's rotary_dim.
template <std::size_t RotaryDims = 0>
constexpr rotary_embedding<rotary_layout::rotate_half, RotaryDims> rotary(double base = 10000.0) noexcept {
  return {base};
}

/// Rotary position embedding in the interleaved layout: the pairs are columns (2i, 2i + 1), as in
/// GPT-J and RoFormer; otherwise as rotary().
template <std::size_t RotaryDims = 0>
constexpr rotary_embedding<rotary_layout::interleaved, RotaryDims> rotary_interleaved(double base = 10000.0) noexcept {
  return {base};
}

// ---------------------------------------------------------------------------------------------
// Shape rules of the options, as named concepts (see shape_rules.hpp for the core rules).
// ---------------------------------------------------------------------------------------------

namespace detail {

template <class O>
struct option_traits {
  static constexpr bool is_option = false;
};

template <extent ML, extent MS>
struct option_traits<attention_mask<ML, MS>> {
  static constexpr bool is_option = true;
  static constexpr bool is_mask = true;
  template <class T, auto L, auto S>
  static constexpr bool fits = compatible_extents<ML, L>&& compatible_extents<MS, S>;
};
template <extent MS>
struct option_traits<key_padding_mask<MS>> {
  static constexpr bool is_option = true;
  static constexpr bool is_mask = true;
  template <class T, auto L, auto S>
  static constexpr bool fits = compatible_extents<MS, S>;
};
// A batch option is an option (so a call with one names its rule), but it fits no single
// matrix: only the batched functions take it (attention/batched.hpp gives each item its row).
template <extent B, extent S>
struct option_traits<batch_key_padding_mask<B, S>> {
  static constexpr bool is_option = true;
  static constexpr bool is_mask = true;
  template <class T, auto L, auto S2>
  static constexpr bool fits = false;
};
template <causal_alignment A>
struct option_traits<causal_mask<A>> {
  static constexpr bool is_option = true;
  static constexpr bool is_mask = true;
  template <class T, auto L, auto S>
  static constexpr bool fits = true;
};
template <class U, extent BL, extent BS>
struct option_traits<score_bias<U, BL, BS>> {
  static constexpr bool is_option = true;
  static constexpr bool is_mask = false;
  template <class T, auto L, auto S>
  static constexpr bool fits = std::is_same_v<T, U>&& compatible_extents<BL, L>&& compatible_extents<BS, S>;
};
template <class U>
struct option_traits<score_scale<U>> {
  static constexpr bool is_option = true;
  static constexpr bool is_mask = false;
  template <class T, auto L, auto S>
  static constexpr bool fits = std::is_same_v<T, U>;
};
template <projection P, class U, extent W>
struct option_traits<projection_bias<P, U, W>> {
  static constexpr bool is_option = true;
  static constexpr bool is_mask = false;
  template <class T, auto L, auto S>
  static constexpr bool fits = std::is_same_v<T, U>;
};

template <rotary_layout Layout, std::size_t RotaryDims>
struct option_traits<rotary_embedding<Layout, RotaryDims>> {
  static constexpr bool is_option = true;
  static constexpr bool is_mask = false;
  template <class T, auto L, auto S>
  static constexpr bool fits = std::is_floating_point_v<T>;
};

}  // namespace detail

/// Any attention option (mask, key padding, causal, bias, scale, projection bias, rotary).
template <class O>
concept AttentionOption = detail::option_traits<std::remove_cvref_t<O>>::is_option;

/// An option fits attention with element type T, L queries and S keys: a mask or bias is
/// L x S (a key-padding mask has length S), and its element type is T.
template <class O, class T, auto L, auto S>
concept OptionFitsScores = AttentionOption<O> && detail::option_traits<std::remove_cvref_t<O>>::template fits<T, L, S>;

namespace detail {
template <class O>
inline constexpr bool is_any_projection_bias_v = false;
template <projection P, class U, extent W>
inline constexpr bool is_any_projection_bias_v<projection_bias<P, U, W>> = true;
}  // namespace detail

/// An option that acts on the scores alone (not a projection bias): what attention on given
/// Q, K, V takes, since it has no projections.
template <class O, class T, auto L, auto S>
concept ScoreOptionFits = OptionFitsScores<O, T, L, S> && !detail::is_any_projection_bias_v<std::remove_cvref_t<O>>;

namespace detail {

template <class O>
inline constexpr bool is_scale_v = false;
template <class U>
inline constexpr bool is_scale_v<score_scale<U>> = true;

template <projection P, class O>
inline constexpr bool is_projection_bias_v = false;
template <projection P, class U, extent W>
inline constexpr bool is_projection_bias_v<P, projection_bias<P, U, W>> = true;

template <class O>
inline constexpr bool is_batch_option_v = false;
template <extent B, extent S>
inline constexpr bool is_batch_option_v<batch_key_padding_mask<B, S>> = true;

template <class O>
inline constexpr bool is_rotary_v = false;
template <rotary_layout Layout, std::size_t RotaryDims>
inline constexpr bool is_rotary_v<rotary_embedding<Layout, RotaryDims>> = true;

// The columns of each head a call's rotary option rotates: RotaryDims, or 0 (all, or no rotary).
template <class... O>
inline constexpr std::size_t rotary_dims = 0;
template <class O, class... Rest>
inline constexpr std::size_t rotary_dims<O, Rest...> = rotary_dims<Rest...>;
template <rotary_layout Layout, std::size_t RotaryDims, class... Rest>
inline constexpr std::size_t rotary_dims<rotary_embedding<Layout, RotaryDims>, Rest...> = RotaryDims;

template <class... O>
inline constexpr std::size_t rotary_count = (std::size_t{0} + ... + (is_rotary_v<std::remove_cvref_t<O>> ? 1U : 0U));

template <class... O>
inline constexpr std::size_t scale_count = (std::size_t{0} + ... + (is_scale_v<std::remove_cvref_t<O>> ? 1U : 0U));

template <projection P, class... O>
inline constexpr std::size_t projection_bias_count = (std::size_t{0} + ... +
                                                      (is_projection_bias_v<P, std::remove_cvref_t<O>> ? 1U : 0U));

}  // namespace detail

namespace shape_error {
/// An option does not fit the L x S scores: mask(m) and bias(b) are L x S, key_padding(k) is 1 x S,
/// all of the scores' element type (queries x keys: a mask written keys x queries is transposed).
template <class L, class S, class... Options>
struct attention_options_must_fit_l_by_s_scores;  // mask, bias: L x S; key_padding: 1 x S; same element type
}  // namespace shape_error

/// The options of one call make sense together: at most one scale, at most one bias per
/// projection and at most one rotary embedding.
template <class... O>
concept OptionsAreConsistent = detail::scale_count<O...>
<= 1 && detail::rotary_count<O...> <= 1 && detail::projection_bias_count<projection::query, O...> <= 1 &&
    detail::projection_bias_count<projection::key, O...> <= 1 &&
    detail::projection_bias_count<projection::value, O...> <= 1 &&
    detail::projection_bias_count<projection::output, O...> <= 1;

namespace detail {

// The kernel's pairing of a layout.
template <rotary_layout Layout>
inline constexpr rotary_pairs rotary_pairs_of =
    Layout == rotary_layout::rotate_half ? rotary_pairs::rotate_half : rotary_pairs::interleaved;

// The columns of each head of width d_k that an option rotates: RotaryDims, or all of them.
template <std::size_t RotaryDims, std::size_t DK>
inline constexpr std::size_t rotated_width = RotaryDims == 0 ? DK : RotaryDims;

// Rotates the rows of m (Heads heads of equal width side by side) when the option is rotary().
template <std::size_t Heads, class T, std::size_t R, std::size_t C, class O>
constexpr void apply_rotary(T (&/*m*/)[R][C], long long /*first*/, const O& /*option*/) noexcept {}
template <std::size_t Heads, class T, std::size_t R, std::size_t C, rotary_layout Layout, std::size_t RotaryDims>
constexpr void apply_rotary(T (&m)[R][C], long long first, const rotary_embedding<Layout, RotaryDims>& o) noexcept {
  rotate_rows<rotary_pairs_of<Layout>, rotated_width<RotaryDims, C / Heads>>(m, Heads, first, static_cast<T>(o.base));
}

}  // namespace detail

}  // namespace cxmat
