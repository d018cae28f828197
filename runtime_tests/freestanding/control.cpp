// The negative control of the freestanding check: an ordinary hosted translation unit that uses
// the heap, exceptions, RTTI, iostream and libm. check_symbols.cmake must find every one of them
// here, or the check of core.cpp proves nothing. (Objects only, never linked: the escape
// function below need not exist.)
#include <cmath>
#include <cstdlib>
#include <iostream>
#include <stdexcept>
#include <typeinfo>

struct control_base {
  virtual ~control_base() = default;
};

// Memory handed to it escapes, so compilers cannot elide the allocations.
extern "C" void cxmat_freestanding_control_escape(void* p);

extern "C" double cxmat_freestanding_control(double x, const control_base* p) {
  auto* heap = new double[4]{x, 1.0, 2.0, 3.0};
  void* raw = std::malloc(16);
  cxmat_freestanding_control_escape(heap);
  cxmat_freestanding_control_escape(raw);
  if (x < 0.0) throw std::runtime_error("negative");
  std::cout << typeid(*p).name() << '\n';
  const double y = std::exp(heap[0]) + std::sqrt(heap[1]);
  std::free(raw);
  delete[] heap;
  return y;
}
