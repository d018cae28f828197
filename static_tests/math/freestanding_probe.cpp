// Every cxmat::exp / cxmat::sqrt overload instantiated at run time in a freestanding,
// exception-free, RTTI-free build. CTest entry math.no_external_symbols checks with nm that the
// object references no external symbol at all (no libm, no heap, no exception support).
#include "cxmat/math.hpp"

float probe_exp_f(float x) { return cxmat::exp(x); }
double probe_exp_d(double x) { return cxmat::exp(x); }
long double probe_exp_l(long double x) { return cxmat::exp(x); }
double probe_exp_i(int x) { return cxmat::exp(x); }
float probe_sqrt_f(float x) { return cxmat::sqrt(x); }
double probe_sqrt_d(double x) { return cxmat::sqrt(x); }
long double probe_sqrt_l(long double x) { return cxmat::sqrt(x); }
void probe_exp_loop(double* out, const double* in, int n) {
  for (int i = 0; i < n; ++i) out[i] = cxmat::exp(in[i]);
}
