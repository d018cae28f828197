// complete<N, "prompt">(model, tok): text in, text out with a tokenizer of one id per char. Its
// answer must be the chars of generate<N>'s tokens looked up in the alphabet by hand, for greedy
// generation, a stop token and a sampler. With llama2.c's tokenizer (ids of varying count, BOS
// first), the prompt's ids one step each must give what generate gives on the encoded prompt.
#include <cstddef>

#include <cxmat/generation.hpp>
#include <cxmat/text.hpp>

#include "test_support/text/tiny_llama.hpp"
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

// llama2.c's tokenizer.bin (327 pieces) and a model of that vocabulary: the text of the tokens
// that generate<N> writes after the prompt encoded once and for all (its ids checked against the
// plain reference encoder in static.text), decoded.
constexpr auto llama_tok =
    cxmat::read_llama_tokenizer<text_reference::tiny_llama_bin_vocab, text_reference::tiny_llama_bin_piece_bytes>(
        text_reference::tiny_llama_bin);
using story_model = cxmat::llama_model<double, text_reference::tiny_llama_bin_vocab, 8, 1, 2, 1, 16, 24>;
constexpr auto story = make_tiny_llama<story_model>(7);
constexpr auto encoded = cxmat::encode<"the cat sat">(llama_tok);
static_assert(encoded.ok() && encoded.size > 2 && encoded.ids(0, 0) == 1);  // BOS, then the pieces
constexpr auto story_tokens = cxmat::generate<6>(story, cxmat::exact_tokens<encoded>());
static_assert(cxmat::complete<6, "the cat sat", 64>(story, llama_tok) == cxmat::decode<64>(llama_tok, story_tokens));
static_assert(cxmat::complete<6, "the cat sat", 64>(story, llama_tok, hot) ==
              cxmat::decode<64>(llama_tok, cxmat::generate<6>(story, cxmat::exact_tokens<encoded>(), hot)));

}  // namespace
