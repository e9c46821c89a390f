#pragma once

// A behavior is an ordered list of message handlers. The first handler whose
// argument types equal the message's types runs; types are compared as
// interned type ID lists (a pointer comparison in the common case).
//
//   behavior b{
//     [](int x) { return x * 2; },
//     [](const std::string& s) -> result<int> { return static_cast<int>(s.size()); },
//   };
//
// A handler taking `message&` (or `const message&`) alone matches anything.

#include "troupe/detail/callable_trait.hpp"
#include "troupe/detail/thread_cache.hpp"
#include "troupe/message.hpp"
#include "troupe/result.hpp"

#include <memory>
#include <tuple>
#include <type_traits>
#include <utility>

namespace troupe {

namespace detail {

template <class T>
struct is_result : std::false_type {};

template <class... Ts>
struct is_result<result<Ts...>> : std::true_type {};

template <class T>
struct is_delegated : std::false_type {};

template <class... Ts>
struct is_delegated<delegated<Ts...>> : std::true_type {};

template <class T>
struct is_expected : std::false_type {};

template <class T>
struct is_expected<expected<T>> : std::true_type {};

template <class T>
struct is_tuple : std::false_type {};

template <class... Ts>
struct is_tuple<std::tuple<Ts...>> : std::true_type {};

template <class F>
concept message_handler = requires { typename callable_trait_t<F>::result_type; };

template <class T>
concept response_promise_like = requires { T::is_response_promise; };

/// Converts what a handler returned into a handler_result.
template <class R>
handler_result make_handler_result(R&& x) {
  using value_type = std::decay_t<R>;
  if constexpr (is_result<value_type>::value) {
    return std::move(x).release();
  } else if constexpr (std::is_same_v<value_type, message>) {
    return handler_result{result_kind::value, std::forward<R>(x), {}};
  } else if constexpr (std::is_same_v<value_type, error>) {
    if (x)
      return handler_result{result_kind::error, {}, std::forward<R>(x)};
    return handler_result{};
  } else if constexpr (is_error_code_enum_v<value_type>) {
    // Through the error branch: code 0 is no error, as for an empty error.
    return make_handler_result(error{x});
  } else if constexpr (is_expected<value_type>::value) {
    if (!x)
      return handler_result{result_kind::error, {}, std::forward<R>(x).error()};
    if constexpr (std::is_void_v<typename value_type::value_type>)
      return handler_result{};
    else
      return handler_result{result_kind::value, make_message(*std::forward<R>(x)), {}};
  } else if constexpr (is_delegated<value_type>::value
                       || response_promise_like<value_type>) {
    return handler_result{result_kind::delegated, {}, {}};
  } else if constexpr (std::is_same_v<value_type, skip_t>) {
    return handler_result{result_kind::skip, {}, {}};
  } else if constexpr (is_tuple<value_type>::value) {
    return handler_result{
      result_kind::value,
      std::apply([](auto&&... xs) { return make_message(std::forward<decltype(xs)>(xs)...); },
                 std::forward<R>(x)),
      {}};
  } else {
    return handler_result{result_kind::value, make_message(std::forward<R>(x)), {}};
  }
}

template <class Arg>
inline constexpr bool is_mutable_arg_v
  = !std::is_const_v<std::remove_reference_t<Arg>> && std::is_reference_v<Arg>;

template <class Args>
struct is_catch_all : std::false_type {};

template <class Arg>
struct is_catch_all<type_list<Arg>> : std::is_same<std::decay_t<Arg>, message> {};

template <class Arg, class T>
decltype(auto) forward_element(T& x) {
  if constexpr (std::is_rvalue_reference_v<Arg>)
    return std::move(x);
  else
    return (x);
}

/// Calls `f` with the elements of `msg` if the types match.
template <class F, class... Args>
bool invoke_handler(F& f, message& msg, handler_result& out, type_list<Args...>) {
  using trait = callable_trait_t<F>;
  using result_type = typename trait::result_type;
  if constexpr (is_catch_all<type_list<Args...>>::value) {
    if constexpr (std::is_void_v<result_type>) {
      f(msg);
      out = handler_result{};
    } else {
      out = make_handler_result(f(msg));
    }
    return true;
  } else {
    if (!(msg.types() == type_id_list::of<std::decay_t<Args>...>()))
      return false;
    if constexpr ((is_mutable_arg_v<Args> || ...))
      msg.unshare();
    auto call = [&]<size_t... Is>(std::index_sequence<Is...>) -> decltype(auto) {
      constexpr auto& offsets = element_offsets_v<std::decay_t<Args>...>;
      [[maybe_unused]] std::byte* base
        = sizeof...(Args) > 0 ? msg.raw()->storage() : nullptr;
      return f(forward_element<Args>(
        *std::launder(reinterpret_cast<std::decay_t<Args>*>(base + offsets[Is])))...);
    };
    if constexpr (std::is_void_v<result_type>) {
      call(std::index_sequence_for<Args...>{});
      out = handler_result{};
    } else {
      out = make_handler_result(call(std::index_sequence_for<Args...>{}));
    }
    return true;
  }
}

class behavior_impl {
public:
  virtual ~behavior_impl() = default;

  /// Runs the first matching handler; false if none matched.
  virtual bool invoke(message& msg, handler_result& out) = 0;
};

template <class... Fs>
class handlers_impl final : public behavior_impl {
public:
  explicit handlers_impl(Fs... fs) : fs_(std::move(fs)...) {}

  bool invoke(message& msg, handler_result& out) override {
    return std::apply(
      [&](auto&... fs) {
        return (invoke_handler(fs, msg, out,
                               typename callable_trait_t<decltype(fs)>::arg_types{})
                || ...);
      },
      fs_);
  }

private:
  std::tuple<Fs...> fs_;
};

class or_else_impl final : public behavior_impl {
public:
  or_else_impl(std::shared_ptr<behavior_impl> first, std::shared_ptr<behavior_impl> second)
    : first_(std::move(first)), second_(std::move(second)) {}

  bool invoke(message& msg, handler_result& out) override {
    return first_->invoke(msg, out) || second_->invoke(msg, out);
  }

private:
  std::shared_ptr<behavior_impl> first_;
  std::shared_ptr<behavior_impl> second_;
};

} // namespace detail

class behavior {
public:
  behavior() noexcept = default;

  template <detail::message_handler F, detail::message_handler... Fs>
  behavior(F f, Fs... fs)
    : impl_(std::allocate_shared<detail::handlers_impl<F, Fs...>>(
      detail::cached_allocator<detail::handlers_impl<F, Fs...>>{}, std::move(f),
      std::move(fs)...)) {}

  explicit behavior(std::shared_ptr<detail::behavior_impl> impl) noexcept
    : impl_(std::move(impl)) {}

  template <class... Fs>
  void assign(Fs... fs) {
    *this = behavior{std::move(fs)...};
  }

  bool empty() const noexcept {
    return impl_ == nullptr;
  }

  explicit operator bool() const noexcept {
    return impl_ != nullptr;
  }

  /// Runs the first matching handler; false if none matched.
  bool invoke(message& msg, detail::handler_result& out) const {
    return impl_ && impl_->invoke(msg, out);
  }

  /// A behavior trying this one first, then `other`.
  behavior or_else(const behavior& other) const {
    if (empty())
      return other;
    if (other.empty())
      return *this;
    return behavior{std::make_shared<detail::or_else_impl>(impl_, other.impl_)};
  }

  const std::shared_ptr<detail::behavior_impl>& impl() const noexcept {
    return impl_;
  }

private:
  std::shared_ptr<detail::behavior_impl> impl_;
};

/// The dynamically typed form of a behavior (typed behaviors overload it).
inline behavior unbox_behavior(behavior x) noexcept {
  return x;
}

/// Passed to `become` to push a behavior on top of the current one instead of
/// replacing it; `unbecome` returns to the one below.
struct keep_behavior_t {};
inline constexpr keep_behavior_t keep_behavior{};

} // namespace troupe
