#pragma once

// Every actor lives in one allocation: an actor_control_block, then the actor
// object. Strong references (actor handles, senders of queued messages,
// the scheduler while the actor is queued) keep the actor alive; when the
// last one goes, the actor is cleaned up as unreachable and destroyed. Weak
// references (links, monitors, actor_addr) keep only the memory, so they can
// still compare and try to upgrade.

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <utility>

namespace troupe {

class abstract_actor;
class actor_system;

using actor_id = uint64_t;

class actor_control_block {
public:
  using destroy_fn = void (*)(abstract_actor*) noexcept;
  using free_fn = void (*)(actor_control_block*) noexcept;

  actor_control_block(actor_id id, actor_system* sys, destroy_fn destroy,
                      free_fn free) noexcept
    : id_(id), system_(sys), destroy_(destroy), free_(free) {}

  actor_control_block(const actor_control_block&) = delete;
  actor_control_block& operator=(const actor_control_block&) = delete;

  actor_id id() const noexcept {
    return id_;
  }

  actor_system& system() const noexcept {
    return *system_;
  }

  abstract_actor* get() const noexcept {
    return actor_;
  }

  void set_actor(abstract_actor* ptr) noexcept {
    actor_ = ptr;
  }

  void strong_ref() noexcept {
    strong_.fetch_add(1, std::memory_order_relaxed);
  }

  void strong_deref() noexcept {
    if (strong_.fetch_sub(1, std::memory_order_acq_rel) == 1)
      on_last_strong_ref();
  }

  void weak_ref() noexcept {
    weak_.fetch_add(1, std::memory_order_relaxed);
  }

  void weak_deref() noexcept {
    if (weak_.fetch_sub(1, std::memory_order_acq_rel) == 1)
      free_(this);
  }

  /// Adds a strong reference unless the actor is already gone.
  bool try_strong_ref() noexcept {
    auto n = strong_.load(std::memory_order_relaxed);
    while (n != 0)
      if (strong_.compare_exchange_weak(n, n + 1, std::memory_order_relaxed))
        return true;
    return false;
  }

private:
  /// Cleans up and destroys the actor (it is unreachable now).
  void on_last_strong_ref() noexcept;

  std::atomic<size_t> strong_{1};
  // One weak reference is held collectively by all strong references.
  std::atomic<size_t> weak_{1};
  actor_id id_;
  actor_system* system_;
  abstract_actor* actor_ = nullptr;
  destroy_fn destroy_;
  free_fn free_;
};

/// Owning pointer to an actor's control block (a strong reference).
class strong_actor_ptr {
public:
  strong_actor_ptr() noexcept = default;
  strong_actor_ptr(std::nullptr_t) noexcept {}

  /// Adopts a reference if `add_ref` is false.
  explicit strong_actor_ptr(actor_control_block* ptr, bool add_ref = true) noexcept
    : ptr_(ptr) {
    if (ptr_ && add_ref)
      ptr_->strong_ref();
  }

  strong_actor_ptr(const strong_actor_ptr& other) noexcept
    : strong_actor_ptr(other.ptr_) {}

  strong_actor_ptr(strong_actor_ptr&& other) noexcept
    : ptr_(std::exchange(other.ptr_, nullptr)) {}

  strong_actor_ptr& operator=(strong_actor_ptr other) noexcept {
    std::swap(ptr_, other.ptr_);
    return *this;
  }

  ~strong_actor_ptr() {
    if (ptr_)
      ptr_->strong_deref();
  }

  actor_control_block* get() const noexcept {
    return ptr_;
  }

  actor_control_block* operator->() const noexcept {
    return ptr_;
  }

  explicit operator bool() const noexcept {
    return ptr_ != nullptr;
  }

  actor_control_block* release() noexcept {
    return std::exchange(ptr_, nullptr);
  }

  void reset() noexcept {
    strong_actor_ptr tmp;
    std::swap(ptr_, tmp.ptr_);
  }

  friend bool operator==(const strong_actor_ptr& x, const strong_actor_ptr& y) noexcept {
    return x.ptr_ == y.ptr_;
  }

private:
  actor_control_block* ptr_ = nullptr;
};

/// Non-owning reference that keeps the control block's memory.
class weak_actor_ptr {
public:
  weak_actor_ptr() noexcept = default;
  weak_actor_ptr(std::nullptr_t) noexcept {}

  explicit weak_actor_ptr(actor_control_block* ptr) noexcept : ptr_(ptr) {
    if (ptr_)
      ptr_->weak_ref();
  }

  weak_actor_ptr(const strong_actor_ptr& x) noexcept : weak_actor_ptr(x.get()) {}

  weak_actor_ptr(const weak_actor_ptr& other) noexcept : weak_actor_ptr(other.ptr_) {}

  weak_actor_ptr(weak_actor_ptr&& other) noexcept
    : ptr_(std::exchange(other.ptr_, nullptr)) {}

  weak_actor_ptr& operator=(weak_actor_ptr other) noexcept {
    std::swap(ptr_, other.ptr_);
    return *this;
  }

  ~weak_actor_ptr() {
    if (ptr_)
      ptr_->weak_deref();
  }

  /// A strong reference, or null if the actor is gone.
  strong_actor_ptr lock() const noexcept {
    if (ptr_ && ptr_->try_strong_ref())
      return strong_actor_ptr{ptr_, false};
    return nullptr;
  }

  actor_control_block* get() const noexcept {
    return ptr_;
  }

  explicit operator bool() const noexcept {
    return ptr_ != nullptr;
  }

  friend bool operator==(const weak_actor_ptr& x, const weak_actor_ptr& y) noexcept {
    return x.ptr_ == y.ptr_;
  }

private:
  actor_control_block* ptr_ = nullptr;
};

} // namespace troupe
