// The sizes of the benchmark's model (gen_weights.py's FULL and SMOKE), for the run-time programs,
// which read the weights from gen_weights.py's raw file.
#pragma once

#include <cstddef>

#include <cxmat/generation.hpp>

namespace bench {
#ifdef CXMAT_BENCH_SMOKE
inline constexpr std::size_t dim = 16, layers = 1, heads = 4, kv_heads = 2, hidden = 32, vocab = 32, context = 32;
#else
inline constexpr std::size_t dim = 64, layers = 5, heads = 8, kv_heads = 4, hidden = 172, vocab = 512, context = 512;
#endif
using model_type = cxmat::llama_model<float, vocab, dim, layers, heads, kv_heads, hidden, context,
                                      cxmat::rotary_layout::interleaved, cxmat::matrix<float, vocab, dim>>;
}  // namespace bench
