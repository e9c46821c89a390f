#pragma once

// What every deserializer fuzzer checks about a value it managed to load:
// saving succeeds, and loading what was saved gives a value that saves to
// the same bytes, in both formats. A violation aborts, which libFuzzer
// reports as a crash with its input.

#include "troupe/binary_deserializer.hpp"
#include "troupe/binary_serializer.hpp"
#include "troupe/json_reader.hpp"
#include "troupe/json_writer.hpp"

#include <cstdio>
#include <cstdlib>
#include <string>

namespace fuzz_types {

[[noreturn]] inline void violated(const char* what, const troupe::error& err = {}) {
  std::fprintf(stderr, "round trip violated: %s %s\n", what, to_string(err).c_str());
  std::abort();
}

/// A failed load must say why.
inline void check_error(const troupe::error& err) {
  if (!err || err.context().empty())
    violated("a failed load without an error message", err);
}

/// `x` was loaded; both formats must save it and load it back alike.
template <class T>
void check_round_trips(const T& x) {
  auto bytes = troupe::to_binary(x);
  if (!bytes)
    violated("binary save of a loaded value failed:", bytes.error());
  auto from_bytes = troupe::from_binary<T>(*bytes);
  if (!from_bytes)
    violated("binary load of a saved value failed:", from_bytes.error());
  auto bytes_again = troupe::to_binary(*from_bytes);
  if (!bytes_again || *bytes_again != *bytes)
    violated("binary save, load and save gave other bytes");
  auto text = troupe::to_json(x);
  if (!text) {
    // Only text that is not Unicode (JSON holds nothing else) and time
    // points outside the years 0000-9999 have no JSON.
    if (text.error() != troupe::errc::invalid_argument)
      violated("JSON save failed:", text.error());
    return;
  }
  auto from_text = troupe::from_json<T>(*text);
  if (!from_text) {
    // A value nested deeper than the reader's limit.
    if (from_text.error() != troupe::errc::parse_error)
      violated("JSON load of saved text failed:", from_text.error());
    return;
  }
  auto text_again = troupe::to_json(*from_text);
  if (!text_again || *text_again != *text)
    violated("JSON save, load and save gave other text");
}

} // namespace fuzz_types
