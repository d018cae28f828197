// The layers the firmware runs, each with the input it is given: shared by the firmware (which
// runs one of them per image, on a Cortex-M or in an emulator) and the host program that
// computes the same layers and checks what the firmware printed.
#pragma once

#include <cstddef>
#include <cstdint>

#include <cxmat/attention/multi_head.hpp>
#include <cxmat/core/matrix.hpp>

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

}  // namespace layers
