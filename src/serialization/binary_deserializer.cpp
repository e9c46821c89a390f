#include "troupe/binary_deserializer.hpp"

#include "troupe/message.hpp"
#include "troupe/serialization/actor_codec.hpp"

#include <array>
#include <cerrno>
#include <cstdlib>
#include <memory>

namespace troupe {

void binary_deserializer::set_error(error err) {
  if (err_ || !err)
    return;
  err_ = std::move(err);
  path_.clear();
}

const error& binary_deserializer::get_error() const {
  path_.move_into(err_);
  return err_;
}

bool binary_deserializer::read_long_varint(uint64_t& x) {
  uint64_t result = 0;
  for (unsigned shift = 0;; shift += 7) {
    if (pos_ == end_)
      return fail_truncated(1);
    auto byte = static_cast<uint8_t>(*pos_);
    // The tenth byte holds bit 63 only.
    if (shift == 63 && byte > 1) {
      set_error(make_error(errc::malformed_input, "varint exceeds 64 bits"));
      return false;
    }
    ++pos_;
    result |= static_cast<uint64_t>(byte & 0x7F) << shift;
    if (byte < 0x80)
      break;
  }
  x = result;
  return true;
}

bool binary_deserializer::read_long_double(long double& x) {
  // Written as "%La" text: short, and parsed only after its length checks.
  std::string str;
  if (!value(str))
    return false;
  if (str.empty() || str.size() > 64 || str.find('\0') != std::string::npos) {
    set_error(make_error(errc::malformed_input, "long double text of " + std::to_string(str.size())
                                                  + " bytes is not a number"));
    return false;
  }
  char* end = nullptr;
  errno = 0;
  auto result = std::strtold(str.c_str(), &end);
  if (end != str.c_str() + str.size()) {
    set_error(make_error(errc::malformed_input, "long double text \"" + str + "\" is not a number"));
    return false;
  }
  x = result;
  return true;
}

bool binary_deserializer::fail_truncated(size_t needed) {
  set_error(make_error(errc::truncated_input, "needs " + std::to_string(needed) + " bytes but "
                                                + std::to_string(remaining()) + " are left"));
  return false;
}

bool binary_deserializer::fail_count(uint64_t count, size_t min_size) {
  if (min_size == 0) {
    set_error(make_error(errc::malformed_input,
                         "count " + std::to_string(count) + " of empty elements exceeds the limit of "
                           + std::to_string(max_empty_elements)));
  } else if (min_size == 1) {
    set_error(make_error(errc::truncated_input, "length " + std::to_string(count)
                                                  + " exceeds the " + std::to_string(remaining())
                                                  + " bytes left"));
  } else {
    set_error(make_error(errc::truncated_input,
                         "length " + std::to_string(count) + " of elements of at least "
                           + std::to_string(min_size) + " bytes exceeds the "
                           + std::to_string(remaining()) + " bytes left"));
  }
  return false;
}

bool binary_deserializer::fail_flag(uint8_t byte, const char* what) {
  set_error(make_error(errc::malformed_input, std::string{what} + " " + std::to_string(byte)
                                                + " is neither 0 nor 1"));
  return false;
}

bool binary_deserializer::fail_variant_index(uint64_t index, size_t alternatives) {
  set_error(make_error(errc::malformed_input,
                       "variant index " + std::to_string(index) + " is out of range for "
                         + std::to_string(alternatives) + " alternatives"));
  return false;
}

bool binary_deserializer::fail_nesting() {
  set_error(make_error(errc::malformed_input, "value nests deeper than "
                                                + std::to_string(max_nesting) + " levels"));
  return false;
}

namespace {

// Destroys the elements built so far if loading stops early; the message
// itself then frees the storage (its type list is still empty).
struct element_guard {
  const detail::meta_object* const* metas;
  std::byte* base;
  size_t constructed = 0;

  ~element_guard() {
    auto* ptr = base;
    for (size_t i = 0; i < constructed; ++i) {
      metas[i]->destroy(ptr);
      ptr += metas[i]->padded_size;
    }
  }
};

} // namespace

bool binary_deserializer::value(message& x) {
  if (load_message(x)) [[likely]]
    return true;
  path_.add_object("message");
  return false;
}

bool binary_deserializer::load_message(message& x) {
  if (!enter())
    return false;
  size_t count = 0;
  if (!read_count(count, sizeof(type_id_t)))
    return false;
  if (count == 0) {
    x = message{};
    return leave();
  }
  if (count > 0xFFFF) {
    set_error(make_error(errc::malformed_input,
                         "message of " + std::to_string(count) + " elements exceeds 65535"));
    return false;
  }
  // Most messages are short: IDs and meta objects on the stack.
  constexpr size_t small = 16;
  std::array<type_id_t, small> small_ids;
  std::array<const detail::meta_object*, small> small_metas;
  std::unique_ptr<type_id_t[]> big_ids;
  std::unique_ptr<const detail::meta_object*[]> big_metas;
  type_id_t* ids = small_ids.data();
  const detail::meta_object** metas = small_metas.data();
  if (count > small) {
    big_ids = std::make_unique<type_id_t[]>(count);
    big_metas = std::make_unique<const detail::meta_object*[]>(count);
    ids = big_ids.get();
    metas = big_metas.get();
  }
  size_t total = 0;
  bool trivial = true;
  for (size_t i = 0; i < count; ++i) {
    uint16_t id = 0;
    value(id);
    if (!type_map_.empty()) {
      auto local = id < type_map_.size() ? type_map_[id] : invalid_type_id;
      if (local == invalid_type_id) {
        set_error(make_error(errc::unsupported_type,
                             "message element " + std::to_string(i) + ": the writer's type ID "
                               + std::to_string(id) + " names no type of this program"));
        return false;
      }
      id = local;
    }
    auto* meta = detail::global_meta_object(id);
    const char* problem = nullptr;
    if (meta == nullptr)
      problem = "is unknown";
    else if (meta->load_binary == nullptr)
      problem = "has no inspect() and can't be deserialized";
    else if (meta->default_construct == nullptr)
      problem = "has no default constructor to load into";
    if (problem != nullptr) {
      std::string what = "message element " + std::to_string(i) + ": type ID "
                         + std::to_string(id);
      if (meta != nullptr)
        what += " (" + std::string{meta->type_name} + ")";
      what += ' ';
      what += problem;
      set_error(make_error(errc::unsupported_type, std::move(what)));
      return false;
    }
    ids[i] = id;
    metas[i] = meta;
    total += meta->padded_size;
    trivial = trivial && meta->trivially_destructible;
  }
  // Interning may throw, so it runs before any element exists.
  auto types = type_id_list::intern({ids, count});
  message result{detail::message_data::allocate(total)};
  auto* base = result.raw()->storage();
  element_guard guard{metas, base};
  auto* ptr = base;
  for (size_t i = 0; i < count; ++i) {
    if (!metas[i]->load_binary(*this, ptr)) {
      path_.add_field({}, i);
      return false;
    }
    ++guard.constructed;
    ptr += metas[i]->padded_size;
  }
  guard.constructed = 0;
  result.raw()->set_types(types, trivial);
  x = std::move(result);
  return leave();
}

} // namespace troupe

namespace troupe {

bool binary_deserializer::actor_handle(strong_actor_ptr& x) {
  if (codec_ != nullptr)
    return codec_->load(*this, x);
  set_error(make_error(errc::unsupported_type,
                       "an actor handle loads only from a connection to another node"));
  return false;
}

} // namespace troupe
