// Copyright the cxmat authors.
// SPDX-License-Identifier: BSL-1.0
// Workspaces: the memory a module's call computes in, named by the module's type and the call's
// sizes, so that its size is a compile-time constant. A module with a workspace has a member
// template `workspace<N...>` (the int8 layers, the float layers, the language models); a call
// without one declares it on its stack, a call given one (a static object: in .bss, its size
// known when the image is linked) keeps only its frames on the stack.
#pragma once

#include <cstddef>

namespace cxmat {

/// The workspace type of a module for a call on N... rows (a self-attention or encoder layer:
/// N; a decoder layer or cross-attention: N queries, S memory rows; a language model: the rows
/// of one call).
template <class Module, std::size_t... N>
using workspace_for = typename Module::template workspace<N...>;

/// The scratch memory of one call of a module on N... rows, in bytes, a compile-time constant:
/// what a call without a workspace keeps on its stack besides its frames and rows, and what a
/// caller-provided workspace holds.
template <class Module, std::size_t... N>
inline constexpr std::size_t scratch_bytes = sizeof(workspace_for<Module, N...>);

}  // namespace cxmat
