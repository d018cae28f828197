// Exercise 24: the shape of every tensor in one generation step.          Check: bash scripts/exercise.sh 24
#include <cxmat/cxmat.hpp>

// A LLaMA block's sizes: d_model 4 in H = 2 query heads of width d_head = 2 that share H_kv = 1
// key/value head, a feed-forward of width d_ff = 8, a vocabulary of 6, a cache of 8 positions.
CXMAT_DIM(one, 1);  // the new token: a step works on one row
CXMAT_DIM(vocab, 6);
CXMAT_DIM(d_model, 4);
CXMAT_DIM(d_head, 2);
CXMAT_DIM(d_ff, 8);
CXMAT_DIM(capacity, 8);
CXMAT_DIM_EQUALS(d_model, cxmat::times_v<2, d_head>);  // H · d_head = d_model
CXMAT_DIM_EQUALS(d_head, cxmat::divided_v<d_model, 2>);

// TODO: the shapes of the weights and of the cache (zeros here: this exercise is about shapes),
// d_in x d_out. W_k below is one key per query head; this model has one key/value head.
constexpr cxmat::matrix<double, vocab, d_model> embedding{};
constexpr cxmat::matrix<double, d_model, d_model> Wq{};
constexpr cxmat::matrix<double, d_model, d_model> Wk{};
constexpr cxmat::matrix<double, d_model, d_head> Wv{};
constexpr cxmat::matrix<double, d_model, d_model> Wo{};
constexpr cxmat::matrix<double, d_model, d_ff> Wgate{};
constexpr cxmat::matrix<double, d_ff, d_model> Wdown{};
constexpr cxmat::matrix<double, capacity, d_head> keys{};
constexpr cxmat::matrix<double, capacity, d_head> values{};

// One step (norms and rotary left out: they keep the shapes).
constexpr cxmat::matrix<double, one, d_model> x{};  // the new token's row of the embedding
constexpr auto q = x * Wq;
constexpr auto k = x * Wk;
constexpr auto v = x * Wv;
constexpr auto q0 = cxmat::column_block<0, 2>(q);  // query head 0
constexpr auto q1 = cxmat::column_block<1, 2>(q);  // query head 1
constexpr auto scores0 = q0 * cxmat::transpose(keys);
constexpr auto z0 = cxmat::softmax_rows(scores0) * values;
constexpr auto z1 = cxmat::softmax_rows(q1 * cxmat::transpose(keys)) * values;
constexpr auto attended = cxmat::hconcat(z0, z1) * Wo;
constexpr auto x1 = x + attended;
constexpr auto hidden = x1 * Wgate;
constexpr auto x2 = x1 + hidden * Wdown;
constexpr auto logits = x2 * cxmat::transpose(embedding);

// ---- The checks. Leave them as they are. ----
static_assert(cxmat::shape_text(q) == "1 x 4 (one x d_model)", "q is one x d_model: the two query heads side by side");
static_assert(cxmat::shape_text(k) == "1 x 2 (one x d_head)", "k is one x d_head: one key/value head (H_kv = 1), not one per query head");
static_assert(cxmat::shape_text(v) == "1 x 2 (one x d_head)", "v is one x d_head: one key/value head, as k");
static_assert(cxmat::shape_text(keys) == "8 x 2 (capacity x d_head)", "the cache: a row per position, each as wide as k");
static_assert(cxmat::shape_text(scores0) == "1 x 8 (one x capacity)", "head 0's scores: one per cached position");
static_assert(cxmat::shape_text(z0) == "1 x 2 (one x d_head)", "head 0's output: its weights times the cached values");
static_assert(cxmat::shape_text(attended) == "1 x 4 (one x d_model)", "the heads side by side, times W_o");
static_assert(cxmat::shape_text(hidden) == "1 x 8 (one x d_ff)", "the feed-forward's hidden row");
static_assert(cxmat::shape_text(x2) == "1 x 4 (one x d_model)", "the block's output row");
static_assert(cxmat::shape_text(logits) == "1 x 6 (one x vocab)", "the logits: one per id of the vocabulary");
