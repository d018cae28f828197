// The one translation unit that holds Catch2's main (v2 needs it defined by the project).
#if defined(CXMAT_CATCH2_V3)
#include <catch2/catch_session.hpp>
int main(int argc, char* argv[]) { return Catch::Session().run(argc, argv); }
#else
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
#endif
