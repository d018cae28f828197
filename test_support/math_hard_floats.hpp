// Floats whose log, tanh, erf, sin or cos lies within 2^-50 (relative) of a float rounding
// boundary: the inputs the exhaustive sweeps `cxmat_math_accuracy --part F-float` print as
// "decided by MPFR" (glibc's x87 long double result that close to a boundary), without the exact
// cases 0 and log(1). Every one fails the rounding test of the float fast path
// (CXMAT_DETAIL_ROUNDS_AS_FLOAT) and is computed by the double-double kernel; for some (7 of
// log's, a few of sin's and cos's) the fast result rounded directly would be wrong, so the sampled
// run fails if the fallback is removed. The sampled accuracy run checks them (and their
// negatives) against MPFR, math_runtime compares their compile-time and run-time bits.
#pragma once

namespace cxmat_test {

inline constexpr float hard_log_floats[] = {
    0x1.55c90ep-123f, 0x1.996896p-115f, 0x1.80c1f4p-112f, 0x1.917748p-100f, 0x1.c3fec6p-97f,  0x1.390ffp-93f,
    0x1.b96da8p-87f,  0x1.20e0aap-86f,  0x1.0ee5d6p-84f,  0x1.8bdcf4p-82f,  0x1.60de54p-78f,  0x1.088d96p-74f,
    0x1.5901b8p-74f,  0x1.0356a4p-72f,  0x1.22d57p-65f,   0x1.24b5a8p-58f,  0x1.47810ap-55f,  0x1.c7f44cp-46f,
    0x1.cc24d6p-44f,  0x1.fa45fp-44f,   0x1.98496ep-39f,  0x1.925308p-35f,  0x1.b97c7p-14f,   0x1.86269p-12f,
    0x1.f0ddep-8f,    0x1.827a74p-7f,   0x1.566842p-3f,   0x1.2f1fd6p+3f,   0x1.9ab656p+13f,  0x1.cb534cp+13f,
    0x1.bacb4ap+25f,  0x1.c09d7cp+27f,  0x1.0be824p+30f,  0x1.5f313ap+42f,  0x1.000682p+60f,  0x1.d1309cp+62f,
    0x1.c98494p+63f,  0x1.68cf74p+70f,  0x1.c4ff46p+74f,  0x1.b121a6p+76f,  0x1.5190cp+78f,   0x1.577ac6p+78f,
    0x1.29972cp+83f,  0x1.3e47d6p+91f,  0x1.6351d8p+95f,  0x1.0bbddp+105f,  0x1.cfd86ep+116f, 0x1.3171e8p+124f,
};

inline constexpr float hard_tanh_floats[] = {
    0x1.86fbc4p-10f,
};

inline constexpr float hard_erf_floats[] = {
    0x1.1d3a5ap-20f,
    0x1.5d48ccp-18f,
    0x1.81d5acp-13f,
    0x1.800afap-12f,
};

inline constexpr float hard_sin_floats[] = {
    0x1.9eab2ep-4f,   0x1.e7061ep-2f,   0x1.a88a5p+6f,    0x1.e35bc6p+7f,   0x1.515766p+12f,  0x1.33333p+13f,
    0x1.cf9736p+19f,  0x1.30f266p+22f,  0x1.4b4f2cp+22f,  0x1.9a238ep+30f,  0x1.6ad26ep+32f,  0x1.95f654p+44f,
    0x1.bf610ap+50f,  0x1.26be98p+54f,  0x1.5bad12p+60f,  0x1.cf1242p+60f,  0x1.411b04p+63f,  0x1.db0e6p+67f,
    0x1.bf908ep+68f,  0x1.8d9d8p+73f,   0x1.79dd1ep+75f,  0x1.0a371ap+79f,  0x1.524856p+80f,  0x1.7ec1fep+85f,
    0x1.e68b32p+91f,  0x1.9d505cp+92f,  0x1.487e0cp+103f, 0x1.a3eda6p+116f, 0x1.b559b6p+117f, 0x1.02f61p+118f,
    0x1.5d2c94p+121f, 0x1.54594ep+127f,
};

inline constexpr float hard_cos_floats[] = {
    0x1p-12f,         0x1.1e377ap-11f,  0x1.a8872ap-11f,  0x1.20ffccp-7f,   0x1.bf4e1cp-3f,   0x1.6f1b7p+5f,
    0x1.8f219cp+5f,   0x1.f0b444p+14f,  0x1.41c47p+16f,   0x1.0d5fdcp+20f,  0x1.03b948p+21f,  0x1.b6cbfep+29f,
    0x1.97cb02p+33f,  0x1.57eb54p+36f,  0x1.b3a7fcp+38f,  0x1.f10928p+38f,  0x1.ca46bap+44f,  0x1.4555p+51f,
    0x1.887814p+51f,  0x1.192436p+54f,  0x1.3170fp+63f,   0x1.2b9622p+67f,  0x1.e072ecp+67f,  0x1.267628p+74f,
    0x1.f1d224p+83f,  0x1.9fabbp+105f,  0x1.b4992ap+108f, 0x1.ae2e7ep+110f, 0x1.ef6c48p+112f, 0x1.119ae6p+115f,
    0x1.f9de9ep+115f, 0x1.715668p+117f, 0x1.96344ep+117f, 0x1.c9083cp+121f, 0x1.d35c3cp+121f, 0x1.722d0ep+124f,
};

}  // namespace cxmat_test
