// Where cxmat's run-time step spends its time: the parts of a step (as pieces.cpp has them for
// the compiler), each timed alone over many calls, with the cache filled to FILL positions by real
// steps first (greedy from BOS).
//   cxmat_generation_step_parts MODEL.bin [FILL=64] [ROUNDS=5]
// Prints one line of JSON: for each part, the nanoseconds of one call in each round.
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <iterator>
#include <type_traits>
#include <vector>

#include "llama_config.hpp"

namespace {
using model_type = bench::model_type;
using T = float;
constexpr std::size_t cap = bench::context;
using cache_type = model_type::cache_type<cap>;
constexpr auto D = model_type::d_model;
constexpr auto KV = model_type::kv_width;

model_type model{};
cache_type cache{};

bool load(const char* path) {
  std::FILE* f = std::fopen(path, "rb");
  if (f == nullptr) return false;
  std::int32_t config[7];
  bool ok = std::fread(config, sizeof(config), 1, f) == 1 && config[0] == static_cast<std::int32_t>(bench::dim) &&
            config[5] == -static_cast<std::int32_t>(bench::vocab);
  std::vector<float> buf;
  auto plain = [&](auto& m) {
    using M = std::remove_reference_t<decltype(m)>;
    ok = ok && std::fread(&m.elems[0][0], sizeof(float), M::rows * M::cols, f) == M::rows * M::cols;
  };
  auto transposed = [&](auto& m) {  // llama2.c's out x in into cxmat's in x out
    using M = std::remove_reference_t<decltype(m)>;
    buf.resize(M::rows * M::cols);
    ok = ok && std::fread(buf.data(), sizeof(float), buf.size(), f) == buf.size();
    for (std::size_t o = 0; o < M::cols; ++o) {
      for (std::size_t i = 0; i < M::rows; ++i) m.elems[i][o] = buf[o * M::rows + i];
    }
  };
  auto& b = model.blocks;
  plain(model.token_embedding);
  for (auto& x : b) plain(x.attention_norm.weight);
  for (auto& x : b) transposed(x.w_q);
  for (auto& x : b) transposed(x.w_k);
  for (auto& x : b) transposed(x.w_v);
  for (auto& x : b) transposed(x.w_o);
  for (auto& x : b) plain(x.ffn_norm.weight);
  for (auto& x : b) transposed(x.w_gate);
  for (auto& x : b) transposed(x.w_down);
  for (auto& x : b) transposed(x.w_up);
  plain(model.final_norm.weight);
  ok = ok &&
       std::fseek(f, static_cast<long>(sizeof(float) * bench::context * (bench::dim / bench::heads)), SEEK_CUR) == 0;
  plain(model.output);
  std::fclose(f);
  for (auto& x : b) x.attention_norm.eps = x.ffn_norm.eps = 1e-5f;
  model.final_norm.eps = 1e-5f;
  return ok;
}

template <class V>
void keep(const V& v) {
  asm volatile("" : : "r"(&v) : "memory");
}

// Nanoseconds per call of f, over enough calls for about 20 ms.
template <class F>
double time_per_call(F&& f) {
  std::size_t n = 16;
  for (;;) {
    const auto t0 = std::chrono::steady_clock::now();
    for (std::size_t i = 0; i < n; ++i) f();
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (s > 0.02) return s * 1e9 / static_cast<double>(n);
    n *= 2;
  }
}
}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || !load(argv[1])) {
    std::fprintf(stderr, "usage: %s MODEL.bin [FILL] [ROUNDS] (the benchmark model's weights)\n", argv[0]);
    return 1;
  }
  const std::size_t fill = argc > 2 ? std::strtoul(argv[2], nullptr, 10) : 64;
  const int rounds = argc > 3 ? std::atoi(argv[3]) : 5;
  if (fill == 0 || fill + 1 >= cap) return 2;
  int token = 1;
  for (std::size_t i = 0; i < fill; ++i)
    token = cxmat::choose_token(cxmat::step(model, cache, token), cxmat::greedy, i);
  const auto& b0 = model.blocks[0];
  cxmat::matrix<T, 1, D> x{};
  for (std::size_t j = 0; j < D.size; ++j)
    x.elems[0][j] = model.token_embedding.elems[static_cast<std::size_t>(token)][j];
  const auto logits = cxmat::step(model, cache, token);
  cache.filled = fill;
  const cxmat::matrix<int, 1, 1> one{{{token}}};

  struct part {
    const char* name;
    double (*run)();
  };
  static const cxmat::matrix<T, 1, D>* px = &x;
  static const cxmat::matrix<int, 1, 1>* pone = &one;
  static const std::remove_cvref_t<decltype(logits)>* plogits = &logits;
  static std::size_t pfill = fill;
  static const model_type::block_type* pb0 = &b0;
  static int ptoken = token;
  const part parts[] = {
      {"step",
       [] {
         return time_per_call([] {
           cache.filled = pfill;
           keep(cxmat::step(model, cache, ptoken));
         });
       }},
      {"hidden (5 blocks)",
       [] {
         return time_per_call([] {
           cache.filled = pfill;
           keep(model.hidden(cache, *pone));
         });
       }},
      {"logits_of (final norm and head)", [] { return time_per_call([] { keep(model.logits_of(*px)); }); }},
      {"one block",
       [] {
         return time_per_call([] {
           const auto angles = cxmat::detail::make_rotary_angles<T, 1, model_type::block_type::head_width.size / 2>(
               static_cast<long long>(pfill), static_cast<T>(model.rope.base));
           keep(pb0->template operator()<model_type::layout>(*px, cache.keys[0], cache.values[0], pfill, angles));
         });
       }},
      {"7 products of one block",
       [] {
         return time_per_call([] {
           const auto& b = *pb0;
           keep(cxmat::matmul(*px, b.w_q));
           keep(cxmat::matmul(*px, b.w_k));
           keep(cxmat::matmul(*px, b.w_v));
           keep(cxmat::matmul(*px, b.w_o));
           const auto g = cxmat::matmul(*px, b.w_gate);
           keep(g);
           keep(cxmat::matmul(*px, b.w_up));
           keep(cxmat::matmul(g, b.w_down));
         });
       }},
      {"rotary of one block (q and k)",
       [] {
         return time_per_call([] {
           cxmat::matrix<T, 1, D> q = *px;
           cxmat::matrix<T, 1, KV> k{};
           for (std::size_t j = 0; j < KV.size; ++j) k.elems[0][j] = px->elems[0][j];
           // As a step does it: the angles once, then q's and k's rows turned by them.
           const auto angles = cxmat::detail::make_rotary_angles<T, 1, model_type::block_type::head_width.size / 2>(
               static_cast<long long>(pfill), static_cast<T>(model.rope.base));
           constexpr auto pairs = cxmat::detail::rotary_pairs_of<model_type::layout>;
           cxmat::detail::rotate_rows_by<pairs>(q.elems, model_type::heads, angles);
           cxmat::detail::rotate_rows_by<pairs>(k.elems, model_type::kv_heads, angles);
           keep(q);
           keep(k);
         });
       }},
      {"cached attention of one block",
       [] {
         return time_per_call([] {
           cxmat::matrix<T, 1, D> heads{};
           cxmat::detail::cached_heads<model_type::heads, model_type::kv_heads>(
               px->elems, cache.keys[0].elems, cache.values[0].elems, heads.elems, pfill,
               cxmat::detail::sqrt_of_size<T>(model_type::block_type::head_width.size));
           keep(heads);
         });
       }},
      {"choose_token (greedy)",
       [] { return time_per_call([] { keep(cxmat::choose_token(*plogits, cxmat::greedy, 1)); }); }},
  };
  std::vector<std::vector<double>> ns(std::size(parts));
  for (int r = 0; r < rounds; ++r) {
    for (std::size_t p = 0; p < std::size(parts); ++p) ns[p].push_back(parts[p].run());
  }
  std::printf("{\"fill\": %zu, \"parts\": {", fill);
  for (std::size_t p = 0; p < std::size(parts); ++p) {
    std::printf("%s\"%s\": [", p ? ", " : "", parts[p].name);
    for (std::size_t r = 0; r < ns[p].size(); ++r) std::printf("%s%.1f", r ? ", " : "", ns[p][r]);
    std::printf("]");
  }
  std::printf("}}\n");
  return 0;
}
