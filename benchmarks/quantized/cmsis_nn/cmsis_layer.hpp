// An int8 self-attention layer of cxmat (the firmware's, examples/embedded/layers_q8.hpp: n = 8,
// d_model = 16, H = 2, W_o; or the larger one below: n = 32, d_model = 64, H = 4) computed by
// CMSIS-NN's kernels instead of cxmat's, with the same parameters:
// arm_fully_connected_s8 for the four projections, arm_batch_matmul_s8 for Q_h·K_hᵀ and P_h·V_h,
// arm_softmax_s8 for each head's scores, and the glue a TFLite Micro graph has between them (each
// head's columns copied out, V_h transposed, the heads copied back side by side). Built into the
// firmware as its external layer (CXMAT_EMBEDDED_STEP 7) for the benchmark only:
// CXMAT_BENCH_LAYER picks the layer (small or large), CXMAT_BENCH_CMSIS the implementation. The
// small layer keeps the cxmat layer's name, so the firmware check compares its bytes with cxmat's
// host result; compare.cmake compares the two images of each layer byte for byte.
#pragma once

#include <cstddef>
#include <cstdint>

#include "layers_q8.hpp"

extern "C" {
#include "arm_nnfunctions.h"
}

namespace layers {

#if CXMAT_BENCH_LAYER == 1
/// The larger layer: n = 32, d_model = 64, H = 4, W_o, weights hashed in [-1/8, 1/8), calibrated in
/// the compiler on two frames other than the one it runs on.
constexpr cxmat::matrix<double, 64, 64> large_weight(std::uint32_t seed) noexcept {
  auto w = in_double(hashed_input<cxmat::matrix<float, 64, 64>>(seed));
  for (std::size_t i = 0; i < 64; ++i) {
    for (std::size_t j = 0; j < 64; ++j) w(i, j) *= 0.125;
  }
  return w;
}
constexpr auto large_calibration() noexcept {
  cxmat::batch<double, 2, 32, 64> xs{};
  for (std::uint32_t b = 0; b < 2; ++b) xs[b] = in_double(hashed_input<cxmat::matrix<float, 32, 64>>(31 + b));
  return cxmat::q8::calibrate<4>(xs, large_weight(21), large_weight(22), large_weight(23), large_weight(24));
}
struct q8_large {
  static constexpr const char* name = "q8_large";
  static constexpr std::size_t n = 32, dm = 64, h = 4;
  using input = cxmat::matrix<std::int8_t, n, dm>;
  using output = cxmat::matrix<std::int8_t, n, dm>;
  static constexpr auto cal = large_calibration();
  static constexpr auto layer = cal.layer;
  static constexpr input make_input() noexcept {
    return cxmat::q8::quantize(in_double(hashed_input<cxmat::matrix<float, n, dm>>(1)), cal.input);
  }
  static output run(const input& x) noexcept { return cxmat::q8::multi_head_attention(x, layer); }
};
#endif

/// The small layer's shapes, for the CMSIS-NN version.
struct q8_small : q8_self_attention {
  static constexpr std::size_t n = model::tokens, dm = model::width, h = model::heads;
};

template <class Source>
struct cmsis_layer {
  static constexpr const char* name = Source::name;
  using input = typename Source::input;
  using output = typename Source::output;
  static constexpr input make_input() noexcept { return Source::make_input(); }

  static constexpr std::size_t n = Source::n, dm = Source::dm, h = Source::h, dk = dm / h;
  static constexpr const auto& l = Source::layer;

  static cmsis_nn_fc_params fc(const cxmat::q8::matmul_params& p) noexcept {
    return {p.lhs_offset, p.rhs_offset, p.output_offset, {p.activation_min, p.activation_max}};
  }
  static cmsis_nn_per_tensor_quant_params quant(const cxmat::q8::matmul_params& p) noexcept {
    return {p.output.multiplier, p.output.shift};
  }
#if defined(ARM_MATH_MVEI)
  // With MVE, arm_fully_connected_s8 takes each output's kernel sum, lhs_offset · Σ_k (w[o][k] +
  // rhs_offset) + bias[o], in its context buffer: TFLite Micro computes them once per layer (in
  // Prepare, with arm_vector_sum_s8), so here the compiler does, outside the measured call.
  template <class W, class B>
  static constexpr auto kernel_sums(const W& w, const B& bias, const cxmat::q8::matmul_params& p) noexcept {
    struct sums {
      std::int32_t v[W::rows];
    } s{};
    for (std::size_t o = 0; o < W::rows; ++o) {
      std::int32_t sum = 0;
      for (std::size_t k = 0; k < W::cols; ++k) sum += w(o, k) + p.rhs_offset;
      s.v[o] = p.lhs_offset * sum + bias(0, o);
    }
    return s;
  }
  static constexpr auto sums_q = kernel_sums(l.wq, l.bq, l.query), sums_k = kernel_sums(l.wk, l.bk, l.key),
                        sums_v = kernel_sums(l.wv, l.bv, l.value), sums_o = kernel_sums(l.wo, l.bo, l.output);
#endif
  // rows x in times weights [out, in]: arm_fully_connected_s8 with `rows` batches (with MVE, the
  // weights' kernel sums in the context).
  static void project(const std::int8_t* x, const std::int8_t* w, const std::int32_t* bias, std::int8_t* out,
                      const cxmat::q8::matmul_params& p, std::int32_t in, std::int32_t outs,
                      [[maybe_unused]] const std::int32_t* sums) noexcept {
#if defined(ARM_MATH_MVEI)
    cmsis_nn_context ctx{const_cast<std::int32_t*>(sums), outs * 4};
#else
    cmsis_nn_context ctx{nullptr, 0};
#endif
    const cmsis_nn_fc_params fp = fc(p);
    const cmsis_nn_per_tensor_quant_params qp = quant(p);
    const cmsis_nn_dims in_dims{static_cast<std::int32_t>(n), 1, 1, in}, filter_dims{in, 1, 1, outs},
        bias_dims{1, 1, 1, outs}, out_dims{static_cast<std::int32_t>(n), 1, 1, outs};
    arm_fully_connected_s8(&ctx, &fp, &qp, &in_dims, x, &filter_dims, w, &bias_dims, bias, &out_dims, out);
  }
  // lhs (rows x depth) times rhs stored [cols, depth]: arm_batch_matmul_s8 with one batch (with
  // MVE, a buffer for the sums of rhs's rows, which it computes on every call).
  static void product(const std::int8_t* lhs, const std::int8_t* rhs, std::int8_t* out,
                      const cxmat::q8::matmul_params& p, std::int32_t rows, std::int32_t cols,
                      std::int32_t depth) noexcept {
#if defined(ARM_MATH_MVEI)
    std::int32_t rhs_sums[n > dk ? n : dk];
    cmsis_nn_context ctx{rhs_sums, static_cast<std::int32_t>(sizeof(rhs_sums))};
#else
    cmsis_nn_context ctx{nullptr, 0};
#endif
    const cmsis_nn_bmm_params bp{false, true, fc(p)};
    const cmsis_nn_per_tensor_quant_params qp = quant(p);
    const cmsis_nn_dims lhs_dims{1, 1, rows, depth}, rhs_dims{1, 1, cols, depth}, out_dims{1, 1, rows, cols};
    arm_batch_matmul_s8(&ctx, &bp, &qp, &lhs_dims, lhs, &rhs_dims, rhs, &out_dims, out);
  }

  // Projection i's kernel sums (q, k, v, o), or none without MVE.
  static const std::int32_t* sums([[maybe_unused]] int i) noexcept {
#if defined(ARM_MATH_MVEI)
    const std::int32_t* all[4] = {sums_q.v, sums_k.v, sums_v.v, sums_o.v};
    return all[i];
#else
    return nullptr;
#endif
  }

  static output run(const input& x) noexcept {
    std::int8_t q[n][dm], k[n][dm], v[n][dm], c[n][dm];
    output y{};
    project(&x.elems[0][0], &l.wq.elems[0][0], l.bq.elems[0], &q[0][0], l.query, dm, dm, sums(0));
    project(&x.elems[0][0], &l.wk.elems[0][0], l.bk.elems[0], &k[0][0], l.key, dm, dm, sums(1));
    project(&x.elems[0][0], &l.wv.elems[0][0], l.bv.elems[0], &v[0][0], l.value, dm, dm, sums(2));
    for (std::size_t hd = 0; hd < h; ++hd) {
      std::int8_t qh[n][dk], kh[n][dk], vt[dk][n], s[n][n], p[n][n], ch[n][dk];
      for (std::size_t i = 0; i < n; ++i) {
        for (std::size_t t = 0; t < dk; ++t) {
          qh[i][t] = q[i][hd * dk + t], kh[i][t] = k[i][hd * dk + t], vt[t][i] = v[i][hd * dk + t];
        }
      }
      product(&qh[0][0], &kh[0][0], &s[0][0], l.scores, n, n, dk);
      arm_softmax_s8(&s[0][0], n, n, l.softmax.multiplier, l.softmax.left_shift, l.softmax.diff_min, &p[0][0]);
      product(&p[0][0], &vt[0][0], &ch[0][0], l.context, n, dk, n);
      for (std::size_t i = 0; i < n; ++i) {
        for (std::size_t t = 0; t < dk; ++t) c[i][hd * dk + t] = ch[i][t];
      }
    }
    project(&c[0][0], &l.wo.elems[0][0], l.bo.elems[0], &y.elems[0][0], l.output, dm, dm, sums(3));
    return y;
  }
};

#if CXMAT_BENCH_LAYER == 1 && CXMAT_BENCH_CMSIS
using external = cmsis_layer<q8_large>;
#elif CXMAT_BENCH_LAYER == 1
using external = q8_large;
#else
using external = cmsis_layer<q8_small>;
#endif

}  // namespace layers
