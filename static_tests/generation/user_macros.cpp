// A program may define a macro named G (a common name for a gain or a group count) before it
// includes the transformer and generation layers: no template parameter of theirs is named G.
#define G 3
#include <cxmat/generation.hpp>
#include <cxmat/transformer.hpp>

namespace {
constexpr cxmat::matrix<double, 2, G> x{{{1, 2, 3}, {4, 5, 6}}};
// select_rows comes with <cxmat/transformer.hpp>: a model's last row.
static_assert(cxmat::select_rows<1>(cxmat::rms_norm(x, cxmat::filled<double, 1, G>(1.0), 0.0))(0, 0) > 0.0);
}  // namespace
