// One step of a causal decoder, computed by the compiler: a new token attends to a cache of the
// keys and values of the tokens before it (and to itself). The step equals the last row of
// causal self-attention over the whole sequence — asserted below, at compile time.
#include <iostream>

#include <cxmat/cxmat.hpp>
#include <cxmat/io/print.hpp>

namespace {

using cxmat::matrix;

// A two-head layer with d_model = 4 (d_k = d_v = 2 per head).
constexpr matrix<double, 4, 4> Wq{
    {{0.2, -0.1, 0.4, 0.0}, {0.5, 0.3, -0.2, 0.1}, {-0.3, 0.8, 0.1, 0.6}, {0.1, 0.0, 0.7, -0.4}}};
constexpr matrix<double, 4, 4> Wk{
    {{0.6, 0.1, -0.5, 0.2}, {0.0, 0.4, 0.3, -0.1}, {0.2, -0.7, 0.2, 0.5}, {0.9, 0.3, 0.0, 0.1}}};
constexpr matrix<double, 4, 4> Wv{
    {{1.0, 0.0, 0.5, -0.5}, {0.0, 1.0, -0.5, 0.5}, {0.3, 0.3, 1.0, 0.0}, {-0.2, 0.4, 0.0, 1.0}}};
constexpr matrix<double, 4, 4> Wo = cxmat::identity<double, 4>();

// Three tokens already processed: their keys and values are cached (here: computed once, by
// the compiler, into read-only data).
constexpr matrix<double, 3, 4> prefix{{{1.0, 0.0, 0.5, -1.0}, {0.0, 2.0, -0.5, 0.5}, {1.5, -1.0, 0.0, 1.0}}};
constexpr auto k_cache = prefix * Wk;
constexpr auto v_cache = prefix * Wv;

// The new token.
constexpr matrix<double, 1, 4> x_new{{{0.5, 0.5, -1.0, 2.0}}};

// The step: one query against the cache plus the new token's own key and value. With one query
// and lower-right causal alignment, the query may see every key (it is the last position).
constexpr auto k_all = cxmat::vconcat(k_cache, x_new* Wk);
constexpr auto v_all = cxmat::vconcat(v_cache, x_new* Wv);
constexpr auto step = cxmat::multi_head_attention_qkv<2>(x_new * Wq, k_all, v_all, cxmat::causal_lower_right) * Wo;

// The same token as the last row of causal self-attention over the whole sequence.
constexpr auto sequence = cxmat::vconcat(prefix, x_new);
constexpr auto full = cxmat::multi_head_attention<2>(sequence, Wq, Wk, Wv, Wo, cxmat::causal);
static_assert(step == cxmat::select_rows<3>(full), "a decoder step equals the last row of causal attention");

}  // namespace

int main() {
  cxmat::print(std::cout, "cached keys (3 earlier tokens)", k_cache);
  cxmat::print(std::cout, "cached values", v_cache);
  cxmat::print(std::cout, "new token", x_new);
  cxmat::print(std::cout, "decoder step output", step);
  cxmat::print(std::cout, "causal self-attention over all 4 tokens", full);
}
