// Exercise 22, solved: greedy generation from a tiny language model.
#include <cstddef>

#include <cxmat/generation.hpp>

#include "answers.hpp"

// A tiny LLaMA: vocabulary 6, d_model 4, one block of H = 2 query heads sharing H_kv = 1
// key/value head, SwiGLU of width 4, room for 8 positions; the logits come from the embedding.
using model_type = cxmat::llama_model<double, 6, 4, 1, 2, 1, 4, 8>;

constexpr model_type make_model() {
  model_type m{};
  m.token_embedding = {{{0.3, 1, -0.5, 0.3}, {-0.4, -0.3, -0.2, -0.7}, {-0.4, 0.2, 0.5, 0.4},
                        {0.8, 0, 0.4, -0.5}, {-0.9, 0.2, -1, -0.7}, {-0.8, -0.2, -0.7, 0.9}}};
  auto& b = m.blocks[0];
  b.w_q = {{{0.1, 0.2, 0.8, 0.5}, {1, 0, 0.7, 0.9}, {0.2, 0.9, 0.6, -0.7}, {0.6, 0.9, 0.5, -0.4}}};
  b.w_k = {{{-0.3, 0}, {-0.4, -0.5}, {0.8, 0.4}, {-1, -0.3}}};
  b.w_v = {{{0, 0.4}, {-0.6, 0.6}, {-0.8, 0.3}, {-0.6, 0}}};
  b.w_o = {{{-0.6, 0.4, -0.7, -0.6}, {-0.9, 0.8, 0.2, -0.6}, {0.5, -0.3, -0.4, 0.7}, {0.4, -0.9, -0.7, 0.6}}};
  b.w_gate = {{{0.1, 0.8, -0.6, -0.4}, {-1, -0.5, -0.7, 0.5}, {0.3, -0.8, 0.9, -0.1}, {0.9, -0.5, 1, 0.3}}};
  b.w_up = {{{0.9, 0.5, 0.6, -0.8}, {0.3, -0.6, -0.5, 0.2}, {0.7, 0.9, -0.3, -0.3}, {-0.8, -0.3, 0.2, 0}}};
  b.w_down = {{{0.3, 0.6, 0.3, -0.5}, {-0.1, 0.9, 0.1, -0.1}, {-0.1, 0.6, -0.6, 0.4}, {-0.3, 0.8, 0.2, -0.4}}};
  b.attention_norm.weight = cxmat::filled<double, 1, 4>(1.0);
  b.ffn_norm.weight = cxmat::filled<double, 1, 4>(1.0);
  m.final_norm.weight = cxmat::filled<double, 1, 4>(1.0);
  return m;
}
constexpr model_type model = make_model();
constexpr cxmat::matrix<int, 1, 3> prompt{{{1, 4, 2}}};

// The id of the largest logit, the first of equal ones.
constexpr int argmax(const cxmat::matrix<double, 1, 6>& logits) {
  std::size_t best = 0;
  for (std::size_t j = 1; j < 6; ++j) {
    if (logits(0, j) > logits(0, best)) best = j;
  }
  return static_cast<int>(best);
}

// Four greedy tokens: the prompt through the model once, then each chosen token fed back.
constexpr cxmat::matrix<int, 1, 4> tokens = [] {
  model_type::cache_type<8> cache{};
  auto logits = cxmat::prefill(model, cache, prompt);
  cxmat::matrix<int, 1, 4> out{};
  for (std::size_t i = 0; i < 4; ++i) {
    const int next = argmax(logits);
    out(0, i) = next;
    logits = cxmat::step(model, cache, next);
  }
  return out;
}();

// Given: ids as doubles, to compare with the numbers of answers.hpp.
constexpr cxmat::matrix<double, 1, 4> as_numbers(const cxmat::matrix<int, 1, 4>& ids) {
  cxmat::matrix<double, 1, 4> r{};
  for (std::size_t i = 0; i < 4; ++i) r(0, i) = ids(0, i);
  return r;
}

// ---- The checks. Leave them as they are. ----
static_assert(answers::close(
                  [] {
                    model_type::cache_type<8> c{};
                    return cxmat::prefill(model, c, prompt);
                  }(),
                  answers::ex22::first_logits),
              "the model and the prompt (given): the logits after 1 4 2");
static_assert(argmax(cxmat::matrix<double, 1, 6>{{{-5, -4, -3, -2, -1, -0.5}}}) == 5 && argmax(answers::ex22::first_logits) == 2,
              "argmax: the id of the largest logit");
static_assert(argmax(cxmat::matrix<double, 1, 6>{{{0, 3, 1, 3, 2, -1}}}) == 1, "argmax: the first of equal largest logits");
static_assert(tokens(0, 0) == 2, "token 1: the largest logit after the prompt");
static_assert(answers::close(as_numbers(tokens), answers::ex22::tokens), "tokens 2..4: each chosen token fed back with step, at the next position");
static_assert(tokens == cxmat::generate<4>(model, prompt), "cxmat::generate<4> chooses the same tokens");
