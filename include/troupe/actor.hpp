#pragma once

// Handles to actors: `actor` keeps its actor alive (a strong reference),
// `actor_addr` only names it (a weak reference, used by links, monitors and
// the `source` of exit and down messages).

#include "troupe/actor_control_block.hpp"

#include <compare>
#include <concepts>
#include <cstddef>
#include <functional>
#include <string>

namespace troupe {

class abstract_actor;
class actor_addr;

class actor {
public:
  actor() noexcept = default;
  actor(std::nullptr_t) noexcept {}

  explicit actor(strong_actor_ptr ptr) noexcept : ptr_(std::move(ptr)) {}

  /// An actor's own pointer where a handle goes, as in CAF: `self` as a
  /// message argument. Only for actors whose handle type is `actor`.
  template <class T>
    requires std::derived_from<T, abstract_actor>
             && std::same_as<typename T::handle_type, actor>
  actor(T* self) noexcept : ptr_(self != nullptr ? self->ctrl() : nullptr) {}

  explicit operator bool() const noexcept {
    return static_cast<bool>(ptr_);
  }

  /// 0 for an invalid handle.
  actor_id id() const noexcept {
    return ptr_ ? ptr_->id() : 0;
  }

  actor_addr address() const noexcept;

  const strong_actor_ptr& ptr() const noexcept {
    return ptr_;
  }

  /// The actor itself, as CAF's `hdl->id()`; null for an invalid handle.
  abstract_actor* operator->() const noexcept {
    return ptr_ ? ptr_->get() : nullptr;
  }

  actor_control_block* ctrl() const noexcept {
    return ptr_.get();
  }

  friend bool operator==(const actor& x, const actor& y) noexcept {
    return x.ptr_.get() == y.ptr_.get();
  }

  /// As in CAF: `self->current_sender() == hdl`.
  friend bool operator==(const actor& x, const strong_actor_ptr& y) noexcept {
    return x.ptr_.get() == y.get();
  }

  friend auto operator<=>(const actor& x, const actor& y) noexcept {
    return x.id() <=> y.id();
  }

  friend std::string to_string(const actor& x) {
    return x ? "actor#" + std::to_string(x.id()) : "actor#null";
  }

private:
  strong_actor_ptr ptr_;
};

class actor_addr {
public:
  actor_addr() noexcept = default;
  actor_addr(std::nullptr_t) noexcept {}

  explicit actor_addr(weak_actor_ptr ptr) noexcept : ptr_(std::move(ptr)) {}

  explicit operator bool() const noexcept {
    return static_cast<bool>(ptr_);
  }

  actor_id id() const noexcept {
    return ptr_ ? ptr_.get()->id() : 0;
  }

  /// A strong handle, or an invalid one if the actor is gone.
  actor lock() const noexcept {
    return actor{ptr_.lock()};
  }

  actor_control_block* ctrl() const noexcept {
    return ptr_.get();
  }

  friend bool operator==(const actor_addr& x, const actor_addr& y) noexcept {
    return x.ptr_.get() == y.ptr_.get();
  }

  friend bool operator==(const actor_addr& x, const actor& y) noexcept {
    return x.ptr_.get() == y.ctrl();
  }

  friend auto operator<=>(const actor_addr& x, const actor_addr& y) noexcept {
    return x.id() <=> y.id();
  }

  friend std::string to_string(const actor_addr& x) {
    return x ? "actor#" + std::to_string(x.id()) : "actor#null";
  }

private:
  weak_actor_ptr ptr_;
};

inline actor_addr actor::address() const noexcept {
  return actor_addr{weak_actor_ptr{ptr_}};
}

} // namespace troupe

template <>
struct std::hash<troupe::actor> {
  size_t operator()(const troupe::actor& x) const noexcept {
    return std::hash<troupe::actor_id>{}(x.id());
  }
};

template <>
struct std::hash<troupe::actor_addr> {
  size_t operator()(const troupe::actor_addr& x) const noexcept {
    return std::hash<troupe::actor_id>{}(x.id());
  }
};
