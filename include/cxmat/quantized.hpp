// Copyright the cxmat authors.
// SPDX-License-Identifier: BSL-1.0
// The int8 layer: TFLite / CMSIS-NN integer arithmetic (requantization, products, softmax, sums),
// quantized multi-head attention, linear layers, layer norm, encoder and decoder layers, and their
// calibration at compile time or run time, in namespace cxmat::q8.
#pragma once

#include <cxmat/quantized/add.hpp>
#include <cxmat/quantized/attention.hpp>
#include <cxmat/quantized/calibrate.hpp>
#include <cxmat/quantized/decoder_layer.hpp>
#include <cxmat/quantized/encoder_layer.hpp>
#include <cxmat/quantized/group_linear.hpp>
#include <cxmat/quantized/layer_norm.hpp>
#include <cxmat/quantized/linear.hpp>
#include <cxmat/quantized/matmul.hpp>
#include <cxmat/quantized/quantize.hpp>
#include <cxmat/quantized/requantize.hpp>
#include <cxmat/quantized/softmax.hpp>
