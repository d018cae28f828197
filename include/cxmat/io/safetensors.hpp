// Copyright the cxmat authors.
// SPDX-License-Identifier: BSL-1.0
// Reading a .safetensors file at compile time: the file's bytes (a byte array, e.g. from
// `python3 scripts/cxmat_import.py model.safetensors --module bytes --name model_file -o model_file.hpp`)
// in, a constexpr matrix out:
//   constexpr auto w1 = cxmat::safetensors::load<cxmat::matrix<float, 64, 16>>(model_file_weights::bytes,
//                                                                          "layers.0.linear1.weight");
// A name the file does not have, another dtype or another shape does not compile, and the
// compiler's message names the tensor (the call), what was expected (the matrix type) and what
// the file holds (the rule's name and the value the file has). No heap, no iostreams, no libm:
// firmware may include this header alone.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include <cxmat/core/matrix.hpp>
#include <cxmat/math/half.hpp>

namespace cxmat::safetensors {

/// The element types of a safetensors file that cxmat reads (others are `other`).
enum class dtype : unsigned char { F64, F32, F16, BF16, other };

/// One tensor's entry in a file's header, as `find` reads it. A tensor of rank 0 is 1 x 1, of
/// rank 1 with N elements 1 x N.
struct tensor_entry {
  bool found = false;
  dtype type = dtype::other;
  std::size_t rank = 0;
  std::size_t rows = 1;
  std::size_t cols = 1;
  std::size_t begin = 0;  ///< first byte of the data, counted from the start of the file
  std::size_t end = 0;    ///< one past the last byte
};

// The errors. Each check_ function stops a constant evaluation where its rule is broken by
// calling a function that is not constexpr, whose name is the message, or by reading one of its
// arrays out of bounds at the file's value (the compiler prints the index). Clang also prints the
// checks' arguments: the tensor, what was expected and what the file holds.
namespace error {
void the_file_is_not_a_valid_safetensors_file();  // its header is not the JSON of a safetensors file
void the_file_has_no_tensor_of_this_name();       // the tensor named in the load call is not in the file
void the_tensor_in_the_file_is_F64_which_would_be_rounded_to_float();  // load it as a matrix<double, ...>
void the_tensor_in_the_file_is_not_F64_F32_F16_or_BF16();              // an integer or bool tensor
void the_tensor_in_the_file_is_the_transpose_use_load_transposed();    // PyTorch stores a Linear's weight out x in
void the_tensor_in_the_file_is_the_transpose_use_load();               // load_transposed was asked for the stored shape
void the_tensor_in_the_file_holds_a_nan_or_infinity();                 // non-finite weights are refused
void the_data_of_the_tensor_lies_outside_the_file();                   // a truncated or corrupt file

constexpr void check_valid(bool valid, std::size_t at_byte) noexcept {
  (void)at_byte;
  if (!valid) the_file_is_not_a_valid_safetensors_file();
}
constexpr void check_found(bool found, const char* tensor) noexcept {
  (void)tensor;
  if (!found) the_file_has_no_tensor_of_this_name();
}
constexpr void check_dtype(const char* tensor, const char* expected_element_type, const char* dtype_in_file) noexcept {
  (void)tensor;
  const bool wants_double = expected_element_type[0] == 'd';
  if (dtype_in_file[0] == 'F' && dtype_in_file[1] == '6' && !wants_double) {
    the_tensor_in_the_file_is_F64_which_would_be_rounded_to_float();
  }
  if (dtype_in_file[0] == '?') the_tensor_in_the_file_is_not_F64_F32_F16_or_BF16();
}
constexpr void check_rank(const char* tensor, std::size_t rank_in_file) noexcept {
  (void)tensor;
  constexpr bool rank_of_the_tensor_in_the_file_is_above_2[3] = {};
  if (rank_of_the_tensor_in_the_file_is_above_2[rank_in_file]) return;
}
constexpr void check_shape(const char* tensor, std::size_t expected_rows, std::size_t expected_cols,
                           std::size_t rows_in_file, std::size_t cols_in_file, bool transposed) noexcept {
  (void)tensor;
  if (rows_in_file == expected_rows && cols_in_file == expected_cols) return;
  if (rows_in_file == expected_cols && cols_in_file == expected_rows) {
    if (transposed) the_tensor_in_the_file_is_the_transpose_use_load();
    if (!transposed) the_tensor_in_the_file_is_the_transpose_use_load_transposed();
  }
  // Read out of bounds on purpose (a size of 0 would be in bounds: read at 1 then).
  constexpr bool the_file_has_other_rows_namely[1] = {};
  constexpr bool the_file_has_other_columns_namely[1] = {};
  if (rows_in_file != expected_rows && the_file_has_other_rows_namely[rows_in_file == 0 ? 1 : rows_in_file]) return;
  if (cols_in_file != expected_cols && the_file_has_other_columns_namely[cols_in_file == 0 ? 1 : cols_in_file]) return;
}
constexpr void check_inside(bool inside, const char* tensor) noexcept {
  (void)tensor;
  if (!inside) the_data_of_the_tensor_lies_outside_the_file();
}
constexpr void check_finite(double value, const char* tensor, std::size_t row, std::size_t col) noexcept {
  (void)tensor;
  (void)row;
  (void)col;
  if (!(value - value == 0.0)) the_tensor_in_the_file_holds_a_nan_or_infinity();
}
}  // namespace error

namespace detail {

// A reader of the JSON header: the grammar of RFC 8259, enough of it to find one tensor and skip
// everything else. `ok` turns false at the first byte that does not fit (its position in `pos`).
struct header_reader {
  const unsigned char* bytes = nullptr;
  std::size_t pos = 0;
  std::size_t end = 0;
  bool ok = true;

  constexpr bool at_end() const noexcept { return pos >= end; }
  constexpr unsigned char peek() const noexcept { return at_end() ? 0 : bytes[pos]; }
  constexpr void fail() noexcept {
    if (ok) ok = false;
  }
  constexpr void skip_space() noexcept {
    while (!at_end() && (peek() == ' ' || peek() == '\n' || peek() == '\r' || peek() == '\t')) ++pos;
  }
  constexpr bool take(unsigned char c) noexcept {
    skip_space();
    if (peek() != c) return false;
    ++pos;
    return true;
  }
  constexpr void expect(unsigned char c) noexcept {
    if (!take(c)) fail();
  }

  // One character of a string (after an escape, the character it stands for; \u escapes above
  // 0x7F stand for a character no ASCII name has, 0xFF here).
  constexpr unsigned char string_char() noexcept {
    unsigned char c = peek();
    ++pos;
    if (c != '\\') return c;
    c = peek();
    ++pos;
    switch (c) {
      case 'b':
        return '\b';
      case 'f':
        return '\f';
      case 'n':
        return '\n';
      case 'r':
        return '\r';
      case 't':
        return '\t';
      case 'u': {
        unsigned code = 0;
        for (int i = 0; i < 4; ++i) {
          const unsigned char h = peek();
          ++pos;
          const unsigned digit = (h >= '0' && h <= '9')   ? static_cast<unsigned>(h - '0')
                                 : (h >= 'a' && h <= 'f') ? static_cast<unsigned>(h - 'a' + 10)
                                 : (h >= 'A' && h <= 'F') ? static_cast<unsigned>(h - 'A' + 10)
                                                          : 16U;
          if (digit == 16U) fail();
          code = code * 16U + digit;
        }
        return code < 0x80U ? static_cast<unsigned char>(code) : static_cast<unsigned char>(0xFF);
      }
      default:
        return c;  // \" \\ \/
    }
  }

  // Reads a string and says whether it equals `text` (a null `text` matches nothing).
  constexpr bool string_equals(const char* text) noexcept {
    skip_space();
    if (peek() != '"') {
      fail();
      return false;
    }
    ++pos;
    bool same = text != nullptr;
    std::size_t i = 0;
    while (ok && !at_end() && peek() != '"') {
      const unsigned char c = string_char();
      if (same && (text[i] == '\0' || static_cast<unsigned char>(text[i]) != c)) same = false;
      if (same) ++i;
    }
    if (at_end()) fail();
    ++pos;
    return ok && same && text[i] == '\0';
  }

  constexpr std::size_t number() noexcept {
    skip_space();
    if (peek() < '0' || peek() > '9') {
      fail();
      return 0;
    }
    std::size_t value = 0;
    while (!at_end() && peek() >= '0' && peek() <= '9') {
      const std::size_t digit = static_cast<std::size_t>(peek() - '0');
      if (value > (static_cast<std::size_t>(-1) - digit) / 10) fail();
      value = value * 10 + digit;
      ++pos;
    }
    return value;
  }

  constexpr void skip_value() noexcept {
    skip_space();
    const unsigned char c = peek();
    if (c == '"') {
      (void)string_equals(nullptr);
    } else if (c == '{' || c == '[') {
      ++pos;
      const unsigned char close = c == '{' ? '}' : ']';
      if (take(close)) return;
      do {
        if (c == '{') {
          (void)string_equals(nullptr);
          expect(':');
        }
        skip_value();
      } while (ok && take(','));
      expect(close);
    } else if (c == '-' || (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z')) {
      // numbers, true, false, null: letters, digits, sign, point and exponent
      while (!at_end() && (peek() == '-' || peek() == '+' || peek() == '.' || (peek() >= '0' && peek() <= '9') ||
                           (peek() >= 'a' && peek() <= 'z') || peek() == 'E')) {
        ++pos;
      }
    } else {
      fail();
    }
  }

  constexpr dtype dtype_value() noexcept {
    skip_space();
    const std::size_t start = pos;
    if (string_equals("F64")) return dtype::F64;
    pos = start;
    if (string_equals("F32")) return dtype::F32;
    pos = start;
    if (string_equals("F16")) return dtype::F16;
    pos = start;
    if (string_equals("BF16")) return dtype::BF16;
    pos = start;
    (void)string_equals(nullptr);
    return dtype::other;
  }

  // The fields of one tensor's object: dtype, shape, data_offsets.
  constexpr void tensor_fields(tensor_entry& e, std::size_t data_start) noexcept {
    expect('{');
    bool has_dtype = false, has_shape = false, has_offsets = false;
    if (!take('}')) {
      do {
        skip_space();
        const std::size_t key = pos;
        if (string_equals("dtype")) {
          expect(':');
          e.type = dtype_value();
          has_dtype = true;
          continue;
        }
        pos = key;
        if (string_equals("shape")) {
          expect(':');
          expect('[');
          std::size_t dims[8]{};
          if (!take(']')) {
            do {
              const std::size_t d = number();
              if (e.rank < 8) dims[e.rank] = d;
              ++e.rank;
            } while (ok && take(','));
            expect(']');
          }
          if (e.rank == 1) e.cols = dims[0];
          if (e.rank >= 2) {
            e.rows = dims[0];
            e.cols = dims[1];
          }
          has_shape = true;
          continue;
        }
        pos = key;
        if (string_equals("data_offsets")) {
          expect(':');
          expect('[');
          e.begin = data_start + number();
          expect(',');
          e.end = data_start + number();
          expect(']');
          has_offsets = true;
          continue;
        }
        pos = key;
        (void)string_equals(nullptr);
        expect(':');
        skip_value();
      } while (ok && take(','));
      expect('}');
    }
    if (!(has_dtype && has_shape && has_offsets)) fail();
  }
};

// The header's "__metadata__" entry (string to string) is not a tensor.
inline constexpr bool is_metadata(const char* name) noexcept {
  const char* key = "__metadata__";
  std::size_t i = 0;
  while (key[i] != '\0' && name[i] == key[i]) ++i;
  return key[i] == '\0' && name[i] == '\0';
}

// 64 bits on every target (std::size_t is 32 bits on a Cortex-M).
inline constexpr std::uint64_t little_endian(const unsigned char* p, std::size_t count) noexcept {
  std::uint64_t value = 0;
  for (std::size_t i = count; i > 0; --i) value = (value << 8U) | p[i - 1];
  return value;
}

inline constexpr std::size_t dtype_size(dtype t) noexcept { return t == dtype::F64 ? 8 : t == dtype::F32 ? 4 : 2; }

// Element i of a tensor's data, widened exactly to double (float16 and bfloat16 through float).
inline constexpr double element(const unsigned char* data, dtype t, std::size_t i) noexcept {
  const unsigned char* p = data + i * dtype_size(t);
  if (t == dtype::F64) return std::bit_cast<double>(little_endian(p, 8));
  if (t == dtype::F32) return std::bit_cast<float>(static_cast<std::uint32_t>(little_endian(p, 4)));
  const auto half = static_cast<std::uint16_t>(little_endian(p, 2));
  return t == dtype::BF16 ? widen_half<half_format::bfloat16>(half) : widen_half<half_format::binary16>(half);
}

inline constexpr const char* dtype_name(dtype t) noexcept {
  return t == dtype::F64 ? "F64" : t == dtype::F32 ? "F32" : t == dtype::F16 ? "F16" : t == dtype::BF16 ? "BF16" : "?";
}

template <class T>
inline constexpr const char* element_type_name = "float or double";
template <>
inline constexpr const char* element_type_name<float> = "float";
template <>
inline constexpr const char* element_type_name<double> = "double";

}  // namespace detail

namespace detail {

// find, callable from the other constexpr functions (find itself is consteval).
template <std::size_t N>
constexpr tensor_entry find_entry(const unsigned char (&bytes)[N], const char* name) noexcept {
  tensor_entry entry{};
  error::check_valid(N >= 8, N);
  if (N < 8) return entry;
  const std::uint64_t length_in_file = detail::little_endian(bytes, 8);
  error::check_valid(length_in_file <= N - 8, 8);
  if (length_in_file > N - 8) return entry;
  const auto header_length = static_cast<std::size_t>(length_in_file);
  detail::header_reader in{bytes, 8, 8 + header_length};
  in.expect('{');
  if (!in.take('}')) {
    do {
      if (in.string_equals(name) && !detail::is_metadata(name)) {
        in.expect(':');
        in.tensor_fields(entry, 8 + header_length);
        entry.found = in.ok;
      } else {
        in.expect(':');
        in.skip_value();
      }
    } while (in.ok && in.take(','));
    in.expect('}');
  }
  error::check_valid(in.ok, in.pos);
  return entry;
}

}  // namespace detail

namespace detail {

template <class M, std::size_t N>
constexpr M load(const unsigned char (&bytes)[N], const char* name, bool transposed) noexcept {
  using T = typename M::value_type;
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, double>,
                "cxmat::safetensors::load<M>: M's elements must be float or double");
  M out{};
  const tensor_entry e = find_entry(bytes, name);
  error::check_found(e.found, name);
  error::check_dtype(name, element_type_name<T>, dtype_name(e.type));
  error::check_rank(name, e.rank);
  const std::size_t rows = transposed ? M::cols : M::rows;
  const std::size_t cols = transposed ? M::rows : M::cols;
  error::check_shape(name, M::rows, M::cols, transposed ? e.cols : e.rows, transposed ? e.rows : e.cols, transposed);
  error::check_inside(e.begin <= e.end && e.end <= N && e.end - e.begin == rows * cols * dtype_size(e.type), name);
  for (std::size_t i = 0; i < rows; ++i) {
    for (std::size_t j = 0; j < cols; ++j) {
      const double v = element(bytes + e.begin, e.type, i * cols + j);
      error::check_finite(v, name, i, j);
      (transposed ? out.elems[j][i] : out.elems[i][j]) = static_cast<T>(v);
    }
  }
  return out;
}

}  // namespace detail

/// The entry of the tensor `name` in the file `bytes` (`.found` is false when the file has no
/// such tensor). A file that is not a safetensors file does not compile.
template <std::size_t N>
consteval tensor_entry find(const unsigned char (&bytes)[N], const char* name) noexcept {
  return detail::find_entry(bytes, name);
}

/// The tensor `name` of the file `bytes` as the matrix M (float or double elements), in the
/// file's layout: a tensor of shape [R, C] is an R x C matrix, of shape [C] a 1 x C matrix.
/// F64, F32, F16 and BF16 tensors are read exactly (F64 only into double). A missing tensor,
/// another shape, an element type that cannot hold the values, a NaN or an infinity, or a
/// truncated file does not compile.
template <Matrix M, std::size_t N>
consteval M load(const unsigned char (&bytes)[N], const char* name) noexcept {
  return detail::load<M>(bytes, name, false);
}

/// As load, for a tensor stored transposed: PyTorch's nn.Linear weight (out x in, shape [C, R])
/// as the R x C matrix that multiplies rows from the right (x·W).
template <Matrix M, std::size_t N>
consteval M load_transposed(const unsigned char (&bytes)[N], const char* name) noexcept {
  return detail::load<M>(bytes, name, true);
}

}  // namespace cxmat::safetensors
