// Copyright the cxmat authors.
// SPDX-License-Identifier: BSL-1.0
// The text layer at run time: every reference case of test_support/text_tokenizers.py (plain
// Python encoders of llama2.c's and GPT-2's rules) encoded and decoded, the refusals as
// statuses, and the same answers at compile time and at run time.
#include <cstddef>
#include <string>
#include <string_view>

#include <cxmat/text.hpp>

#include "test_support/catch.hpp"
#include "test_support/text/broken_tokenizers.hpp"
#include "test_support/text/text_reference.hpp"
#include "test_support/text/tiny_gpt2.hpp"
#include "test_support/text/tiny_llama.hpp"

namespace {
using namespace text_reference;

using llama_type = cxmat::llama_tokenizer<tiny_llama_bin_vocab, tiny_llama_bin_piece_bytes>;

const llama_type& tiny_llama() {
  static const llama_type tok = cxmat::read_llama_tokenizer<tiny_llama_bin_vocab, tiny_llama_bin_piece_bytes>(
      std::span<const unsigned char>(tiny_llama_bin));
  return tok;
}

const auto& tiny_gpt2() {
  static const auto tok = cxmat::make_gpt2_tokenizer(tiny_gpt2_starts, tiny_gpt2_chars, tiny_gpt2_merge_ids);
  return tok;
}

template <std::size_t Capacity>
std::string ids_text(const cxmat::encoding<Capacity>& e) {
  std::string out;
  for (std::size_t i = 0; i < Capacity; ++i) out += std::to_string(e.ids(0, i)) + " ";
  return out;
}

template <std::size_t Capacity>
std::string ids_text(const int* ids, std::size_t size) {
  std::string out;
  for (std::size_t i = 0; i < Capacity; ++i) out += std::to_string(i < size ? ids[i] : -1) + " ";
  return out;
}
}  // namespace

TEST_CASE("fixed_string refuses what does not fit at run time", "[text]") {
  cxmat::fixed_string<3> s;
  CHECK(s.append("ab"));
  CHECK_FALSE(s.append("cd"));  // "c" fits, "d" does not
  CHECK(s == "abc");
  CHECK_FALSE(s.push_back('x'));
  CHECK(std::string(s.c_str()) == "abc");
  CHECK(std::string_view(s) == "abc");
}

TEST_CASE("char_tokenizer: ids are alphabet indices; unknown chars and full results are statuses", "[text]") {
  const cxmat::char_tokenizer digits{"0123456789+= "};
  const std::string text = "12+34= 5";
  const auto e = cxmat::encode<8>(digits, text);
  REQUIRE(e.ok());
  const std::string alphabet = "0123456789+= ";
  for (std::size_t i = 0; i < text.size(); ++i) CHECK(e.ids(0, i) == static_cast<int>(alphabet.find(text[i])));
  CHECK(cxmat::decode(digits, e.ids) == text);

  CHECK(cxmat::encode<8>(digits, std::string("12x")).status == cxmat::text_status::unknown_char);
  CHECK(cxmat::encode<2>(digits, std::string("123")).status == cxmat::text_status::too_many_tokens);

  cxmat::text_status status{};
  const cxmat::matrix<int, 1, 3> bad{{{1, 13, 2}}};
  CHECK(cxmat::decode(digits, bad, status) == "1");
  CHECK(status == cxmat::text_status::token_out_of_range);
  const cxmat::matrix<int, 1, 3> three{{{1, 2, 3}}};
  CHECK(cxmat::decode<2>(digits, three, status) == "12");
  CHECK(status == cxmat::text_status::text_too_long);

  // A repeated char keeps its first index and makes the tokenizer invalid (a compile error in a
  // constant expression).
  const cxmat::char_tokenizer repeated{"abca"};
  CHECK_FALSE(repeated.valid());
  CHECK(cxmat::encode<1>(repeated, std::string("a")).ids(0, 0) == 0);
}

TEST_CASE("byte_tokenizer: ids are byte values", "[text]") {
  const cxmat::byte_tokenizer bytes;
  std::string all;
  for (int b = 0; b < 256; ++b) all += static_cast<char>(b);
  const auto e = cxmat::encode<256>(bytes, all);
  REQUIRE(e.ok());
  for (int b = 0; b < 256; ++b) CHECK(e.ids(0, static_cast<std::size_t>(b)) == b);
  CHECK(cxmat::decode(bytes, e.ids).view() == all);
}

TEST_CASE("llama tokenizer.bin: every reference case encodes and decodes as llama2.c", "[text][llama]") {
  const auto& tok = tiny_llama();
  REQUIRE(tok.ok());
  for (const auto& c : llama_cases) {
    const std::string_view text(c.text, c.text_size);
    INFO("text: " << std::string(text));
    const auto e = cxmat::encode<64>(tok, text, cxmat::llama_options{c.bos, c.eos});
    REQUIRE(e.ok());
    CHECK(ids_text(e) == ids_text<64>(c.ids, c.size));
    CHECK(cxmat::decode<128>(tok, e.ids).view() == std::string_view(c.decoded, c.decoded_size));
  }
}

TEST_CASE("llama encode: a result too small for the tokens before merging is a status", "[text][llama]") {
  const auto e = cxmat::encode<4>(tiny_llama(), std::string_view("hello"));
  CHECK(e.status == cxmat::text_status::too_many_tokens);
}

TEST_CASE("llama tokenizer.bin: refused files name the field", "[text][llama]") {
  using cxmat::tokenizer_error;
  const auto read = [](std::span<const unsigned char> bytes) {
    static llama_type tok;
    tok.read(bytes);
    return tok;
  };
  const auto too_long = read(too_long_bin);
  CHECK(too_long.error == tokenizer_error::token_longer_than_max_token_length);
  const auto nan = read(nan_score_bin);
  CHECK(nan.error == tokenizer_error::nan_score);
  CHECK(nan.error_piece == 300);
  const auto truncated = read(truncated_bin);
  CHECK(truncated.error == tokenizer_error::truncated);
  CHECK(truncated.error_piece == tiny_llama_bin_vocab - 1);
  const auto negative = read(negative_length_bin);
  CHECK(negative.error == tokenizer_error::negative_length);
  CHECK(negative.error_piece == 5);
  CHECK(std::string(cxmat::describe(nan.error)) == "a score is NaN");
  // A refused tokenizer refuses to encode.
  CHECK(cxmat::encode<8>(nan, std::string_view("a")).status == cxmat::text_status::invalid_tokenizer);
  // Too small a byte capacity.
  cxmat::llama_tokenizer<tiny_llama_bin_vocab, 64> small;
  CHECK(small.read(tiny_llama_bin) == tokenizer_error::pieces_exceed_byte_capacity);
}

TEST_CASE("GPT-2 byte-level BPE: every reference case", "[text][gpt2]") {
  const auto& tok = tiny_gpt2();
  REQUIRE(tok.ok());
  for (const auto& c : gpt2_cases) {
    const std::string_view text(c.text, c.text_size);
    INFO("text: " << std::string(text));
    const auto e = cxmat::encode<64>(tok, text);
    REQUIRE(e.ok());
    CHECK(ids_text(e) == ids_text<64>(c.ids, c.size));
    CHECK(cxmat::decode<64>(tok, e.ids).view() == text);
  }
}

TEST_CASE("GPT-2 arrays: a merge that is not its pieces' concatenation is refused", "[text][gpt2]") {
  std::int32_t merges[sizeof(tiny_gpt2_merge_ids) / sizeof(tiny_gpt2_merge_ids[0])] = {};
  for (std::size_t i = 0; i < std::size(merges); ++i) merges[i] = tiny_gpt2_merge_ids[i];
  merges[2] = merges[5];  // merge 0's result is merge 1's
  const auto tok = cxmat::make_gpt2_tokenizer(tiny_gpt2_starts, tiny_gpt2_chars, merges);
  CHECK(tok.error == cxmat::tokenizer_error::bad_merge);
  CHECK(tok.error_entry == 0);
}

namespace {
// One check, two modes: the same encoding at compile time and at run time.
template <class Tok>
constexpr bool hello_world_ids(const Tok& tok, const int (&expected)[8], std::size_t size) {
  const auto e = cxmat::encode<16>(tok, std::string_view("hello world"));  // room for the bytes before merging
  if (e.size != size) return false;
  for (std::size_t i = 0; i < size; ++i) {
    if (e.ids(0, i) != expected[i]) return false;
  }
  return true;
}
constexpr auto constexpr_gpt2 = cxmat::make_gpt2_tokenizer(tiny_gpt2_starts, tiny_gpt2_chars, tiny_gpt2_merge_ids);
constexpr int hello_world[8] = {256, 263, 78, 277};  // the reference's ids of "hello world"
static_assert(hello_world_ids(constexpr_gpt2, hello_world, 4));
}  // namespace

TEST_CASE("the same ids at compile time and at run time", "[text]") {
  CHECK(hello_world_ids(tiny_gpt2(), hello_world, 4));
  REQUIRE(gpt2_cases[2].size == 4);
  for (std::size_t i = 0; i < 4; ++i) CHECK(gpt2_cases[2].ids[i] == hello_world[i]);
}
