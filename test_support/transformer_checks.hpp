// Comparison of the transformer layer's results with the PyTorch references
// (test_support/transformer_reference.hpp), shared by the static and run-time tests.
#pragma once

#include <cstddef>

namespace transformer_test {

/// Tolerance of a double result: 1e-12 of the largest magnitude of the expected matrix.
inline constexpr double double_tolerance = 1e-12;
/// Tolerance of a float result (inputs and weights exact in float) against the float64
/// reference, relative to the largest magnitude of the expected matrix (docs/numerics.md).
inline constexpr double float_tolerance = 1e-6;

/// max |actual - expected| / max |expected| over the matrix (norm-wise relative error): an
/// element near zero is measured against the matrix's scale, not its own.
template <class A, class E>
constexpr double scaled_error(const A& actual, const E& expected) {
  double worst = 0.0;
  double scale = 0.0;
  for (std::size_t i = 0; i < E::rows; ++i) {
    for (std::size_t j = 0; j < E::cols; ++j) {
      const double e = expected(i, j);
      const double d = static_cast<double>(actual(i, j)) - e;
      const double ad = d < 0 ? -d : d;
      const double ae = e < 0 ? -e : e;
      if (!(ad <= worst)) worst = ad;  // a NaN makes the error NaN, which fails every check
      if (ae > scale) scale = ae;
    }
  }
  return scale > 0.0 ? worst / scale : worst;
}

/// Whether a double result is within double_tolerance of the reference.
template <class A, class E>
constexpr bool equals_pytorch(const A& actual, const E& expected) {
  return scaled_error(actual, expected) <= double_tolerance;
}

/// Every element of a float layer's workspace set to value (NaN, 1e30, ...): what a workspace held
/// before a call must not change its result.
template <class M, class T>
constexpr void fill_matrix(M& m, T value) {
  for (auto& row : m.elems) {
    for (auto& e : row) e = value;
  }
}
template <class W, class T>
constexpr void fill_workspace(W& ws, T value) {
  if constexpr (requires { ws.heads; }) {  // an attention_module's
    fill_matrix(ws.q, value), fill_matrix(ws.k, value), fill_matrix(ws.v, value), fill_matrix(ws.heads, value);
  } else {
    if constexpr (requires { ws.attention; }) {  // an encoder layer's
      fill_workspace(ws.attention, value);
    } else {  // a decoder layer's
      fill_workspace(ws.self, value), fill_workspace(ws.cross, value);
    }
    fill_matrix(ws.h, value), fill_matrix(ws.a, value), fill_matrix(ws.hidden, value);
  }
}

}  // namespace transformer_test
