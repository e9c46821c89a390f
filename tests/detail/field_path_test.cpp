#include "troupe/detail/field_path.hpp"

#include <gtest/gtest.h>

#include <string>

using troupe::detail::field_path;

TEST(field_path, an_empty_path_renders_as_nothing) {
  field_path path;
  EXPECT_EQ(path.to_string(), "");
}

TEST(field_path, the_outermost_object_names_the_path_and_fields_follow_with_dots) {
  field_path path;
  path.begin_object("bar");
  path.push("a");
  path.begin_object("foo"); // nested objects stay unnamed
  path.push("b");
  EXPECT_EQ(path.to_string(), "bar.a.b");
  path.pop();
  path.pop();
  EXPECT_EQ(path.to_string(), "bar");
  EXPECT_EQ(path.depth(), 0u);
}

TEST(field_path, indexed_segments_render_in_brackets) {
  field_path path;
  path.begin_object("message");
  path.push({}, 1);
  path.push("x");
  EXPECT_EQ(path.to_string(), "message[1].x");
}

TEST(field_path, fields_below_the_maximum_depth_are_counted_but_not_named) {
  field_path path;
  for (size_t i = 0; i < field_path::max_depth + 3; ++i)
    path.push("f");
  EXPECT_EQ(path.depth(), field_path::max_depth + 3);
  auto str = path.to_string();
  EXPECT_EQ(str.substr(str.size() - 6), ".(...)");
  for (size_t i = 0; i < 3; ++i)
    path.pop();
  EXPECT_EQ(path.to_string().find("(...)"), std::string::npos);
}

TEST(field_path, clearing_forgets_the_root_and_the_fields) {
  field_path path;
  path.begin_object("bar");
  path.push("a");
  path.clear();
  EXPECT_EQ(path.to_string(), "");
}
