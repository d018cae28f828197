// Value checks for exercises: is a result close to the expected one, and if not, which element,
// by how much, against which tolerance. Written for exercises' static_asserts (the exercises'
// answers::close is check::close) and for teachers' own exercises (exercises/README.md, "Writing
// your own exercise"):
//
//   static_assert(check::close(Z, expected), "Z = softmax(Q.K^T / sqrt(d_k)).V");  // 1e-9 relative
//   static_assert(check::close(Z, expected, 1e-6, 1e-9), "...");  // rel_tol, abs_tol
//   CXMAT_EXPECT_NEAR(Z, expected, 1e-6);   // |yours - expected| <= 1e-6 for every element
//
// The macro is a static_assert whose message, where the compiler builds static_assert
// messages from constant expressions (P2741: clang++ 17+ with -std=c++2c), states the element that
// differs, both values, the tolerance and both matrices, computed by the compiler. Elsewhere the
// message is the check's text, and scripts/exercise.sh prints the same explanation (check::explain)
// by compiling the file again without its checks, as a program. A macro argument with a comma
// outside parentheses (cxmat::matrix<double, 2, 2>{...}) needs parentheses around it.
//
// Needs only <cxmat/cxmat.hpp>, which every exercise includes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <string_view>
#include <type_traits>

#include <cxmat/cxmat.hpp>

namespace check {

/// The default tolerance of close: 1e-9 relative (of the larger magnitude of the pair) ...
inline constexpr double default_rel_tol = 1e-9;
/// ... or 1e-12 absolute, for values near zero, whichever is larger.
inline constexpr double default_abs_tol = 1e-12;

namespace detail {

template <class T>
inline constexpr bool is_matrix = false;
template <class T, cxmat::extent R, cxmat::extent C>
inline constexpr bool is_matrix<cxmat::matrix<T, R, C>> = true;

template <class A, class B>
constexpr bool same_shape() {
  if constexpr (is_matrix<A> && is_matrix<B>) {
    return cxmat::compatible_extents<A::row_extent, B::row_extent> &&
           cxmat::compatible_extents<A::col_extent, B::col_extent>;
  } else {
    return std::is_arithmetic_v<A> && std::is_arithmetic_v<B>;
  }
}

// Element (i, j) of a matrix, or the scalar itself, as a double.
template <class A>
constexpr double at(const A& a, std::size_t i, std::size_t j) {
  if constexpr (is_matrix<A>) {
    return static_cast<double>(a.elems[i][j]);
  } else {
    (void)i;
    (void)j;
    return static_cast<double>(a);
  }
}
template <class A>
constexpr std::size_t rows_of() {
  if constexpr (is_matrix<A>) {
    return A::rows;
  } else {
    return 1;
  }
}
template <class A>
constexpr std::size_t cols_of() {
  if constexpr (is_matrix<A>) {
    return A::cols;
  } else {
    return 1;
  }
}

constexpr double magnitude(double x) { return x < 0 ? -x : x; }

constexpr double power_of_ten(int k) {  // exact up to 10^22, one rounding per step beyond
  double p = 1;
  for (int n = k < 0 ? -k : k; n > 0; --n) p *= 10;
  return k < 0 ? 1 / p : p;
}

}  // namespace detail

/// True when actual and expected have the same shape (sizes and dimension names) and every pair
/// of elements is within max(abs_tol, rel_tol * max(|actual|, |expected|)) (cxmat::approx_equal).
/// Matrices or scalars (a batch is a compile error). A shape mismatch is false, not a compile
/// error: the shapes are compared here, before cxmat::approx_equal, whose shape error is a hard
/// error where shape errors are sentences (CXMAT_PLAIN_ERRORS), so that the mistake is reported
/// once, by the check, in its own words (the exercise's sentence, and explain's "the shapes
/// differ: yours is ..., expected ...").
template <class A, class B>
constexpr bool close(const A& actual, const B& expected, double rel_tol = default_rel_tol,
                     double abs_tol = default_abs_tol) {
  // A batch would never compare equal: say so instead. (Other types stay a failed check: the
  // result of an operation that failed is the shape error's type, reported where it was made.)
  static_assert(!cxmat::Batch<A> && !cxmat::Batch<B>,
                "check::close compares a cxmat::matrix or a number: check a batch item by item (b[i])");
  if constexpr (detail::same_shape<A, B>()) {
    for (std::size_t i = 0; i < detail::rows_of<A>(); ++i) {
      for (std::size_t j = 0; j < detail::cols_of<A>(); ++j) {
        if (!cxmat::approx_equal(detail::at(actual, i, j), detail::at(expected, i, j), rel_tol, abs_tol)) return false;
      }
    }
    return true;
  } else {
    (void)actual;
    (void)expected;
    (void)rel_tol;
    (void)abs_tol;
    return false;
  }
}

/// Text built in constant expressions: fixed capacity, no heap, with the size() and data() a
/// static_assert message needs (P2741). Longer text is cut at the capacity.
struct message {
  static constexpr std::size_t capacity = 3000;
  char chars[capacity + 1]{};
  std::size_t length = 0;

  [[nodiscard]] constexpr std::size_t size() const noexcept { return length; }
  [[nodiscard]] constexpr const char* data() const noexcept { return chars; }

  constexpr message& put(char c) noexcept {
    if (length < capacity) chars[length++] = c;
    return *this;
  }
  constexpr message& put(std::string_view s) noexcept {
    for (char c : s) put(c);
    return *this;
  }
  constexpr message& put(const char* s) noexcept { return put(std::string_view(s)); }
  constexpr message& put(std::size_t value) noexcept {
    char digits[24]{};
    std::size_t count = 0;
    do {
      digits[count++] = static_cast<char>('0' + value % 10);
      value /= 10;
    } while (value != 0);
    while (count > 0) put(digits[--count]);
    return *this;
  }
  /// x with `digits` significant digits (at most 15; trailing zeros dropped): positional from
  /// 1e-5 to below 10^digits, else scientific (2.5e-07). The scaling rounds once or twice, so
  /// the last digit may differ from a correctly rounded one.
  constexpr message& number(double x, int digits) noexcept {
    if (x != x) return put("nan");
    if (x == std::numeric_limits<double>::infinity()) return put("inf");
    if (x == -std::numeric_limits<double>::infinity()) return put("-inf");
    if (x == 0) return put('0');
    if (x < 0) {
      put('-');
      x = -x;
    }
    // x = n * 10^(e - digits + 1) with n of `digits` digits.
    int e = 0;
    for (double y = x; y >= 10; y /= 10) ++e;
    for (double y = x; y < 1; y *= 10) --e;
    const auto top = static_cast<std::uint64_t>(detail::power_of_ten(digits));
    const auto scaled = [&](int exponent) {
      const int k = digits - 1 - exponent;  // in two steps, so that neither factor overflows
      return static_cast<std::uint64_t>(x * detail::power_of_ten(k / 2) * detail::power_of_ten(k - k / 2) + 0.5);
    };
    std::uint64_t n = scaled(e);
    if (n >= top) n = scaled(++e);
    if (n < top / 10) n = scaled(--e);
    char d[16]{};
    for (int i = digits - 1; i >= 0; --i, n /= 10) d[i] = static_cast<char>('0' + n % 10);
    int used = digits;
    while (used > 1 && d[used - 1] == '0') --used;
    if (e >= -5 && e < digits) {
      if (e < 0) {
        put("0.");
        for (int i = -1; i > e; --i) put('0');
        for (int i = 0; i < used; ++i) put(d[i]);
      } else {
        for (int i = 0; i <= e; ++i) put(d[i]);
        if (used > e + 1) put('.');
        for (int i = e + 1; i < used; ++i) put(d[i]);
      }
      return *this;
    }
    put(d[0]);
    if (used > 1) put('.');
    for (int i = 1; i < used; ++i) put(d[i]);
    put(e < 0 ? "e-" : "e+");
    const int a = e < 0 ? -e : e;
    if (a < 10) put('0');
    return put(static_cast<std::size_t>(a));
  }
};

namespace detail {

template <class A>
constexpr void put_shape(message& m) {
  if constexpr (is_matrix<A>) {
    m.put(cxmat::shape_text<A>());
  } else {
    m.put("a scalar");
  }
}

template <class A>
constexpr void put_values(message& m, const A& a) {
  if constexpr (is_matrix<A>) {
    m.put('[');
    for (std::size_t i = 0; i < A::rows; ++i) {
      m.put(i == 0 ? "[" : ", [");
      for (std::size_t j = 0; j < A::cols; ++j) {
        if (j != 0) m.put(", ");
        m.number(at(a, i, j), 12);
      }
      m.put(']');
    }
    m.put(']');
  } else {
    m.number(at(a, 0, 0), 12);
  }
}

}  // namespace detail

/// Why close(actual, expected, rel_tol, abs_tol) is false, in one line: the shapes when they
/// differ, else the first element out of tolerance ("element [0][1] is 1.5, expected
/// 2.12132034356: off by 0.621, more than the tolerance max(abs_tol 1e-12, rel_tol 1e-09 x
/// 2.12) = 2.12e-09"); "every element is within the tolerance ..." when it is true.
template <class A, class B>
constexpr message explain(const A& actual, const B& expected, double rel_tol = default_rel_tol,
                          double abs_tol = default_abs_tol) {
  message m;
  if constexpr (!detail::same_shape<A, B>()) {
    (void)actual;
    (void)expected;
    (void)rel_tol;
    (void)abs_tol;
    m.put("the shapes differ: yours is ");
    detail::put_shape<A>(m);
    m.put(", expected ");
    detail::put_shape<B>(m);
  } else {
    for (std::size_t i = 0; i < detail::rows_of<A>(); ++i) {
      for (std::size_t j = 0; j < detail::cols_of<A>(); ++j) {
        const double a = detail::at(actual, i, j);
        const double b = detail::at(expected, i, j);
        if (cxmat::approx_equal(a, b, rel_tol, abs_tol)) continue;
        const double scale = detail::magnitude(a) > detail::magnitude(b) ? detail::magnitude(a) : detail::magnitude(b);
        const double allowed = rel_tol * scale > abs_tol ? rel_tol * scale : abs_tol;
        if constexpr (detail::is_matrix<A>) {
          m.put("element [").put(i).put("][").put(j).put("] is ");
        } else {
          m.put("the value is ");
        }
        m.number(a, 12).put(", expected ").number(b, 12).put(": off by ").number(detail::magnitude(a - b), 3);
        if (rel_tol == 0) {
          m.put(", more than the tolerance ").number(abs_tol, 3).put(" (absolute)");
        } else {
          m.put(", more than the tolerance max(abs_tol ").number(abs_tol, 3).put(", rel_tol ").number(rel_tol, 3);
          m.put(" x ").number(scale, 3).put(") = ").number(allowed, 3);
        }
        return m;
      }
    }
    m.put("every element is within the tolerance max(abs_tol ").number(abs_tol, 3).put(", rel_tol ");
    m.number(rel_tol, 3).put(" x the larger magnitude)");
  }
  return m;
}

/// The message of CXMAT_EXPECT_NEAR: the check as written, explain(...),
/// then both values: "CHECK: EXPLANATION | yours (3 x 3): [[...]] | expected (3 x 3): [[...]]".
template <class A, class B>
constexpr message report(const char* check, const A& actual, const B& expected, double rel_tol, double abs_tol) {
  message m;
  m.put(check).put(": ");
  const message why = explain(actual, expected, rel_tol, abs_tol);
  m.put(std::string_view(why.data(), why.size()));
  m.put(" | yours (");
  detail::put_shape<A>(m);
  m.put("): ");
  detail::put_values(m, actual);
  m.put(" | expected (");
  detail::put_shape<B>(m);
  m.put("): ");
  detail::put_values(m, expected);
  return m;
}

}  // namespace check

/// static_assert that `actual` has the shape of `expected` and every element is within `tol` of
/// it (absolute, as GoogleTest's EXPECT_NEAR). Where static_assert messages are constant
/// expressions (P2741), the message is report(...): the element out of tolerance, both values,
/// the tolerance and both matrices; elsewhere the check as written.
#if defined(__cpp_static_assert) && __cpp_static_assert >= 202306L
#define CXMAT_EXPECT_NEAR(actual, expected, tol)        \
  static_assert(                                        \
      ::check::close((actual), (expected), 0.0, (tol)), \
      ::check::report("CXMAT_EXPECT_NEAR(" #actual ", " #expected ", " #tol ")", (actual), (expected), 0.0, (tol)))
#else
#define CXMAT_EXPECT_NEAR(actual, expected, tol)                  \
  static_assert(::check::close((actual), (expected), 0.0, (tol)), \
                "CXMAT_EXPECT_NEAR(" #actual ", " #expected ", " #tol ") failed")
#endif
