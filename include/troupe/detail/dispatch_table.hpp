#pragma once

// Finds the handler for a message's type list in constant time, however many
// handlers a behavior has: an open-addressing table (linear probing, at most
// half full) from type ID list to handler index.
//
// The key is a hash of the list's size and first two IDs, not its address:
// the static lists of make_message and the interned lists of message_builder
// are different arrays for equal lists. A slot's list is compared by pointer
// first, by contents only when the pointers differ.
//
// Behaviors with handlers known at compile time build their table at compile
// time (static_dispatch_table); or_else builds one at run time over the
// handlers of all its behaviors (dynamic_dispatch_table).

#include "troupe/type_id_list.hpp"

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>
#include <vector>

namespace troupe::detail {

/// Equal lists hash alike wherever they are stored. Two multiplications
/// (Fibonacci hashing) whose high bits pick the slot: lists differing only
/// in their first or only in their second ID spread as well.
constexpr uint64_t dispatch_hash(const type_id_t* xs) noexcept {
  uint64_t head = xs[0];
  uint64_t second = 0;
  if (xs[0] > 0)
    head |= uint64_t{xs[1]} << 16;
  if (xs[0] > 1)
    second = xs[2];
  return head * 0x9E3779B97F4A7C15u + second * 0xC2B2AE3D27D4EB4Fu;
}

/// The slot a hash starts probing at in a table of 2^(64 - shift) slots.
constexpr size_t dispatch_start(uint64_t hash, unsigned shift) noexcept {
  return static_cast<size_t>(hash >> shift);
}

/// A key and what it maps to in one slot, so that a direct hit costs one load.
template <class Value>
struct dispatch_slot {
  /// Null marks an empty slot.
  const type_id_t* key = nullptr;
  Value value{};
};

/// Run time only: compares addresses first.
template <class Value>
const Value* dispatch_find(const dispatch_slot<Value>* slots, unsigned shift,
                                     type_id_list types) noexcept {
  size_t mask = ~size_t{0} >> shift;
  for (size_t i = dispatch_start(dispatch_hash(types.data()), shift);; i = (i + 1) & mask) {
    auto& slot = slots[i];
    if (slot.key == types.data())
      return &slot.value;
    if (slot.key == nullptr)
      return nullptr;
    if (type_id_list{slot.key} == types)
      return &slot.value;
  }
}

/// Equal contents. Never compares addresses: under UBSan, GCC cannot fold a
/// comparison of a variable's address, so tables built at compile time must
/// not need one.
constexpr bool same_type_ids(const type_id_t* x, const type_id_t* y) noexcept {
  if (x[0] != y[0])
    return false;
  for (size_t i = 1; i <= x[0]; ++i)
    if (x[i] != y[i])
      return false;
  return true;
}

/// Adds `key` unless an earlier key is the same list: the first of duplicates
/// wins, as in a walk over the handlers in order. `used` marks the slots
/// taken so far.
template <class Value, class Flag>
constexpr void dispatch_insert(dispatch_slot<Value>* slots, Flag* used, unsigned shift,
                               const type_id_t* key, Value value) noexcept {
  size_t mask = ~size_t{0} >> shift;
  for (size_t i = dispatch_start(dispatch_hash(key), shift);; i = (i + 1) & mask) {
    if (!used[i]) {
      used[i] = true;
      slots[i] = dispatch_slot<Value>{key, value};
      return;
    }
    if (same_type_ids(slots[i].key, key))
      return;
  }
}

/// Room for `n` keys at most half full (a power of two, at least 2).
constexpr size_t dispatch_capacity(size_t n) noexcept {
  return std::bit_ceil(2 * n + (n == 0 ? 2 : 0));
}

/// 64 - log2(capacity).
constexpr unsigned dispatch_shift(size_t capacity) noexcept {
  return static_cast<unsigned>(64 - std::countr_zero(capacity));
}

/// The table for `N` lists known at compile time, built at compile time.
template <size_t N, class Value>
class static_dispatch_table {
public:
  static constexpr size_t capacity = dispatch_capacity(N);
  static constexpr unsigned shift = dispatch_shift(capacity);

  /// Keys in handler order.
  constexpr static_dispatch_table(const std::array<const type_id_t*, N>& keys,
                                  const std::array<Value, N>& values) noexcept {
    std::array<bool, capacity> used{};
    for (size_t i = 0; i < N; ++i)
      dispatch_insert(slots_.data(), used.data(), shift, keys[i], values[i]);
  }

  /// The value of the first key equal to `types`, or null.
  const Value* find(type_id_list types) const noexcept {
    return dispatch_find(slots_.data(), shift, types);
  }

private:
  std::array<dispatch_slot<Value>, capacity> slots_{};
};

/// The same table, built at run time.
template <class Value>
class dynamic_dispatch_table {
public:
  dynamic_dispatch_table() = default;

  /// Keys in handler order, null for none (a catch-all handler).
  dynamic_dispatch_table(const std::vector<const type_id_t*>& keys,
                         const std::vector<Value>& values)
    : shift_(dispatch_shift(dispatch_capacity(keys.size()))),
      slots_(dispatch_capacity(keys.size())) {
    std::vector<uint8_t> used(slots_.size());
    for (size_t i = 0; i < keys.size(); ++i)
      if (keys[i] != nullptr)
        dispatch_insert(slots_.data(), used.data(), shift_, keys[i], values[i]);
  }

  const Value* find(type_id_list types) const noexcept {
    return dispatch_find(slots_.data(), shift_, types);
  }

private:
  unsigned shift_ = 63;
  std::vector<dispatch_slot<Value>> slots_ = std::vector<dispatch_slot<Value>>(2);
};

} // namespace troupe::detail
