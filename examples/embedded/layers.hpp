// The layers the firmware runs, each with the input it is given: shared by the firmware (which
// runs one of them per image, on a Cortex-M or in an emulator) and the host program that
// computes the same layers and checks what the firmware printed.
#pragma once

#include <cstddef>
#include <cstdint>

#include <cxmat/attention/multi_head.hpp>
#include <cxmat/core/matrix.hpp>
#include <cxmat/core/workspace.hpp>
#include <cxmat/transformer/layers.hpp>

#include "attention_steps.hpp"

namespace layers {

/// A reproducible input value in [-1, 1): a hash of (seed, i, j) scaled by 2^-23. Integer
/// arithmetic and one exact conversion, so the firmware and the host produce the same bits.
constexpr float input_value(std::uint32_t seed, std::size_t i, std::size_t j) noexcept {
  std::uint32_t z =
      seed * 0x9e3779b9u + static_cast<std::uint32_t>(i) * 0x85ebca6bu + static_cast<std::uint32_t>(j) * 0xc2b2ae35u;
  z = (z ^ (z >> 16)) * 0x7feb352du;
  z = (z ^ (z >> 15)) * 0x846ca68bu;
  z ^= z >> 16;
  const auto bits = static_cast<std::int32_t>(z >> 8) - (std::int32_t{1} << 23);  // [-2^23, 2^23)
  return static_cast<float>(bits) * 0x1p-23f;
}

/// An n x d frame of input_value(seed, i, j).
template <class M>
constexpr M hashed_input(std::uint32_t seed) noexcept {
  M m{};
  for (std::size_t i = 0; i < M::rows; ++i) {
    for (std::size_t j = 0; j < M::cols; ++j) m(i, j) = input_value(seed, i, j);
  }
  return m;
}

/// No layer at all: the frame copied in and out. Its image is the fixed part of every program
/// (vector table, start-up, the I/O copies), so a layer's own cost is its image minus this one.
struct baseline {
  static constexpr const char* name = "baseline";
  using input = model::frame;
  using output = model::frame;
  static constexpr input make_input() noexcept { return hashed_input<input>(1); }
  static output run(const input& x) noexcept { return x; }
};

/// Multi-head self-attention with W_o, n = 8, d_model = 16, H = 2 (model.hpp).
struct self_attention {
  static constexpr const char* name = "self_attention";
  using input = model::frame;
  using output = model::frame;
  static constexpr input make_input() noexcept { return hashed_input<input>(1); }
  static output run(const input& x) noexcept { return model::self_attention_step(x); }
};

/// The frame attends to a fixed 16-row context whose keys and values are projected per call.
struct cross_attention {
  static constexpr const char* name = "cross_attention";
  using input = model::frame;
  using output = model::frame;
  static constexpr input make_input() noexcept { return hashed_input<input>(2); }
  static output run(const input& x) noexcept { return model::cross_attention_step(x); }
};

/// The same, with the context's keys and values folded by the compiler.
struct cross_attention_folded {
  static constexpr const char* name = "cross_attention_folded";
  using input = model::frame;
  using output = model::frame;
  static constexpr input make_input() noexcept { return hashed_input<input>(2); }
  static output run(const input& x) noexcept { return model::cross_attention_step_folded(x); }
};

/// Worksheet 004's layer in float: 5 tokens of width 6, H = 3 heads of width 2, no W_o; the
/// worksheet's X is the input (it reaches the firmware at run time, like a sensor frame).
struct worksheet_004 {
  static constexpr const char* name = "worksheet_004";
  using input = cxmat::matrix<float, 5, 6>;
  using output = cxmat::matrix<float, 5, 6>;
  using weights = cxmat::matrix<float, 6, 6>;
  static constexpr weights wq{{{-1.7f, 1.6f, 0.9f, -0.5f, 0.4f, -1.f},
                               {-0.4f, 1.f, -0.3f, 1.f, 0.5f, 1.1f},
                               {0.4f, -0.9f, -1.f, 0.5f, -1.4f, 0.f},
                               {0.3f, 1.4f, -1.2f, 0.2f, 0.1f, 1.6f},
                               {-0.8f, 0.8f, -0.7f, -1.3f, 0.3f, 0.8f},
                               {1.1f, 0.3f, -1.5f, -2.3f, 2.2f, -0.7f}}};
  static constexpr weights wk{{{0.3f, -0.4f, -1.3f, 0.3f, -1.7f, 1.1f},
                               {-2.3f, -1.1f, 0.6f, -1.2f, 2.2f, 0.3f},
                               {1.1f, -0.4f, -0.5f, 1.9f, -1.1f, -1.2f},
                               {-0.4f, 1.f, -1.7f, 0.f, -3.3f, -1.4f},
                               {-0.9f, -1.1f, -1.f, 1.4f, 1.3f, 1.2f},
                               {-0.7f, 0.4f, 0.4f, -1.4f, -0.2f, -0.5f}}};
  static constexpr weights wv{{{-0.1f, 0.7f, 1.f, -0.1f, 1.6f, 0.9f},
                               {0.4f, -1.f, -0.7f, -0.6f, -0.9f, -0.1f},
                               {-0.4f, 0.5f, -1.4f, 0.1f, 0.6f, 0.4f},
                               {1.4f, -1.3f, -1.3f, -0.6f, 1.6f, -0.2f},
                               {-0.4f, -0.6f, -1.4f, -1.f, 0.4f, -0.8f},
                               {0.2f, 0.5f, 0.4f, -0.5f, 1.4f, 2.3f}}};
  static constexpr input make_input() noexcept {
    return input{{{0.7f, -0.8f, -1.2f, -1.f, -0.f, -0.3f},
                  {2.7f, 0.1f, 1.6f, 1.8f, 1.5f, 0.3f},
                  {0.1f, 2.6f, -0.1f, -1.3f, -0.5f, -0.7f},
                  {1.1f, 1.5f, 1.f, -0.5f, 0.4f, 0.4f},
                  {-0.7f, -0.7f, 0.7f, -1.5f, -0.8f, 1.f}}};
  }
  static output run(const input& x) noexcept { return cxmat::multi_head_attention<3>(x, wq, wk, wv); }
};

/// A LayerNorm's gamma: 1 plus a value in [-0.25, 0.25).
constexpr cxmat::matrix<float, 1, model::width> near_one(std::uint64_t seed) noexcept {
  auto g = model::pseudo_random<cxmat::matrix<float, 1, model::width>>(seed, 0.25f);
  for (std::size_t j = 0; j < model::width; ++j) g(0, j) += 1.0f;
  return g;
}

/// A whole transformer encoder layer in float, PyTorch's nn.TransformerEncoderLayer(d_model = 16,
/// nhead = 2, dim_feedforward = 32, ReLU, post-norm) in evaluation mode: self-attention with
/// biases and W_o, residual, LayerNorm, feed-forward 16 -> 32 -> 16, residual, LayerNorm. The
/// attention weights are model.hpp's; the others are generated the same way.
struct encoder_layer {
  static constexpr const char* name = "encoder_layer";
  using input = model::frame;
  using output = model::frame;
  static constexpr std::size_t d_ff = 32;
  using row = cxmat::matrix<float, 1, model::width>;
  using type = cxmat::encoder_layer<float, model::width, model::heads, d_ff>;
  static constexpr type layer{
      {model::wq, model::wk, model::wv, model::pseudo_random<row>(6, 0.1f), model::pseudo_random<row>(7, 0.1f),
       model::pseudo_random<row>(8, 0.1f), model::wo, model::pseudo_random<row>(9, 0.1f)},
      {model::pseudo_random<cxmat::matrix<float, model::width, d_ff>>(10, 0.25f),
       model::pseudo_random<cxmat::matrix<float, 1, d_ff>>(11, 0.1f)},
      {model::pseudo_random<cxmat::matrix<float, d_ff, model::width>>(12, 0.17678f),  // about 1 / sqrt(d_ff)
       model::pseudo_random<row>(13, 0.1f)},
      {near_one(14), model::pseudo_random<row>(15, 0.1f), 1e-5f},
      {near_one(16), model::pseudo_random<row>(17, 0.1f), 1e-5f}};
  static constexpr input make_input() noexcept { return hashed_input<input>(3); }
  /// The scratch memory of a call, a compile-time constant (the layer's workspace, on the stack).
  static constexpr std::size_t scratch = cxmat::scratch_bytes<type, model::tokens>;
  static output run(const input& x) noexcept { return layer(x); }
};

/// The same layer computing in a workspace of the program's (.bss) instead of the stack.
struct encoder_layer_workspace : encoder_layer {
  static constexpr const char* name = "encoder_layer_workspace";
  static output run(const input& x) noexcept {
    static cxmat::workspace_for<type, model::tokens> ws;
    return layer(x, ws);
  }
};

}  // namespace layers
