// One transformer encoder layer (nn.TransformerEncoderLayer: self-attention, two LayerNorms, a
// ReLU feed-forward d_model -> d_ff -> d_model, post-norm), or a stack of CXMAT_BENCH_LAYERS of
// them with a final LayerNorm (nn.TransformerEncoder), evaluated in a single constant expression.
// Sizes: n = CXMAT_BENCH_N tokens, d_model = CXMAT_BENCH_D, H = CXMAT_BENCH_HEADS heads, d_ff =
// CXMAT_BENCH_DFF. Compiling this file is the benchmark; the weights are separate constant
// expressions (inputs.hpp's generator), so their cost is not charged to the layer.
#include <cxmat/transformer.hpp>

#include "inputs.hpp"

#ifndef CXMAT_BENCH_D
#define CXMAT_BENCH_D CXMAT_BENCH_N
#endif
#ifndef CXMAT_BENCH_DFF
#define CXMAT_BENCH_DFF (4 * CXMAT_BENCH_D)
#endif
#ifndef CXMAT_BENCH_LAYERS
#define CXMAT_BENCH_LAYERS 1
#endif
// With one layer, CXMAT_BENCH_PART = 1, 2 or 3 evaluates one of its parts instead (run.py's
// breakdown): the self-attention, the feed-forward, one LayerNorm.
#ifndef CXMAT_BENCH_PART
#define CXMAT_BENCH_PART 0
#endif

namespace cxmat_bench {

inline constexpr std::size_t d_model = CXMAT_BENCH_D;
inline constexpr std::size_t d_ff = CXMAT_BENCH_DFF;
inline constexpr std::size_t layer_count = CXMAT_BENCH_LAYERS;

using layer_type = cxmat::encoder_layer<double, d_model, heads, d_ff>;

/// Layer `i`'s weights: every matrix its own seed; weights uniform in [-1, 1) scaled by
/// 1/sqrt(d_in) as PyTorch initialises them (roughly), LayerNorm's gamma near 1, beta near 0.
template <std::uint64_t I>
constexpr layer_type make_layer() noexcept {
  constexpr std::uint64_t s = 100 * I;
  constexpr double a = 1.0 / (d_model == 16 ? 4.0 : d_model == 32 ? 5.65685424949238 : 8.0);
  constexpr double f = 1.0 / (d_ff == 64 ? 8.0 : d_ff == 128 ? 11.3137084989848 : 16.0);
  return layer_type{{random_matrix<d_model, d_model>(s + 1, a), random_matrix<d_model, d_model>(s + 2, a),
                     random_matrix<d_model, d_model>(s + 3, a), random_matrix<1, d_model>(s + 4, 0.1),
                     random_matrix<1, d_model>(s + 5, 0.1), random_matrix<1, d_model>(s + 6, 0.1),
                     random_matrix<d_model, d_model>(s + 7, a), random_matrix<1, d_model>(s + 8, 0.1)},
                    {random_matrix<d_model, d_ff>(s + 9, a), random_matrix<1, d_ff>(s + 10, 0.1)},
                    {random_matrix<d_ff, d_model>(s + 11, f), random_matrix<1, d_model>(s + 12, 0.1)},
                    {random_matrix<1, d_model>(s + 13, 0.1, 1.0), random_matrix<1, d_model>(s + 14, 0.1), 1e-5},
                    {random_matrix<1, d_model>(s + 15, 0.1, 1.0), random_matrix<1, d_model>(s + 16, 0.1), 1e-5}};
}

inline constexpr auto X_enc = random_matrix<n, d_model>(7);

#if CXMAT_BENCH_LAYERS == 1
inline constexpr layer_type layer = make_layer<0>();
#if defined(CXMAT_BENCH_INPUTS_ONLY)
#elif CXMAT_BENCH_PART == 1  // the self-attention sublayer alone (projections with biases, heads, W_o)
constexpr auto y = layer.self_attn(X_enc);
#elif CXMAT_BENCH_PART == 2  // the feed-forward sublayer alone (d_model -> d_ff, ReLU, d_ff -> d_model)
constexpr auto y = layer.feed_forward(X_enc);
#elif CXMAT_BENCH_PART == 3  // one LayerNorm
constexpr auto y = layer.norm1(X_enc);
#else
constexpr auto y = layer(X_enc);
#endif
#elif CXMAT_BENCH_LAYERS == 2
inline constexpr layer_type layer0 = make_layer<0>();
inline constexpr layer_type layer1 = make_layer<1>();
inline constexpr cxmat::transformer_encoder<layer_type, 2> encoder{
    {layer0, layer1}, {random_matrix<1, d_model>(201, 0.1, 1.0), random_matrix<1, d_model>(202, 0.1), 1e-5}};
#ifndef CXMAT_BENCH_INPUTS_ONLY
constexpr auto y = encoder(X_enc);
#endif
#else
#error "CXMAT_BENCH_LAYERS: 1 or 2"
#endif

#ifndef CXMAT_BENCH_INPUTS_ONLY
static_assert(finite_and_nonzero(y), "encoder: the output is not finite");
#else
static_assert(finite_and_nonzero(X_enc), "inputs: X is not finite");
#endif

}  // namespace cxmat_bench
