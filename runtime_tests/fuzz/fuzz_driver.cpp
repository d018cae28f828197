// The parts of the differential fuzz that do not depend on the scalar type: dispatch, the
// excluded classes, and the summary a run prints.
#include "fuzz_driver.hpp"

#include <cstdlib>
#include <iomanip>
#include <sstream>
#include <string>

namespace cxmat_fuzz {

namespace {

struct flag_name {
  std::uint8_t flag;
  const char* name;
};
constexpr flag_name flag_table[] = {{masked_nonfinite, "masked-nonfinite"},
                                    {zero_weight_nonfinite, "zero-weight-nonfinite"}};

}  // namespace

std::uint8_t parse_skip(const char* text) {
  std::uint8_t flags = 0;
  if (text == nullptr) return flags;
  std::istringstream in{std::string(text)};
  std::string item;
  while (std::getline(in, item, ',')) {
    for (const flag_name& f : flag_table) {
      if (item == f.name) flags = static_cast<std::uint8_t>(flags | f.flag);
    }
  }
  return flags;
}

std::uint8_t skip_from_environment() { return parse_skip(std::getenv("CXMAT_FUZZ_SKIP")); }

std::string flag_names(std::uint8_t flags) {
  std::string out;
  for (const flag_name& f : flag_table) {
    if ((flags & f.flag) == 0) continue;
    if (!out.empty()) out += ",";
    out += f.name;
  }
  return out;
}

void run_case(source& src, report& rep, focus f) {
  ++rep.cases;
  if ((src.byte() & 1U) == 0) {
    run_case_float(src, rep, f);
  } else {
    run_case_double(src, rep, f);
  }
}

std::string summary(const report& rep, double seconds) {
  std::ostringstream os;
  os << rep.cases << " cases in " << std::fixed << std::setprecision(2) << seconds << " s (" << std::setprecision(0)
     << (seconds > 0 ? static_cast<double>(rep.cases) / seconds : 0.0) << " cases/s)";
  if (rep.skip != 0) os << ", excluded: " << flag_names(rep.skip);
  os << "\n";
  os << std::left << std::setw(38) << "function" << std::right << std::setw(7) << "calls" << std::setw(10) << "checked"
     << std::setw(9) << "special" << std::setw(8) << "unknown" << std::setw(8) << "skipped" << std::setw(7) << "either"
     << std::setw(7) << "failed" << std::setw(14) << "worst ulp" << std::setw(10) << "of bound" << std::setw(12)
     << "(n+4)eps"
     << "\n";
  for (const auto& [name, st] : rep.stats) {
    os << std::left << std::setw(38) << name << std::right << std::setw(7) << st.calls << std::setw(10) << st.checked
       << std::setw(9) << st.special << std::setw(8) << st.unknown << std::setw(8) << st.skipped << std::setw(7)
       << st.either << std::setw(7) << st.failed << std::setw(14) << std::setprecision(2)
       << static_cast<double>(st.worst_ulps) << std::setw(10) << std::setprecision(3)
       << static_cast<double>(st.worst_fraction) << std::setw(12);
    if (st.worst_softmax_units > 0) {
      os << static_cast<double>(st.worst_softmax_units);
    } else {
      os << "-";
    }
    os << "\n";
  }
  for (const auto& [sig, count] : rep.failure_signatures) os << "FAILED " << count << " x " << sig << "\n";
  return os.str();
}

}  // namespace cxmat_fuzz
