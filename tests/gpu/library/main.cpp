// The device library's GPU tests (tests/gpu/CMakeLists.txt says how to run them).
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
