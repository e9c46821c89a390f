#pragma once

// Builds a message one element at a time when the element types are only
// known at run time.
//
//   message_builder mb;
//   for (auto& x : xs)
//     mb.append(x);
//   auto msg = mb.to_message();

#include "troupe/message.hpp"

#include <memory>
#include <utility>
#include <vector>

namespace troupe {

class message_builder {
public:
  message_builder() = default;
  message_builder(const message_builder&) = delete;
  message_builder& operator=(const message_builder&) = delete;
  message_builder(message_builder&&) noexcept = default;
  message_builder& operator=(message_builder&&) noexcept = default;
  ~message_builder() = default;

  template <class T>
  message_builder& append(T&& x) {
    using value_type = detail::message_element_t<T>;
    static_assert(detail::fits_element_alignment_v<value_type>,
                  "troupe: message elements may not be over-aligned");
    // `elem` owns the value until the vector does: growing it may throw.
    element elem{type_id_v<value_type>, new value_type(std::forward<T>(x))};
    elements_.push_back(std::move(elem));
    return *this;
  }

  /// Appends every element of `msg` (copies).
  message_builder& append_all(const message& msg);

  size_t size() const noexcept {
    return elements_.size();
  }

  bool empty() const noexcept {
    return elements_.empty();
  }

  void clear() noexcept {
    elements_.clear();
  }

  /// Copies the elements into a new message; the builder keeps them.
  message to_message() const;

  /// Moves the elements into a new message and clears the builder.
  message move_to_message();

private:
  struct element {
    element(type_id_t id, void* ptr) noexcept : id(id), ptr(ptr) {}
    element(element&& other) noexcept
      : id(other.id), ptr(std::exchange(other.ptr, nullptr)) {}
    element& operator=(element&& other) noexcept {
      std::swap(id, other.id);
      std::swap(ptr, other.ptr);
      return *this;
    }
    ~element();
    type_id_t id;
    void* ptr;
  };

  template <class Init>
  message build(Init init) const;

  std::vector<element> elements_;
};

} // namespace troupe
