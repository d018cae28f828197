// The umbrella header on a bare-metal target with no Boost on the include path: everything but
// the Boost.Hana per-head form is there, and a layer computes at compile time and run time.
#if __has_include(<boost/hana.hpp>)
#error "Boost.Hana is on the include path; this check needs a compiler that cannot see it"
#endif

#include <cxmat/cxmat.hpp>

namespace {

constexpr cxmat::matrix<float, 2, 4> x{{{1, 0, 1, 0}, {0, 1, 0, 1}}};
constexpr cxmat::matrix<float, 4, 4> w{{{1, 0, 0, 0}, {0, 1, 0, 0}, {0, 0, 1, 0}, {0, 0, 0, 1}}};
// Head 0 sees columns 0 and 1: scores [[1, 0], [0, 1]] / sqrt(2), so token 0 weights itself by
// 1 / (1 + exp(-1/sqrt(2))) = 0.669761 and token 1 by 0.330239; column 0 of V is (1, 0).
constexpr auto y = cxmat::multi_head_attention<2>(x, w, w, w);
static_assert(y(0, 0) > 0.66975f && y(0, 0) < 0.66977f && y(1, 0) > 0.33023f && y(1, 0) < 0.33025f);

}  // namespace

/// The same layer at run time, for an input the compiler cannot see.
cxmat::matrix<float, 2, 4> umbrella_attention(const cxmat::matrix<float, 2, 4>& input) {
  return cxmat::multi_head_attention<2>(input, w, w, w);
}
