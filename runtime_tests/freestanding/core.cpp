// Every core header (the umbrella cxmat.hpp, i.e. all but print.hpp) in a freestanding
// translation unit built with -ffreestanding -fno-exceptions -fno-rtti, calling matmul, softmax
// and multi-head attention at run time. check_symbols.cmake then reads the object's undefined
// symbols: no heap, exceptions, RTTI, iostream or libm may appear.
#include <cstddef>

#include <cxmat/cxmat.hpp>

// Belt and braces for the hosted headers the symbol check cannot see (inline-only use):
// libstdc++ defines these guards when the header is included, however indirectly.
#if defined(_GLIBCXX_IOSTREAM) || defined(_GLIBCXX_OSTREAM) || defined(_GLIBCXX_CMATH) || defined(_GLIBCXX_VECTOR) || \
    defined(_GLIBCXX_STRING) || defined(_GLIBCXX_MEMORY)
#error "a core cxmat header includes <iostream>, <ostream>, <cmath>, <vector>, <string> or <memory>"
#endif

namespace {

// Inputs and outputs cross the object's boundary by pointer, so nothing can be folded away.
template <class M>
M load(const typename M::value_type* p) {
  M m{};
  for (std::size_t i = 0; i < M::rows; ++i) {
    for (std::size_t j = 0; j < M::cols; ++j) m(i, j) = p[i * M::cols + j];
  }
  return m;
}

template <class M>
void store(const M& m, typename M::value_type* p) {
  for (std::size_t i = 0; i < M::rows; ++i) {
    for (std::size_t j = 0; j < M::cols; ++j) p[i * M::cols + j] = m(i, j);
  }
}

template <class T, std::size_t N, std::size_t D, std::size_t H>
void layer(const T* x, const T* wq, const T* wk, const T* wv, const T* wo, T* out) {
  using input = cxmat::matrix<T, N, D>;
  using weights = cxmat::matrix<T, D, D>;
  store(cxmat::multi_head_attention<H>(load<input>(x), load<weights>(wq), load<weights>(wk), load<weights>(wv),
                                       load<weights>(wo)),
        out);
}

}  // namespace

extern "C" {

void cxmat_freestanding_matmul(const float* a, const float* b, float* out) {
  store(cxmat::matmul(load<cxmat::matrix<float, 7, 9>>(a), load<cxmat::matrix<float, 9, 19>>(b)), out);
}

void cxmat_freestanding_softmax(const double* scores, double* weights) {
  store(cxmat::softmax_rows(load<cxmat::matrix<double, 5, 23>>(scores)), weights);
}

void cxmat_freestanding_attention_f(const float* x, const float* wq, const float* wk, const float* wv, const float* wo,
                                    float* out) {
  layer<float, 16, 32, 4>(x, wq, wk, wv, wo, out);
}

void cxmat_freestanding_attention_d(const double* x, const double* wq, const double* wk, const double* wv,
                                    const double* wo, double* out) {
  layer<double, 5, 6, 3>(x, wq, wk, wv, wo, out);
}

void cxmat_freestanding_causal(const float* q, const float* k, const float* v, float* out) {
  using m = cxmat::matrix<float, 9, 8>;
  store(cxmat::scaled_dot_product_attention(load<m>(q), load<m>(k), load<m>(v), cxmat::causal), out);
}

}  // extern "C"
