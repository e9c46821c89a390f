// Built with TROUPE_MIMALLOC only. The program links troupe, not mimalloc:
// troupe's link interface alone must make mimalloc its allocator. mimalloc is
// looked up at run time, so the test does not bring it in itself.

#include "troupe/message.hpp"

#include <dlfcn.h>
#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>

namespace {

using in_heap_fn = bool (*)(const void*);

in_heap_fn mimalloc_in_heap() {
  return reinterpret_cast<in_heap_fn>(dlsym(RTLD_DEFAULT, "mi_is_in_heap_region"));
}

TEST(mimalloc, is_loaded_in_a_program_that_links_troupe) {
  EXPECT_NE(mimalloc_in_heap(), nullptr);
}

TEST(mimalloc, serves_malloc_and_operator_new) {
  auto in_heap = mimalloc_in_heap();
  ASSERT_NE(in_heap, nullptr);
  void* small = std::malloc(48);
  auto large = std::make_unique<std::array<char, 64 * 1024>>();
  EXPECT_TRUE(in_heap(small));
  EXPECT_TRUE(in_heap(large.get()));
  std::free(small);
}

TEST(mimalloc, serves_the_strings_inside_messages) {
  auto in_heap = mimalloc_in_heap();
  ASSERT_NE(in_heap, nullptr);
  auto msg = troupe::make_message(int32_t{1}, std::string(100, 'x'));
  EXPECT_TRUE(in_heap(msg.get_as<std::string>(1).data()));
}

} // namespace
