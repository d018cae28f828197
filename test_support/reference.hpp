// An independent plain-loop attention written with std::exp and std::vector, the reference the
// property tests compare cxmat with. It shares no code with the library.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <vector>

namespace cxmat_test::reference {

/// A dense row-major matrix of doubles with run-time sizes.
struct dense {
  std::size_t rows = 0;
  std::size_t cols = 0;
  std::vector<double> v;
  dense(std::size_t r, std::size_t c) : rows(r), cols(c), v(r * c, 0.0) {}
  double& operator()(std::size_t i, std::size_t j) { return v[i * cols + j]; }
  double operator()(std::size_t i, std::size_t j) const { return v[i * cols + j]; }
};

template <class M>
dense from(const M& m) {
  dense out(M::rows, M::cols);
  for (std::size_t i = 0; i < M::rows; ++i) {
    for (std::size_t j = 0; j < M::cols; ++j) out(i, j) = static_cast<double>(m(i, j));
  }
  return out;
}

inline dense matmul(const dense& a, const dense& b) {
  dense out(a.rows, b.cols);
  for (std::size_t i = 0; i < a.rows; ++i) {
    for (std::size_t j = 0; j < b.cols; ++j) {
      double s = 0.0;
      for (std::size_t k = 0; k < a.cols; ++k) s += a(i, k) * b(k, j);
      out(i, j) = s;
    }
  }
  return out;
}

/// Columns [first, first + count) of m.
inline dense columns(const dense& m, std::size_t first, std::size_t count) {
  dense out(m.rows, count);
  for (std::size_t i = 0; i < m.rows; ++i) {
    for (std::size_t j = 0; j < count; ++j) out(i, j) = m(i, first + j);
  }
  return out;
}

/// softmax(q kᵀ / sqrt(d_k)) row by row, the textbook way with a max shift.
inline dense weights(const dense& q, const dense& k) {
  dense w(q.rows, k.rows);
  for (std::size_t i = 0; i < q.rows; ++i) {
    double mx = -INFINITY;
    for (std::size_t j = 0; j < k.rows; ++j) {
      double s = 0.0;
      for (std::size_t c = 0; c < q.cols; ++c) s += q(i, c) * k(j, c);
      w(i, j) = s / std::sqrt(static_cast<double>(q.cols));
      mx = std::max(mx, w(i, j));
    }
    double sum = 0.0;
    for (std::size_t j = 0; j < k.rows; ++j) sum += (w(i, j) = std::exp(w(i, j) - mx));
    for (std::size_t j = 0; j < k.rows; ++j) w(i, j) /= sum;
  }
  return w;
}

/// Multi-head attention in block form: head h uses column block h of q, k, v.
inline dense multi_head(const dense& q, const dense& k, const dense& v, std::size_t heads) {
  const std::size_t dk = q.cols / heads;
  const std::size_t dv = v.cols / heads;
  dense out(q.rows, v.cols);
  for (std::size_t h = 0; h < heads; ++h) {
    const dense w = weights(columns(q, h * dk, dk), columns(k, h * dk, dk));
    const dense z = matmul(w, columns(v, h * dv, dv));
    for (std::size_t i = 0; i < q.rows; ++i) {
      for (std::size_t c = 0; c < dv; ++c) out(i, h * dv + c) = z(i, c);
    }
  }
  return out;
}

/// max over elements of |a - b| / max(|b|, floor): the error measure the tests bound.
template <class M>
double max_relative_error(const M& a, const dense& b, double floor = 1.0) {
  double worst = 0.0;
  for (std::size_t i = 0; i < M::rows; ++i) {
    for (std::size_t j = 0; j < M::cols; ++j) {
      const double d = std::abs(static_cast<double>(a(i, j)) - b(i, j)) / std::max(std::abs(b(i, j)), floor);
      worst = std::max(worst, d);
    }
  }
  return worst;
}

}  // namespace cxmat_test::reference
