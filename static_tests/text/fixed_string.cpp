// Copyright the cxmat authors.
// SPDX-License-Identifier: BSL-1.0
// fixed_string in constant expressions: deduction from a literal, comparison, append,
// concatenation, views, and use as a template argument.
#include <cxmat/text/fixed_string.hpp>

#include <string_view>
#include <type_traits>

namespace {
using cxmat::fixed_string;

constexpr fixed_string hello = "hello";
static_assert(std::is_same_v<decltype(hello), const fixed_string<5>>);
static_assert(hello == "hello");
static_assert("hello" == hello);
static_assert(hello != "hell");
static_assert(hello != "hello!");
static_assert(hello.size() == 5 && !hello.empty() && hello.capacity == 5);
static_assert(hello.view() == std::string_view("hello"));
static_assert(std::string_view(hello) == "hello");
static_assert(hello.c_str()[5] == '\0');
static_assert(hello[1] == 'e');

// Different capacities compare by their text.
constexpr fixed_string<8> roomy = [] {
  fixed_string<8> s;
  s.append("hel");
  s.push_back('l');
  s.append("o");
  return s;
}();
static_assert(roomy == hello && hello == roomy);
static_assert(roomy.size() == 5 && roomy.capacity == 8);

// Concatenation always fits: its capacity is the sum.
constexpr auto joined = hello + fixed_string(", ") + "world";
static_assert(std::is_same_v<decltype(joined), const fixed_string<12>>);
static_assert(joined == "hello, world");

// Past the capacity, push_back is refused (at run time; in a constant expression a compile error,
// see fail_capacity.cpp): here only the check that stays below it.
constexpr bool pop_back_works() {
  fixed_string s = "abc";
  s.pop_back();
  if (!(s == "ab")) return false;
  s.pop_back(5);
  return s.empty() && s == "" && s.chars[0] == '\0';
}
static_assert(pop_back_works());

// A template argument: equal strings are the same argument.
template <fixed_string Text>
struct tagged {
  static constexpr std::size_t length = Text.size();
};
static_assert(tagged<"abc">::length == 3);
static_assert(std::is_same_v<tagged<"abc">, tagged<fixed_string("abc")>>);

// The empty literal.
constexpr fixed_string empty = "";
static_assert(empty.size() == 0 && empty == "");
}  // namespace
