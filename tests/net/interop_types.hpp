#pragma once

// User types the network tests send between nodes. Each program registers
// the ones it knows in its own type-ID block: type_table_test and
// type_table_peer give them other IDs, and each leaves one out.

#include <cstdint>
#include <string>

namespace interop {

struct order {
  int32_t id = 0;
  std::string item;
};

template <class Inspector>
bool inspect(Inspector& f, order& x) {
  return f.object(x).fields(f.field("id", x.id), f.field("item", x.item));
}

struct receipt {
  int32_t id = 0;
  std::string text;
};

template <class Inspector>
bool inspect(Inspector& f, receipt& x) {
  return f.object(x).fields(f.field("id", x.id), f.field("text", x.text));
}

/// Known to type_table_test only.
struct test_only {
  int32_t value = 0;
};

template <class Inspector>
bool inspect(Inspector& f, test_only& x) {
  return f.object(x).fields(f.field("value", x.value));
}

/// Known to type_table_peer only.
struct peer_only {
  int32_t value = 0;
};

template <class Inspector>
bool inspect(Inspector& f, peer_only& x) {
  return f.object(x).fields(f.field("value", x.value));
}

} // namespace interop
