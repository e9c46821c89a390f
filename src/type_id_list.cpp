#include "troupe/type_id_list.hpp"

#include <memory>
#include <mutex>
#include <string_view>
#include <unordered_map>

namespace troupe {

type_id_list type_id_list::intern(std::span<const type_id_t> ids) {
  if (ids.empty())
    return type_id_list::of<>();
  struct registry {
    std::mutex mtx;
    // Keyed by the raw bytes of the ids; values are {size, ids...} arrays
    // that live until the process ends.
    std::unordered_map<std::string, std::unique_ptr<type_id_t[]>> lists;
  };
  static registry reg;
  std::string key(reinterpret_cast<const char*>(ids.data()),
                  ids.size() * sizeof(type_id_t));
  std::lock_guard guard{reg.mtx};
  auto& slot = reg.lists[key];
  if (!slot) {
    slot = std::make_unique<type_id_t[]>(ids.size() + 1);
    slot[0] = static_cast<type_id_t>(ids.size());
    std::copy(ids.begin(), ids.end(), slot.get() + 1);
  }
  return type_id_list{slot.get()};
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
