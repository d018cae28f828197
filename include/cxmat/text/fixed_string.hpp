// Copyright the cxmat authors.
// SPDX-License-Identifier: BSL-1.0
// fixed_string<Capacity>: text with its capacity in its type, for constant expressions, template
// arguments (encode<"12+34=">(tok)) and programs without a heap.
#pragma once

#include <cstddef>
#include <string_view>
#include <type_traits>

#include <cxmat/math/fp.hpp>

namespace cxmat {

namespace detail {
// Called only where a fixed_string would have to grow past its capacity: in a constant
// expression the call is the error, and its name is the message.
inline void fixed_string_capacity_exceeded() noexcept {}
}  // namespace detail

/// Up to Capacity chars and a length, always followed by a NUL (so c_str() works), with no heap.
///
/// A literal and structural type: `constexpr fixed_string s = "abc";` deduces fixed_string<3>,
/// `static_assert(s == "abc")` compares with a literal, and a fixed_string can be a template
/// argument (`template <fixed_string Text>`). The members are public only because structural
/// types require it; use size(), view(), c_str(). Chars past the length are always NUL, so two
/// equal strings of the same capacity are the same template argument.
template <std::size_t Capacity>
struct fixed_string {
  char chars[Capacity + 1] = {};
  std::size_t length = 0;

  using value_type = char;
  static constexpr std::size_t capacity = Capacity;

  /// The empty string.
  constexpr fixed_string() noexcept = default;

  /// From a string literal (or any char array whose last element is its terminator) of exactly
  /// Capacity chars, e.g. the deduction `fixed_string s = "abc";`. The length stops at the first
  /// NUL, so a literal with an embedded NUL keeps only what precedes it.
  constexpr fixed_string(const char (&literal)[Capacity + 1]) noexcept {  // NOLINT: literals convert
    while (length < Capacity && literal[length] != '\0') {
      chars[length] = literal[length];
      ++length;
    }
  }

  /// From a view of at most Capacity chars (more: a compile error in a constant expression, cut
  /// at the capacity at run time; see append).
  constexpr explicit fixed_string(std::string_view text) noexcept { append(text); }

  [[nodiscard]] constexpr std::size_t size() const noexcept { return length; }
  [[nodiscard]] constexpr bool empty() const noexcept { return length == 0; }
  [[nodiscard]] constexpr const char* c_str() const noexcept { return chars; }
  [[nodiscard]] constexpr const char* data() const noexcept { return chars; }
  [[nodiscard]] constexpr std::string_view view() const noexcept { return {chars, length}; }
  constexpr operator std::string_view() const noexcept { return view(); }  // NOLINT: a string is a view
  constexpr char operator[](std::size_t i) const noexcept { return chars[i]; }
  [[nodiscard]] constexpr const char* begin() const noexcept { return chars; }
  [[nodiscard]] constexpr const char* end() const noexcept { return chars + length; }

  /// Appends one char. Past the capacity: a compile error in a constant expression
  /// (fixed_string_capacity_exceeded), and false at run time with the string unchanged.
  constexpr bool push_back(char c) noexcept {
    if (length == Capacity) {
      cxmat::detail::refuse_in_constant_evaluation<detail::fixed_string_capacity_exceeded>();
      return false;
    }
    chars[length++] = c;
    return true;
  }

  /// Appends text; whatever does not fit is a compile error in a constant expression, and cut
  /// off at run time (the result is false then).
  constexpr bool append(std::string_view text) noexcept {
    for (const char c : text) {
      if (!push_back(c)) return false;
    }
    return true;
  }

  /// Removes the last n chars (all of them when n >= size()).
  constexpr void pop_back(std::size_t n = 1) noexcept {
    while (n-- > 0 && length > 0) chars[--length] = '\0';
  }

  template <std::size_t Other>
  friend constexpr bool operator==(const fixed_string& a, const fixed_string<Other>& b) noexcept {
    return a.view() == b.view();
  }
  template <std::size_t LiteralSize>
  friend constexpr bool operator==(const fixed_string& a, const char (&literal)[LiteralSize]) noexcept {
    return a.view() == std::string_view(literal, LiteralSize - 1);
  }
  friend constexpr bool operator==(const fixed_string& a, std::string_view b) noexcept { return a.view() == b; }

  /// Concatenation: fixed_string<Capacity + Other>, which always fits.
  template <std::size_t Other>
  friend constexpr fixed_string<Capacity + Other> operator+(const fixed_string& a,
                                                            const fixed_string<Other>& b) noexcept {
    fixed_string<Capacity + Other> out;
    out.append(a.view());
    out.append(b.view());
    return out;
  }
  template <std::size_t LiteralSize>
  friend constexpr fixed_string<Capacity + LiteralSize - 1> operator+(const fixed_string& a,
                                                                      const char (&literal)[LiteralSize]) noexcept {
    return a + fixed_string<LiteralSize - 1>(literal);
  }
};

/// `fixed_string s = "abc";` is a fixed_string<3>.
template <std::size_t LiteralSize>
fixed_string(const char (&)[LiteralSize]) -> fixed_string<LiteralSize - 1>;

}  // namespace cxmat
