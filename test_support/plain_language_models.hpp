// A separate, plain implementation of the LLaMA and GPT-2 forward passes, written from the
// published formulas (LLaMA: Touvron et al. 2023 and llama2.c's run.c; GPT-2: Radford et al.
// 2019 and Hugging Face's modeling_gpt2), in long double with the C library's math, over the
// whole sequence with an explicit causal mask and no cache: the reference the library's cached
// models are checked against at run time. It reads the weights out of the library's model
// values and nothing else of the library.
#pragma once

#include <cmath>
#include <cstddef>
#include <vector>

#include <cxmat/attention/options.hpp>

namespace cxmat_test::plain {

using real = long double;
using rows = std::vector<std::vector<real>>;

template <class M>
rows to_rows(const M& m) {
  rows out(M::rows, std::vector<real>(M::cols));
  for (std::size_t i = 0; i < M::rows; ++i) {
    for (std::size_t j = 0; j < M::cols; ++j) out[i][j] = static_cast<real>(m.elems[i][j]);
  }
  return out;
}

// x (n x k) times w (k x m, the library's d_in x d_out orientation).
inline rows times(const rows& x, const rows& w) {
  rows out(x.size(), std::vector<real>(w[0].size(), 0));
  for (std::size_t i = 0; i < x.size(); ++i) {
    for (std::size_t j = 0; j < w[0].size(); ++j) {
      for (std::size_t k = 0; k < w.size(); ++k) out[i][j] += x[i][k] * w[k][j];
    }
  }
  return out;
}

inline rows plus(rows a, const rows& b) {
  for (std::size_t i = 0; i < a.size(); ++i) {
    for (std::size_t j = 0; j < a[i].size(); ++j) a[i][j] += b[i][j];
  }
  return a;
}

inline rows add_bias(rows a, const rows& b) {
  for (auto& row : a) {
    for (std::size_t j = 0; j < row.size(); ++j) row[j] += b[0][j];
  }
  return a;
}

// RMSNorm: x / sqrt(mean(x^2) + eps) * weight.
inline rows rms_norm(const rows& x, const rows& weight, real eps) {
  rows out = x;
  for (std::size_t i = 0; i < x.size(); ++i) {
    real ss = 0;
    for (real v : x[i]) ss += v * v;
    const real scale = 1 / std::sqrt(ss / static_cast<real>(x[i].size()) + eps);
    for (std::size_t j = 0; j < x[i].size(); ++j) out[i][j] = weight[0][j] * x[i][j] * scale;
  }
  return out;
}

// LayerNorm: (x - mean) / sqrt(var + eps) * weight + bias, the biased variance.
inline rows layer_norm(const rows& x, const rows& weight, const rows& bias, real eps) {
  rows out = x;
  for (std::size_t i = 0; i < x.size(); ++i) {
    real mean = 0;
    for (real v : x[i]) mean += v;
    mean /= static_cast<real>(x[i].size());
    real var = 0;
    for (real v : x[i]) var += (v - mean) * (v - mean);
    var /= static_cast<real>(x[i].size());
    for (std::size_t j = 0; j < x[i].size(); ++j)
      out[i][j] = (x[i][j] - mean) / std::sqrt(var + eps) * weight[0][j] + bias[0][j];
  }
  return out;
}

// Rotary positions of each head of width hd in row p: pair i is (2i, 2i+1) (interleaved, as
// llama2.c) or (i, i + hd/2) (rotate-half, as Hugging Face), turned by p * base^(-2i/hd).
inline void rotate(rows& x, std::size_t heads, real base, bool interleaved) {
  const std::size_t hd = x[0].size() / heads;
  for (std::size_t p = 0; p < x.size(); ++p) {
    for (std::size_t h = 0; h < heads; ++h) {
      for (std::size_t i = 0; i < hd / 2; ++i) {
        const real angle = static_cast<real>(p) * std::pow(base, -static_cast<real>(2 * i) / static_cast<real>(hd));
        const std::size_t a = h * hd + (interleaved ? 2 * i : i);
        const std::size_t b = interleaved ? a + 1 : a + hd / 2;
        const real x0 = x[p][a];
        const real x1 = x[p][b];
        x[p][a] = x0 * std::cos(angle) - x1 * std::sin(angle);
        x[p][b] = x0 * std::sin(angle) + x1 * std::cos(angle);
      }
    }
  }
}

// Causal attention of H query heads over Hkv key/value heads (query head h uses kv head
// h / (H / Hkv)), scores divided by sqrt(head width). With `weights`, each head's n x n weights
// (0 above the diagonal) are appended to it.
inline rows causal_attention(const rows& q, const rows& k, const rows& v, std::size_t heads, std::size_t kv_heads,
                             std::vector<rows>* weights = nullptr) {
  const std::size_t hd = q[0].size() / heads;
  const std::size_t n = q.size();
  rows out(n, std::vector<real>(q[0].size(), 0));
  for (std::size_t h = 0; h < heads; ++h) {
    const std::size_t kv = h / (heads / kv_heads);
    if (weights) weights->push_back(rows(n, std::vector<real>(n, 0)));
    for (std::size_t i = 0; i < n; ++i) {
      std::vector<real> score(i + 1);
      real max = -INFINITY;
      for (std::size_t j = 0; j <= i; ++j) {
        real dot = 0;
        for (std::size_t c = 0; c < hd; ++c) dot += q[i][h * hd + c] * k[j][kv * hd + c];
        score[j] = dot / std::sqrt(static_cast<real>(hd));
        max = std::fmax(max, score[j]);
      }
      real sum = 0;
      for (real& s : score) sum += (s = std::exp(s - max));
      for (std::size_t j = 0; j <= i && weights; ++j) weights->back()[i][j] = score[j] / sum;
      for (std::size_t j = 0; j <= i; ++j) {
        for (std::size_t c = 0; c < hd; ++c) out[i][h * hd + c] += score[j] / sum * v[j][kv * hd + c];
      }
    }
  }
  return out;
}

inline rows embed(const rows& table, const std::vector<int>& tokens) {
  rows out;
  for (int t : tokens) out.push_back(table[static_cast<std::size_t>(t)]);
  return out;
}

// x · tableᵀ.
inline rows logits(const rows& x, const rows& table) {
  rows out(x.size(), std::vector<real>(table.size(), 0));
  for (std::size_t i = 0; i < x.size(); ++i) {
    for (std::size_t t = 0; t < table.size(); ++t) {
      for (std::size_t c = 0; c < x[i].size(); ++c) out[i][t] += x[i][c] * table[t][c];
    }
  }
  return out;
}

inline real silu(real x) { return x / (1 + std::exp(-x)); }
inline real gelu_tanh(real x) {
  const real pi = 3.141592653589793238462643383279502884L;
  return 0.5L * x * (1 + std::tanh(std::sqrt(2 / pi) * (x + 0.044715L * x * x * x)));
}

/// The logits of every position of `tokens` under a LLaMA model. With `attention`, each layer's
/// heads' weights (causal_attention's) are appended to it.
template <class M>
rows llama_logits(const M& model, const std::vector<int>& tokens, std::vector<std::vector<rows>>* attention = nullptr) {
  const bool interleaved = M::layout == cxmat::rotary_layout::interleaved;
  rows x = embed(to_rows(model.token_embedding), tokens);
  for (const auto& b : model.blocks) {
    const rows h = rms_norm(x, to_rows(b.attention_norm.weight), b.attention_norm.eps);
    rows q = times(h, to_rows(b.w_q));
    rows k = times(h, to_rows(b.w_k));
    const rows v = times(h, to_rows(b.w_v));
    rotate(q, M::heads, static_cast<real>(model.rope.base), interleaved);
    rotate(k, M::kv_heads, static_cast<real>(model.rope.base), interleaved);
    std::vector<rows>* layer_weights = nullptr;
    if (attention) layer_weights = &attention->emplace_back();
    x = plus(x, times(causal_attention(q, k, v, M::heads, M::kv_heads, layer_weights), to_rows(b.w_o)));
    const rows h2 = rms_norm(x, to_rows(b.ffn_norm.weight), b.ffn_norm.eps);
    rows gate = times(h2, to_rows(b.w_gate));
    const rows up = times(h2, to_rows(b.w_up));
    for (std::size_t i = 0; i < gate.size(); ++i) {
      for (std::size_t j = 0; j < gate[i].size(); ++j) gate[i][j] = silu(gate[i][j]) * up[i][j];
    }
    x = plus(x, times(gate, to_rows(b.w_down)));
  }
  x = rms_norm(x, to_rows(model.final_norm.weight), model.final_norm.eps);
  if constexpr (requires { model.output.elems; }) {
    return logits(x, to_rows(model.output));
  } else {
    return logits(x, to_rows(model.token_embedding));
  }
}

/// The logits of every position of `tokens` under a GPT-2 model.
template <class M>
rows gpt2_logits(const M& model, const std::vector<int>& tokens) {
  rows x = embed(to_rows(model.token_embedding), tokens);
  const rows positions = to_rows(model.position_embedding);
  for (std::size_t i = 0; i < x.size(); ++i) {
    for (std::size_t c = 0; c < x[i].size(); ++c) x[i][c] += positions[i][c];
  }
  for (const auto& b : model.blocks) {
    const auto& a = b.attention;
    const rows h = layer_norm(x, to_rows(b.ln_1.weight), to_rows(b.ln_1.bias), b.ln_1.eps);
    const rows q = add_bias(times(h, to_rows(a.w_q)), to_rows(a.b_q));
    const rows k = add_bias(times(h, to_rows(a.w_k)), to_rows(a.b_k));
    const rows v = add_bias(times(h, to_rows(a.w_v)), to_rows(a.b_v));
    x = plus(x, add_bias(times(causal_attention(q, k, v, M::heads, M::heads), to_rows(a.w_o)), to_rows(a.b_o)));
    const rows h2 = layer_norm(x, to_rows(b.ln_2.weight), to_rows(b.ln_2.bias), b.ln_2.eps);
    rows hidden = add_bias(times(h2, to_rows(b.w_fc)), to_rows(b.b_fc));
    for (auto& row : hidden) {
      for (real& e : row) e = gelu_tanh(e);
    }
    x = plus(x, add_bias(times(hidden, to_rows(b.w_proj)), to_rows(b.b_proj)));
  }
  x = layer_norm(x, to_rows(model.final_norm.weight), to_rows(model.final_norm.bias), model.final_norm.eps);
  return logits(x, to_rows(model.token_embedding));
}

}  // namespace cxmat_test::plain
