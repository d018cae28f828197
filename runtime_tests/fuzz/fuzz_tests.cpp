// The differential fuzz as part of the test suite: a seeded run of a few thousand cases (a few
// seconds), every element of every result compared with the float64 reference. The environment
// sets the run: CXMAT_FUZZ_SEED (default 20261124), CXMAT_FUZZ_CASES (default 3000; 1000 in
// unoptimised builds such as the sanitizer preset's, CXMAT_FUZZ_DEFAULT_CASES),
// CXMAT_FUZZ_FIRST (first case index, to replay one case: CXMAT_FUZZ_FIRST=n CXMAT_FUZZ_CASES=1)
// and CXMAT_FUZZ_SKIP (classes not compared, e.g. "masked-nonfinite"; see docs/numerics.md).
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <string>

#include "fuzz_driver.hpp"
#include "test_support/catch.hpp"

#ifndef CXMAT_FUZZ_DEFAULT_CASES
#define CXMAT_FUZZ_DEFAULT_CASES 3000
#endif

namespace {

std::uint64_t from_environment(const char* name, std::uint64_t fallback) {
  const char* text = std::getenv(name);
  return text == nullptr ? fallback : std::strtoull(text, nullptr, 10);
}

// Runs `count` cases from the environment's seed and reports them through Catch2.
void run(std::uint64_t default_count, cxmat_fuzz::focus f, const char* title) {
  using namespace cxmat_fuzz;
  const std::uint64_t seed = from_environment("CXMAT_FUZZ_SEED", 20261124);
  const std::uint64_t first = from_environment("CXMAT_FUZZ_FIRST", 0);
  const std::uint64_t count = from_environment("CXMAT_FUZZ_CASES", default_count);
  report rep;
  rep.skip = skip_from_environment();
  const auto start = std::chrono::steady_clock::now();
  for (std::uint64_t n = first; n < first + count; ++n) {
    // Each case has its own stream, so that one can be replayed alone.
    source src(seed * 0x9e3779b97f4a7c15ULL + n * 0xd1b54a32d192ed03ULL + (f == focus::any ? 0U : 1U));
    rep.label = "seed " + std::to_string(seed) + " case " + std::to_string(n);
    run_case(src, rep, f);
  }
  const std::chrono::duration<double> seconds = std::chrono::steady_clock::now() - start;
  std::cout << title << ": " << summary(rep, seconds.count()) << std::flush;
  for (const std::string& failure : rep.failures) FAIL_CHECK(failure);
  std::uint64_t failed = 0;
  std::uint64_t checked = 0;
  for (const auto& entry : rep.stats) {
    failed += entry.second.failed;
    checked += entry.second.checked;
  }
  CHECK(failed == 0);
  CHECK(checked > 0);
}

}  // namespace

TEST_CASE("run-time kernels agree with a float64 reference on odd shapes and special values", "[fuzz]") {
  run(CXMAT_FUZZ_DEFAULT_CASES, cxmat_fuzz::focus::any, "differential fuzz");
}

TEST_CASE("a masked key with a non-finite value contributes nothing", "[fuzz][masked-nonfinite]") {
  if ((cxmat_fuzz::skip_from_environment() & cxmat_fuzz::masked_nonfinite) != 0) {
    WARN("class masked-nonfinite excluded by CXMAT_FUZZ_SKIP");
    return;
  }
  run(CXMAT_FUZZ_DEFAULT_CASES / 6, cxmat_fuzz::focus::masked_nonfinite, "masked keys with non-finite values");
}
