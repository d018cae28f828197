// Every overload of cxmat's math functions instantiated at run time in a freestanding,
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
float probe_log_f(float x) { return cxmat::log(x); }
double probe_log_d(double x) { return cxmat::log(x); }
long double probe_log_l(long double x) { return cxmat::log(x); }
float probe_tanh_f(float x) { return cxmat::tanh(x); }
double probe_tanh_d(double x) { return cxmat::tanh(x); }
long double probe_tanh_l(long double x) { return cxmat::tanh(x); }
float probe_erf_f(float x) { return cxmat::erf(x); }
double probe_erf_d(double x) { return cxmat::erf(x); }
long double probe_erf_l(long double x) { return cxmat::erf(x); }
float probe_sin_f(float x) { return cxmat::sin(x); }
double probe_sin_d(double x) { return cxmat::sin(x); }
long double probe_sin_l(long double x) { return cxmat::sin(x); }
float probe_cos_f(float x) { return cxmat::cos(x); }
double probe_cos_d(double x) { return cxmat::cos(x); }
long double probe_cos_l(long double x) { return cxmat::cos(x); }
double probe_integral(int x) { return cxmat::log(x) + cxmat::tanh(x) + cxmat::erf(x) + cxmat::sin(x) + cxmat::cos(x); }
void probe_exp_loop(double* out, const double* in, int n) {
  for (int i = 0; i < n; ++i) out[i] = cxmat::exp(in[i]);
}
