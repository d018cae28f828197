// Copyright the cxmat authors.
// SPDX-License-Identifier: BSL-1.0
// Printing and tracing the per-head form of multi-head attention (attention/per_head.hpp), whose
// heads and results are Boost.Hana tuples. A separate header so that print.hpp needs no Hana;
// without <boost/hana/tuple.hpp> it declares nothing.
#pragma once

#if defined(__has_include)
#if __has_include(<boost/hana/tuple.hpp>)
#define CXMAT_IO_HAS_HANA 1
#endif
#endif

#ifdef CXMAT_IO_HAS_HANA

#include <cstddef>
#include <ostream>
#include <string>
#include <string_view>
#include <type_traits>

#include <boost/hana/for_each.hpp>
#include <boost/hana/tuple.hpp>
#include <boost/hana/unpack.hpp>

#include <cxmat/attention/per_head.hpp>
#include <cxmat/core/batch.hpp>
#include <cxmat/core/matrix.hpp>
#include <cxmat/io/print.hpp>
#include <cxmat/io/trace.hpp>
#include <cxmat/ops/blocks.hpp>

namespace cxmat {

/// Writes a Hana tuple of matrices (head_weights, head_outputs) as "label (k heads):" and each
/// matrix under "label[H=h] (shape):", h from opt.first_head_number (0: the index of
/// boost::hana::size_c<h>). Each matrix is formatted on its own, as the heads may differ in shape.
template <class... M>
requires(sizeof...(M) > 0 && (Matrix<M> && ...)) std::ostream& print(std::ostream& os, std::string_view label,
                                                                     const boost::hana::tuple<M...>& heads,
                                                                     print_options opt = {}) {
  os << label << " (" << sizeof...(M) << (sizeof...(M) == 1 ? " head" : " heads") << "):\n";
  std::size_t h = 0;
  boost::hana::for_each(heads, [&](const auto& m) {
    print(os, detail::cat(label, detail::batch_index_text<heads_v<sizeof...(M)>>(h++, opt.first_head_number)), m, opt);
  });
  return os;
}

/// The matrices of a Hana tuple of one matrix type (head_weights are all n x n) as an
/// H x R x C batch whose first axis is named H, for print, print_heatmap and write_svg_heatmap.
template <class T, extent R, extent C, class... Rest>
requires(std::is_same_v<matrix<T, R, C>, Rest>&&...) constexpr batch<T, heads_v<1 + sizeof...(Rest)>, R, C> stack_heads(
    const boost::hana::tuple<matrix<T, R, C>, Rest...>& heads) noexcept {
  batch<T, heads_v<1 + sizeof...(Rest)>, R, C> out{};
  std::size_t h = 0;
  boost::hana::for_each(heads, [&out, &h](const matrix<T, R, C>& m) { out.items[h++] = m; });
  return out;
}

namespace detail {
template <class Heads>
inline constexpr bool heads_alike_v = false;
template <class First, class... Rest>
inline constexpr bool heads_alike_v<boost::hana::tuple<First, Rest...>> = (std::is_same_v<First, Rest> && ...);

template <class... Heads>
constexpr auto stacked_projections(const boost::hana::tuple<Heads...>& heads) noexcept {
  return boost::hana::unpack(heads, [](const auto&... h) {
    return attention_head{hconcat(h.wq...), hconcat(h.wk...), hconcat(h.wv...)};
  });
}
}  // namespace detail

/// The trace of the per-head form multi_head_attention(x, heads): the heads' W^Q_i side by side
/// form the block-form W_q (likewise W_k, W_v), whose column block i is head i (worksheet 003
/// part 4), so the trace is trace_multi_head_attention<H> of the stacked projections. Every head
/// must have the same shapes. The arguments are checked with multi_head_attention's rule list.
template <Matrix X, class... Heads>
requires(detail::heads_alike_v<boost::hana::tuple<Heads...>>&& rules_hold<rules_of::per_head_attention<
             X, detail::option_list<>,
             Heads...>>) constexpr auto trace_multi_head_attention(const X& x,
                                                                   const boost::hana::tuple<Heads...>& heads) noexcept {
  const auto w = detail::stacked_projections(heads);
  return trace_multi_head_attention<sizeof...(Heads)>(x, w.wq, w.wk, w.wv);
}

/// Shape error of trace_multi_head_attention(x, heads): multi_head_attention(x, heads)'s.
template <Matrix X, class... Heads>
decltype(detail::first_failure<rules_of::per_head_attention<X, detail::option_list<>, Heads...>>::error())
trace_multi_head_attention(const X& x, const boost::hana::tuple<Heads...>& heads) noexcept;

/// As above, with the output projection W_o: the trace of multi_head_attention(x, heads, wo).
template <Matrix X, class... Heads, Matrix Wo>
requires(detail::heads_alike_v<boost::hana::tuple<Heads...>>&& rules_hold<rules_of::per_head_attention_wo<
             X, Wo, detail::option_list<>,
             Heads...>>) constexpr auto trace_multi_head_attention(const X& x,
                                                                   const boost::hana::tuple<Heads...>& heads,
                                                                   const Wo& wo) noexcept {
  const auto w = detail::stacked_projections(heads);
  return trace_multi_head_attention<sizeof...(Heads)>(x, w.wq, w.wk, w.wv, wo);
}

/// Shape error of trace_multi_head_attention(x, heads, wo): multi_head_attention(x, heads, wo)'s.
template <Matrix X, class... Heads, Matrix Wo>
decltype(detail::first_failure<rules_of::per_head_attention_wo<X, Wo, detail::option_list<>, Heads...>>::error())
trace_multi_head_attention(const X& x, const boost::hana::tuple<Heads...>& heads, const Wo& wo) noexcept;

}  // namespace cxmat

#endif  // CXMAT_IO_HAS_HANA
