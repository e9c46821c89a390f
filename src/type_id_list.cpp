#include "troupe/type_id_list.hpp"

#include <array>
#include <atomic>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace troupe {

namespace {

// One-element lists, by ID: a lock-free table, since they are by far the
// most common. Entries are {1, id} arrays that live until the process ends.
const type_id_t* intern_single(type_id_t id) {
  static std::array<std::atomic<const type_id_t*>, 65536> singles{};
  auto& slot = singles[id];
  if (auto* list = slot.load(std::memory_order_acquire))
    return list;
  auto* fresh = static_cast<type_id_t*>(::operator new(2 * sizeof(type_id_t)));
  fresh[0] = 1;
  fresh[1] = id;
  const type_id_t* expected = nullptr;
  if (slot.compare_exchange_strong(expected, fresh, std::memory_order_acq_rel))
    return fresh;
  ::operator delete(fresh); // another thread was first
  return expected;
}

// A plain loop: lists are short, and std::equal would call memcmp.
bool equal_ids(const type_id_t* list, std::span<const type_id_t> ids) noexcept {
  if (list[0] != ids.size())
    return false;
  for (size_t i = 0; i < ids.size(); ++i)
    if (list[i + 1] != ids[i])
      return false;
  return true;
}

// Longer lists: a global registry behind a mutex, with a small per-thread
// cache in front of it, so that a thread building the same kinds of messages
// again and again does not take the lock.
const type_id_t* intern_many(std::span<const type_id_t> ids) {
  size_t hash = ids.size();
  for (auto id : ids)
    hash = hash * 31 + id;
  static thread_local constinit std::array<const type_id_t*, 16> recent{};
  auto& cached = recent[hash % recent.size()];
  if (cached != nullptr && equal_ids(cached, ids))
    return cached;
  struct registry {
    std::mutex mtx;
    // Keyed by the raw bytes of the ids; values are {size, ids...} (vectors
    // rather than new[] arrays, so that allocation-failure tests see them).
    std::unordered_map<std::string, std::vector<type_id_t>> lists;
  };
  static registry reg;
  std::string key(reinterpret_cast<const char*>(ids.data()), ids.size() * sizeof(type_id_t));
  std::lock_guard guard{reg.mtx};
  auto& slot = reg.lists[key];
  if (slot.empty()) {
    std::vector<type_id_t> list;
    list.reserve(ids.size() + 1);
    list.push_back(static_cast<type_id_t>(ids.size()));
    list.insert(list.end(), ids.begin(), ids.end());
    slot = std::move(list);
  }
  cached = slot.data();
  return cached;
}

} // namespace

type_id_list type_id_list::intern(std::span<const type_id_t> ids) {
  if (ids.empty())
    return type_id_list::of<>();
  if (ids.size() == 1)
    return type_id_list{intern_single(ids[0])};
  return type_id_list{intern_many(ids)};
}

std::string to_string(type_id_list xs) {
  std::string result = "(";
  for (size_t i = 0; i < xs.size(); ++i) {
    if (i > 0)
      result += ", ";
    result += query_type_name(xs[i]);
  }
  result += ')';
  return result;
}

} // namespace troupe
