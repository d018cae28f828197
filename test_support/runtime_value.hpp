// Inputs the optimiser cannot see through, so runtime tests exercise the run-time code path
// rather than a value the compiler folded.
#pragma once

#include <cstddef>

#include <cxmat/core/matrix.hpp>

namespace cxmat_test {

/// A copy of m made element by element through a volatile, so its values are unknown to the
/// compiler at the point of use.
template <class M>
M at_run_time(const M& m) {
  M out{};
  for (std::size_t i = 0; i < M::rows; ++i) {
    for (std::size_t j = 0; j < M::cols; ++j) {
      volatile typename M::value_type v = m(i, j);
      out(i, j) = v;
    }
  }
  return out;
}

}  // namespace cxmat_test
