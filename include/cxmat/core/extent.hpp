// Copyright the cxmat authors.
// SPDX-License-Identifier: BSL-1.0
// Extents: the size of one matrix dimension, optionally carrying a name (n, d_k, d_model ...).
#pragma once

#include <concepts>
#include <cstddef>
#include <type_traits>

namespace cxmat {

/// The name of a dimension that has none: plain sizes such as `matrix<double, 2, 3>`.
struct anonymous {
  static constexpr const char* name = "";
};

/// Size of one dimension; `Name` is a tag type that names it (see CXMAT_DIM).
///
/// A structural class type, so it can be a template argument: `matrix<double, 2, 3>` converts
/// the 2 and 3 into `extent<anonymous>`, while a declared dimension such as `d_k` keeps its
/// name in the type, where the compiler prints it in diagnostics as `extent<d_k_dim>{2}`.
template <class Name = anonymous>
struct extent {
  std::size_t size;

  // The parameter's name is one no dimension is likely to have: GCC's -Wshadow would flag a
  // parameter `n` in every program that declares CXMAT_DIM(n, ...) at global scope.
  template <std::integral I>
  constexpr extent(I extent_size) noexcept  // NOLINT(google-explicit-constructor): sizes are written plainly
      : size(static_cast<std::size_t>(extent_size)) {}

  using name_type = Name;
};

template <std::integral I>
extent(I) -> extent<anonymous>;

namespace detail {

template <class T>
inline constexpr bool is_extent_impl_v = false;
template <class Name>
inline constexpr bool is_extent_impl_v<extent<Name>> = true;

// decltype of a class-type template parameter is const-qualified on GCC, so strip it.
template <class T>
inline constexpr bool is_extent_v = is_extent_impl_v<std::remove_cvref_t<T>>;

template <auto E>
using name_of = typename std::remove_cvref_t<decltype(E)>::name_type;

}  // namespace detail

/// A dimension name: `H * d_v`, the width of H concatenated heads of width d_v.
template <std::size_t Factor, class Name>
struct times {};

/// A dimension name: `d_model / H`, one of H equal column blocks of a width named d_model.
template <class Name, std::size_t Divisor>
struct divided_by {};

namespace detail {

// Name algebra, simplified so that splitting and re-joining a dimension gives its name back:
// H * (d / H) is d, (H * d) / H is d, and 1 * d, d / 1 are d.
template <std::size_t K, class N>
struct times_name {
  using type = times<K, N>;
};
template <class N>
struct times_name<1, N> {
  using type = N;
};
template <std::size_t K>
struct times_name<K, anonymous> {
  using type = anonymous;
};
template <std::size_t K, class N>
struct times_name<K, divided_by<N, K>> {
  using type = N;
};
template <>
struct times_name<1, anonymous> {
  using type = anonymous;
};

template <class N, std::size_t K>
struct divided_name {
  using type = divided_by<N, K>;
};
template <class N>
struct divided_name<N, 1> {
  using type = N;
};
template <std::size_t K>
struct divided_name<anonymous, K> {
  using type = anonymous;
};
template <class N, std::size_t K>
struct divided_name<times<K, N>, K> {
  using type = N;
};
template <>
struct divided_name<anonymous, 1> {
  using type = anonymous;
};

}  // namespace detail

/// `times_v<H, d_v>`: the extent of H blocks of width d_v side by side (size H * d_v), named
/// `H*d_v` — the width of H concatenated heads. Use it to declare W_o as
/// `matrix<double, times_v<2, d_v>, d_model>`.
template <std::size_t K, auto E>
requires detail::is_extent_v<decltype(E)>
inline constexpr extent<typename detail::times_name<K, detail::name_of<E>>::type> times_v{K * E.size};

/// `divided_v<d_model, H>`: one of H equal blocks of a dimension (size d_model / H), named
/// `d_model/H` — the per-head width in the block form of multi-head attention.
template <auto E, std::size_t K>
requires detail::is_extent_v<decltype(E)> &&(K > 0) &&
    (E.size % K ==
     0) inline constexpr extent<typename detail::divided_name<detail::name_of<E>, K>::type> divided_v{E.size / K};

/// A dimension as a type: its size and its name tag. `dim_of<d_k>` is `dim<2, d_k_dim>`.
///
/// Shape errors carry dimensions in this form, because every compiler prints a type with a
/// number and a tag as written (`cxmat::dim<2, d_k_dim>`), while GCC 12 prints some extent
/// values (class-type template arguments) as mangled symbols.
template <std::size_t Size, class Name>
struct dim {
  static constexpr std::size_t size = Size;
  using name_type = Name;
};

/// The dimension type of an extent: `dim_of<d_k>` is `dim<2, d_k_dim>`, `dim_of<extent{3}>` is
/// `dim<3, anonymous>`.
template <auto E>
using dim_of = dim<E.size, detail::name_of<E>>;

/// Whether the dimension names `A` and `B` (tags such as `d_model_dim`, `times<2, d_v_dim>`)
/// denote one dimension. False unless stated with CXMAT_DIM_EQUALS, which specializes it; read in
/// both orders, not transitively. Different names never agree by size alone: a square W_o given
/// transposed (2*d_v x d_model as d_model x 2*d_v) must stay an error unless the program says
/// d_model is 2*d_v.
template <class A, class B>
inline constexpr bool same_dimension = false;

namespace detail {

// Two dimension types agree when their sizes are equal and their names agree: the same name,
// an unnamed dimension (agrees with any name), or two names stated equal (same_dimension).
// One atomic expression, so a failed check is one line.
template <class A, class B>
inline constexpr bool dims_agree = A::size == B::size &&
                                   (std::is_same_v<typename A::name_type, typename B::name_type> ||
                                    std::is_same_v<typename A::name_type, anonymous> ||
                                    std::is_same_v<typename B::name_type, anonymous> ||
                                    same_dimension<typename A::name_type, typename B::name_type> ||
                                    same_dimension<typename B::name_type, typename A::name_type>);

// CXMAT_DIM_EQUALS(a, b) states a fact about sizes, so the sizes must be equal.
template <auto A, auto B>
inline constexpr bool sizes_equal = A.size == B.size;

}  // namespace detail

/// Two extents fit together (e.g. as the inner sizes of a product) when their sizes are equal
/// and their names agree; an unnamed extent agrees with any name.
template <auto A, auto B>
concept compatible_extents = detail::dims_agree<dim_of<A>, dim_of<B>>;

namespace detail {

// The extent that results from joining two compatible extents: the named one, if either is.
template <auto A, auto B>
constexpr auto common_extent() noexcept {
  if constexpr (std::is_same_v<name_of<A>, anonymous>) {
    return B;
  } else {
    return A;
  }
}

}  // namespace detail

/// The extent left after combining compatible extents `A` and `B` (named wins over unnamed).
template <auto A, auto B>
requires compatible_extents<A, B>
inline constexpr auto common_extent_v = detail::common_extent<A, B>();

}  // namespace cxmat

/// Declares a named dimension at namespace scope: `CXMAT_DIM(d_k, 2);` defines the extent `d_k`
/// of size 2, which is used as `matrix<double, n, d_k>` and printed as "d_k" in shapes and in
/// the compiler's messages (through the tag type `d_k_dim`).
#define CXMAT_DIM(id, size_value)            \
  struct id##_dim {                          \
    static constexpr const char* name = #id; \
  };                                         \
  inline constexpr ::cxmat::extent<id##_dim> id { size_value } /* NOLINT(bugprone-macro-parentheses): a name */

/// States that two named extents are one dimension, e.g. that the width of two heads of width
/// d_v is the model width, as in the paper (h·d_v = d_model):
///   CXMAT_DIM_EQUALS(d_model, cxmat::times_v<2, d_v>);
/// after which a W_o declared d_model x d_model (`identity<double, d_model>()`) takes the
/// concatenated heads (n x 2*d_v). At namespace scope, after both dimensions; the sizes must be
/// equal (checked). The second argument may contain commas.
#define CXMAT_DIM_EQUALS(first, ...)                                                                        \
  static_assert(::cxmat::detail::sizes_equal<(first), (__VA_ARGS__)>,                                       \
                "CXMAT_DIM_EQUALS(" #first ", " #__VA_ARGS__ "): the two dimensions have different sizes"); \
  template <>                                                                                               \
  inline constexpr bool ::cxmat::same_dimension<::cxmat::detail::name_of<(first)>,                          \
                                                ::cxmat::detail::name_of<(__VA_ARGS__)>> = true
