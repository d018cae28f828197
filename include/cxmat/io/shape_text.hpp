// Copyright the cxmat authors.
// SPDX-License-Identifier: BSL-1.0
// Shapes as text, computed at compile time: "2 x 4 (n x d_model)" for a matrix<double, n, d_model>,
// "2 x 2 x 4 (B x n x d_model)" for a batch, "2 x 3" when nothing is named. No allocation and no
// iostreams, so these work in constant expressions and in freestanding-style builds.
#pragma once

#include <cstddef>
#include <string_view>
#include <type_traits>

#include <cxmat/core/batch.hpp>
#include <cxmat/core/extent.hpp>
#include <cxmat/core/matrix.hpp>

namespace cxmat {

/// Text of length N held in the object itself (NUL-terminated), usable in constant expressions.
template <std::size_t N>
struct static_text {
  char chars[N + 1]{};

  /// The text without the terminating NUL.
  constexpr std::string_view view() const noexcept { return std::string_view(chars, N); }
  /// The text as a NUL-terminated C string.
  constexpr const char* c_str() const noexcept { return chars; }
};

namespace detail {

// Appends characters to a buffer, or only counts them when the buffer is null: one function
// computes the length (for the array bound) and then the text.
struct text_writer {
  char* out = nullptr;
  std::size_t length = 0;

  constexpr void put(char c) noexcept {
    if (out != nullptr) out[length] = c;
    ++length;
  }
  constexpr void put(const char* s) noexcept {
    while (*s != '\0') put(*s++);
  }
  constexpr void put(std::size_t value) noexcept {
    char digits[24]{};
    std::size_t count = 0;
    do {
      digits[count++] = static_cast<char>('0' + value % 10);
      value /= 10;
    } while (value != 0);
    while (count != 0) put(digits[--count]);
  }
};

template <class Name>
inline constexpr bool is_compound_name = false;
template <std::size_t K, class N>
inline constexpr bool is_compound_name<times<K, N>> = true;
template <class N, std::size_t K>
inline constexpr bool is_compound_name<divided_by<N, K>> = true;

template <class Name>
constexpr void write_name(text_writer& w) noexcept;

template <class Name>
constexpr void write_name_operand(text_writer& w) noexcept {
  if constexpr (is_compound_name<Name>) {
    w.put('(');
    write_name<Name>(w);
    w.put(')');
  } else {
    write_name<Name>(w);
  }
}

template <class T>
struct name_parts;
template <std::size_t K, class N>
struct name_parts<times<K, N>> {
  static constexpr std::size_t factor = K;
  using operand = N;
};
template <class N, std::size_t K>
struct name_parts<divided_by<N, K>> {
  static constexpr std::size_t divisor = K;
  using operand = N;
};

// "d_k" for a declared dimension, "2*d_v" for times<2, d_v_dim>, "d_model/2" for
// divided_by<d_model_dim, 2>, nothing for an unnamed one. A tag without a `name` member (not
// declared with CXMAT_DIM) prints as "?".
template <class Name>
constexpr void write_name(text_writer& w) noexcept {
  if constexpr (std::is_same_v<Name, anonymous>) {
    return;
  } else if constexpr (requires { name_parts<Name>::factor; }) {
    w.put(name_parts<Name>::factor);
    w.put('*');
    write_name_operand<typename name_parts<Name>::operand>(w);
  } else if constexpr (requires { name_parts<Name>::divisor; }) {
    write_name_operand<typename name_parts<Name>::operand>(w);
    w.put('/');
    w.put(name_parts<Name>::divisor);
  } else if constexpr (requires { Name::name; }) {
    w.put(Name::name);
  } else {
    w.put('?');
  }
}

// The dimensions of a matrix (rows, cols) or a batch (count, rows, cols), as dim types.
template <class M>
struct dims_of_shape;
template <class T, extent R, extent C>
struct dims_of_shape<matrix<T, R, C>> {
  template <template <class...> class F>
  using apply = F<dim_of<R>, dim_of<C>>;
};
template <class T, extent B, extent R, extent C>
struct dims_of_shape<batch<T, B, R, C>> {
  template <template <class...> class F>
  using apply = F<dim_of<B>, dim_of<R>, dim_of<C>>;
};

template <class D>
constexpr void write_dim_name(text_writer& w) noexcept {
  if constexpr (std::is_same_v<typename D::name_type, anonymous>) {
    w.put(D::size);
  } else {
    write_name<typename D::name_type>(w);
  }
}

// The three texts of a shape. Each writer is a class with a static write(), so the same code
// first counts the characters (for the array bound) and then writes them.
template <class... Dims>
struct shape_writers {
  static constexpr bool any_named = (!std::is_same_v<typename Dims::name_type, anonymous> || ...);

  // "2 x 4": sizes only.
  struct sizes {
    static constexpr void write(text_writer& w) noexcept {
      bool first = true;
      ((w.put(first ? "" : " x "), w.put(Dims::size), first = false), ...);
    }
  };
  // "n x d_model": names, with the size standing in for an unnamed dimension; "" if none named.
  struct names {
    static constexpr void write(text_writer& w) noexcept {
      if constexpr (any_named) {
        bool first = true;
        ((w.put(first ? "" : " x "), write_dim_name<Dims>(w), first = false), ...);
      }
    }
  };
  // "2 x 4 (n x d_model)", or "2 x 4" when nothing is named.
  struct full {
    static constexpr void write(text_writer& w) noexcept {
      sizes::write(w);
      if constexpr (any_named) {
        w.put(" (");
        names::write(w);
        w.put(')');
      }
    }
  };
};

template <class Writer>
constexpr std::size_t text_length() noexcept {
  text_writer counter{};
  Writer::write(counter);
  return counter.length;
}

template <class Writer>
constexpr static_text<text_length<Writer>()> make_text() noexcept {
  static_text<text_length<Writer>()> text{};
  text_writer w{text.chars, 0};
  Writer::write(w);
  return text;
}

template <class Name>
struct name_writer {
  static constexpr void write(text_writer& w) noexcept { write_name<Name>(w); }
};

template <class Name>
inline constexpr auto name_text = make_text<name_writer<Name>>();

template <class... Dims>
struct shape_texts {
  static constexpr auto full = make_text<typename shape_writers<Dims...>::full>();
  static constexpr auto sizes = make_text<typename shape_writers<Dims...>::sizes>();
  static constexpr auto names = make_text<typename shape_writers<Dims...>::names>();
};

template <class M>
using shape_texts_of = typename dims_of_shape<std::remove_cvref_t<M>>::template apply<shape_texts>;

}  // namespace detail

/// A matrix or a batch type.
template <class M>
concept Shaped = Matrix<M> || Batch<M>;

/// The name of an extent: "d_k", "2*d_v" (times_v<2, d_v>), "d_model/2" (divided_v<d_model, 2>),
/// or "" for a plain size.
template <auto E>
constexpr std::string_view extent_name() noexcept {
  return detail::name_text<detail::name_of<E>>.view();
}

/// The shape of a matrix or batch type with its names: "2 x 4 (n x d_model)",
/// "2 x 2 x 4 (B x n x d_model)"; an unnamed dimension shows its size ("2 x 3 (n x 3)"), and a
/// shape with no names is just "2 x 3".
template <Shaped M>
constexpr std::string_view shape_text() noexcept {
  return detail::shape_texts_of<M>::full.view();
}

/// shape_text of the type of m: `shape_text(Q)`.
template <Shaped M>
constexpr std::string_view shape_text(const M& /*unused*/) noexcept {
  return shape_text<M>();
}

/// The sizes alone: "2 x 4".
template <Shaped M>
constexpr std::string_view shape_sizes_text() noexcept {
  return detail::shape_texts_of<M>::sizes.view();
}

/// The names alone, sizes standing in for unnamed dimensions: "n x d_model"; "" when nothing is
/// named.
template <Shaped M>
constexpr std::string_view shape_names_text() noexcept {
  return detail::shape_texts_of<M>::names.view();
}

}  // namespace cxmat
