// Error overloads of the attention functions of attention.hpp and multi_head.hpp: for each
// function, a declaration with the same parameters that is viable exactly when one of the
// function's shape rules is broken, and whose return type is the shape error of the first broken
// rule (see shape_rules.hpp for the design). Each one lists the rules of its function, in the
// order of that function's requires-clause; a rule changed there must be changed here (the
// static tests call every function with fitting shapes, so a mismatch shows up as an ambiguity).
#pragma once

#include <cstddef>

#include <cxmat/attention/options.hpp>
#include <cxmat/core/extent.hpp>
#include <cxmat/core/matrix.hpp>
#include <cxmat/core/shape_rules.hpp>

namespace cxmat {
namespace detail {

template <auto QCols, auto KCols>
using query_key_check = check<QueryKeyWidthsMatch<QCols, KCols>,
                              shape_error::attention_q_and_k_widths_must_match<dim_of<QCols>, dim_of<KCols>>>;
template <auto KRows, auto VRows>
using key_value_check = check<KeyValueLengthsMatch<KRows, VRows>,
                              shape_error::attention_k_and_v_lengths_must_match<dim_of<KRows>, dim_of<VRows>>>;
template <auto XCols, auto WRows>
using wq_check = check<ProjectionFitsInput<XCols, WRows>,
                       shape_error::projection_x_cols_must_equal_wq_rows<dim_of<XCols>, dim_of<WRows>>>;
template <auto XCols, auto WRows>
using wk_check = check<ProjectionFitsInput<XCols, WRows>,
                       shape_error::projection_x_cols_must_equal_wk_rows<dim_of<XCols>, dim_of<WRows>>>;
template <auto XCols, auto WRows>
using wv_check = check<ProjectionFitsInput<XCols, WRows>,
                       shape_error::projection_x_cols_must_equal_wv_rows<dim_of<XCols>, dim_of<WRows>>>;
template <auto WqCols, auto WkCols>
using wq_wk_check = check<QueryKeyWidthsMatch<WqCols, WkCols>,
                          shape_error::projection_wq_and_wk_widths_must_match<dim_of<WqCols>, dim_of<WkCols>>>;
template <auto Width, std::size_t H>
using heads_q_check =
    check<HeadsDivideWidth<Width, H>, shape_error::multi_head_h_must_divide_q_width<H, dim_of<Width>>>;
template <auto Width, std::size_t H>
using heads_v_check =
    check<HeadsDivideWidth<Width, H>, shape_error::multi_head_h_must_divide_v_width<H, dim_of<Width>>>;
template <auto ConcatCols, auto WoRows>
using wo_check =
    check<OutputProjectionFitsHeads<ConcatCols, WoRows>,
          shape_error::output_projection_wo_rows_must_equal_h_times_d_v<dim_of<ConcatCols>, dim_of<WoRows>>>;

// Options (masks, key padding, score bias, scale) that act on the L x S scores.
template <class T, auto L, auto S, class... O>
using score_options_check = check<(ScoreOptionFits<O, T, L, S> && ...),
                                  shape_error::attention_options_must_fit_l_by_s_scores<dim_of<L>, dim_of<S>, O...>>;

}  // namespace detail

// attention.hpp

/// Shape error of attention_scores(q, k): Q and K widths differ, or an option does not fit.
template <class T, extent L, extent DK1, extent S, extent DK2, class... O>
  requires(AttentionOption<O> && ...)
decltype(detail::first_failure<detail::query_key_check<DK1, DK2>, detail::score_options_check<T, L, S, O...>>::error())
attention_scores(const matrix<T, L, DK1>& q, const matrix<T, S, DK2>& k, const O&... opts) noexcept;

/// Shape error of attention_weights(q, k): Q and K widths differ, or an option does not fit.
template <class T, extent L, extent DK1, extent S, extent DK2, class... O>
  requires(AttentionOption<O> && ...)
decltype(detail::first_failure<detail::query_key_check<DK1, DK2>, detail::score_options_check<T, L, S, O...>>::error())
attention_weights(const matrix<T, L, DK1>& q, const matrix<T, S, DK2>& k, const O&... opts) noexcept;

/// Shape error of scaled_dot_product_attention(q, k, v): Q/K widths or K/V lengths differ, or an
/// option does not fit the L x S scores.
template <class T, extent L, extent DK1, extent S1, extent DK2, extent S2, extent DV, class... O>
  requires(AttentionOption<O> && ...)
decltype(detail::first_failure<detail::query_key_check<DK1, DK2>, detail::key_value_check<S1, S2>,
                               detail::score_options_check<T, L, S1, O...>>::error())
scaled_dot_product_attention(const matrix<T, L, DK1>& q, const matrix<T, S1, DK2>& k,
                             const matrix<T, S2, DV>& v, const O&... opts) noexcept;

/// Shape error of self_attention(x, wq, wk, wv): a projection does not fit X, or Wq and Wk
/// widths differ.
template <class T, extent N, extent DM, extent DMq, extent DK1, extent DMk, extent DK2, extent DMv, extent DV,
          class... O>
  requires(AttentionOption<O> && ...)
decltype(detail::first_failure<detail::wq_check<DM, DMq>, detail::wk_check<DM, DMk>,
                               detail::wv_check<DM, DMv>, detail::wq_wk_check<DK1, DK2>>::error())
self_attention(const matrix<T, N, DM>& x, const matrix<T, DMq, DK1>& wq, const matrix<T, DMk, DK2>& wk,
               const matrix<T, DMv, DV>& wv, const O&... opts) noexcept;

// multi_head.hpp

/// Shape error of multi_head_attention_qkv<H>(q, k, v).
template <std::size_t H, class T, extent L, extent QW, extent S1, extent KW, extent S2, extent VW, class... O>
  requires(AttentionOption<O> && ...)
decltype(detail::first_failure<detail::query_key_check<QW, KW>, detail::key_value_check<S1, S2>,
                               detail::heads_q_check<QW, H>, detail::heads_v_check<VW, H>>::error())
multi_head_attention_qkv(const matrix<T, L, QW>& q, const matrix<T, S1, KW>& k, const matrix<T, S2, VW>& v,
                         const O&... opts) noexcept;

/// Shape error of multi_head_attention<H>(x, wq, wk, wv).
template <std::size_t H, class T, extent N, extent DM, extent DMq, extent QW, extent DMk, extent KW, extent DMv,
          extent VW, class... O>
  requires(AttentionOption<O> && ...)
decltype(detail::first_failure<detail::wq_check<DM, DMq>, detail::wk_check<DM, DMk>,
                               detail::wv_check<DM, DMv>, detail::wq_wk_check<QW, KW>,
                               detail::heads_q_check<QW, H>, detail::heads_v_check<VW, H>>::error())
multi_head_attention(const matrix<T, N, DM>& x, const matrix<T, DMq, QW>& wq, const matrix<T, DMk, KW>& wk,
                     const matrix<T, DMv, VW>& wv, const O&... opts) noexcept;

/// Shape error of multi_head_attention<H>(x, wq, wk, wv, wo).
template <std::size_t H, class T, extent N, extent DM, extent DMq, extent QW, extent DMk, extent KW, extent DMv,
          extent VW, extent VWo, extent DO, class... O>
  requires(AttentionOption<O> && ...)
decltype(detail::first_failure<detail::wq_check<DM, DMq>, detail::wk_check<DM, DMk>,
                               detail::wv_check<DM, DMv>, detail::wq_wk_check<QW, KW>,
                               detail::heads_q_check<QW, H>, detail::heads_v_check<VW, H>,
                               detail::wo_check<VW, VWo>>::error())
multi_head_attention(const matrix<T, N, DM>& x, const matrix<T, DMq, QW>& wq, const matrix<T, DMk, KW>& wk,
                     const matrix<T, DMv, VW>& wv, const matrix<T, VWo, DO>& wo, const O&... opts) noexcept;

/// Shape error of multi_head_attention_weights<H>(x, wq, wk).
template <std::size_t H, class T, extent N, extent DM, extent DMq, extent QW, extent DMk, extent KW, class... O>
  requires(AttentionOption<O> && ...)
decltype(detail::first_failure<detail::wq_check<DM, DMq>, detail::wk_check<DM, DMk>,
                               detail::wq_wk_check<QW, KW>, detail::heads_q_check<QW, H>>::error())
multi_head_attention_weights(const matrix<T, N, DM>& x, const matrix<T, DMq, QW>& wq,
                             const matrix<T, DMk, KW>& wk, const O&... opts) noexcept;

/// Shape error of multi_head_attention_with_weights<H>(x, wq, wk, wv).
template <std::size_t H, class T, extent N, extent DM, extent DMq, extent QW, extent DMk, extent KW, extent DMv,
          extent VW, class... O>
  requires(AttentionOption<O> && ...)
decltype(detail::first_failure<detail::wq_check<DM, DMq>, detail::wk_check<DM, DMk>,
                               detail::wv_check<DM, DMv>, detail::wq_wk_check<QW, KW>,
                               detail::heads_q_check<QW, H>, detail::heads_v_check<VW, H>>::error())
multi_head_attention_with_weights(const matrix<T, N, DM>& x, const matrix<T, DMq, QW>& wq,
                                  const matrix<T, DMk, KW>& wk, const matrix<T, DMv, VW>& wv,
                                  const O&... opts) noexcept;

/// Shape error of multi_head_attention_with_weights<H>(x, wq, wk, wv, wo).
template <std::size_t H, class T, extent N, extent DM, extent DMq, extent QW, extent DMk, extent KW, extent DMv,
          extent VW, extent VWo, extent DO, class... O>
  requires(AttentionOption<O> && ...)
decltype(detail::first_failure<detail::wq_check<DM, DMq>, detail::wk_check<DM, DMk>,
                               detail::wv_check<DM, DMv>, detail::wq_wk_check<QW, KW>,
                               detail::heads_q_check<QW, H>, detail::heads_v_check<VW, H>,
                               detail::wo_check<VW, VWo>>::error())
multi_head_attention_with_weights(const matrix<T, N, DM>& x, const matrix<T, DMq, QW>& wq,
                                  const matrix<T, DMk, KW>& wk, const matrix<T, DMv, VW>& wv,
                                  const matrix<T, VWo, DO>& wo, const O&... opts) noexcept;

}  // namespace cxmat
