#pragma once

// A node's identity: random bytes that differ between two runs of one
// program, with the host and process for people to read. A node that
// restarts is a new node.

#include <array>
#include <cstdint>
#include <string>

namespace troupe::net {

struct node_id {
  std::array<uint8_t, 16> bytes{};
  std::string host;
  uint32_t pid = 0;

  /// A fresh identity for this process.
  static node_id make();

  friend bool operator==(const node_id& x, const node_id& y) noexcept {
    return x.bytes == y.bytes;
  }

  /// "host:pid#0123abcd" ("#0123abcd" without a host).
  std::string to_string() const;
};

inline std::string to_string(const node_id& x) {
  return x.to_string();
}

} // namespace troupe::net
