// The negative control of the freestanding check: an ordinary hosted translation unit that uses
// the heap, exceptions, RTTI, iostream and libm. check_symbols.cmake must find every one of them
// here, or the check of core.cpp proves nothing.
#include <cmath>
#include <cstdlib>
#include <iostream>
#include <stdexcept>
#include <typeinfo>

struct control_base {
  virtual ~control_base() = default;
};

extern "C" double cxmat_freestanding_control(double x, const control_base* p) {
  double* heap = new double[4]{x, 1.0, 2.0, 3.0};
  void* raw = std::malloc(16);
  if (raw == nullptr) throw std::runtime_error("no memory");
  std::cout << typeid(*p).name() << '\n';
  const double y = std::exp(heap[0]) + std::sqrt(heap[1]);
  std::free(raw);
  delete[] heap;
  return y;
}
