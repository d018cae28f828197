// Includes Catch2 v3 or v2, whichever the build found, so test sources need not care.
#pragma once

#if defined(CXMAT_CATCH2_V3)
#include <catch2/catch_approx.hpp>
#include <catch2/catch_test_macros.hpp>
#include <catch2/generators/catch_generators.hpp>
#include <catch2/matchers/catch_matchers_floating_point.hpp>
#else
#include <catch2/catch.hpp>
#endif
