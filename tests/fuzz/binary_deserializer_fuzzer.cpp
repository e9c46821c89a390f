// Fuzzes binary_deserializer: any input loads as a troupe::message and as a
// fuzz_types::record, or fails with an error that says why (see
// round_trip.hpp for what a loaded value must satisfy).

#include "fuzz_types.hpp"
#include "round_trip.hpp"

#include <cstddef>
#include <cstdint>
#include <span>

namespace {

template <class T>
void load(std::span<const std::byte> input) {
  auto x = troupe::from_binary<T>(input);
  if (x)
    fuzz_types::check_round_trips(*x);
  else
    fuzz_types::check_error(x.error());
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto input = std::as_bytes(std::span{data, size});
  load<troupe::message>(input);
  load<fuzz_types::record>(input);
  return 0;
}
