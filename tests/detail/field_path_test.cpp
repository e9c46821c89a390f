#include "troupe/detail/field_path.hpp"

#include "troupe/error.hpp"

#include <gtest/gtest.h>

#include <string>

using troupe::detail::field_path;

// A failure adds the innermost field first, then the fields and objects
// around it as it unwinds.

TEST(field_path, an_empty_path_renders_as_nothing) {
  field_path path;
  EXPECT_TRUE(path.empty());
  EXPECT_EQ(path.to_string(), "");
}

TEST(field_path, the_outermost_object_names_the_path_and_fields_follow_with_dots) {
  field_path path;
  path.add_field("b");
  path.add_object("foo"); // nested objects stay unnamed
  path.add_field("a");
  path.add_object("bar");
  EXPECT_FALSE(path.empty());
  EXPECT_EQ(path.to_string(), "bar.a.b");
}

TEST(field_path, fields_outside_any_object_render_without_a_root) {
  field_path path;
  path.add_field("x");
  EXPECT_EQ(path.to_string(), "x");
}

TEST(field_path, indexed_segments_render_in_brackets) {
  field_path path;
  path.add_field("x");
  path.add_field({}, 1);
  path.add_object("message");
  EXPECT_EQ(path.to_string(), "message[1].x");
}

TEST(field_path, fields_below_the_maximum_depth_are_counted_but_not_named) {
  field_path path;
  path.add_field("inner");
  for (size_t i = 0; i < field_path::max_depth + 2; ++i)
    path.add_field("f");
  path.add_field("outer");
  path.add_object("root");
  auto str = path.to_string();
  EXPECT_EQ(str.rfind("root.outer.f.", 0), 0u) << str;
  EXPECT_EQ(str.substr(str.size() - 6), ".(...)") << str;
  EXPECT_EQ(str.find("inner"), std::string::npos) << str;
}

TEST(field_path, clearing_forgets_the_root_and_the_fields) {
  field_path path;
  path.add_field("a");
  path.add_object("bar");
  path.clear();
  EXPECT_TRUE(path.empty());
  EXPECT_EQ(path.to_string(), "");
}

TEST(field_path, moving_into_an_error_prefixes_its_context_once) {
  field_path path;
  path.add_field("a");
  path.add_object("bar");
  auto err = troupe::make_error(troupe::errc::malformed_input, "bad");
  path.move_into(err);
  EXPECT_EQ(err.context(), "bar.a: bad");
  EXPECT_TRUE(path.empty());
  path.move_into(err);
  EXPECT_EQ(err.context(), "bar.a: bad");
}
