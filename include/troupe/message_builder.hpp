#pragma once

// Builds a message one element at a time when the element types are only
// known at run time.
//
//   message_builder mb;
//   for (auto& x : xs)
//     mb.append(x);
//   auto msg = mb.to_message();
//
// The elements are built in place in the memory block the message will own,
// so move_to_message hands that block over without copying anything.

#include "troupe/message.hpp"

#include <cstddef>
#include <new>
#include <type_traits>
#include <utility>

namespace troupe {

class message_builder {
public:
  message_builder() noexcept = default;
  message_builder(const message_builder&) = delete;
  message_builder& operator=(const message_builder&) = delete;
  message_builder(message_builder&& other) noexcept;
  message_builder& operator=(message_builder&& other) noexcept;
  ~message_builder();

  template <class T>
  message_builder& append(T&& x) {
    using value_type = detail::message_element_t<T>;
    static_assert(detail::fits_element_alignment_v<value_type>,
                  "troupe: message elements may not be over-aligned");
    constexpr size_t size = detail::padded_size_v<value_type>;
    // Nothing counts as appended until the constructor returns.
    new (reserve(size)) value_type(std::forward<T>(x));
    commit(type_id_v<value_type>, size, std::is_trivially_copyable_v<value_type>);
    return *this;
  }

  /// Appends every element of `msg` (copies).
  message_builder& append_all(const message& msg);

  size_t size() const noexcept {
    return size_;
  }

  bool empty() const noexcept {
    return size_ == 0;
  }

  /// Destroys the elements (keeps the memory for the next ones).
  void clear() noexcept;

  /// Copies the elements into a new message; the builder keeps them.
  message to_message() const;

  /// Moves the elements into a new message and clears the builder.
  message move_to_message();

private:
  static constexpr size_t inline_ids = 7;

  /// Room for one more element of `size` bytes; where it goes.
  void* reserve(size_t size) {
    if (used_ + size > capacity_ || size_ == ids_capacity_)
      grow(size);
    return data_->storage() + used_;
  }

  void commit(type_id_t id, size_t size, bool trivial) noexcept {
    ids_[size_++] = id;
    used_ += size;
    trivial_ = trivial_ && trivial;
  }

  void grow(size_t size);

  void destroy_elements() noexcept;

  void release() noexcept;

  void take(message_builder& other) noexcept;

  type_id_list interned_types() const;

  // The block of the future message (null until the first append); its type
  // list stays empty, so freeing it never runs element destructors.
  detail::message_data* data_ = nullptr;
  size_t used_ = 0;
  size_t capacity_ = 0;
  // The IDs of the elements: inline_ids_ or an array of ids_capacity_.
  type_id_t* ids_ = inline_ids_;
  size_t size_ = 0;
  size_t ids_capacity_ = inline_ids;
  // Every element so far is trivially copyable: copied with memcpy, never
  // destroyed.
  bool trivial_ = true;
  type_id_t inline_ids_[inline_ids];
};

} // namespace troupe
