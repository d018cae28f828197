// Copyright the cxmat authors.
// SPDX-License-Identifier: BSL-1.0
// attention_result: an attention output together with the weights that produced it.
#pragma once

namespace cxmat {

/// An attention output and the attention weights that produced it (`.output`, `.weights`), as
/// returned by the *_with_weights functions.
template <class Output, class Weights>
struct attention_result {
  Output output;
  Weights weights;
};

}  // namespace cxmat
