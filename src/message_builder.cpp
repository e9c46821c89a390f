#include "troupe/message_builder.hpp"

#include "troupe/detail/thread_cache.hpp"

#include <algorithm>
#include <bit>
#include <cstring>
#include <memory>
#include <span>

namespace troupe {

namespace {

// Frees a block whose type list is still empty: memory only.
void free_block(detail::message_data* data) noexcept {
  message owner{data};
}

// Element bytes for a block of at least `n`: the rest of the thread-cache
// class the block falls into, so later appends find room.
size_t block_capacity(size_t n) noexcept {
  auto total = detail::message_data::header_size + n;
  if (total <= detail::thread_cache_max_block)
    total = std::max(size_t{64}, std::bit_ceil(total));
  return total - detail::message_data::header_size;
}

} // namespace

message_builder::message_builder(message_builder&& other) noexcept {
  take(other);
}

message_builder& message_builder::operator=(message_builder&& other) noexcept {
  if (this != &other) {
    release();
    take(other);
  }
  return *this;
}

message_builder::~message_builder() {
  release();
}

void message_builder::take(message_builder& other) noexcept {
  data_ = std::exchange(other.data_, nullptr);
  used_ = std::exchange(other.used_, 0);
  capacity_ = std::exchange(other.capacity_, 0);
  size_ = std::exchange(other.size_, 0);
  trivial_ = std::exchange(other.trivial_, true);
  if (other.ids_ == other.inline_ids_) {
    std::copy_n(other.inline_ids_, size_, inline_ids_);
    ids_ = inline_ids_;
    ids_capacity_ = inline_ids;
  } else {
    ids_ = std::exchange(other.ids_, other.inline_ids_);
    ids_capacity_ = std::exchange(other.ids_capacity_, inline_ids);
  }
}

void message_builder::release() noexcept {
  destroy_elements();
  if (data_ != nullptr)
    free_block(std::exchange(data_, nullptr));
  if (ids_ != inline_ids_)
    ::operator delete(ids_);
  ids_ = inline_ids_;
  ids_capacity_ = inline_ids;
  used_ = capacity_ = size_ = 0;
  trivial_ = true;
}

void message_builder::destroy_elements() noexcept {
  if (!trivial_)
    detail::destroy_elements({ids_, size_}, data_->storage());
}

void message_builder::clear() noexcept {
  destroy_elements();
  used_ = size_ = 0;
  trivial_ = true;
}

void message_builder::grow(size_t size) {
  if (size_ == ids_capacity_) {
    auto capacity = 2 * ids_capacity_;
    // Plain operator new (not new[]): allocation-failure tests replace it.
    auto* ids = static_cast<type_id_t*>(::operator new(capacity * sizeof(type_id_t)));
    std::copy_n(ids_, size_, ids);
    if (ids_ != inline_ids_)
      ::operator delete(ids_);
    ids_ = ids;
    ids_capacity_ = capacity;
  }
  if (used_ + size <= capacity_)
    return;
  auto capacity = block_capacity(std::max(used_ + size, 2 * capacity_));
  auto* data = detail::message_data::allocate(capacity);
  if (size_ > 0) {
    if (trivial_) {
      std::memcpy(data->storage(), data_->storage(), used_);
    } else {
      try {
        detail::move_elements({ids_, size_}, data_->storage(), data->storage());
      } catch (...) {
        free_block(data);
        throw;
      }
    }
    destroy_elements();
  }
  if (data_ != nullptr)
    free_block(data_);
  data_ = data;
  capacity_ = capacity;
}

message_builder& message_builder::append_all(const message& msg) {
  auto types = msg.types();
  const std::byte* src = msg.empty() ? nullptr : msg.raw()->storage();
  for (size_t i = 0; i < types.size(); ++i) {
    auto* meta = detail::global_meta_object(types[i]);
    meta->copy_construct(reserve(meta->padded_size), src);
    // The meta object does not say whether the type is trivial.
    commit(types[i], meta->padded_size, false);
    src += meta->padded_size;
  }
  return *this;
}

type_id_list message_builder::interned_types() const {
  return type_id_list::intern(std::span<const type_id_t>{ids_, size_});
}

message message_builder::to_message() const {
  if (size_ == 0)
    return message{};
  // Interning may throw, so it runs before any element exists.
  auto types = interned_types();
  auto* data = detail::message_data::allocate(used_);
  // Frees the memory if copying throws: its type list is still empty.
  message result{data};
  if (trivial_)
    std::memcpy(data->storage(), data_->storage(), used_);
  else
    detail::copy_elements({ids_, size_}, data_->storage(), data->storage());
  data->set_types(types, trivial_);
  return result;
}

message message_builder::move_to_message() {
  if (size_ == 0)
    return message{};
  auto types = interned_types();
  // The block becomes the message: nothing is moved.
  data_->set_types(types, trivial_);
  message result{std::exchange(data_, nullptr)};
  used_ = capacity_ = size_ = 0;
  trivial_ = true;
  return result;
}

} // namespace troupe
