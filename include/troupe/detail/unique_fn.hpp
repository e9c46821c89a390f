#pragma once

// A move-only function wrapper that keeps small callables inline: no
// allocation and no reference count for the typical lambda that captures a
// few pointers (response handlers are created once per request).

#include <cstddef>
#include <new>
#include <type_traits>
#include <utility>

namespace troupe::detail {

template <class Signature>
class unique_fn;

template <class R, class... Args>
class unique_fn<R(Args...)> {
public:
  static constexpr size_t inline_size = 48;

  unique_fn() noexcept = default;

  unique_fn(std::nullptr_t) noexcept {}

  template <class F>
    requires(!std::is_same_v<std::decay_t<F>, unique_fn>
             && std::is_invocable_r_v<R, std::decay_t<F>&, Args...>)
  unique_fn(F&& f) {
    using fn_type = std::decay_t<F>;
    if constexpr (fits_inline<fn_type>) {
      new (&storage_) fn_type(std::forward<F>(f));
      ops_ = &inline_ops<fn_type>;
    } else {
      *reinterpret_cast<fn_type**>(&storage_) = new fn_type(std::forward<F>(f));
      ops_ = &heap_ops<fn_type>;
    }
  }

  unique_fn(unique_fn&& other) noexcept : ops_(other.ops_) {
    if (ops_ != nullptr) {
      ops_->relocate(&storage_, &other.storage_);
      other.ops_ = nullptr;
    }
  }

  unique_fn& operator=(unique_fn&& other) noexcept {
    if (this != &other) {
      reset();
      ops_ = other.ops_;
      if (ops_ != nullptr) {
        ops_->relocate(&storage_, &other.storage_);
        other.ops_ = nullptr;
      }
    }
    return *this;
  }

  unique_fn(const unique_fn&) = delete;
  unique_fn& operator=(const unique_fn&) = delete;

  ~unique_fn() {
    reset();
  }

  explicit operator bool() const noexcept {
    return ops_ != nullptr;
  }

  R operator()(Args... xs) {
    return ops_->invoke(&storage_, std::forward<Args>(xs)...);
  }

  void reset() noexcept {
    if (ops_ != nullptr) {
      ops_->destroy(&storage_);
      ops_ = nullptr;
    }
  }

private:
  struct ops {
    R (*invoke)(void*, Args...);
    void (*relocate)(void* dst, void* src) noexcept;
    void (*destroy)(void*) noexcept;
  };

  template <class F>
  static constexpr bool fits_inline = sizeof(F) <= inline_size
                                      && alignof(F) <= alignof(std::max_align_t)
                                      && std::is_nothrow_move_constructible_v<F>;

  template <class F>
  static constexpr ops inline_ops{
    [](void* self, Args... xs) -> R {
      return (*static_cast<F*>(self))(std::forward<Args>(xs)...);
    },
    [](void* dst, void* src) noexcept {
      new (dst) F(std::move(*static_cast<F*>(src)));
      static_cast<F*>(src)->~F();
    },
    [](void* self) noexcept { static_cast<F*>(self)->~F(); },
  };

  template <class F>
  static constexpr ops heap_ops{
    [](void* self, Args... xs) -> R {
      return (**static_cast<F**>(self))(std::forward<Args>(xs)...);
    },
    [](void* dst, void* src) noexcept { *static_cast<F**>(dst) = *static_cast<F**>(src); },
    [](void* self) noexcept { delete *static_cast<F**>(self); },
  };

  const ops* ops_ = nullptr;
  alignas(std::max_align_t) std::byte storage_[inline_size];
};

} // namespace troupe::detail
