// The differential fuzz as a libFuzzer target: the fuzzer's bytes choose the scalar type, the
// function, the shape, the options and the values (fuzz_driver.hpp). A disagreement with the
// reference prints the case and aborts, so libFuzzer keeps the input as a crash. At exit the
// statistics of the whole run (cases per second, worst errors per function) are printed.
// CXMAT_FUZZ_SKIP excludes classes, as for the Catch2 run.
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "fuzz_driver.hpp"

namespace {

cxmat_fuzz::report& totals() {
  static cxmat_fuzz::report rep;
  return rep;
}

std::chrono::steady_clock::time_point& start_time() {
  static std::chrono::steady_clock::time_point t = std::chrono::steady_clock::now();
  return t;
}

void print_totals() {
  const std::chrono::duration<double> seconds = std::chrono::steady_clock::now() - start_time();
  std::fprintf(stderr, "cxmat differential fuzz: %s", cxmat_fuzz::summary(totals(), seconds.count()).c_str());
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int* /*argc*/, char*** /*argv*/) {
  totals().skip = cxmat_fuzz::skip_from_environment();
  totals().label = "fuzzer input";
  totals().max_failures_kept = 1;
  static_cast<void>(start_time());
  std::atexit(print_totals);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  cxmat_fuzz::report& rep = totals();
  rep.failures.clear();
  std::uint64_t failed_before = 0;
  for (const auto& entry : rep.stats) failed_before += entry.second.failed;
  cxmat_fuzz::source src(data, size);
  cxmat_fuzz::run_case(src, rep);
  std::uint64_t failed = 0;
  for (const auto& entry : rep.stats) failed += entry.second.failed;
  if (failed != failed_before) {
    if (!rep.failures.empty()) std::fprintf(stderr, "%s\n", rep.failures.front().c_str());
    print_totals();
    std::abort();
  }
  return 0;
}
