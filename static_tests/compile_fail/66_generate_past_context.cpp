// Mistake: Asking a model with a context of 16 positions for 14 new tokens after a prompt of 3.
// Rule: generate<N>(model, prompt): the prompt's P tokens and the N new ones fit the model's context.
// Expect: shape_error::generate_prompt_plus_new_tokens_must_fit_context<cxmat::dim<3, cxmat::anonymous> ?, cxmat::dim<14, cxmat::anonymous> ?, cxmat::dim<16, cxmat::anonymous> ?>
// Expect-plain: error: static assertion failed: generate<N>\(model, prompt\): the prompt's 3 tokens and the 14 new ones must fit the model's context of 16 positions
#include <cxmat/generation.hpp>

constexpr cxmat::llama_model<float, 13, 8, 1, 2, 1, 12, 16> model{};
constexpr cxmat::matrix<int, 1, 3> prompt{{{1, 2, 3}}};
#ifdef CXMAT_COMPILE_FAIL
inline constexpr auto next = cxmat::generate<14>(model, prompt);
#else
inline constexpr auto next = cxmat::generate<13>(model, prompt);
#endif
