// The int8 layer: TFLite / CMSIS-NN integer arithmetic (requantization, products, softmax),
// quantized multi-head attention and its compile-time calibration, in namespace cxmat::q8.
#pragma once

#include <cxmat/quantized/attention.hpp>
#include <cxmat/quantized/calibrate.hpp>
#include <cxmat/quantized/matmul.hpp>
#include <cxmat/quantized/quantize.hpp>
#include <cxmat/quantized/requantize.hpp>
#include <cxmat/quantized/softmax.hpp>
