// Modules imported from files made by PyTorch (scripts/cxmat_import.py), against PyTorch's own
// outputs for the same inputs (make_reference.py, run by the build on this machine): at compile
// time (static_assert) and at run time, in double, within 1e-12 of the largest magnitude of the
// expected matrix (PyTorch sums in another order, so the last bits differ).
#include <cstddef>
#include <cstdio>
#include <type_traits>

#include <cxmat/attention.hpp>
#include <cxmat/core.hpp>

#include "decoder.hpp"
#include "decoder_q8.hpp"
#include "decoder_q8_offline.hpp"
#include "decoder_stack.hpp"
#include "decoder_stack_q8.hpp"
#include "decoder_stack_q8_offline.hpp"
#include "embed.hpp"
#include "encoder.hpp"
#include "encoder_gelu_tanh.hpp"
#include "encoder_q8.hpp"
#include "encoder_q8_offline.hpp"
#include "encoder_silu.hpp"
#include "encoder_stack.hpp"
#include "encoder_stack_q8.hpp"
#include "encoder_stack_q8_offline.hpp"
#include "linear.hpp"
#include "linear_q8.hpp"
#include "linear_q8_offline.hpp"
#include "mha_kv.hpp"
#include "mha_nobias.hpp"
#include "mha_pt.hpp"
#include "mha_q8.hpp"
#include "mha_q8_offline.hpp"
#include "mixed.hpp"
#include "mixed_float.hpp"
#include "norm.hpp"
#include "reference.hpp"
#include "test_support/catch.hpp"
#include "wide.hpp"

namespace {

constexpr double tolerance = 1e-12;

constexpr double magnitude(double v) { return v < 0 ? -v : v; }

// Every |a - b| is at most 1e-12 times the largest |b| of the matrix.
template <class A, class B>
constexpr bool close(const A& a, const B& expected) {
  static_assert(A::rows == B::rows && A::cols == B::cols);
  double largest = 0;
  for (std::size_t i = 0; i < B::rows; ++i) {
    for (std::size_t j = 0; j < B::cols; ++j)
      largest = magnitude(expected(i, j)) > largest ? magnitude(expected(i, j)) : largest;
  }
  for (std::size_t i = 0; i < B::rows; ++i) {
    for (std::size_t j = 0; j < B::cols; ++j) {
      if (!(magnitude(a(i, j) - expected(i, j)) <= tolerance * largest)) return false;
    }
  }
  return largest > 0;
}

// The largest |a - b| over the largest |b|: what `close` bounds by 1e-12 (printed at run time).
template <class A, class B>
constexpr double relative_error(const A& a, const B& expected) {
  double largest = 0, worst = 0;
  for (std::size_t i = 0; i < B::rows; ++i) {
    for (std::size_t j = 0; j < B::cols; ++j) {
      largest = magnitude(expected(i, j)) > largest ? magnitude(expected(i, j)) : largest;
      worst = magnitude(a(i, j) - expected(i, j)) > worst ? magnitude(a(i, j) - expected(i, j)) : worst;
    }
  }
  return worst / largest;
}

// Values converted from float16, bfloat16 and float32 arrive exactly.
template <class A, class B>
constexpr bool same(const A& a, const B& expected) {
  static_assert(A::rows == B::rows && A::cols == B::cols);
  for (std::size_t i = 0; i < B::rows; ++i) {
    for (std::size_t j = 0; j < B::cols; ++j) {
      if (!(a(i, j) == expected(i, j))) return false;
    }
  }
  return true;
}

// The same checks at compile time and at run time (x given as a run-time copy there).
template <class X, class Xkv>
constexpr bool mha_matches(const X& x, const Xkv& x_kv) {
  const auto with_weights = mha.with_weights(x);
  return close(mha(x), ref::mha_plain) && close(with_weights.output, ref::mha_plain) &&
         close(with_weights.weights.items[0], ref::mha_weights_0) &&
         close(with_weights.weights.items[1], ref::mha_weights_1) && close(mha(x, cxmat::causal), ref::mha_causal) &&
         close(mha(x, cxmat::key_padding(ref::keep)), ref::mha_padded) && close(mha(x, x_kv), ref::mha_cross);
}

static_assert(mha_matches(ref::x, ref::x_kv));
static_assert(close(mha_nobias(ref::x), ref::mha_nobias_plain));
static_assert(close(mha_kv(ref::x, ref::memory6), ref::mha_kv_cross));
static_assert(close(lin(ref::x), ref::lin_out) && close(norm(ref::x), ref::norm_out));
static_assert(same(embed(ref::tokens), ref::embed_out));

template <class X, class Xkv>
constexpr bool layers_match(const X& x, const Xkv& memory) {
  return close(encoder(x), ref::encoder_plain) &&
         close(encoder(x, cxmat::key_padding(ref::keep)), ref::encoder_padded) &&
         close(decoder(x, memory, cxmat::causal), ref::decoder_causal) &&
         close(decoder(x, memory, cxmat::causal, cxmat::on_memory(cxmat::key_padding(ref::memory_keep))),
               ref::decoder_memory_padded) &&
         close(decoder_stack(x, memory, cxmat::causal), ref::decoder_stack_causal) &&
         close(encoder_stack(x), ref::encoder_stack_plain) && close(encoder_silu(x), ref::encoder_silu_plain) &&
         close(encoder_gelu_tanh(x), ref::encoder_gelu_tanh_plain);
}
static_assert(layers_match(ref::x, ref::x_kv));

// The int8 layer (--type q8, calibrated on 16 other inputs) against PyTorch's float layer: its
// largest error in output steps (the output's scale), 1.72 with these inputs (printed at run
// time); the integer arithmetic does not depend on the CPU.
template <class Module, class X, class Expected, class... Memory>
constexpr double q8_error_in_steps(const Module& module, const X& x, const Expected& expected,
                                   const Memory&... memory_and_options) {
  const auto y = module(x, memory_and_options...);
  double worst = 0;
  for (std::size_t i = 0; i < Expected::rows; ++i) {
    for (std::size_t j = 0; j < Expected::cols; ++j) {
      const double d = magnitude(y(i, j) - expected(i, j));
      worst = d > worst ? d : worst;
    }
  }
  return worst / module.calibration.output.scale;
}
static_assert(q8_error_in_steps(mha_q8, ref::x, ref::mha_nobias_plain) <= 2);
// The int8 encoder layer (pre-norm, GELU by table) and linear layer of --type q8, calibrated on the
// same 16 inputs, against PyTorch's float modules on x: 1.11 and 0.90 output steps at most with
// these inputs (printed at run time).
static_assert(q8_error_in_steps(encoder_q8, ref::x, ref::encoder_plain) <= 1.5);
static_assert(q8_error_in_steps(lin_q8, ref::x, ref::lin_out) <= 1);
// The int8 decoder layer (post-norm, ReLU) of --type q8, calibrated on 16 input / memory pairs,
// against PyTorch's float layer on x and the memory x_kv, causal: 1.47 output steps at most with
// these inputs (printed at run time); with the memory's key padding too, which the calibration did
// not see (the importer calibrates without masks), 2.90.
static_assert(q8_error_in_steps(decoder_q8, ref::x, ref::decoder_causal, ref::x_kv, cxmat::causal) <= 2);
static_assert(q8_error_in_steps(decoder_q8, ref::x, ref::decoder_memory_padded, ref::x_kv, cxmat::causal,
                                cxmat::on_memory(cxmat::key_padding(ref::memory_keep))) <= 3.5);
// The int8 encoder stack of --type q8 (two post-norm layers, each calibrated on the 16 inputs
// through the float layers before it, the final LayerNorm in float) against PyTorch's float stack
// on x: 1.8 % of the largest output at most with these inputs (printed at run time); the norm
// rescales the int8 layers' error, so it is bounded relative to the output, not in output steps.
static_assert(relative_error(encoder_stack_q8(ref::x), ref::encoder_stack_plain) <= 0.03);
// The int8 decoder stack (two post-norm ReLU layers, no final norm; the memory quantized once for
// both) against PyTorch's float stack on x and the memory x_kv, causal: 2.45 output steps at most.
static_assert(q8_error_in_steps(decoder_stack_q8, ref::x, ref::decoder_stack_causal, ref::x_kv, cxmat::causal) <= 3);
// --calibrate offline: the importer calibrates in numpy (scripts/cxmat_q8.py) and writes the int8
// module as constants (NAME_offline); compared member by member with the library's calibration of
// the same float module on the same inputs, by the compiler (NAME, --calibrate compiler) and at run
// time (q8::calibrate in the test case below).
template <class M>
constexpr bool same_matrix(const M& a, const M& b) {
  for (std::size_t i = 0; i < M::rows; ++i) {
    for (std::size_t j = 0; j < M::cols; ++j) {
      if (a(i, j) != b(i, j)) return false;
    }
  }
  return true;
}
template <class T, std::size_t N>
constexpr bool same_array(const T (&a)[N], const T (&b)[N]) {
  for (std::size_t k = 0; k < N; ++k) {
    if (!(a[k] == b[k])) return false;
  }
  return true;
}
template <class L>
constexpr bool same_linear(const L& a, const L& b) {
  bool ok = same_matrix(a.weight, b.weight) && same_matrix(a.bias, b.bias) && a.params == b.params;
  if constexpr (L::per_channel) ok = ok && same_array(a.channels.values, b.channels.values);
  return ok;
}
template <class L>
constexpr bool same_attention(const L& a, const L& b) {
  bool ok = same_matrix(a.wq, b.wq) && same_matrix(a.wk, b.wk) && same_matrix(a.wv, b.wv) && same_matrix(a.bq, b.bq) &&
            same_matrix(a.bk, b.bk) && same_matrix(a.bv, b.bv) && a.query == b.query && a.key == b.key &&
            a.value == b.value && a.scores == b.scores && a.softmax == b.softmax && a.context == b.context &&
            same_matrix(a.wo, b.wo) && same_matrix(a.bo, b.bo) && a.output == b.output;
  if constexpr (L::per_channel) {
    ok = ok && same_array(a.channels.query, b.channels.query) && same_array(a.channels.key, b.channels.key) &&
         same_array(a.channels.value, b.channels.value) &&
         same_array(a.output_channels.values, b.output_channels.values);
  }
  return ok;
}
template <class N>
constexpr bool same_norm(const N& a, const N& b) {
  return a.input_offset == b.input_offset && a.output_offset == b.output_offset && a.eps == b.eps &&
         same_array(a.scale, b.scale) && same_array(a.bias, b.bias);
}
// An int8 encoder or decoder layer, every member.
template <class L>
constexpr bool same_layer(const L& a, const L& b) {
  bool ok = same_attention(a.self_attn, b.self_attn) && same_linear(a.linear1, b.linear1) &&
            same_linear(a.linear2, b.linear2) && same_norm(a.norm1, b.norm1) && same_norm(a.norm2, b.norm2) &&
            a.add1 == b.add1 && a.add2 == b.add2;
  if constexpr (L::activation_function != cxmat::activation::relu) ok = ok && same_array(a.act.values, b.act.values);
  if constexpr (requires { a.norm3; }) {
    ok = ok && same_attention(a.multihead_attn, b.multihead_attn) && same_norm(a.norm3, b.norm3) && a.add3 == b.add3;
  }
  return ok;
}
// Two calibration reports: the same tensors in order; `same_ranges` counts the tensors observed in
// the same [min, max] bit for bit, whose derived scale, zero point, use of int8 and clipping must
// then be the same too (`derived_same`); `worst` is the largest difference of an end of a range
// relative to the range's largest magnitude (the float passes' last bits).
struct report_comparison {
  bool tensors_same = true, derived_same = true;
  std::size_t same_ranges = 0;
  double worst = 0;
};
constexpr report_comparison compare_reports(const cxmat::q8::calibration_report& a,
                                            const cxmat::q8::calibration_report& b) {
  report_comparison c{};
  c.tensors_same = a.count == b.count && a.count > 0;
  for (std::size_t k = 0; c.tensors_same && k < a.count; ++k) {
    const auto &x = a.tensors[k], &y = b.tensors[k];
    c.tensors_same = x.tensor == y.tensor;
    const double size = magnitude(y.min) > magnitude(y.max) ? magnitude(y.min) : magnitude(y.max);
    const double d =
        (magnitude(x.min - y.min) > magnitude(x.max - y.max) ? magnitude(x.min - y.min) : magnitude(x.max - y.max)) /
        size;
    c.worst = d > c.worst ? d : c.worst;
    if (x.min == y.min && x.max == y.max) {
      ++c.same_ranges;
      c.derived_same = c.derived_same && x == y;
    }
  }
  return c;
}
// An offline calibration against the library's: the same module, member by member, and the same
// reports within 1e-13 (the quantizations of the input and output follow from their ranges).
template <class A, class B, class SameModule>
constexpr bool offline_matches(const A& offline, const B& library, SameModule same_module) {
  const report_comparison r = compare_reports(offline.report, library.report);
  return offline.ok() && library.ok() && same_module(offline.module, library.module) && r.tensors_same &&
         r.derived_same && r.worst <= 1e-13 && offline.input.zero_point == library.input.zero_point &&
         offline.output.zero_point == library.output.zero_point;
}
constexpr auto same_layers = [](const auto& a, const auto& b) { return same_layer(a, b); };
constexpr auto same_linears = [](const auto& a, const auto& b) { return same_linear(a, b); };
static_assert(offline_matches(encoder_q8_offline.calibration, encoder_q8.calibration, same_layers));
static_assert(offline_matches(decoder_q8_offline.calibration, decoder_q8.calibration, same_layers));
static_assert(offline_matches(lin_q8_offline.calibration, lin_q8.calibration, same_linears));
static_assert(offline_matches(encoder_stack_q8_offline_calibration::layer_0, encoder_stack_q8_calibration::layer_0,
                              same_layers));
static_assert(offline_matches(encoder_stack_q8_offline_calibration::layer_1, encoder_stack_q8_calibration::layer_1,
                              same_layers));
static_assert(offline_matches(decoder_stack_q8_offline_calibration::layer_0, decoder_stack_q8_calibration::layer_0,
                              same_layers));
static_assert(offline_matches(decoder_stack_q8_offline_calibration::layer_1, decoder_stack_q8_calibration::layer_1,
                              same_layers));
static_assert(decoder_q8_offline.calibration.memory == decoder_q8.calibration.memory);
// The attention's calibration holds more: every tensor's quantization and each weight's use of int8.
constexpr bool attention_offline_matches() {
  const auto &a = mha_q8_offline.calibration, &b = mha_q8.calibration;
  const report_comparison r = compare_reports(a.report, b.report);
  return same_attention(a.layer, b.layer) && r.tensors_same && r.derived_same && r.worst <= 1e-13 && a.wq == b.wq &&
         a.wk == b.wk && a.wv == b.wv && a.wo == b.wo && a.wq_use == b.wq_use && a.wk_use == b.wk_use &&
         a.wv_use == b.wv_use && a.wo_use == b.wo_use && same_matrix(a.wq_scales, b.wq_scales) &&
         same_matrix(a.wo_scales, b.wo_scales) && a.input == b.input && a.query.zero_point == b.query.zero_point &&
         a.context.zero_point == b.context.zero_point;
}
static_assert(attention_offline_matches());
// Given the same ranges, the same parameters: the library's derivation (its public functions and
// calibrate's helpers in q8::detail, composed as calibrate composes them) applied to the ranges the
// offline report holds gives the offline module, whatever the float passes' last bits.
constexpr cxmat::q8::quantization range_of(const cxmat::q8::calibration_report& r, cxmat::q8::calibration_tensor t) {
  const auto* e = r.find(t);
  return e == nullptr ? cxmat::q8::quantization{0.0, 0} : cxmat::q8::choose_quantization(e->min, e->max);
}
template <std::size_t W, class B>
constexpr void bias_row(const B& b, double (&out)[W]) {
  for (std::size_t j = 0; j < W; ++j) out[j] = b(0, j);
}
// calibrate_layer's parameters of an attention_layer L from the float module f (self-attention)
// and the quantizations of its tensors.
template <class L, class F>
constexpr L attention_from_ranges(const F& f, cxmat::q8::quantization qx, cxmat::q8::quantization qq,
                                  cxmat::q8::quantization qk, cxmat::q8::quantization qv, cxmat::q8::quantization qs,
                                  cxmat::q8::quantization qc, cxmat::q8::quantization qy) {
  namespace d = cxmat::q8::detail;
  constexpr std::size_t w = L::heads * L::d_k, dm = L::d_model;
  constexpr bool pc = L::per_channel;
  L l{};
  const auto tq = d::symmetric_of(f.w_q), tk = d::symmetric_of(f.w_k), tv = d::symmetric_of(f.w_v),
             to = d::symmetric_of(f.w_o);
  cxmat::matrix<double, 1, w> sq{}, sk{}, sv{}, so{};
  d::channel_scales(f.w_q, tq, pc, sq), d::channel_scales(f.w_k, tk, pc, sk);
  d::channel_scales(f.w_v, tv, pc, sv), d::channel_scales(f.w_o, to, pc, so);
  double bq[w]{}, bk[w]{}, bv[w]{}, bo[w]{};
  bias_row(f.b_q, bq), bias_row(f.b_k, bk), bias_row(f.b_v, bv), bias_row(f.b_o, bo);
  l.wq = d::quantize_channels<w, dm, pc>(f.w_q, sq), l.wk = d::quantize_channels<w, dm, pc>(f.w_k, sk);
  l.wv = d::quantize_channels<w, dm, pc>(f.w_v, sv), l.wo = d::quantize_channels<w, w, pc>(f.w_o, so);
  l.bq = d::quantized_bias(bq, qx.scale, sq), l.bk = d::quantized_bias(bk, qx.scale, sk);
  l.bv = d::quantized_bias(bv, qx.scale, sv), l.bo = d::quantized_bias(bo, qc.scale, so);
  l.query = d::product_params(qx, tq, qq), l.key = d::product_params(qx, tk, qk);
  l.value = d::product_params(qx, tv, qv), l.output = d::product_params(qc, to, qy);
  l.scores = d::product_params(qq, qk, qs, 1.0 / cxmat::sqrt(static_cast<double>(L::d_k)));
  l.softmax = cxmat::q8::make_softmax_params(qs.scale);
  l.context = d::product_params(cxmat::q8::softmax_output_quantization, qv, qc);
  if constexpr (pc) {
    for (std::size_t j = 0; j < w; ++j) {
      l.channels.query[j] = d::product_params(qx, {sq(0, j), 0}, qq).output;
      l.channels.key[j] = d::product_params(qx, {sk(0, j), 0}, qk).output;
      l.channels.value[j] = d::product_params(qx, {sv(0, j), 0}, qv).output;
      l.output_channels.values[j] = d::product_params(qc, {so(0, j), 0}, qy).output;
    }
  }
  return l;
}
// calibrate_encoder's module from the float layer f and the ranges of the report r.
template <class M, class F>
constexpr M encoder_from_ranges(const F& f, const cxmat::q8::calibration_report& r) {
  using t = cxmat::q8::calibration_tensor;
  const auto q = [&r](t tensor) { return range_of(r, tensor); };
  constexpr bool nf = M::norm_first;
  const auto qx = q(t::input), qa_in = q(t::attention_input), qh1 = q(t::residual1),
             qn = q(nf ? t::norm2_output : t::norm1_output),
             qact = q(M::activation_function == cxmat::activation::relu ? t::feed_forward_hidden
                                                                        : t::feed_forward_activation),
             qf2 = q(t::feed_forward_output), qy = q(t::output);
  M m{};
  m.self_attn = attention_from_ranges<decltype(m.self_attn)>(f.self_attn, qa_in, q(t::query), q(t::key), q(t::value),
                                                             q(t::scores), q(t::context), q(t::attention_output));
  m.add1 = cxmat::q8::make_add_params(qx, q(t::attention_output), qh1);
  if constexpr (M::activation_function == cxmat::activation::relu) {
    m.linear1 = cxmat::q8::quantize_linear<true>(f.linear1, qn, qact, true);
  } else {
    m.linear1 = cxmat::q8::quantize_linear<true>(f.linear1, qn, q(t::feed_forward_hidden));
    m.act = cxmat::q8::make_activation_table<M::activation_function>(q(t::feed_forward_hidden), qact);
  }
  m.linear2 = cxmat::q8::quantize_linear<true>(f.linear2, qact, qf2);
  if constexpr (nf) {
    m.norm1 = cxmat::q8::quantize_layer_norm(f.norm1, qx, qa_in);
    m.norm2 = cxmat::q8::quantize_layer_norm(f.norm2, qh1, qn);
    m.add2 = cxmat::q8::make_add_params(qh1, qf2, qy);
  } else {
    m.norm1 = cxmat::q8::quantize_layer_norm(f.norm1, qh1, qn);
    m.add2 = cxmat::q8::make_add_params(qn, qf2, q(t::residual2));
    m.norm2 = cxmat::q8::quantize_layer_norm(f.norm2, q(t::residual2), qy);
  }
  return m;
}
static_assert(same_layer(encoder_q8_offline.calibration.module,
                         encoder_from_ranges<decltype(encoder_q8_offline.calibration.module)>(
                             encoder_q8_offline_float, encoder_q8_offline.calibration.report)));
static_assert(same_layer(encoder_stack_q8_offline_calibration::layer_1.module,
                         encoder_from_ranges<decltype(encoder_stack_q8_offline_calibration::layer_1.module)>(
                             encoder_stack_q8_offline_float.layers[1],
                             encoder_stack_q8_offline_calibration::layer_1.report)));
static_assert(same_linear(lin_q8_offline.calibration.module,
                          cxmat::q8::quantize_linear<true>(
                              lin_q8_offline_float,
                              range_of(lin_q8_offline.calibration.report, cxmat::q8::calibration_tensor::input),
                              range_of(lin_q8_offline.calibration.report, cxmat::q8::calibration_tensor::output))));
// The offline modules against PyTorch's float modules: the bounds of the compiler-calibrated ones.
static_assert(q8_error_in_steps(mha_q8_offline, ref::x, ref::mha_nobias_plain) <= 2);
static_assert(q8_error_in_steps(encoder_q8_offline, ref::x, ref::encoder_plain) <= 1.5);
static_assert(q8_error_in_steps(lin_q8_offline, ref::x, ref::lin_out) <= 1);
static_assert(q8_error_in_steps(decoder_q8_offline, ref::x, ref::decoder_causal, ref::x_kv, cxmat::causal) <= 2);
static_assert(relative_error(encoder_stack_q8_offline(ref::x), ref::encoder_stack_plain) <= 0.03);
static_assert(q8_error_in_steps(decoder_stack_q8_offline, ref::x, ref::decoder_stack_causal, ref::x_kv,
                                cxmat::causal) <= 3);
static_assert(same(mixed_weights::emb_weight, ref::mixed_emb_weight));
static_assert(same(mixed_weights::norm_bias, ref::mixed_norm_bias));
static_assert(same(mixed_weights::proj_weight, ref::mixed_proj_weight));
// --type float: the float literals read back as the file's values (float16, bfloat16 and float32
// values are floats), from subnormals to near the largest float.
static_assert(same(mixed_float_weights::emb_weight, ref::mixed_emb_weight));
static_assert(same(mixed_float_weights::norm_bias, ref::mixed_norm_bias));
static_assert(same(mixed_float_weights::proj_weight, ref::mixed_proj_weight));
static_assert(same(wide_weights::wide, ref::wide_values));
static_assert(std::is_same_v<decltype(wide_weights::wide)::value_type, float>);
// The dimension names are the importer's: d_model in the namespace given by --dims.
static_assert(decltype(mha_weights::w_q)::row_extent.size == 8);
static_assert(std::is_same_v<decltype(mha_nobias_weights::w_o)::col_dim, cxmat::dim<8, shared::d_model_dim>>);

}  // namespace

TEST_CASE("modules imported from PyTorch files compute PyTorch's outputs at run time", "[import]") {
  auto x = ref::x;
  auto x_kv = ref::x_kv;
  CHECK(mha_matches(x, x_kv));
  CHECK(close(mha_nobias(x), ref::mha_nobias_plain));
  auto memory = ref::memory6;
  CHECK(close(mha_kv(x, memory), ref::mha_kv_cross));
  CHECK(close(lin(x), ref::lin_out));
  CHECK(close(norm(x), ref::norm_out));
  auto tokens = ref::tokens;
  CHECK(same(embed(tokens), ref::embed_out));
  CHECK(layers_match(x, x_kv));
  const double errors[] = {relative_error(mha(x), ref::mha_plain),
                           relative_error(mha(x, cxmat::causal), ref::mha_causal),
                           relative_error(mha(x, x_kv), ref::mha_cross),
                           relative_error(mha_kv(x, memory), ref::mha_kv_cross),
                           relative_error(lin(x), ref::lin_out),
                           relative_error(norm(x), ref::norm_out),
                           relative_error(encoder(x), ref::encoder_plain),
                           relative_error(decoder(x, x_kv, cxmat::causal), ref::decoder_causal),
                           relative_error(decoder_stack(x, x_kv, cxmat::causal), ref::decoder_stack_causal),
                           relative_error(encoder_stack(x), ref::encoder_stack_plain),
                           relative_error(encoder_silu(x), ref::encoder_silu_plain),
                           relative_error(encoder_gelu_tanh(x), ref::encoder_gelu_tanh_plain)};
  double worst = 0;
  for (const double e : errors) worst = e > worst ? e : worst;
  std::printf("imported modules against PyTorch (double): largest error %.2g of the largest magnitude\n", worst);
  const double steps = q8_error_in_steps(mha_q8, x, ref::mha_nobias_plain);
  std::printf("int8 attention against PyTorch's float layer: %.2f output steps at most\n", steps);
  INFO("int8 layer against PyTorch's float layer: " << steps << " output steps at most");
  CHECK(steps <= 2);
  // Each int8 module's error against PyTorch's float module, printed and checked against its bound.
  const auto within = [](const char* what, double error, const char* unit, double bound) {
    std::printf("int8 %s against PyTorch's float module: %.3g %s at most\n", what, error, unit);
    INFO(what << ": " << error << " " << unit);
    CHECK(error <= bound);
  };
  within("encoder layer", q8_error_in_steps(encoder_q8, x, ref::encoder_plain), "output steps", 1.5);
  within("linear layer", q8_error_in_steps(lin_q8, x, ref::lin_out), "output steps", 1);
  within("encoder stack", relative_error(encoder_stack_q8(x), ref::encoder_stack_plain), "of the largest output", 0.03);
  within("decoder stack (causal)",
         q8_error_in_steps(decoder_stack_q8, x, ref::decoder_stack_causal, x_kv, cxmat::causal), "output steps", 3);
  within("decoder layer (causal)", q8_error_in_steps(decoder_q8, x, ref::decoder_causal, x_kv, cxmat::causal),
         "output steps", 2);
  within("encoder layer (offline)", q8_error_in_steps(encoder_q8_offline, x, ref::encoder_plain), "output steps", 1.5);
  within("linear layer (offline)", q8_error_in_steps(lin_q8_offline, x, ref::lin_out), "output steps", 1);
  within("decoder layer (causal, offline)",
         q8_error_in_steps(decoder_q8_offline, x, ref::decoder_causal, x_kv, cxmat::causal), "output steps", 2);
  within("encoder stack (offline)", relative_error(encoder_stack_q8_offline(x), ref::encoder_stack_plain),
         "of the largest output", 0.03);
  within("decoder layer (causal, the memory's key padding)",
         q8_error_in_steps(decoder_q8, x, ref::decoder_memory_padded, x_kv, cxmat::causal,
                           cxmat::on_memory(cxmat::key_padding(ref::memory_keep))),
         "output steps", 3.5);
}

TEST_CASE("the importer's offline int8 calibration is the library's run-time q8::calibrate", "[import][q8]") {
  // The library's calibration at run time, of the float modules the headers hold, on their inputs.
  const auto encoder_lib =
      cxmat::q8::calibrate(encoder_q8_offline_weights::calibration_inputs, encoder_q8_offline_float);
  const auto decoder_lib =
      cxmat::q8::calibrate(decoder_q8_offline_weights::calibration_inputs,
                           decoder_q8_offline_weights::calibration_memories, decoder_q8_offline_float);
  const auto linear_lib = cxmat::q8::calibrate(lin_q8_offline_weights::calibration_inputs, lin_q8_offline_float);
  const auto stack_0 =
      cxmat::q8::calibrate(encoder_stack_q8_calibration::inputs_0, encoder_stack_q8_offline_float.layers[0]);
  const auto stack_1 =
      cxmat::q8::calibrate(encoder_stack_q8_calibration::inputs_1, encoder_stack_q8_offline_float.layers[1]);
  const auto attention_lib =
      cxmat::q8::calibrate<4>(mha_q8_offline_weights::calibration_inputs, mha_q8_offline_weights::w_q,
                              mha_q8_offline_weights::w_k, mha_q8_offline_weights::w_v, mha_q8_offline_weights::w_o);
  CHECK(offline_matches(encoder_q8_offline.calibration, encoder_lib, same_layers));
  CHECK(offline_matches(decoder_q8_offline.calibration, decoder_lib, same_layers));
  CHECK(offline_matches(lin_q8_offline.calibration, linear_lib, same_linears));
  CHECK(offline_matches(encoder_stack_q8_offline_calibration::layer_0, stack_0, same_layers));
  CHECK(offline_matches(encoder_stack_q8_offline_calibration::layer_1, stack_1, same_layers));
  CHECK(same_attention(mha_q8_offline.calibration.layer, attention_lib.layer));
  const report_comparison reports[] = {compare_reports(encoder_q8_offline.calibration.report, encoder_lib.report),
                                       compare_reports(decoder_q8_offline.calibration.report, decoder_lib.report),
                                       compare_reports(lin_q8_offline.calibration.report, linear_lib.report),
                                       compare_reports(mha_q8_offline.calibration.report, attention_lib.report)};
  std::size_t same = 0, all = 0;
  double worst = 0;
  for (const auto& r : reports) {
    same += r.same_ranges;
    worst = r.worst > worst ? r.worst : worst;
  }
  all = encoder_lib.report.count + decoder_lib.report.count + linear_lib.report.count + attention_lib.report.count;
  std::printf(
      "offline calibration against q8::calibrate: modules identical; %zu of %zu ranges identical, the others "
      "within %.2g\n",
      same, all, worst);
}
