// Exercise 20: one pre-norm LLaMA block from its pieces.          Check: bash scripts/exercise.sh 20
#include <cxmat/transformer.hpp>

#include "answers.hpp"

// n = 3 tokens, d_model = 4, H = 2 query heads sharing H_kv = 1 key/value head (d_head = 2),
// SwiGLU of width 3. Weights d_in x d_out.
constexpr cxmat::matrix<double, 3, 4> X{{{-0.2, 0.9, -0.5, -0.9}, {-0.4, 0.4, 0.6, 0.1}, {-0.4, 0.8, 0.9, -0.1}}};
constexpr cxmat::matrix<double, 1, 4> attention_norm{{{1, 0.5, 1.5, 1}}};
constexpr cxmat::matrix<double, 1, 4> ffn_norm{{{0.5, 1, 1, 2}}};
constexpr double eps = 1e-6;
constexpr cxmat::matrix<double, 4, 4> Wq{{{-0.2, 0.2, 0.4, 0.2}, {-0.1, -0.1, 0.3, 0.8}, {-0.9, -0.8, 0.5, -0.1}, {0.6, 0.1, -0.1, 0.9}}};
constexpr cxmat::matrix<double, 4, 2> Wk{{{-0.3, 0.3}, {0.1, -0.8}, {-0.7, 0.6}, {0, 0.4}}};
constexpr cxmat::matrix<double, 4, 2> Wv{{{-0.1, 0.7}, {0.7, -0.1}, {-0.7, 0.7}, {0, 0.1}}};
constexpr cxmat::matrix<double, 4, 4> Wo{{{0, -0.9, 0, -0.8}, {-0.9, 0.7, -0.7, 0.4}, {-0.1, 0, 0, -0.7}, {-0.9, 0.3, -0.8, -0.9}}};
constexpr cxmat::matrix<double, 4, 3> Wgate{{{-0.9, 0.2, 0.9}, {0.1, -1, 0.2}, {0, 0.4, -0.8}, {0.3, 0.9, -0.6}}};
constexpr cxmat::matrix<double, 4, 3> Wup{{{0.9, 0.2, 0.7}, {-0.6, -0.2, 0.7}, {0.7, 0.2, 0.5}, {0.1, -0.1, -0.4}}};
constexpr cxmat::matrix<double, 3, 4> Wdown{{{0, 0, 0, -1}, {1, 1, 0.4, -0.6}, {0.7, -0.5, -0.9, -0.6}}};

// TODO: a decoder's attention. This is an encoder's: every token sees every other, no positions.
constexpr auto h = cxmat::rms_norm(X, attention_norm, eps);
constexpr auto attended = cxmat::grouped_query_attention<2, 1>(h, h, Wq, Wk, Wv, Wo);
constexpr auto x1 = X + attended;
// The second half: the norm, then SwiGLU, then the residual.
constexpr auto h2 = cxmat::rms_norm(x1, ffn_norm, eps);
constexpr auto Y = x1 + cxmat::swiglu(h2, Wgate, Wup, Wdown);

// ---- The checks. Leave them as they are. ----
static_assert(answers::close(h, answers::ex20::h), "h = rms_norm(X, attention_norm, eps): the norm comes first (pre-norm)");
static_assert(answers::close(cxmat::select_rows<0>(attended), answers::ex20::attended_row0),
              "attended, row 0: token 0 attends only to itself (causal), reading h");
static_assert(answers::close(attended, answers::ex20::attended), "attended: queries and keys turned by rotary() at their positions");
static_assert(answers::close(x1, answers::ex20::x1), "x1 = X + attended: the residual stream, not normalised");
static_assert(answers::close(h2, answers::ex20::h2), "h2 = rms_norm(x1, ffn_norm, eps)");
static_assert(answers::close(Y, answers::ex20::Y), "Y = x1 + swiglu(h2, Wgate, Wup, Wdown)");
