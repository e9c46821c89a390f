#include "troupe/type_id.hpp"

#include "troupe/logger.hpp"

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>

namespace troupe::detail {

// Written during static initialisation (one thread), read afterwards by all.
constinit std::atomic<const meta_object*> global_meta_objects[65536] = {};

namespace {

// Names to IDs, for formats that name types (JSON). Registration is rare,
// so one lock suffices.
struct name_index {
  std::mutex mtx;
  std::map<std::string_view, type_id_t, std::less<>> ids;
};

name_index& names() {
  static name_index index;
  return index;
}

} // namespace

bool register_meta_object(type_id_t id, const meta_object* obj) noexcept {
  const meta_object* expected = nullptr;
  auto& slot = global_meta_objects[id];
  if (slot.compare_exchange_strong(expected, obj, std::memory_order_acq_rel)) {
    auto& index = names();
    std::lock_guard guard{index.mtx};
    index.ids.emplace(obj->type_name, id);
    return true;
  }
  while (expected->type_name == obj->type_name) {
    if (expected == obj || expected->hooks_included || !obj->hooks_included)
      return true;
    // A translation unit that read the serialization headers has the hooks.
    if (slot.compare_exchange_weak(expected, obj, std::memory_order_acq_rel))
      return true;
  }
  std::fprintf(stderr,
               "troupe: type ID %u is taken by both '%.*s' and '%.*s'; "
               "two type ID blocks overlap\n",
               static_cast<unsigned>(id), static_cast<int>(expected->type_name.size()),
               expected->type_name.data(), static_cast<int>(obj->type_name.size()),
               obj->type_name.data());
  std::abort();
}

void stringify_arithmetic(std::string& out, long long x) {
  out += std::to_string(x);
}

void stringify_arithmetic(std::string& out, unsigned long long x) {
  out += std::to_string(x);
}

// Floats and doubles in their shortest form that reads back, as log lines
// and CAF print them (29.0 / 3 is 9.666666666666666, not 9.6666666666666661).
void stringify_arithmetic(std::string& out, float x) {
  append_log_value(out, x);
}

void stringify_arithmetic(std::string& out, double x) {
  append_log_value(out, x);
}

void stringify_arithmetic(std::string& out, long double x) {
  char buf[64];
  auto n = std::snprintf(buf, sizeof(buf), "%.17Lg", x);
  out.append(buf, static_cast<size_t>(n));
}

void stringify_quoted(std::string& out, std::string_view str) {
  out += '"';
  for (char c : str) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        out += c;
    }
  }
  out += '"';
}

} // namespace troupe::detail

namespace troupe {

std::string_view query_type_name(type_id_t id) noexcept {
  if (auto* obj = detail::global_meta_object(id))
    return obj->type_name;
  return "<unknown>";
}

type_id_t query_type_id(std::string_view name) noexcept {
  auto& index = detail::names();
  std::lock_guard guard{index.mtx};
  auto i = index.ids.find(name);
  return i != index.ids.end() ? i->second : invalid_type_id;
}

} // namespace troupe
