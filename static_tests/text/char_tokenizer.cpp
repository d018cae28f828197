// Copyright the cxmat authors.
// SPDX-License-Identifier: BSL-1.0
// char_tokenizer and byte_tokenizer in constant expressions: ids are alphabet indices or byte
// values (written out by hand here), decode inverts encode, -1 entries are skipped.
#include <cxmat/text.hpp>

#include <type_traits>

namespace {
constexpr cxmat::char_tokenizer digits{"0123456789+= "};
static_assert(digits.vocab_size() == 13 && digits.valid());

constexpr auto sum = cxmat::encode<"12+34=">(digits);
static_assert(std::is_same_v<std::remove_cvref_t<decltype(sum.ids)>, cxmat::matrix<int, 1, 6>>);
static_assert(sum.ok() && sum.size == 6);
static_assert(sum.ids(0, 0) == 1 && sum.ids(0, 1) == 2 && sum.ids(0, 2) == 10 && sum.ids(0, 3) == 3 &&
              sum.ids(0, 4) == 4 && sum.ids(0, 5) == 11);
static_assert(cxmat::decode(digits, sum.ids) == "12+34=");

// A fixed_string argument: capacity from its type.
constexpr cxmat::fixed_string<8> spaced = cxmat::fixed_string<8>(std::string_view("9 = 9"));
constexpr auto e = cxmat::encode(digits, spaced);
static_assert(std::is_same_v<std::remove_cvref_t<decltype(e.ids)>, cxmat::matrix<int, 1, 8>>);
static_assert(e.size == 5 && e.ids(0, 1) == 12 && e.ids(0, 4) == 9 && e.ids(0, 5) == -1 && e.ids(0, 7) == -1);
static_assert(cxmat::decode(digits, e.ids) == "9 = 9");  // the -1 entries are skipped
constexpr auto exact = cxmat::exact_tokens<e>();
static_assert(std::is_same_v<decltype(exact), const cxmat::matrix<int, 1, 5>>);
static_assert(exact(0, 0) == 9 && exact(0, 4) == 9);

// A given capacity, and generate's output: -1 after a stop.
static_assert(cxmat::encode<10>(digits, "7+7").size == 3);
constexpr cxmat::matrix<int, 1, 6> generated{{{1, 4, 11, -1, -1, -1}}};
static_assert(cxmat::decode(digits, generated) == "14=");
static_assert(cxmat::decode<3>(digits, generated) == "14=");

// Run-time refusals as statuses, evaluated here outside a constant expression's error path:
// the refusal itself is a compile error in constant evaluation (static_tests/text/fail/).

constexpr cxmat::byte_tokenizer bytes{};
constexpr auto hi = cxmat::encode<"Hi\xff">(bytes);
static_assert(hi.size == 3 && hi.ids(0, 0) == 72 && hi.ids(0, 1) == 105 && hi.ids(0, 2) == 255);
static_assert(cxmat::decode(bytes, hi.ids) == "Hi\xff");
static_assert(bytes.vocab_size() == 256);
}  // namespace
