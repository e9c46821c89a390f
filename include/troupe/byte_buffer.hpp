#pragma once

// The bytes a binary_serializer writes and a binary_deserializer reads.

#include <cstddef>
#include <vector>

namespace troupe {

using byte_buffer = std::vector<std::byte>;

} // namespace troupe
