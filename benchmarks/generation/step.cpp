// Run-time speed of cxmat's generation step: greedy decoding from BOS with cxmat::step over a
// kv_cache, one thread, the weights read from gen_weights.py's raw file (llama2.c's layout).
//   cxmat_generation_step MODEL.bin [STEPS=128] [REPEATS=10]
// Prints one line of JSON: the tokens of the first run, and the seconds of each run (all STEPS
// steps, the cache emptied before each run).
#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "llama_config.hpp"

namespace {
using model_type = bench::model_type;
constexpr std::size_t cap = bench::context;
using cache_type = model_type::cache_type<cap>;

model_type model{};  // about 1 MB: static storage, not the stack
cache_type cache{};

// Reads n floats; false if the file ends first.
bool read_floats(std::FILE* f, float* to, std::size_t n) { return std::fread(to, sizeof(float), n, f) == n; }

// Reads a tensor of llama2.c's orientation (out x in, PyTorch's) into a cxmat matrix (in x out).
template <class M>
bool read_transposed(std::FILE* f, M& m) {
  std::vector<float> buf(M::rows * M::cols);
  if (!read_floats(f, buf.data(), buf.size())) return false;
  for (std::size_t o = 0; o < M::cols; ++o) {
    for (std::size_t i = 0; i < M::rows; ++i) m.elems[i][o] = buf[o * M::rows + i];
  }
  return true;
}

template <class M>
bool read_plain(std::FILE* f, M& m) {
  return read_floats(f, &m.elems[0][0], M::rows * M::cols);
}

// llama2.c's order: all layers of one tensor, then the next tensor.
bool load(const char* path) {
  std::FILE* f = std::fopen(path, "rb");
  if (f == nullptr) return false;
  std::int32_t config[7];
  // vocab < 0: a separate output head (wcls), the benchmark's model
  const std::int32_t want[7] = {bench::dim,    bench::hidden,   bench::layers,
                                bench::heads,  bench::kv_heads, -static_cast<std::int32_t>(bench::vocab),
                                bench::context};
  bool ok = std::fread(config, sizeof(config), 1, f) == 1 && std::equal(config, config + 7, want);
  if (!ok) std::fprintf(stderr, "%s: the config is not the benchmark model's sizes\n", path);
  ok = ok && read_plain(f, model.token_embedding);
  auto& b = model.blocks;
  const std::size_t n = bench::layers;
  for (std::size_t l = 0; ok && l < n; ++l) ok = read_plain(f, b[l].attention_norm.weight);
  for (std::size_t l = 0; ok && l < n; ++l) ok = read_transposed(f, b[l].w_q);
  for (std::size_t l = 0; ok && l < n; ++l) ok = read_transposed(f, b[l].w_k);
  for (std::size_t l = 0; ok && l < n; ++l) ok = read_transposed(f, b[l].w_v);
  for (std::size_t l = 0; ok && l < n; ++l) ok = read_transposed(f, b[l].w_o);
  for (std::size_t l = 0; ok && l < n; ++l) ok = read_plain(f, b[l].ffn_norm.weight);
  for (std::size_t l = 0; ok && l < n; ++l) ok = read_transposed(f, b[l].w_gate);
  for (std::size_t l = 0; ok && l < n; ++l) ok = read_transposed(f, b[l].w_down);
  for (std::size_t l = 0; ok && l < n; ++l) ok = read_transposed(f, b[l].w_up);
  ok = ok && read_plain(f, model.final_norm.weight);
  // two unused tables of rotary angles (context x head/2 each), then the head
  ok = ok &&
       std::fseek(f, static_cast<long>(sizeof(float) * bench::context * (bench::dim / bench::heads)), SEEK_CUR) == 0;
  ok = ok && read_plain(f, model.output);
  std::fclose(f);
  for (std::size_t l = 0; l < n; ++l) b[l].attention_norm.eps = b[l].ffn_norm.eps = 1e-5f;
  model.final_norm.eps = 1e-5f;
  return ok;
}

// Greedy decoding of `steps` tokens from BOS into out.
[[gnu::noinline]] void run(std::size_t steps, int* out) {
  cache.filled = 0;
  int token = 1;  // BOS
  for (std::size_t i = 0; i < steps; ++i) {
    const auto logits = cxmat::step(model, cache, token);
    token = cxmat::choose_token(logits, cxmat::greedy, i + 1);
    out[i] = token;
  }
}
}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s MODEL.bin [STEPS] [REPEATS]\n", argv[0]);
    return 2;
  }
  const std::size_t steps = argc > 2 ? std::strtoul(argv[2], nullptr, 10) : 128;
  const int repeats = argc > 3 ? std::atoi(argv[3]) : 10;
  if (!load(argv[1])) {
    std::fprintf(stderr, "%s: cannot read the weights\n", argv[1]);
    return 1;
  }
  if (steps == 0 || steps > cap) {
    std::fprintf(stderr, "steps: 1 .. %zu\n", cap);
    return 2;
  }
  std::vector<int> first(steps);
  std::vector<int> tokens(steps);
  std::vector<double> seconds;
  run(steps, first.data());  // warm-up, and the tokens
  for (int r = 0; r < repeats; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    run(steps, tokens.data());
    const auto t1 = std::chrono::steady_clock::now();
    seconds.push_back(std::chrono::duration<double>(t1 - t0).count());
    if (tokens != first) {
      std::fprintf(stderr, "run %d gave other tokens\n", r);
      return 1;
    }
  }
  std::printf("{\"tokens\": [");
  for (std::size_t i = 0; i < steps; ++i) std::printf("%s%d", i ? ", " : "", first[i]);
  std::printf("], \"seconds\": [");
  for (std::size_t i = 0; i < seconds.size(); ++i) std::printf("%s%.9f", i ? ", " : "", seconds[i]);
  std::printf("]}\n");
  return 0;
}
