// complete<N, "prompt">(model, tok): text in, text out with a tokenizer of one id per char. Its
// answer must be the chars of generate<N>'s tokens looked up in the alphabet by hand, for greedy
// generation, a stop token and a sampler; a byte tokenizer's prompt is its bytes.
#include <cstddef>

#include <cxmat/generation.hpp>
#include <cxmat/text.hpp>

#include "test_support/tiny_language_models.hpp"

namespace {

using cxmat::matrix;
using namespace cxmat_test;

constexpr auto model = make_tiny_llama<tiny_llama<double>>(1);
constexpr char alphabet[] = "abcdefghijklm";  // tiny_vocab = 13 chars: id i is 'a' + i
static_assert(sizeof(alphabet) - 1 == tiny_vocab);
constexpr cxmat::char_tokenizer tok{alphabet};

// The prompt "dbe" is the ids 3, 1, 4.
constexpr matrix<int, 1, 3> prompt{{{3, 1, 4}}};

// The chars of N ids by hand, up to the first -1.
template <cxmat::extent One, cxmat::extent N>
constexpr cxmat::fixed_string<N.size> chars_of(const matrix<int, One, N>& ids) {
  cxmat::fixed_string<N.size> out;
  for (std::size_t i = 0; i < N.size && ids(0, i) >= 0; ++i) out.push_back(static_cast<char>('a' + ids(0, i)));
  return out;
}

constexpr auto six = cxmat::generate<6>(model, prompt);
static_assert(cxmat::complete<6, "dbe">(model, tok) == chars_of(six));
static_assert(cxmat::complete<6, "dbe">(model, tok).size() == 6);

// A stop token ends the text after it.
constexpr cxmat::stop_token stop{six(0, 1)};
constexpr auto stopped = cxmat::generate<6>(model, prompt, cxmat::greedy, stop);
static_assert(cxmat::complete<6, "dbe">(model, tok, cxmat::greedy, stop) == chars_of(stopped));
static_assert(cxmat::complete<6, "dbe">(model, tok, cxmat::greedy, stop).size() <= 2);

// A sampler: the same draws as generate's.
constexpr auto hot = cxmat::sampling(1.5, 42).with_top_k(4);
static_assert(cxmat::complete<5, "dbe">(model, tok, hot) == chars_of(cxmat::generate<5>(model, prompt, hot)));

// Only tokenizers of one id per char qualify (a BPE prompt's length is known after encoding).
static_assert(cxmat::OneTokenPerChar<cxmat::char_tokenizer<14>> && cxmat::OneTokenPerChar<cxmat::byte_tokenizer>);

}  // namespace
