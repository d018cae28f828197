// Copyright the cxmat authors.
// SPDX-License-Identifier: BSL-1.0
// Checking int8 parameters written by hand (copied from a TFLite model, a CMSIS-NN call, another
// tool): q8::check(x) of a requantizer, a product's, softmax's or a sum's parameters, or a whole
// module (linear, layer norm, attention, encoder and decoder layers) says which field, if any,
// is not what TFLite's preparation of a model could have made. What calibrate and the quantize_*
// functions make always passes; hand-written parameters are checked where they are made, once,
// instead of being clamped where they are used.
#pragma once

#include <cstddef>
#include <cstdint>

#include <cxmat/math/fp.hpp>
#include <cxmat/quantized/add.hpp>
#include <cxmat/quantized/attention.hpp>
#include <cxmat/quantized/decoder_layer.hpp>
#include <cxmat/quantized/encoder_layer.hpp>
#include <cxmat/quantized/layer_norm.hpp>
#include <cxmat/quantized/linear.hpp>
#include <cxmat/quantized/matmul.hpp>
#include <cxmat/quantized/requantize.hpp>
#include <cxmat/quantized/softmax.hpp>

namespace cxmat::q8 {

/// What q8::check found wrong first, if anything.
enum class parameter_status : std::uint8_t {
  ok,
  multiplier_not_normalized,          // a requantizer's multiplier: neither 0 nor in [2^30, 2^31) in magnitude
  shift_out_of_range,                 // a requantizer's shift outside [-31, 30]
  offset_out_of_range,                // an offset that no int8 zero point gives (inputs: -z in [-127, 128]; outputs: z)
  activation_range_invalid,           // activation_min > activation_max, or either outside [-128, 127]
  softmax_multiplier_not_normalized,  // softmax's multiplier: neither 0 nor in [2^30, 2^31)
  softmax_left_shift_out_of_range,    // softmax's left_shift outside [0, 31]
  softmax_diff_min_positive,          // softmax's diff_min above 0 (it would cut off the row's maximum)
  add_left_shift_out_of_range,        // an int8 sum's left_shift outside [0, 23] (TFLite's is 20)
};

/// q8::check's answer: `status`, and for a broken field its path in `field` (e.g.
/// "linear1.channels", "self_attn.softmax", "norm2.scale") and, for an array of per-channel
/// requantizers, the channel in `index` (0 otherwise).
struct parameter_check {
  parameter_status status = parameter_status::ok;
  char field[48]{};
  std::size_t index = 0;
  constexpr bool ok() const noexcept { return status == parameter_status::ok; }
};

namespace detail {
// The named errors of constant evaluation (cxmat::detail::refuse_in_constant_evaluation); those
// of requantizers and softmax parameters are requantize.hpp's and softmax.hpp's.
inline void offset_must_come_from_an_int8_zero_point() noexcept {}
inline void activation_range_must_be_a_nonempty_part_of_int8() noexcept {}
inline void softmax_diff_min_must_be_at_most_0() noexcept {}
inline void add_left_shift_must_be_in_0_to_23() noexcept {}

constexpr void refuse(parameter_status s) noexcept {
  using cxmat::detail::refuse_in_constant_evaluation;
  switch (s) {
    case parameter_status::ok:
      break;
    case parameter_status::multiplier_not_normalized:
      refuse(requantizer_status::multiplier_not_normalized);
      break;
    case parameter_status::shift_out_of_range:
      refuse(requantizer_status::shift_out_of_range);
      break;
    case parameter_status::offset_out_of_range:
      refuse_in_constant_evaluation<offset_must_come_from_an_int8_zero_point>();
      break;
    case parameter_status::activation_range_invalid:
      refuse_in_constant_evaluation<activation_range_must_be_a_nonempty_part_of_int8>();
      break;
    case parameter_status::softmax_multiplier_not_normalized:
      refuse_in_constant_evaluation<softmax_multiplier_must_be_0_or_in_2_pow_30_to_2_pow_31>();
      break;
    case parameter_status::softmax_left_shift_out_of_range:
      refuse_in_constant_evaluation<softmax_left_shift_must_be_in_0_to_31>();
      break;
    case parameter_status::softmax_diff_min_positive:
      refuse_in_constant_evaluation<softmax_diff_min_must_be_at_most_0>();
      break;
    case parameter_status::add_left_shift_out_of_range:
      refuse_in_constant_evaluation<add_left_shift_must_be_in_0_to_23>();
      break;
  }
}

// Where a check is: the path of the field being checked ("linear1." then "channels").
struct field_path {
  char text[48]{};
  std::size_t size = 0;
  constexpr field_path then(const char* name) const noexcept {
    field_path p = *this;
    for (std::size_t i = 0; name[i] != '\0' && p.size + 1 < sizeof(p.text); ++i) p.text[p.size++] = name[i];
    return p;
  }
};

// The path of a member's fields: "name." (nothing for the checked value itself, name "").
constexpr field_path member(const field_path& at, const char* name) noexcept {
  return at.then(name).then(name[0] != '\0' ? "." : "");
}

// The first failure is kept; it stops a constant expression with its named error.
constexpr void fail(parameter_check& r, parameter_status s, const field_path& at, const char* name,
                    std::size_t index = 0) noexcept {
  if (!r.ok() || s == parameter_status::ok) return;
  refuse(s);
  r.status = s, r.index = index;
  const field_path p = at.then(name);
  for (std::size_t i = 0; i < sizeof(r.field); ++i) r.field[i] = p.text[i];
}

constexpr parameter_status status_of_requantizer(requantizer q) noexcept {
  switch (status_of(q)) {
    case requantizer_status::multiplier_not_normalized:
      return parameter_status::multiplier_not_normalized;
    case requantizer_status::shift_out_of_range:
      return parameter_status::shift_out_of_range;
    case requantizer_status::ok:
      break;
  }
  return parameter_status::ok;
}

constexpr bool input_offset(std::int32_t o) noexcept { return o >= -127 && o <= 128; }
constexpr bool output_offset(std::int32_t o) noexcept { return o >= -128 && o <= 127; }
constexpr bool activation_range(std::int32_t lo, std::int32_t hi) noexcept {
  return lo >= -128 && hi <= 127 && lo <= hi;
}

constexpr void check_into(parameter_check& r, const field_path& at, const char* name, requantizer q,
                          std::size_t index = 0) noexcept {
  fail(r, status_of_requantizer(q), at, name, index);
}
constexpr void check_into(parameter_check& r, const field_path& at, const char* name, const matmul_params& p) noexcept {
  const field_path f = member(at, name);
  fail(r, input_offset(p.lhs_offset) ? parameter_status::ok : parameter_status::offset_out_of_range, f, "lhs_offset");
  fail(r, input_offset(p.rhs_offset) ? parameter_status::ok : parameter_status::offset_out_of_range, f, "rhs_offset");
  fail(r, output_offset(p.output_offset) ? parameter_status::ok : parameter_status::offset_out_of_range, f,
       "output_offset");
  check_into(r, f, "output", p.output);
  fail(r,
       activation_range(p.activation_min, p.activation_max) ? parameter_status::ok
                                                            : parameter_status::activation_range_invalid,
       f, "activation_min");
}
constexpr void check_into(parameter_check& r, const field_path& at, const char* name,
                          const softmax_params& p) noexcept {
  fail(r,
       p.multiplier == 0 || p.multiplier >= (std::int32_t{1} << 30)
           ? parameter_status::ok
           : parameter_status::softmax_multiplier_not_normalized,
       at, name);
  fail(r,
       p.left_shift >= 0 && p.left_shift <= 31 ? parameter_status::ok
                                               : parameter_status::softmax_left_shift_out_of_range,
       at, name);
  fail(r, p.diff_min <= 0 ? parameter_status::ok : parameter_status::softmax_diff_min_positive, at, name);
}
constexpr void check_into(parameter_check& r, const field_path& at, const char* name, const add_params& p) noexcept {
  const field_path f = member(at, name);
  fail(r, input_offset(p.input1_offset) ? parameter_status::ok : parameter_status::offset_out_of_range, f,
       "input1_offset");
  fail(r, input_offset(p.input2_offset) ? parameter_status::ok : parameter_status::offset_out_of_range, f,
       "input2_offset");
  fail(r, output_offset(p.output_offset) ? parameter_status::ok : parameter_status::offset_out_of_range, f,
       "output_offset");
  fail(r,
       p.left_shift >= 0 && p.left_shift <= 23 ? parameter_status::ok : parameter_status::add_left_shift_out_of_range,
       f, "left_shift");
  check_into(r, f, "input1", p.input1);
  check_into(r, f, "input2", p.input2);
  check_into(r, f, "output", p.output);
  fail(r,
       activation_range(p.activation_min, p.activation_max) ? parameter_status::ok
                                                            : parameter_status::activation_range_invalid,
       f, "activation_min");
}
template <std::size_t W>
constexpr void check_into(parameter_check& r, const field_path& at, const char* name,
                          const requantizer (&channels)[W]) noexcept {
  for (std::size_t j = 0; j < W; ++j) check_into(r, at, name, channels[j], j);
}
template <std::size_t D>
constexpr void check_into(parameter_check& r, const field_path& at, const char* name,
                          const layer_norm_module<D>& m) noexcept {
  const field_path f = member(at, name);
  fail(r, input_offset(m.input_offset) ? parameter_status::ok : parameter_status::offset_out_of_range, f,
       "input_offset");
  fail(r, output_offset(m.output_offset) ? parameter_status::ok : parameter_status::offset_out_of_range, f,
       "output_offset");
  check_into(r, f, "scale", m.scale);
}
template <std::size_t In, std::size_t Out, bool PC>
constexpr void check_into(parameter_check& r, const field_path& at, const char* name,
                          const linear_module<In, Out, PC>& m) noexcept {
  const field_path f = member(at, name);
  check_into(r, f, "params", m.params);
  if constexpr (PC) check_into(r, f, "channels", m.channels.values);
}
template <std::size_t DModel, std::size_t H, std::size_t DK, std::size_t DV, bool PC>
constexpr void check_heads_into(parameter_check& r, const field_path& f,
                                const attention_heads<DModel, H, DK, DV, PC>& l) noexcept {
  check_into(r, f, "query", l.query);
  check_into(r, f, "key", l.key);
  check_into(r, f, "value", l.value);
  if constexpr (PC) {
    check_into(r, f, "channels.query", l.channels.query);
    check_into(r, f, "channels.key", l.channels.key);
    check_into(r, f, "channels.value", l.channels.value);
  }
  check_into(r, f, "scores", l.scores);
  check_into(r, f, "softmax", l.softmax);
  check_into(r, f, "context", l.context);
}
template <std::size_t DModel, std::size_t H, std::size_t DK, std::size_t DV, bool PC>
constexpr void check_into(parameter_check& r, const field_path& at, const char* name,
                          const attention_heads<DModel, H, DK, DV, PC>& l) noexcept {
  check_heads_into(r, member(at, name), l);
}
template <std::size_t DModel, std::size_t H, std::size_t DK, std::size_t DV, std::size_t DOut, bool PC>
constexpr void check_into(parameter_check& r, const field_path& at, const char* name,
                          const attention_layer<DModel, H, DK, DV, DOut, PC>& l) noexcept {
  const field_path f = member(at, name);
  check_heads_into(r, f, l);
  check_into(r, f, "output", l.output);
  if constexpr (PC) check_into(r, f, "output_channels", l.output_channels.values);
}
template <std::size_t D, std::size_t H, std::size_t F, activation Act, bool NF, bool PC>
constexpr void check_into(parameter_check& r, const field_path& at, const char* /*name*/,
                          const encoder_layer<D, H, F, Act, NF, PC>& l) noexcept {
  check_into(r, at, "self_attn", l.self_attn);
  check_into(r, at, "linear1", l.linear1);
  check_into(r, at, "linear2", l.linear2);
  check_into(r, at, "norm1", l.norm1);
  check_into(r, at, "norm2", l.norm2);
  check_into(r, at, "add1", l.add1);
  check_into(r, at, "add2", l.add2);
}
template <std::size_t D, std::size_t H, std::size_t F, activation Act, bool NF, bool PC>
constexpr void check_into(parameter_check& r, const field_path& at, const char* /*name*/,
                          const decoder_layer<D, H, F, Act, NF, PC>& l) noexcept {
  check_into(r, at, "self_attn", l.self_attn);
  check_into(r, at, "multihead_attn", l.multihead_attn);
  check_into(r, at, "linear1", l.linear1);
  check_into(r, at, "linear2", l.linear2);
  check_into(r, at, "norm1", l.norm1);
  check_into(r, at, "norm2", l.norm2);
  check_into(r, at, "norm3", l.norm3);
  check_into(r, at, "add1", l.add1);
  check_into(r, at, "add2", l.add2);
  check_into(r, at, "add3", l.add3);
}
}  // namespace detail

/// Whether x holds only parameters TFLite's preparation of a model could make: every requantizer
/// valid_requantizer (per-channel ones too), softmax parameters valid_softmax_params, offsets from
/// int8 zero points, activation ranges inside [-128, 127] and not empty, an int8 sum's left shift in
/// [0, 23]. x: a requantizer, matmul_params, softmax_params, add_params, layer_norm_module,
/// linear_module, attention_heads, attention_layer, encoder_layer or decoder_layer. The first broken
/// field is reported (its path and channel); in a constant expression it stops with its named error
/// (requantizer_multiplier_must_be_0_or_in_2_pow_30_to_2_pow_31_in_magnitude,
/// requantizer_shift_must_be_in_minus_31_to_30, offset_must_come_from_an_int8_zero_point, ...), so
/// `static_assert(q8::check(layer).ok())` on hand-written constexpr parameters names the mistake.
template <class X>
requires requires(parameter_check& r, const X& x) { detail::check_into(r, detail::field_path{}, "", x); }
constexpr parameter_check check(const X& x) noexcept {
  parameter_check r{};
  detail::check_into(r, detail::field_path{}, "", x);
  return r;
}

}  // namespace cxmat::q8
