// In constant evaluation, running a model over a cache of keys and values gives the bits of the
// whole sequence computed by the library's whole-sequence functions under a causal mask
// (rms_norm, grouped_query_attention with rotary, swiglu, logits; layer_norm, the attention
// module, feed_forward<gelu_tanh>): the cached blocks are those functions, for one new token.
#include <cxmat/generation.hpp>
#include <cxmat/transformer.hpp>

#include "test_support/tiny_language_models.hpp"

namespace {

using cxmat::matrix;
constexpr matrix<int, 1, 5> tokens{{{3, 1, 4, 1, 5}}};

template <class M, class O>
constexpr auto llama_by_layers(const M& model, const O& rotary) {
  auto x = cxmat::embedding(model.token_embedding, tokens);
  for (const auto& b : model.blocks) {
    const auto h = cxmat::rms_norm(x, b.attention_norm.weight, b.attention_norm.eps);
    x = x + cxmat::grouped_query_attention<4, 2>(h, h, b.w_q, b.w_k, b.w_v, b.w_o, cxmat::causal, rotary);
    x = x + cxmat::swiglu(cxmat::rms_norm(x, b.ffn_norm.weight, b.ffn_norm.eps), b.w_gate, b.w_up, b.w_down);
  }
  const auto n = cxmat::rms_norm(x, model.final_norm.weight, model.final_norm.eps);
  if constexpr (std::is_same_v<std::remove_cvref_t<decltype(model.output)>, cxmat::tied_head>) {
    return cxmat::logits(n, model.token_embedding);
  } else {
    return cxmat::logits(n, model.output);
  }
}

template <class M>
constexpr auto gpt2_by_layers(const M& model) {
  auto x =
      cxmat::embedding(model.token_embedding, tokens) + cxmat::select_rows<0, 1, 2, 3, 4>(model.position_embedding);
  for (const auto& b : model.blocks) {
    x = x + b.attention(b.ln_1(x), cxmat::causal);
    x = x + cxmat::feed_forward<cxmat::activation::gelu_tanh>(b.ln_2(x), b.w_fc, b.b_fc, b.w_proj, b.b_proj);
  }
  return cxmat::logits(model.final_norm(x), model.token_embedding);
}

// The prompt's first three tokens prefilled, then two steps: each step's logits, and prefill's,
// are rows of the whole pass.
template <class M, class Full>
constexpr bool cached_rows_equal(const M& model, const Full& full) {
  typename M::template cache_type<8> cache{};
  const auto first = cxmat::prefill(model, cache, matrix<int, 1, 3>{{{3, 1, 4}}});
  const auto fourth = cxmat::step(model, cache, 1);
  const auto fifth = cxmat::step(model, cache, 5);
  bool same = cache.filled == 5;
  for (std::size_t j = 0; j < cxmat_test::tiny_vocab; ++j) {
    same = same && first(0, j) == full(2, j) && fourth(0, j) == full(3, j) && fifth(0, j) == full(4, j);
  }
  return same;
}

// A generation in the caller's storage prefills its prompt one token at a time in the
// storage's workspace (a step's memory): the logits it chose the first token from are the whole
// pass's row for the prompt's last position.
template <class M, class Full>
constexpr bool one_at_a_time_equals(const M& model, const Full& full) {
  cxmat::generation<M, cxmat::extent{8}> g{};
  const auto first = cxmat::generate<1>(model, tokens, g);
  bool same = g.cache.filled == 5 && g.length == 6 && first(0, 0) == g.tokens(0, 5);
  for (std::size_t j = 0; j < cxmat_test::tiny_vocab; ++j) same = same && g.workspace.head.logits(0, j) == full(4, j);
  return same;
}

template <class M, class Full>
constexpr bool forward_equals(const M& model, const Full& full) {
  const auto all = cxmat::forward(model, tokens);
  return all == full;
}

using namespace cxmat_test;
constexpr auto llama_interleaved = make_tiny_llama<tiny_llama<double>>(1);
constexpr auto llama_half =
    make_tiny_llama<tiny_llama<double, cxmat::rotary_layout::rotate_half, matrix<double, tiny_vocab, 16>>>(2);
constexpr auto llama_float = make_tiny_llama<tiny_llama<float>>(3);
constexpr auto gpt2 = make_tiny_gpt2<tiny_gpt2<double>>(4);

constexpr auto full_interleaved = llama_by_layers(llama_interleaved, cxmat::rotary_interleaved(500.0));
static_assert(cached_rows_equal(llama_interleaved, full_interleaved));
static_assert(forward_equals(llama_interleaved, full_interleaved));

constexpr auto full_half = llama_by_layers(llama_half, cxmat::rotary(500.0));
static_assert(cached_rows_equal(llama_half, full_half));

constexpr auto full_float = llama_by_layers(llama_float, cxmat::rotary_interleaved(500.0));
static_assert(cached_rows_equal(llama_float, full_float));
static_assert(one_at_a_time_equals(llama_float, full_float));

constexpr auto full_gpt2 = gpt2_by_layers(gpt2);
static_assert(cached_rows_equal(gpt2, full_gpt2));
static_assert(one_at_a_time_equals(gpt2, full_gpt2));

// A step's workspace, scratch_bytes<Model, R>, by hand: the rows x (R x 16), the block's normed
// rows and queries (R x 16 each), keys and values (R x 8 each, two key/value heads of width 4 for
// the LLaMA; R x 16 each for GPT-2), the feed-forward's hidden layer (R x 24 twice, gate and up,
// for the LLaMA; R x 32 for GPT-2), and the head's normed row (16) and logits (13). The weights'
// products need nothing else in float.
static_assert(cxmat::scratch_bytes<decltype(llama_float), 1> ==
              (16 + 16 + 16 + 8 + 8 + 24 + 24 + 16 + 13) * sizeof(float));
static_assert(cxmat::scratch_bytes<decltype(llama_interleaved), 3> ==
              (3 * (16 + 16 + 16 + 8 + 8 + 24 + 24) + 16 + 13) * sizeof(double));
static_assert(cxmat::scratch_bytes<decltype(gpt2), 1> == (16 + 16 + 16 + 16 + 16 + 32 + 16 + 13) * sizeof(double));
static_assert(forward_equals(gpt2, full_gpt2));

// Positions matter, and the two layouts (heads of width 4) are different models: the same weights
// without rotary, or rotated in the other layout, give other logits.
static_assert(llama_by_layers(llama_interleaved, cxmat::scale(0.5)) != full_interleaved);
static_assert(llama_by_layers(llama_interleaved, cxmat::rotary(500.0)) != full_interleaved);

}  // namespace
