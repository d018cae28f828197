// Shapes as text, computed at compile time: sizes, then the names in parentheses; the name
// algebra of concatenated and split dimensions; batches.
#include <cxmat/io/shape_text.hpp>
#include <cxmat/ops/blocks.hpp>

namespace shape_text_tests {

CXMAT_DIM(n, 2);
CXMAT_DIM(d_model, 4);
CXMAT_DIM(d_v, 2);
CXMAT_DIM(B, 3);

using cxmat::batch;
using cxmat::divided_v;
using cxmat::extent_name;
using cxmat::matrix;
using cxmat::shape_names_text;
using cxmat::shape_sizes_text;
using cxmat::shape_text;
using cxmat::times_v;

static_assert(shape_text<matrix<double, n, d_model>>() == "2 x 4 (n x d_model)");
static_assert(shape_sizes_text<matrix<double, n, d_model>>() == "2 x 4");
static_assert(shape_names_text<matrix<double, n, d_model>>() == "n x d_model");
// Nothing named: sizes only. Partly named: the size stands in for the missing name.
static_assert(shape_text<matrix<double, 2, 3>>() == "2 x 3" && shape_names_text<matrix<double, 2, 3>>().empty());
static_assert(shape_text<matrix<double, n, 3>>() == "2 x 3 (n x 3)");
static_assert(shape_text<batch<double, B, n, d_model>>() == "3 x 2 x 4 (B x n x d_model)");
static_assert(shape_text<batch<double, 5, 2, 3>>() == "5 x 2 x 3");
static_assert(shape_text<matrix<float, 12, 100>>() == "12 x 100");

// Name algebra: H blocks of d_v side by side are H*d_v; one of H blocks of d_model is d_model/H;
// compound operands are parenthesised; splitting and re-joining gives the name back.
static_assert(extent_name<d_v>() == "d_v" && extent_name<cxmat::extent{7}>().empty());
static_assert(extent_name<times_v<2, d_v>>() == "2*d_v");
static_assert(extent_name<divided_v<d_model, 2>>() == "d_model/2");
static_assert(extent_name<times_v<3, divided_v<d_model, 2>>>() == "3*(d_model/2)");
static_assert(extent_name<times_v<2, divided_v<d_model, 2>>>() == "d_model");
static_assert(shape_text<matrix<double, times_v<2, d_v>, divided_v<d_model, 2>>>() == "4 x 2 (2*d_v x d_model/2)");

constexpr matrix<double, n, d_v> head{};
static_assert(shape_text(cxmat::hconcat(head, head)) == "2 x 4 (n x 2*d_v)");
static_assert(shape_text(cxmat::split_columns<2>(matrix<double, n, d_model>{})[0]) == "2 x 2 (n x d_model/2)");

// The text is a constant: usable as a C string too.
static_assert(shape_text(head).size() == 15 && shape_text(head).data()[15] == '\0');

}  // namespace shape_text_tests
