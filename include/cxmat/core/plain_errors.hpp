// Copyright the cxmat authors.
// SPDX-License-Identifier: BSL-1.0
// Shape errors in plain words: in plain mode (CXMAT_PLAIN_ERRORS, core/config.hpp) each shape
// error of the core and ops layers is defined here as a static_assert whose message is one
// sentence built at compile time from the error's arguments: the operation, the sizes and names
// the rule compares, the rule, and a hint where a common mistake fits. Outside plain mode this
// header defines nothing and the shape errors stay incomplete types (see core/shape_rules.hpp).
#pragma once

#include <cstddef>
#include <type_traits>

#include <cxmat/core/config.hpp>
#include <cxmat/core/extent.hpp>

namespace cxmat::detail::plain {

/// A sentence under construction: fixed capacity, no heap, with the size()/data() that a
/// static_assert message needs (P2741). Longer text is cut at the capacity.
struct sentence {
  static constexpr std::size_t capacity = 480;
  char chars[capacity + 1]{};
  std::size_t length = 0;

  [[nodiscard]] constexpr std::size_t size() const noexcept { return length; }
  [[nodiscard]] constexpr const char* data() const noexcept { return chars; }

  constexpr sentence& put(char c) noexcept {
    if (length < capacity) chars[length++] = c;
    return *this;
  }
  constexpr sentence& put(const char* s) noexcept {
    while (*s != '\0') put(*s++);
    return *this;
  }
  constexpr sentence& put(std::size_t value) noexcept {
    char digits[24]{};
    std::size_t count = 0;
    do {
      digits[count++] = static_cast<char>('0' + value % 10);
      value /= 10;
    } while (value != 0);
    while (count > 0) put(digits[--count]);
    return *this;
  }
};

// A dimension name as written in code: "d_k", "2*d_v" (times), "d_model/2" (divided_by); an
// operand that is itself a product or quotient is parenthesised. A tag without `name` is "?".
template <class Name>
struct name_writer {
  static constexpr void write(sentence& s) noexcept {
    if constexpr (requires { Name::name; }) {
      s.put(Name::name);
    } else {
      s.put('?');
    }
  }
  static constexpr bool compound = false;
};
template <std::size_t K, class N>
struct name_writer<times<K, N>> {
  static constexpr void write(sentence& s) noexcept {
    s.put(K).put('*');
    write_operand(s);
  }
  static constexpr void write_operand(sentence& s) noexcept {
    if (name_writer<N>::compound) s.put('(');
    name_writer<N>::write(s);
    if (name_writer<N>::compound) s.put(')');
  }
  static constexpr bool compound = true;
};
template <class N, std::size_t K>
struct name_writer<divided_by<N, K>> {
  static constexpr void write(sentence& s) noexcept {
    if (name_writer<N>::compound) s.put('(');
    name_writer<N>::write(s);
    if (name_writer<N>::compound) s.put(')');
    s.put('/').put(K);
  }
  static constexpr bool compound = true;
};

template <class D>
inline constexpr bool is_named = !std::is_same_v<typename D::name_type, anonymous>;

/// "(3, d_k)" for a named dimension type, "(3)" for an unnamed one.
template <class D>
constexpr void put_dim(sentence& s) noexcept {
  s.put('(').put(D::size);
  if constexpr (is_named<D>) {
    s.put(", ");
    name_writer<typename D::name_type>::write(s);
  }
  s.put(')');
}

/// "(2, n) x (3)": a shape from two dimension types.
template <class R, class C>
constexpr void put_shape(sentence& s) noexcept {
  put_dim<R>(s);
  s.put(" x ");
  put_dim<C>(s);
}

// Whether two dimension types fail only by name (same size, both named, different names).
template <class A, class B>
inline constexpr bool names_only_differ =
    A::size == B::size&& is_named<A>&& is_named<B> && !std::is_same_v<typename A::name_type, typename B::name_type>;

// Whether two dimension names could plausibly denote one dimension: a product or quotient of
// names against a name (2*d_v and d_model), not two plain names (d_k and n: a mistake, such as
// a missing transpose, far more often than one dimension under two names).
template <class A, class B>
inline constexpr bool could_be_one_dimension =
    name_writer<typename A::name_type>::compound != name_writer<typename B::name_type>::compound;

/// The hint for two dimensions of one size with different names: CXMAT_DIM_EQUALS only where the
/// names could be one dimension, else what the mistake usually is.
template <class A, class B>
constexpr void put_name_hint(sentence& s) noexcept {
  if constexpr (names_only_differ<A, B>) {
    s.put(" The sizes agree but ");
    name_writer<typename A::name_type>::write(s);
    s.put(" and ");
    name_writer<typename B::name_type>::write(s);
    if constexpr (could_be_one_dimension<A, B>) {
      // A square W_o given transposed has these names too: the transpose is checked first.
      s.put(
          " are different dimensions: is an operand transposed? Only if they are one dimension,"
          " rename with with_dims<R, C>(m) or state it with CXMAT_DIM_EQUALS.");
    } else {
      // No fix suggested: the callers test the shapes for a transposed or swapped operand first,
      // and what is left (a mask of n x d_k, a product of the wrong matrices) has no one fix.
      s.put(" are different dimensions.");
    }
  }
}

// Whether two dimension types could be one dimension: the same size, and the same name where
// both are named (compatible_extents over dimension types).
template <class A, class B>
inline constexpr bool fits = A::size == B::size && (!is_named<A> || !is_named<B> ||
                                                    std::is_same_v<typename A::name_type, typename B::name_type>);

/// A readable name of an element type; other types are "a user-defined type".
template <class T>
constexpr const char* type_name() noexcept {
  if constexpr (std::is_same_v<T, bool>)
    return "bool";
  else if constexpr (std::is_same_v<T, char>)
    return "char";
  else if constexpr (std::is_same_v<T, signed char>)
    return "signed char";
  else if constexpr (std::is_same_v<T, unsigned char>)
    return "unsigned char";
  else if constexpr (std::is_same_v<T, short>)
    return "short";
  else if constexpr (std::is_same_v<T, unsigned short>)
    return "unsigned short";
  else if constexpr (std::is_same_v<T, int>)
    return "int";
  else if constexpr (std::is_same_v<T, unsigned>)
    return "unsigned";
  else if constexpr (std::is_same_v<T, long>)
    return "long";
  else if constexpr (std::is_same_v<T, unsigned long>)
    return "unsigned long";
  else if constexpr (std::is_same_v<T, long long>)
    return "long long";
  else if constexpr (std::is_same_v<T, unsigned long long>)
    return "unsigned long long";
  else if constexpr (std::is_same_v<T, float>)
    return "float";
  else if constexpr (std::is_same_v<T, double>)
    return "double";
  else if constexpr (std::is_same_v<T, long double>)
    return "long double";
  else
    return "a user-defined type";
}

/// "(2), (3, n)": a list of dimension types.
template <class... D>
constexpr void put_dims(sentence& s) noexcept {
  bool first = true;
  ((s.put(first ? "" : ", "), put_dim<D>(s), first = false), ...);
}

/// "<a> (2, d_k) must equal <b> (3)": the comparison most rules state.
template <class A, class B>
constexpr void put_must_equal(sentence& s, const char* a, const char* b) noexcept {
  s.put(a).put(' ');
  put_dim<A>(s);
  s.put(" must equal ").put(b).put(' ');
  put_dim<B>(s);
}

/// "<operation><a> (2, d_k) must equal <b> (3)<after>": the sentence of a rule that compares two
/// dimensions (a rule with more to say adds to it).
template <class A, class B>
constexpr sentence must_equal_sentence(const char* operation, const char* a, const char* b,
                                       const char* after) noexcept {
  sentence s;
  s.put(operation);
  put_must_equal<A, B>(s, a, b);
  s.put(after);
  return s;
}

}  // namespace cxmat::detail::plain

#if CXMAT_PLAIN_ERRORS
namespace cxmat::detail::plain {
// One sentence per shape error of core/shape_rules.hpp, in its order.
// The hint of matmul(A, B) is chosen from both operands' shapes, and names one fix only where
// the shapes single it out (docs/shape_errors.md, "Hints and their fixes", checks that it leads
// to the correct program): B's columns fitting A's columns mean B is transposed (Q·K for Q·Kᵀ
// when both have the same shape with named columns; X·Wᵀ for a projection otherwise); A's rows
// fitting B's columns mean the operands are swapped (W·X for X·W). Two operands of one plain
// shape, or a swap that also fits heads stacked by rows (H·n x d_v against H·d_v rows), get both
// readings. Where nothing fits, the names alone (put_name_hint) or nothing.
template <class ARows, class ACols, class BRows, class BCols>
constexpr sentence matmul_inner() noexcept {
  sentence s = must_equal_sentence<ACols, BRows>("matmul(A, B): ", "A's columns", "B's rows", ". A is ");
  put_shape<ARows, ACols>(s);
  s.put(", B is ");
  put_shape<BRows, BCols>(s);
  s.put(".");
  constexpr bool transposed = fits<ACols, BCols>;
  constexpr bool swapped = fits<ARows, BCols>;
  // H = B's rows / A's columns > 1 blocks of A's rows / H rows each, stacked: vconcat where
  // hconcat belongs gives these shapes too.
  constexpr bool stacked = ACols::size > 0 && BRows::size % ACols::size == 0 && BRows::size / ACols::size > 1 &&
                           ARows::size % (BRows::size / ACols::size) == 0;
  if constexpr (transposed && fits<ARows, BRows> && is_named<ACols>) {
    s.put(" A and B have the same shape, as Q and K do: for Q·Kᵀ write matmul(Q, transpose(K)).");
  } else if constexpr (transposed && fits<ARows, BRows>) {
    s.put(
        " A and B have the same shape: a transpose is missing (Q·Kᵀ is matmul(Q, transpose(K))) or the operands are"
        " in the wrong order; named dimensions (CXMAT_DIM) would tell which.");
  } else if constexpr (swapped && stacked) {
    s.put(
        " B·A fits, so the operands may be swapped (write matmul(B, A)), or A holds blocks stacked by rows (vconcat)"
        " that belong side by side (hconcat).");
  } else if constexpr (transposed && swapped) {
    s.put(" B looks transposed (write matmul(A, transpose(B))) or the operands swapped (write matmul(B, A)).");
  } else if constexpr (transposed) {
    s.put(
        " B's columns fit A's columns, so B looks transposed: write matmul(A, transpose(B)) (if B is transpose(W), "
        "W).");
  } else if constexpr (swapped) {
    s.put(" B·A fits, so the operands look swapped: write matmul(B, A) (a projection is X·W, X first).");
  } else {
    put_name_hint<ACols, BRows>(s);
  }
  return s;
}

template <class R1, class C1, class R2, class C2>
constexpr sentence same_shape(const char* operation) noexcept {
  sentence s;
  s.put(operation).put(": A is ");
  put_shape<R1, C1>(s);
  s.put(" and B is ");
  put_shape<R2, C2>(s);
  s.put("; both must have the same rows and the same columns (sizes and names).");
  if constexpr (fits<R1, C2> && fits<C1, R2>) {
    s.put(" B looks transposed: write transpose(B).");
  } else if constexpr (names_only_differ<R1, R2>) {
    put_name_hint<R1, R2>(s);
  } else if constexpr (names_only_differ<C1, C2>) {
    put_name_hint<C1, C2>(s);
  }
  return s;
}

template <class... Rows>
constexpr sentence concat(const char* what) noexcept {
  sentence s;
  s.put(what);
  put_dims<Rows...>(s);
  s.put(".");
  return s;
}

template <std::size_t H, class Cols>
constexpr sentence split_columns() noexcept {
  sentence s;
  s.put("split_columns<H>(m) / column_block<I, H>(m): H = ").put(H).put(" must divide m's columns ");
  put_dim<Cols>(s);
  s.put(" into H equal blocks, but ").put(Cols::size).put(" = ").put(H).put(" * ").put(H > 0 ? Cols::size / H : 0);
  s.put(" + ").put(H > 0 ? Cols::size % H : Cols::size).put(".");
  return s;
}

template <std::size_t I, std::size_t H>
constexpr sentence column_block_index() noexcept {
  sentence s;
  s.put("column_block<I, H>(m): the block index I = ").put(I).put(" must be below H = ").put(H);
  s.put("; blocks are numbered 0 .. H-1.");
  return s;
}

template <class R, class C, class R2, class C2>
constexpr sentence with_dims() noexcept {
  sentence s;
  s.put("with_dims<R, C>(m): m is ");
  put_shape<R, C>(s);
  s.put(" and cannot become ");
  put_shape<R2, C2>(s);
  s.put("; with_dims keeps the sizes and may add or drop a name, not change one (use plain sizes to drop it first).");
  return s;
}

template <std::size_t Picked, class Rows>
constexpr sentence select_rows_range() noexcept {
  sentence s;
  s.put("select_rows<I...>(m): row index ").put(Picked).put(" must be below m's rows ");
  put_dim<Rows>(s);
  s.put("; rows are numbered 0 .. rows-1.");
  return s;
}

template <class Rows>
constexpr sentence select_rows_empty() noexcept {
  sentence s;
  s.put("select_rows<I...>(m): name at least one of m's rows ");
  put_dim<Rows>(s);
  s.put(" to keep, e.g. select_rows<0, 2>(m).");
  return s;
}

template <class Rows, std::size_t... P>
constexpr sentence permute_rows() noexcept {
  sentence s;
  s.put("permute_rows<P...>(m): P = <");
  bool first = true;
  ((s.put(first ? "" : ", ").put(P), first = false), ...);
  s.put("> must list each of m's rows ");
  put_dim<Rows>(s);
  s.put(" exactly once, 0 .. ").put(Rows::size > 0 ? Rows::size - 1 : 0).put(" in some order.");
  return s;
}

template <class B1, class B2>
constexpr sentence batch_sizes() noexcept {
  sentence s;
  s.put("batched operation: the batches must hold the same number of matrices, but one holds ");
  put_dim<B1>(s);
  s.put(" and the other ");
  put_dim<B2>(s);
  s.put(".");
  put_name_hint<B1, B2>(s);
  return s;
}

template <class T>
constexpr sentence real_elements() noexcept {
  sentence s;
  s.put("softmax and attention need real elements (floating or fixed point), not ").put(type_name<T>());
  s.put(": integers truncate the weights. For int8 use cxmat::q8 (cxmat/quantized.hpp).");
  return s;
}

template <class T>
constexpr sentence numeric_elements() noexcept {
  sentence s;
  s.put("arithmetic on matrices of ").put(type_name<T>());
  s.put(": bool matrices are masks, pass them to mask(m) or key_padding(k) instead.");
  return s;
}

}  // namespace cxmat::detail::plain

namespace cxmat::shape_error {
// The definitions of the core and ops shape errors (declared in core/shape_rules.hpp).
template <class ARows, class ACols, class BRows, class BCols>
struct matmul_a_cols_must_equal_b_rows {
  static_assert(false, detail::plain::matmul_inner<ARows, ACols, BRows, BCols>());
};
template <class ARows, class ACols, class BRows, class BCols>
struct elementwise_shapes_must_match {
  static_assert(false, detail::plain::same_shape<ARows, ACols, BRows, BCols>("A + B, A - B, A == B"));
};
template <class... Rows>
struct hconcat_rows_must_match {
  static_assert(false, detail::plain::concat<Rows...>(
                           "hconcat(blocks...) puts blocks side by side, so every block must have the same rows; "
                           "the rows are "));
};
template <class... Cols>
struct vconcat_cols_must_match {
  static_assert(false, detail::plain::concat<Cols...>(
                           "vconcat(blocks...) stacks blocks, so every block must have the same columns; "
                           "the columns are "));
};
template <std::size_t H, class Cols>
struct split_columns_h_must_divide_cols {
  static_assert(false, detail::plain::split_columns<H, Cols>());
};
template <std::size_t I, std::size_t H>
struct column_block_index_must_be_below_h {
  static_assert(false, detail::plain::column_block_index<I, H>());
};
template <class Rows, class Cols, class NewRows, class NewCols>
struct with_dims_must_keep_sizes_and_names {
  static_assert(false, detail::plain::with_dims<Rows, Cols, NewRows, NewCols>());
};
template <std::size_t Picked, class Rows>
struct select_rows_index_must_be_below_rows {
  static_assert(false, detail::plain::select_rows_range<Picked, Rows>());
};
template <class Rows>
struct select_rows_needs_at_least_one_index {
  static_assert(false, detail::plain::select_rows_empty<Rows>());
};
template <class Rows, std::size_t... P>
struct permute_rows_needs_each_row_exactly_once {
  static_assert(false, detail::plain::permute_rows<Rows, P...>());
};
template <class B1, class B2>
struct batch_sizes_must_match {
  static_assert(false, detail::plain::batch_sizes<B1, B2>());
};
template <class T>
struct softmax_and_attention_need_real_elements {
  static_assert(false, detail::plain::real_elements<T>());
};
template <class T>
struct arithmetic_needs_numbers_not_bool {
  static_assert(false, detail::plain::numeric_elements<T>());
};
}  // namespace cxmat::shape_error
#endif
