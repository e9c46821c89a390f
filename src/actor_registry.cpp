#include "troupe/actor_registry.hpp"

#include <utility>

namespace troupe {

void actor_registry::put_entry(std::string name, entry x) {
  entry old;
  std::lock_guard guard{mtx_};
  if (!x.hdl) {
    if (auto i = entries_.find(name); i != entries_.end()) {
      old = std::move(i->second);
      entries_.erase(i);
    }
    return;
  }
  auto& slot = entries_[std::move(name)];
  old = std::exchange(slot, std::move(x));
}

std::optional<actor_registry::entry> actor_registry::find(std::string_view name) const {
  std::lock_guard guard{mtx_};
  if (auto i = entries_.find(name); i != entries_.end())
    return i->second;
  return std::nullopt;
}

void actor_registry::erase(std::string_view name) {
  entry old;
  std::lock_guard guard{mtx_};
  if (auto i = entries_.find(name); i != entries_.end()) {
    old = std::move(i->second);
    entries_.erase(i);
  }
}

std::vector<std::string> actor_registry::names() const {
  std::lock_guard guard{mtx_};
  std::vector<std::string> result;
  for (auto& [name, x] : entries_)
    result.push_back(name);
  return result;
}

void actor_registry::clear() {
  std::map<std::string, entry, std::less<>> old;
  {
    std::lock_guard guard{mtx_};
    old.swap(entries_);
  }
}

} // namespace troupe
