// Copyright the cxmat authors.
// SPDX-License-Identifier: BSL-1.0
// Shape errors of the attention layer in plain words: in plain mode (CXMAT_PLAIN_ERRORS,
// core/config.hpp) each attention shape error (attention/rules.hpp, options.hpp, batched.hpp) is
// defined here as a static_assert whose message is one sentence built at compile time. Outside
// plain mode this header defines nothing and the errors stay incomplete types.
#pragma once

#include <cstddef>
#include <type_traits>

#include <cxmat/attention/options.hpp>
#include <cxmat/core/config.hpp>
#include <cxmat/core/extent.hpp>
#include <cxmat/core/plain_errors.hpp>

#if CXMAT_PLAIN_ERRORS
namespace cxmat::detail::plain {

template <class QCols, class KCols>
constexpr sentence query_key_widths() noexcept {
  sentence s = must_equal_sentence<QCols, KCols>("attention(Q, K, V): ", "Q's columns", "K's columns",
                                                 " (Q is L x d_k, K is S x d_k).");
  if constexpr (is_named<KCols> && !std::is_same_v<typename KCols::name_type, typename QCols::name_type>) {
    s.put(" Passed V where K belongs? The order is (Q, K, V).");
  }
  return s;
}

template <class KRows, class VRows>
constexpr sentence key_value_lengths() noexcept {
  return must_equal_sentence<KRows, VRows>("attention(Q, K, V): ", "K's rows", "V's rows",
                                           ": one value row per key row (K is S x d_k, V is S x d_v).");
}

template <class XCols, class WRows>
constexpr sentence projection_fits(const char* w, const char* product, const char* width) noexcept {
  sentence s;
  s.put(product).put(": X's columns ");
  put_dim<XCols>(s);
  s.put(" must equal ").put(w).put("'s rows ");
  put_dim<WRows>(s);
  s.put(" (X is n x d_model, ").put(w).put(" is d_model x ").put(width).put(").");
  if constexpr (XCols::size > 0 && WRows::size > XCols::size && WRows::size % XCols::size == 0) {
    // The heads' d_model x d_k blocks stacked by rows (vconcat) have the transpose's shape too.
    s.put(" Is ").put(w).put(" transposed, or are the heads' weights stacked by rows (vconcat) where they belong");
    s.put(" side by side (hconcat)?");
  } else if constexpr (XCols::size != WRows::size) {
    s.put(" Is ").put(w).put(" transposed?");
  }
  return s;
}

template <class WqCols, class WkCols>
constexpr sentence wq_wk_widths() noexcept {
  return must_equal_sentence<WqCols, WkCols>("self-attention: ", "Wq's columns", "Wk's columns",
                                             ": Q·Kᵀ needs one width d_k for queries and keys.");
}

template <std::size_t H, class Width>
constexpr sentence heads_divide(const char* what) noexcept {
  sentence s;
  s.put("multi-head attention with H = ").put(H).put(" heads: H must divide ").put(what).put(' ');
  put_dim<Width>(s);
  s.put(" into equal blocks: head h reads column block h.");
  return s;
}

template <class ConcatCols, class WoRows>
constexpr sentence wo_fits_heads() noexcept {
  sentence s = must_equal_sentence<WoRows, ConcatCols>("multi-head attention: ", "W_o's rows",
                                                       "the columns of the concatenated heads",
                                                       " (Concat(heads) is n x H·d_v, W_o is H·d_v x d_model).");
  if constexpr (ConcatCols::size == WoRows::size && could_be_one_dimension<ConcatCols, WoRows>) {
    // Only the names differ, and they could be one dimension: but a square W_o passed transposed
    // (d_model x H·d_v) looks the same, and stating the equality would hide it.
    s.put(
        " The sizes agree but the names differ: if W_o is d_model x H·d_v (PyTorch's out_proj.weight),"
        " pass transpose(W_o); only if d_model = H·d_v is one dimension, state it with CXMAT_DIM_EQUALS.");
  } else if constexpr (ConcatCols::size == WoRows::size) {
    s.put(" The sizes agree but the names differ: is W_o transposed?");
  } else {
    s.put(" Is W_o transposed?");
  }
  return s;
}

template <std::size_t H, std::size_t Hkv>
constexpr sentence kv_heads_divide_heads() noexcept {
  sentence s;
  s.put("grouped-query attention: H_kv = ").put(Hkv).put(" key/value heads must divide H = ").put(H);
  s.put(" query heads (query head i reads key/value head i / (H / H_kv)).");
  return s;
}

template <std::size_t Hkv, class Width>
constexpr sentence kv_heads_divide_width(const char* w) noexcept {
  sentence s;
  s.put("grouped-query attention: H_kv = ").put(Hkv).put(" must divide ").put(w).put("'s columns ");
  put_dim<Width>(s);
  s.put(", since key/value head j reads column block j.");
  return s;
}

template <class QHead, class KHead>
constexpr sentence head_widths() noexcept {
  return must_equal_sentence<QHead, KHead>("grouped-query attention: ", "a query head's width",
                                           "its key/value head's width", " (Wq is H·d_k wide, Wk is H_kv·d_k wide).");
}

template <class... E>
constexpr sentence element_types() noexcept {
  sentence s;
  s.put("attention: every matrix of one call must have the same element type, but they are ");
  bool first = true;
  ((s.put(first ? "" : ", ").put(type_name<E>()), first = false), ...);
  s.put("; convert explicitly.");
  return s;
}

// The shape of one score option, "mask (2) x (3)"; nothing for options without a shape.
template <class O>
constexpr void put_option(sentence& s, bool& first) noexcept {
  auto start = [&] {
    s.put(first ? "" : ", ");
    first = false;
  };
  if constexpr (requires { O{}.allowed; }) {
    start();
    s.put("mask ");
    put_shape<dim_of<decltype(O{}.allowed)::row_extent>, dim_of<decltype(O{}.allowed)::col_extent>>(s);
  } else if constexpr (requires { O{}.keep; }) {
    start();
    s.put("key_padding ");
    put_shape<dim_of<decltype(O{}.keep)::row_extent>, dim_of<decltype(O{}.keep)::col_extent>>(s);
  }
}

template <class L, class S, class... O>
constexpr sentence options_fit() noexcept {
  sentence s;
  s.put("attention options must fit the L x S scores ");
  put_shape<L, S>(s);
  s.put(": mask(m) and bias(b) are L x S, key_padding(k) is 1 x S, of the scores' element type");
  bool first = true;
  sentence shapes;
  (put_option<std::remove_cvref_t<O>>(shapes, first), ...);
  if (!first) {
    s.put("; given: ");
    for (std::size_t i = 0; i < shapes.size(); ++i) s.put(shapes.data()[i]);
  }
  s.put(". A mask written keys x queries is transposed.");
  return s;
}

constexpr sentence output_bias_needs_w_o() noexcept {
  sentence s;
  s.put(
      "output_bias(b): the bias is added to Concat(heads)·W_o, and this call has no W_o: pass W_o, or add b "
      "to the result.");
  return s;
}

constexpr sentence batch_key_padding_needs_a_batch() noexcept {
  sentence s;
  s.put(
      "batch_key_padding(keep): row b of keep is the key padding of item b of a batch, and this call "
      "attends over one sequence: pass batches, or key_padding(row) for one sequence.");
  return s;
}

constexpr sentence options_conflict() noexcept {
  sentence s;
  s.put(
      "attention options conflict: one call takes at most one scale(...) and at most one bias per projection. "
      "It takes one rotary(...) or rotary_interleaved(...) at most.");
  return s;
}

template <class Projection, class BiasWidth, class Width>
constexpr sentence bias_width() noexcept {
  constexpr const char* operations[] = {"query_bias (X_q·W_q + b): ", "key_bias (X_kv·W_k + b): ",
                                        "value_bias (X_kv·W_v + b): ", "output_bias (Concat(heads)·W_o + b): "};
  return must_equal_sentence<BiasWidth, Width>(operations[static_cast<std::size_t>(Projection::value)],
                                               "the bias width", "the projection's width", ".");
}

template <class B>
constexpr sentence batch_key_padding() noexcept {
  sentence s;
  s.put("batched attention: batch_key_padding(keep) needs one row per batch item, B ");
  put_dim<B>(s);
  s.put(" rows (keep is B x S, row b for item b).");
  return s;
}

template <class HeadWidth>
constexpr sentence rotary_head_width() noexcept {
  sentence s;
  s.put("rotary position embedding: the head width d_k ");
  put_dim<HeadWidth>(s);
  s.put(" must be even, since rotary() turns pairs of each head's query and key columns.");
  return s;
}

template <std::size_t RotaryDims, class HeadWidth>
constexpr sentence rotary_dims() noexcept {
  sentence s;
  s.put("rotary<").put(RotaryDims).put(">(): the rotated columns (").put(RotaryDims);
  s.put(") must be an even number, at most the head width d_k ");
  put_dim<HeadWidth>(s);
  s.put(": rotary turns pairs among the first columns of each head.");
  return s;
}

template <class DModel>
constexpr sentence heads_not_given() noexcept {
  sentence s;
  s.put(
      "multi_head_attention(X, Wq, Wk, Wv, ...): the number of heads H is not given and cannot be deduced from the "
      "matrices: write multi_head_attention<H>(X, Wq, Wk, Wv, Wo), H dividing X's columns ");
  put_dim<DModel>(s);
  s.put(".");
  return s;
}

}  // namespace cxmat::detail::plain

namespace cxmat::shape_error {
// The definitions of the attention shape errors, in the order of attention/rules.hpp.
template <class QCols, class KCols>
struct attention_q_and_k_widths_must_match {
  static_assert(false, detail::plain::query_key_widths<QCols, KCols>());
};
template <class KRows, class VRows>
struct attention_k_and_v_lengths_must_match {
  static_assert(false, detail::plain::key_value_lengths<KRows, VRows>());
};
template <class XCols, class WqRows>
struct projection_x_cols_must_equal_wq_rows {
  static_assert(false, detail::plain::projection_fits<XCols, WqRows>("Wq", "Q = X·Wq", "d_k"));
};
template <class XCols, class WkRows>
struct projection_x_cols_must_equal_wk_rows {
  static_assert(false, detail::plain::projection_fits<XCols, WkRows>("Wk", "K = X·Wk", "d_k"));
};
template <class XCols, class WvRows>
struct projection_x_cols_must_equal_wv_rows {
  static_assert(false, detail::plain::projection_fits<XCols, WvRows>("Wv", "V = X·Wv", "d_v"));
};
template <class WqCols, class WkCols>
struct projection_wq_and_wk_widths_must_match {
  static_assert(false, detail::plain::wq_wk_widths<WqCols, WkCols>());
};
template <std::size_t H, class QWidth>
struct multi_head_h_must_divide_q_width {
  static_assert(false, detail::plain::heads_divide<H, QWidth>("the query width"));
};
template <std::size_t H, class VWidth>
struct multi_head_h_must_divide_v_width {
  static_assert(false, detail::plain::heads_divide<H, VWidth>("the value width"));
};
template <class ConcatCols, class WoRows>
struct output_projection_wo_rows_must_equal_h_times_d_v {
  static_assert(false, detail::plain::wo_fits_heads<ConcatCols, WoRows>());
};
template <class HeadWidth>
struct rotary_head_width_must_be_even {
  static_assert(false, detail::plain::rotary_head_width<HeadWidth>());
};
template <std::size_t RotaryDims, class HeadWidth>
struct rotary_dims_must_be_even_and_at_most_d_k {
  static_assert(false, detail::plain::rotary_dims<RotaryDims, HeadWidth>());
};
template <std::size_t H, std::size_t Hkv>
struct grouped_query_h_kv_must_divide_h {
  static_assert(false, detail::plain::kv_heads_divide_heads<H, Hkv>());
};
template <std::size_t Hkv, class KWidth>
struct grouped_query_h_kv_must_divide_k_width {
  static_assert(false, detail::plain::kv_heads_divide_width<Hkv, KWidth>("Wk"));
};
template <std::size_t Hkv, class VWidth>
struct grouped_query_h_kv_must_divide_v_width {
  static_assert(false, detail::plain::kv_heads_divide_width<Hkv, VWidth>("Wv"));
};
template <class QHeadWidth, class KHeadWidth>
struct grouped_query_head_widths_must_match {
  static_assert(false, detail::plain::head_widths<QHeadWidth, KHeadWidth>());
};
template <class... Elements>
struct attention_element_types_must_match {
  static_assert(false, detail::plain::element_types<Elements...>());
};
template <class... Options>
struct output_bias_needs_w_o {
  static_assert(false, detail::plain::output_bias_needs_w_o());
};
template <class... Options>
struct batch_key_padding_needs_a_batch {
  static_assert(false, detail::plain::batch_key_padding_needs_a_batch());
};
template <class... Options>
struct attention_options_conflict {
  static_assert(false, detail::plain::options_conflict());
};
template <class Projection, class BiasWidth, class ProjectionWidth>
struct projection_bias_width_must_match_projection {
  static_assert(false, detail::plain::bias_width<Projection, BiasWidth, ProjectionWidth>());
};
template <class L, class S, class... Options>
struct attention_options_must_fit_l_by_s_scores {
  static_assert(false, detail::plain::options_fit<L, S, Options...>());
};
template <class B, class... Options>
struct batch_key_padding_must_have_one_row_per_item {
  static_assert(false, detail::plain::batch_key_padding<B>());
};
template <class DModel>
struct multi_head_attention_needs_h_as_template_argument {
  static_assert(false, detail::plain::heads_not_given<DModel>());
};
}  // namespace cxmat::shape_error
#endif
