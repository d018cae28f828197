// Exercise 23, solved: sampling with temperature and top-k, the same draws everywhere.
#include <cstddef>
#include <cstdint>

#include <cxmat/generation.hpp>

#include "answers.hpp"

// The logits of a vocabulary of 6 ids, the sampler's settings.
constexpr cxmat::matrix<double, 1, 6> logits{{{2, 1, 0.5, 3, -1, 1.5}}};
constexpr double temperature = 1.5;
constexpr std::size_t top_k = 3;
constexpr std::uint64_t seed = 7;

// Given: the draw for the token at `position`, u = SplitMix64(seed + position · 0x9E3779B97F4A7C15)
// / 2^64 (its top 53 bits): a number in [0, 1) that depends only on the seed and the position.
constexpr double draw(std::uint64_t s, std::uint64_t position) {
  std::uint64_t z = s + position * 0x9E3779B97F4A7C15ULL + 0x9E3779B97F4A7C15ULL;
  z = (z ^ (z >> 30U)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27U)) * 0x94D049BB133111EBULL;
  z = z ^ (z >> 31U);
  return static_cast<double>(z >> 11U) * 0x1.0p-53;
}

// The probabilities of the ids at a temperature: softmax(logits / temperature).
constexpr cxmat::matrix<double, 1, 6> probabilities(const cxmat::matrix<double, 1, 6>& l, double t) {
  return cxmat::softmax_rows(l / t);
}

// The id drawn by u among the k most probable ids (the lower id first among equal ones):
// r = u · (their probabilities' sum), then the first of them, most probable first, whose running
// sum of probabilities exceeds r.
constexpr int sample_top_k(const cxmat::matrix<double, 1, 6>& p, std::size_t k, double u) {
  std::size_t ids[6] = {0, 1, 2, 3, 4, 5};
  for (std::size_t i = 0; i < 6; ++i) {  // sort by probability, largest first; stable for ties
    for (std::size_t j = i + 1; j < 6; ++j) {
      if (p(0, ids[j]) > p(0, ids[i]) || (p(0, ids[j]) == p(0, ids[i]) && ids[j] < ids[i])) {
        const std::size_t swap = ids[i];
        ids[i] = ids[j];
        ids[j] = swap;
      }
    }
  }
  double kept = 0;
  for (std::size_t i = 0; i < k; ++i) kept += p(0, ids[i]);
  const double r = u * kept;
  double cumulative = 0;
  for (std::size_t i = 0; i < k; ++i) {
    cumulative += p(0, ids[i]);
    if (r < cumulative) return static_cast<int>(ids[i]);
  }
  return static_cast<int>(ids[k - 1]);
}

// The tokens at positions 0..7, each from the same logits (to see the draws).
constexpr cxmat::matrix<int, 1, 8> tokens = [] {
  cxmat::matrix<int, 1, 8> out{};
  for (std::size_t i = 0; i < 8; ++i) out(0, i) = sample_top_k(probabilities(logits, temperature), top_k, draw(seed, i));
  return out;
}();

// Given: ids as doubles, to compare with the numbers of answers.hpp; the library's sampler.
constexpr cxmat::matrix<double, 1, 8> as_numbers(const cxmat::matrix<int, 1, 8>& ids) {
  cxmat::matrix<double, 1, 8> r{};
  for (std::size_t i = 0; i < 8; ++i) r(0, i) = ids(0, i);
  return r;
}
constexpr cxmat::matrix<int, 1, 8> library_tokens = [] {
  cxmat::matrix<int, 1, 8> out{};
  for (std::size_t i = 0; i < 8; ++i) out(0, i) = cxmat::choose_token(logits, cxmat::sampling(temperature, seed).with_top_k(top_k), i);
  return out;
}();

// ---- The checks. Leave them as they are. ----
static_assert(draw(seed, 0) == answers::ex23::u(0, 0) && draw(seed, 7) == answers::ex23::u(0, 7), "the draws of seed 7 (given)");
static_assert(answers::close(probabilities(logits, temperature), answers::ex23::probabilities),
              "probabilities: softmax(logits / temperature), the temperature before the softmax");
static_assert(sample_top_k(answers::ex23::probabilities, 1, 0.0) == 3 && sample_top_k(answers::ex23::probabilities, 1, 0.99) == 3,
              "top-k with k = 1 keeps only the most probable id (3), whatever u");
static_assert(sample_top_k(answers::ex23::probabilities, 3, 0.0) == 3 && sample_top_k(answers::ex23::probabilities, 3, 0.99) == 5,
              "top-k with k = 3 keeps ids 3, 0, 5, most probable first: u near 0 draws 3, u near 1 draws 5");
static_assert(answers::close(as_numbers(tokens), answers::ex23::tokens),
              "the tokens: r = u * (the kept probabilities' sum), the first kept id whose running sum exceeds r");
static_assert(tokens == library_tokens, "cxmat::choose_token with cxmat::sampling(1.5, 7).with_top_k(3) draws the same tokens");
