#pragma once

// CAF_TEST_MAIN(): a main() that runs every test of the program, CAF's
// TEST("...") ones (troupe/test/test.hpp) and GoogleTest's alike, and
// accepts GoogleTest's options (--gtest_filter=...). Type ID blocks and
// modules named in it need nothing: Troupe registers blocks itself, and
// each fixture configures the actor system it builds.

#include <gtest/gtest.h>

#define TROUPE_TEST_MAIN(...)                                                  \
  int main(int argc, char** argv) {                                            \
    ::testing::InitGoogleTest(&argc, argv);                                    \
    return RUN_ALL_TESTS();                                                    \
  }
