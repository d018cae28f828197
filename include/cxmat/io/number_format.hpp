// Copyright the cxmat authors.
// SPDX-License-Identifier: BSL-1.0
// Numbers as numpy prints them: one format chosen for a whole array (positional or scientific),
// each value with the fewest digits that read back to it, cut at `precision` digits, and
// columns that line up at the decimal point. Hosted builds only (std::string).
#pragma once

#include <algorithm>
#include <charconv>
#include <cstddef>
#include <limits>
#include <string>
#include <string_view>
#include <system_error>
#include <type_traits>
#include <vector>

namespace cxmat {

/// How floating-point values are written: chosen per array as numpy does, or forced.
enum class float_notation {
  /// numpy's rule: scientific when the largest magnitude is >= 1e8, or (unless suppress_small)
  /// the smallest non-zero magnitude is < 1e-4 or the largest / smallest ratio is > 1000.
  automatic,
  /// Always digits around a decimal point (1e300 then has 301 digits).
  positional,
  /// Always a mantissa and an exponent: 1.5e+02.
  scientific,
};

/// Formatting of printed values; the defaults are numpy's (np.get_printoptions()), except that
/// rows are not wrapped (line_width).
struct print_options {
  /// At most this many digits after the decimal point (of the mantissa, in scientific notation).
  int precision = 8;
  /// Positional, scientific, or numpy's choice per array.
  float_notation notation = float_notation::automatic;
  /// numpy's suppress=True: never switch to scientific for small values (they print as 0.);
  /// values >= 1e8 still do.
  bool suppress_small = false;
  /// numpy's floatmode='fixed': exactly `precision` digits for every value, instead of the fewest
  /// that identify it (floatmode='maxprec').
  bool fixed_digits = false;
  /// numpy's linewidth, when asked for: a row longer than this many columns continues on the
  /// next line, as numpy wraps it (numpy's default is 75). 0, the default, never wraps: one
  /// printed line per row, whatever the row's length (a 4 x 8 matrix is 4 lines).
  int line_width = 0;
  /// The number printed for the first head where an axis of heads (named H) is numbered
  /// ("w[H=0]"): 0, the head's index in code (`trace.weights[0]`), by default; 1 prints heads
  /// as the worksheets that call them head 1, head 2 do (docs/show.md, "Head numbers").
  std::size_t first_head_number = 0;
};

namespace detail {

// One value, formatted but not yet padded: sign and integer part, fraction, exponent digits.
struct number_parts {
  std::string integral;  // "-12", "0", "1" (mantissa in scientific form)
  std::string fraction;  // digits after the point, possibly empty
  std::string exponent;  // "+300", "-14" in scientific form, else empty
  bool finite = true;
  std::string special;  // "nan", "inf", "-inf" when not finite
};

template <class T>
constexpr bool is_nan(T x) noexcept {
  return x != x;
}
template <class T>
constexpr bool is_finite(T x) noexcept {
  return !is_nan(x) && x != std::numeric_limits<T>::infinity() && x != -std::numeric_limits<T>::infinity();
}

// to_chars into a local buffer; large enough for a fixed-notation long double of any magnitude.
template <class T, class... Format>
std::string chars_of(T x, Format... format) {
  char buffer[5000];
  const auto result = std::to_chars(buffer, buffer + sizeof buffer, x, format...);
  return result.ec == std::errc{} ? std::string(buffer, result.ptr) : std::string("?");
}

inline void trim_trailing_zeros(std::string& digits) {
  while (!digits.empty() && digits.back() == '0') digits.pop_back();
}

// "1.2345e+06" -> sign+digits "12345" and decimal exponent 6.
struct decimal_digits {
  bool negative = false;
  std::string digits;
  int exponent = 0;
};

inline decimal_digits split_scientific(std::string_view text) {
  decimal_digits d;
  std::size_t i = 0;
  if (text[0] == '-') {
    d.negative = true;
    i = 1;
  }
  for (; i < text.size() && text[i] != 'e'; ++i) {
    if (text[i] != '.') d.digits.push_back(text[i]);
  }
  int sign = 1;
  ++i;  // 'e'
  if (text[i] == '-') sign = -1;
  ++i;
  int e = 0;
  for (; i < text.size(); ++i) e = e * 10 + (text[i] - '0');
  d.exponent = sign * e;
  return d;
}

// Positional parts of a finite x: the shortest round-trip digits if they need at most
// `precision` fraction digits, otherwise x rounded to `precision` digits with trailing zeros
// trimmed (numpy's dragon4_positional with unique=True, trim='.').
template <class T>
number_parts positional_parts(T x, int precision, bool fixed_digits) {
  number_parts p;
  std::string text;
  if (fixed_digits) {
    text = chars_of(x, std::chars_format::fixed, precision);
  } else {
    const decimal_digits d = split_scientific(chars_of(x, std::chars_format::scientific));
    const int needed = static_cast<int>(d.digits.size()) - 1 - d.exponent;
    if (needed > precision) {
      text = chars_of(x, std::chars_format::fixed, precision);
    } else {
      // Place the shortest digits around the point.
      std::string integral, fraction;
      if (d.exponent >= 0 && static_cast<std::size_t>(d.exponent) + 1 >= d.digits.size()) {
        // An integral value: numpy writes every digit of the exact value (float 70769584 is
        // "70769584.", although its shortest digits are 7.076958e7).
        p.integral = chars_of(x, std::chars_format::fixed, 0);
        return p;
      }
      if (d.exponent >= 0) {
        const auto int_len = static_cast<std::size_t>(d.exponent) + 1;
        integral = d.digits.substr(0, int_len < d.digits.size() ? int_len : d.digits.size());
        while (integral.size() < int_len) integral.push_back('0');
        if (int_len < d.digits.size()) fraction = d.digits.substr(int_len);
      } else {
        integral = "0";
        fraction.assign(static_cast<std::size_t>(-d.exponent - 1), '0');
        fraction += d.digits;
      }
      trim_trailing_zeros(fraction);
      if (d.negative) p.integral.push_back('-');
      p.integral += integral;
      p.fraction = fraction;
      return p;
    }
  }
  const auto point = text.find('.');
  if (point == std::string::npos) {
    p.integral = text;
  } else {
    p.integral = text.substr(0, point);
    p.fraction = text.substr(point + 1);
  }
  if (!fixed_digits) trim_trailing_zeros(p.fraction);
  return p;
}

// Scientific parts of a finite x: shortest round-trip mantissa digits, cut at `precision`
// fraction digits (numpy's dragon4_scientific with unique=True, trim='.').
template <class T>
number_parts scientific_parts(T x, int precision, bool fixed_digits) {
  std::string text = chars_of(x, std::chars_format::scientific);
  decimal_digits d = split_scientific(text);
  if (fixed_digits || static_cast<int>(d.digits.size()) - 1 > precision) {
    text = chars_of(x, std::chars_format::scientific, precision);
    d = split_scientific(text);
  }
  number_parts p;
  if (d.negative) p.integral.push_back('-');
  p.integral.push_back(d.digits[0]);
  p.fraction = d.digits.substr(1);
  if (!fixed_digits) trim_trailing_zeros(p.fraction);
  const int magnitude = d.exponent < 0 ? -d.exponent : d.exponent;
  p.exponent.push_back(d.exponent < 0 ? '-' : '+');
  if (magnitude < 10) p.exponent += '0';
  p.exponent += std::to_string(magnitude);
  return p;
}

}  // namespace detail

/// Formats the elements of one array alike, as numpy's array2string does: first `add` every
/// value (fixing notation and column widths), then `format` each. Floating-point T follows
/// numpy's float rules; integers are right-aligned; bool prints as True / False.
template <class T>
class array_formatter {
 public:
  explicit array_formatter(print_options options = {}) : options_(options) {}

  /// Takes a value into account for the choice of notation and the widths.
  void add(const T& x) {
    if constexpr (std::is_floating_point_v<T>) {
      if (!detail::is_finite(x)) {
        has_special_ = true;
        if (!detail::is_nan(x) && x < T(0)) has_negative_inf_ = true;
        return;
      }
      const T magnitude = x < T(0) ? -x : x;
      if (magnitude != T(0)) {
        if (!has_nonzero_ || magnitude > max_) max_ = magnitude;
        if (!has_nonzero_ || magnitude < min_) min_ = magnitude;
        has_nonzero_ = true;
      }
      finite_.push_back(x);
    } else {
      width_ = std::max(width_, plain(x).size());
    }
  }

  /// Decides the notation and widths; called by format() if not called before.
  void finish() {
    if (finished_) return;
    finished_ = true;
    if constexpr (std::is_floating_point_v<T>) {
      switch (options_.notation) {
        case float_notation::positional:
          scientific_ = false;
          break;
        case float_notation::scientific:
          scientific_ = !finite_.empty();
          break;
        case float_notation::automatic:
          scientific_ = has_nonzero_ &&
                        (max_ >= T(1e8) || (!options_.suppress_small && (min_ < T(1e-4) || max_ / min_ > T(1000))));
          break;
      }
      for (const T& x : finite_) {
        const detail::number_parts p = parts(x);
        pad_left_ = std::max(pad_left_, p.integral.size());
        pad_right_ = std::max(pad_right_, p.fraction.size());
        exp_size_ = std::max(exp_size_, p.exponent.size());
      }
      if (scientific_) {
        fraction_digits_ = pad_right_;
        pad_right_ = fraction_digits_ + 1 + exp_size_;  // "e" and the signed exponent
      }
      if (has_special_) {
        // "nan", "inf", "-inf" right-aligned to the width of a formatted number.
        const std::size_t widest = has_negative_inf_ ? 4 : 3;
        if (pad_left_ + pad_right_ + 1 < widest) pad_left_ = widest - pad_right_ - 1;
      }
      finite_.clear();
    }
  }

  /// The text of x, padded to the common width.
  std::string format(const T& x) {
    finish();
    if constexpr (std::is_floating_point_v<T>) {
      const std::size_t width = pad_left_ + 1 + pad_right_;
      if (!detail::is_finite(x)) {
        const std::string text = detail::is_nan(x) ? "nan" : (x < T(0) ? "-inf" : "inf");
        return std::string(width > text.size() ? width - text.size() : 0, ' ') + text;
      }
      detail::number_parts p = parts(x);
      std::string out(pad_left_ > p.integral.size() ? pad_left_ - p.integral.size() : 0, ' ');
      out += p.integral;
      out += '.';
      if (scientific_) {
        // Every mantissa gets the same number of digits: those of x's exact binary value,
        // rounded, as numpy's Dragon4 with min_digits (zeros except for subnormals, whose
        // shortest digits are few: 5e-324 prints as 4.94065646e-324).
        if (p.fraction.size() < fraction_digits_) {
          p = detail::scientific_parts(x, static_cast<int>(fraction_digits_), true);
          out.assign(pad_left_ > p.integral.size() ? pad_left_ - p.integral.size() : 0, ' ');
          out += p.integral;
          out += '.';
        }
        out += p.fraction;
        out += 'e';
        out += p.exponent.substr(0, 1);
        out.append(exp_size_ - p.exponent.size(), '0');
        out += p.exponent.substr(1);
      } else {
        out += p.fraction;
        out.append(pad_right_ - p.fraction.size(), ' ');
      }
      return out;
    } else {
      const std::string text = plain(x);
      return std::string(width_ - text.size(), ' ') + text;
    }
  }

  /// The text of x without padding and without numpy's bare trailing point ("7" rather than
  /// "7."), for tables.
  std::string format_compact(const T& x) {
    std::string text = format(x);
    const auto first = text.find_first_not_of(' ');
    const auto last = text.find_last_not_of(' ');
    text = first == std::string::npos ? std::string() : text.substr(first, last - first + 1);
    const auto point = text.find('.');
    if (point != std::string::npos && (point + 1 == text.size() || text[point + 1] == 'e')) text.erase(point, 1);
    return text;
  }

 private:
  detail::number_parts parts(const T& x) const {
    return scientific_ ? detail::scientific_parts(x, options_.precision, options_.fixed_digits)
                       : detail::positional_parts(x, options_.precision, options_.fixed_digits);
  }

  static std::string plain(const T& x) {
    if constexpr (std::is_same_v<T, bool>) {
      return x ? "True" : "False";
    } else if constexpr (std::is_integral_v<T>) {
      return detail::chars_of(x);
    } else {
      return "?";
    }
  }

  print_options options_;
  bool finished_ = false;
  // floating point
  std::vector<T> finite_;
  bool has_nonzero_ = false, has_special_ = false, has_negative_inf_ = false, scientific_ = false;
  T max_{}, min_{};
  std::size_t pad_left_ = 0, pad_right_ = 0, exp_size_ = 0, fraction_digits_ = 0;
  // integers and bool
  std::size_t width_ = 0;
};

}  // namespace cxmat
