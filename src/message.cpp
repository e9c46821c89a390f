#include "troupe/message.hpp"

#include "troupe/detail/hot.hpp"
#include "troupe/detail/thread_cache.hpp"

#include <memory>
#include <stdexcept>

namespace troupe::detail {

static_assert(element_alignment <= __STDCPP_DEFAULT_NEW_ALIGNMENT__,
              "plain operator new must align message elements");

TROUPE_HOT message_data* message_data::allocate(size_t total_size) {
  auto size = header_size + total_size;
  if (size >= (size_t{1} << 31))
    throw std::length_error("troupe: message larger than 2 GiB");
  return new (cached_allocate(size)) message_data(static_cast<uint32_t>(size));
}

size_t message_data::offset_of(size_t index) const noexcept {
  size_t offset = 0;
  for (size_t i = 0; i < index; ++i)
    offset += global_meta_object(types_[i])->padded_size;
  return offset;
}

TROUPE_HOT void message_data::destroy() noexcept {
  // The loop over the elements lives in its own function (a tail call), so
  // that freeing a message of trivial elements saves no registers.
  if (!trivial()) {
    destroy_elements();
    return;
  }
  size_t size = alloc_size();
  this->~message_data();
  cached_deallocate(this, size);
}

[[gnu::noinline]] void message_data::destroy_elements() noexcept {
  detail::destroy_elements({types_.begin(), types_.end()}, storage());
  size_and_trivial_ |= uint32_t{1} << 31;
  destroy();
}

message_data* message_data::copy() const {
  size_t total = 0;
  for (auto id : types_)
    total += global_meta_object(id)->padded_size;
  auto* result = allocate(total);
  try {
    copy_elements({types_.begin(), types_.end()}, storage(), result->storage());
  } catch (...) {
    result->destroy(); // the type list is still empty: frees the memory only
    throw;
  }
  result->set_types(types_, trivial());
  return result;
}

void destroy_elements(std::span<const type_id_t> ids, std::byte* ptr) noexcept {
  for (auto id : ids) {
    auto* meta = global_meta_object(id);
    meta->destroy(ptr);
    ptr += meta->padded_size;
  }
}

namespace {

template <class Src, class Construct>
void construct_elements(std::span<const type_id_t> ids, Src* src, std::byte* dst,
                        Construct construct) {
  auto* first = dst;
  size_t constructed = 0;
  try {
    for (auto id : ids) {
      auto* meta = global_meta_object(id);
      construct(meta, dst, src);
      ++constructed;
      src += meta->padded_size;
      dst += meta->padded_size;
    }
  } catch (...) {
    destroy_elements(ids.first(constructed), first);
    throw;
  }
}

} // namespace

void copy_elements(std::span<const type_id_t> ids, const std::byte* src, std::byte* dst) {
  construct_elements(ids, src, dst, [](const meta_object* meta, void* to, const void* from) {
    meta->copy_construct(to, from);
  });
}

void move_elements(std::span<const type_id_t> ids, std::byte* src, std::byte* dst) {
  construct_elements(ids, src, dst, [](const meta_object* meta, void* to, void* from) {
    meta->move_construct(to, from);
  });
}

} // namespace troupe::detail

namespace troupe {

std::string to_string(const message& msg) {
  std::string result = "message(";
  auto types = msg.types();
  const std::byte* ptr = msg.empty() ? nullptr : msg.raw()->storage();
  for (size_t i = 0; i < types.size(); ++i) {
    if (i > 0)
      result += ", ";
    auto* meta = detail::global_meta_object(types[i]);
    meta->stringify(result, ptr);
    ptr += meta->padded_size;
  }
  result += ')';
  return result;
}

} // namespace troupe
