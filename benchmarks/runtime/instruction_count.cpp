// Instruction counts of the run-time attention kernels, for comparing two versions of the headers
// without timing noise: run it under valgrind's cachegrind with 0 and with R repetitions of one
// case, and the difference divided by R is the instructions of one call (docs/performance.md,
// "What masks cost"):
//   g++ -std=c++20 -O3 -mavx2 -mfma -Iinclude benchmarks/runtime/instruction_count.cpp -o ic
//   valgrind --tool=cachegrind --cache-sim=no ./ic CASE 0   and   ./ic CASE 20
// Cases (n = d = 64): 0 attention, double; 1 causal, double; 2 attention, float; 3 causal, float;
// 4 softmax_rows of 256 x 64 doubles.

#include <cstdlib>
#include <cxmat/attention.hpp>
template <class M>
M gen(unsigned seed) {
  M m{};
  unsigned s = seed;
  for (std::size_t i = 0; i < M::rows; ++i)
    for (std::size_t j = 0; j < M::cols; ++j) {
      s = s * 1664525u + 1013904223u;
      m.elems[i][j] = static_cast<typename M::value_type>((double(s >> 8) / 16777216.0 - 0.5) * 2);
    }
  return m;
}
int main(int argc, char** argv) {
  constexpr std::size_t n = 64, d = 64;
  const int which = argc > 1 ? std::atoi(argv[1]) : 0;
  const int reps = argc > 2 ? std::atoi(argv[2]) : 0;
  auto q = gen<cxmat::matrix<double, n, d>>(1), k = gen<cxmat::matrix<double, n, d>>(2),
       v = gen<cxmat::matrix<double, n, d>>(3);
  auto qf = gen<cxmat::matrix<float, n, d>>(1), kf = gen<cxmat::matrix<float, n, d>>(2),
       vf = gen<cxmat::matrix<float, n, d>>(3);
  auto s = gen<cxmat::matrix<double, 256, 64>>(4);
  volatile double sink = 0;
  for (int r = 0; r < reps; ++r) {
    switch (which) {
      case 0:
        sink = sink + cxmat::scaled_dot_product_attention(q, k, v).elems[3][3];
        break;
      case 1:
        sink = sink + cxmat::scaled_dot_product_attention(q, k, v, cxmat::causal).elems[3][3];
        break;
      case 2:
        sink = sink + cxmat::scaled_dot_product_attention(qf, kf, vf).elems[3][3];
        break;
      case 3:
        sink = sink + cxmat::scaled_dot_product_attention(qf, kf, vf, cxmat::causal).elems[3][3];
        break;
      case 4:
        sink = sink + cxmat::softmax_rows(s).elems[3][3];
        break;
    }
  }
}
