// Writes random arrays with cxmat's numpy-style printing, for check_numpy_format.py to compare
// with numpy's own str() of the same values under the same print options. Each case is
//   case <dtype> <precision> <suppress> <fixed> <line width> <dims...>
//   <every value, shortest round-trip text>
//   <cxmat's output>
//   end
// Values come from a fixed-seed generator, drawn from several families: small integers, short
// decimals, wide magnitudes, full-precision fractions, special values, subnormals and extremes.
#include <charconv>
#include <cstdint>
#include <iostream>
#include <limits>
#include <string>
#include <vector>

#include <cxmat/io/print.hpp>

namespace {

std::uint64_t state = 0x9E3779B97F4A7C15ULL;

std::uint64_t next() {
  state ^= state << 13;
  state ^= state >> 7;
  state ^= state << 17;
  return state;
}

double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
int below(int n) { return static_cast<int>(next() % static_cast<std::uint64_t>(n)); }

double power_of_ten(int e) {
  double p = 1;
  for (int i = 0; i < (e < 0 ? -e : e); ++i) p *= 10;
  return e < 0 ? 1 / p : p;
}

double value(int family) {
  const double sign = below(2) == 0 ? 1.0 : -1.0;
  switch (family) {
    case 0:
      return static_cast<double>(below(101) - 50);
    case 1:
      return sign * static_cast<double>(below(10000)) / power_of_ten(below(4));
    case 2:
      return sign * (1 + 9 * uniform()) * power_of_ten(below(25) - 12);
    case 3:
      return sign * uniform();
    case 4: {
      const double specials[] = {0.0,
                                 -0.0,
                                 std::numeric_limits<double>::infinity(),
                                 -std::numeric_limits<double>::infinity(),
                                 std::numeric_limits<double>::quiet_NaN(),
                                 0.5,
                                 1.0,
                                 1e-4,
                                 1e8,
                                 0.1};
      return below(3) == 0 ? specials[below(10)] : sign * uniform() * 100;
    }
    default: {
      const double extremes[] = {5e-324, 2.2250738585072014e-308, 1.7976931348623157e308, 1e-300, 1e300, 3e-310};
      return below(2) == 0 ? sign * extremes[below(6)] : sign * uniform();
    }
  }
}

std::string text(double v) {
  char buffer[64];
  const auto r = std::to_chars(buffer, buffer + sizeof buffer, v);
  return std::string(buffer, r.ptr);
}

// The elements of a matrix or batch, row by row.
template <class T, cxmat::extent R, cxmat::extent C>
std::vector<T*> elements(cxmat::matrix<T, R, C>& m) {
  std::vector<T*> out;
  for (std::size_t i = 0; i < R.size; ++i) {
    for (std::size_t j = 0; j < C.size; ++j) out.push_back(&m(i, j));
  }
  return out;
}
template <class T, cxmat::extent B, cxmat::extent R, cxmat::extent C>
std::vector<T*> elements(cxmat::batch<T, B, R, C>& x) {
  std::vector<T*> out;
  for (std::size_t b = 0; b < B.size; ++b) {
    for (T* e : elements(x[b])) out.push_back(e);
  }
  return out;
}

template <class Array>
void emit(Array& a, const char* dtype, const char* dims) {
  using T = typename Array::value_type;
  const int family = below(6);
  const std::vector<T*> data = elements(a);
  const std::size_t count = data.size();
  for (T* e : data) *e = static_cast<T>(value(family));
  cxmat::print_options opt;
  opt.precision = 1 + below(10);
  opt.suppress_small = below(4) == 0;
  opt.fixed_digits = below(4) == 0;
  const int widths[] = {75, 75, 40, 120, 0};
  opt.line_width = widths[below(5)];
  std::cout << "case " << dtype << ' ' << opt.precision << ' ' << opt.suppress_small << ' ' << opt.fixed_digits << ' '
            << opt.line_width << ' ' << dims << '\n';
  for (std::size_t k = 0; k < count; ++k) std::cout << (k != 0 ? " " : "") << text(static_cast<double>(*data[k]));
  std::cout << '\n';
  cxmat::print_values(std::cout, a, opt);
  std::cout << "end\n";
}

}  // namespace

int main() {
  for (int round = 0; round < 250; ++round) {
    cxmat::matrix<double, 1, 1> m11{};
    cxmat::matrix<double, 1, 5> m15{};
    cxmat::matrix<double, 3, 3> m33{};
    cxmat::matrix<double, 4, 2> m42{};
    cxmat::matrix<float, 2, 3> f23{};
    cxmat::batch<double, 2, 2, 3> b223{};
    cxmat::matrix<double, 3, 12> m3c{};
    cxmat::batch<double, 2, 3, 9> b239{};
    emit(m11, "float64", "1 1");
    emit(m15, "float64", "1 5");
    emit(m33, "float64", "3 3");
    emit(m42, "float64", "4 2");
    emit(f23, "float32", "2 3");
    emit(b223, "float64", "2 2 3");
    emit(m3c, "float64", "3 12");
    emit(b239, "float64", "2 3 9");
  }
}
