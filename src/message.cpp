#include "troupe/message.hpp"

#include "troupe/detail/thread_cache.hpp"

#include <memory>
#include <stdexcept>

namespace troupe::detail {

static_assert(element_alignment <= __STDCPP_DEFAULT_NEW_ALIGNMENT__,
              "plain operator new must align message elements");

message_data* message_data::allocate(size_t total_size) {
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

void message_data::destroy() noexcept {
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
  auto* base = storage();
  for (auto id : types_) {
    auto* meta = global_meta_object(id);
    meta->destroy(base);
    base += meta->padded_size;
  }
  size_and_trivial_ |= uint32_t{1} << 31;
  destroy();
}

message_data* message_data::copy() const {
  size_t total = 0;
  for (auto id : types_)
    total += global_meta_object(id)->padded_size;
  auto* result = allocate(total);
  auto* src = storage();
  auto* dst = result->storage();
  size_t constructed = 0;
  try {
    for (auto id : types_) {
      auto* meta = global_meta_object(id);
      meta->copy_construct(dst, src);
      ++constructed;
      src += meta->padded_size;
      dst += meta->padded_size;
    }
  } catch (...) {
    auto* ptr = result->storage();
    for (size_t i = 0; i < constructed; ++i) {
      auto* meta = global_meta_object(types_[i]);
      meta->destroy(ptr);
      ptr += meta->padded_size;
    }
    result->destroy(); // the type list is still empty: frees the memory only
    throw;
  }
  result->set_types(types_, trivial());
  return result;
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
