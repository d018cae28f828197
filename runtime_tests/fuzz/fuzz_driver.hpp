// The differential fuzz shared by the seeded Catch2 run (fuzz_tests.cpp) and the libFuzzer target
// (fuzz_target.cpp): one case is drawn from a stream of bits (a seeded generator or the fuzzer's
// bytes), run through cxmat's public functions, and every element of the result is compared
// with the reference of fuzz_reference.hpp.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "fuzz_reference.hpp"

namespace cxmat_fuzz {

/// The bits a case is drawn from: the fuzzer's bytes while they last, then splitmix64 seeded by
/// them (so a short input still makes a full case); or splitmix64 alone from a seed.
class source {
 public:
  explicit source(std::uint64_t seed) : state_(seed) {}
  source(const std::uint8_t* data, std::size_t size) : data_(data), size_(size) {
    std::uint64_t h = 0xcbf29ce484222325ULL;  // FNV-1a of the input: the generator after it
    for (std::size_t i = 0; i < size; ++i) h = (h ^ data[i]) * 0x100000001b3ULL;
    state_ = h;
  }

  std::uint8_t byte() {
    if (pos_ < size_) return data_[pos_++];
    return static_cast<std::uint8_t>(splitmix() >> 56);
  }
  std::uint64_t bits(unsigned count) {
    std::uint64_t v = 0;
    for (unsigned got = 0; got < count; got += 8) v = (v << 8) | byte();
    return count >= 64 ? v : v & ((std::uint64_t{1} << count) - 1);
  }
  /// An index in [0, n).
  std::size_t below(std::size_t n) { return static_cast<std::size_t>(byte()) % n; }

 private:
  std::uint64_t splitmix() {
    std::uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  const std::uint8_t* data_ = nullptr;
  std::size_t size_ = 0;
  std::size_t pos_ = 0;
  std::uint64_t state_ = 0;
};

/// Counts and worst errors of one function at one scalar type.
struct function_stats {
  std::uint64_t calls = 0;
  std::uint64_t checked = 0;  // elements compared with the reference
  std::uint64_t special = 0;  // of those, expected NaN, +-inf or an exact 0 of a masked entry
  std::uint64_t unknown = 0;  // elements IEEE arithmetic in T leaves open (near overflow)
  std::uint64_t skipped = 0;  // elements of a class excluded by CXMAT_FUZZ_SKIP
  std::uint64_t either = 0;   // checked elements of class zero-weight-nonfinite (two outcomes pass)
  std::uint64_t failed = 0;
  real worst_ulps = 0;           // |got - exact| in ulps of T at the exact value
  real worst_fraction = 0;       // |got - exact| / the allowed distance on that side (<= 1 passes)
  real worst_softmax_units = 0;  // softmax_rows: |got - exact| / ((n + 4) ε |exact|), normal weights
};

/// Everything a run found: per-function statistics, failures (the first few in full, all of them
/// counted by signature) and what was excluded.
struct report {
  std::uint8_t skip = 0;  // flags (fuzz_reference.hpp) whose elements are not compared
  std::map<std::string, function_stats> stats;
  std::map<std::string, std::uint64_t> failure_signatures;
  std::vector<std::string> failures;
  std::size_t max_failures_kept = 12;
  std::uint64_t cases = 0;
  std::string label;  // names the current case in failure messages (seed and index, or "input")
};

/// Flags named in a comma-separated list ("masked-nonfinite,zero-weight-nonfinite").
std::uint8_t parse_skip(const char* text);
/// Flags named by the environment variable CXMAT_FUZZ_SKIP (none if unset).
std::uint8_t skip_from_environment();
/// The names of flags, comma-separated.
std::string flag_names(std::uint8_t flags);

/// How a case is drawn.
enum class focus : std::uint8_t {
  any,               // any function, shape, options and inputs
  masked_nonfinite,  // single-head attention whose masked keys hold non-finite values
};

/// Draws one case from src, runs it and records the outcome in rep.
void run_case(source& src, report& rep, focus f = focus::any);

/// A summary of rep: one line per function and scalar type, then failure signatures.
std::string summary(const report& rep, double seconds);

// The per-type halves of run_case (fuzz_float.cpp, fuzz_double.cpp), each its own translation
// unit so that the two compile in parallel.
void run_case_float(source& src, report& rep, focus f);
void run_case_double(source& src, report& rep, focus f);

}  // namespace cxmat_fuzz
