#pragma once

// A behavior is an ordered list of message handlers. The first handler whose
// argument types equal the message's types runs. Finding it takes one lookup
// in a table of type ID lists built at compile time (see
// detail/dispatch_table.hpp), however many handlers there are.
//
//   behavior b{
//     [](int x) { return x * 2; },
//     [](const std::string& s) -> result<int> { return static_cast<int>(s.size()); },
//   };
//
// A handler taking `message&` (or `const message&`) alone matches anything, so
// the handlers after it never run.

#include "troupe/detail/callable_trait.hpp"
#include "troupe/detail/dispatch_table.hpp"
#include "troupe/detail/hot.hpp"
#include "troupe/detail/thread_cache.hpp"
#include "troupe/message.hpp"
#include "troupe/result.hpp"

#include <array>
#include <memory>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

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

/// Calls `f` with the elements of `msg`, whose types `Args...` take.
template <class F, class... Args>
void call_handler(F& f, message& msg, handler_result& out, type_list<Args...>) {
  using trait = callable_trait_t<F>;
  using result_type = typename trait::result_type;
  if constexpr (is_catch_all<type_list<Args...>>::value) {
    if constexpr (std::is_void_v<result_type>) {
      f(msg);
      out = handler_result{};
    } else {
      out = make_handler_result(f(msg));
    }
  } else {
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
  }
}

/// Calls `f` with the elements of `msg` if the types match (one handler
/// alone, as for a response).
template <class F, class... Args>
bool invoke_handler(F& f, message& msg, handler_result& out, type_list<Args...> args) {
  if constexpr (!is_catch_all<type_list<Args...>>::value) {
    if (!(msg.types() == type_id_list::of<std::decay_t<Args>...>()))
      return false;
  }
  call_handler(f, msg, out, args);
  return true;
}

class behavior_impl;

/// Runs a handler of `owner` on a message whose types it takes.
using handler_fn = void (*)(behavior_impl* owner, message& msg, handler_result& out);

/// One handler, as or_else collects them.
struct handler_entry {
  /// The interned list of the handler's argument types; null for a catch-all.
  const type_id_t* types;
  handler_fn fn;
  behavior_impl* owner;
};

class behavior_impl {
public:
  virtual ~behavior_impl() = default;

  /// Runs the first matching handler; false if none matched.
  virtual bool invoke(message& msg, handler_result& out) = 0;

  /// Appends the handlers in order, up to and including the first catch-all
  /// (none after it can ever run).
  virtual void append_handlers(std::vector<handler_entry>& out) = 0;
};

template <class... Args>
constexpr type_id_list handler_types(type_list<Args...>) noexcept {
  return type_id_list::of<std::decay_t<Args>...>();
}

template <class F>
constexpr const type_id_t* handler_types_of() noexcept {
  using args = typename callable_trait_t<F>::arg_types;
  if constexpr (is_catch_all<args>::value)
    return nullptr;
  else
    return handler_types(args{}).data();
}

/// Index of the first catch-all handler in `Fs...`, or their count.
template <class... Fs>
constexpr size_t first_catch_all() noexcept {
  constexpr bool flags[] = {is_catch_all<typename callable_trait_t<Fs>::arg_types>::value...};
  for (size_t i = 0; i < sizeof...(Fs); ++i)
    if (flags[i])
      return i;
  return sizeof...(Fs);
}

template <class Impl, size_t... Is>
constexpr std::array<handler_fn, sizeof...(Is)> handler_fns(std::index_sequence<Is...>) {
  return {&Impl::template call<Is>...};
}

template <class... Fs>
class handlers_impl;

/// The table of the handlers before the first catch-all, built at compile
/// time.
template <class... Fs>
inline constexpr auto handler_table = [] {
  constexpr size_t n = first_catch_all<Fs...>();
  constexpr std::array<const type_id_t*, sizeof...(Fs)> all_keys{handler_types_of<Fs>()...};
  constexpr auto all_fns = handler_fns<handlers_impl<Fs...>>(std::index_sequence_for<Fs...>{});
  std::array<const type_id_t*, n> keys{};
  std::array<handler_fn, n> fns{};
  for (size_t i = 0; i < n; ++i) {
    keys[i] = all_keys[i];
    fns[i] = all_fns[i];
  }
  return static_dispatch_table<n, handler_fn>{keys, fns};
}();

template <class... Fs>
class handlers_impl final : public behavior_impl {
public:
  static constexpr size_t catch_all = first_catch_all<Fs...>();

  explicit handlers_impl(Fs... fs) : fs_(std::move(fs)...) {}

  TROUPE_HOT bool invoke(message& msg, handler_result& out) override {
    if constexpr (catch_all > 0) {
      if (auto* fn = handler_table<Fs...>.find(msg.types())) {
        (*fn)(this, msg, out);
        return true;
      }
    }
    if constexpr (catch_all < sizeof...(Fs)) {
      call<catch_all>(this, msg, out);
      return true;
    } else {
      return false;
    }
  }

  void append_handlers(std::vector<handler_entry>& out) override {
    static constexpr auto fns = handler_fns<handlers_impl>(std::index_sequence_for<Fs...>{});
    static constexpr const type_id_t* types[] = {handler_types_of<Fs>()...};
    constexpr size_t end = catch_all < sizeof...(Fs) ? catch_all + 1 : sizeof...(Fs);
    for (size_t i = 0; i < end; ++i)
      out.push_back(handler_entry{types[i], fns[i], this});
  }

  template <size_t I>
  static void call(behavior_impl* self, message& msg, handler_result& out) {
    auto& f = std::get<I>(static_cast<handlers_impl*>(self)->fs_);
    call_handler(f, msg, out, typename callable_trait_t<decltype(f)>::arg_types{});
  }

private:
  std::tuple<Fs...> fs_;
};

/// Tries several behaviors in order through one table over all their
/// handlers: a nested or_else costs no more than a flat one.
class or_else_impl final : public behavior_impl {
public:
  or_else_impl(std::shared_ptr<behavior_impl> first, std::shared_ptr<behavior_impl> second);

  bool invoke(message& msg, handler_result& out) override;

  void append_handlers(std::vector<handler_entry>& out) override;

private:
  // Own the behaviors whose handlers `handlers_` points into.
  std::shared_ptr<behavior_impl> first_;
  std::shared_ptr<behavior_impl> second_;
  // In order; a catch-all can only be the last.
  std::vector<handler_entry> handlers_;
  dynamic_dispatch_table<handler_entry> table_;
  bool catch_all_ = false;
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
