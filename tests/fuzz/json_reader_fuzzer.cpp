// Fuzzes json_reader: any input loads as a troupe::message and as a
// fuzz_types::record, or fails with an error that says why (see
// round_trip.hpp for what a loaded value must satisfy).

#include "fuzz_types.hpp"
#include "round_trip.hpp"

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace {

template <class T>
void load(std::string_view input) {
  auto x = troupe::from_json<T>(input);
  if (!x) {
    fuzz_types::check_error(x.error());
    return;
  }
  // Loaded from JSON, it has JSON: no text that is not Unicode.
  if (!troupe::to_json(*x))
    fuzz_types::violated("JSON save of a value loaded from JSON failed");
  fuzz_types::check_round_trips(*x);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view input{reinterpret_cast<const char*>(data), size};
  load<troupe::message>(input);
  load<fuzz_types::record>(input);
  return 0;
}
