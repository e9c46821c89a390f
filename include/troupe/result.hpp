#pragma once

// What a handler returns: values (the response), an error, or `delegated`
// (a response promise or a delegation will answer later). Returning the
// promise itself says the same as `delegated`.

#include "troupe/error.hpp"
#include "troupe/expected.hpp"
#include "troupe/message.hpp"
#include "troupe/response_promise.hpp"
#include "troupe/type_list.hpp"

#include <tuple>
#include <type_traits>
#include <utility>

namespace troupe {

/// Marks a result that someone else delivers later.
template <class... Ts>
struct delegated {};

namespace detail {

/// What delegating to a receiver that answers `Response` returns:
/// delegated<Rs...> for a typed one's type_list<Rs...>, delegated<> for a
/// dynamically typed one (void).
template <class Response>
struct delegated_for {
  using type = delegated<>;
};

template <class... Rs>
struct delegated_for<type_list<Rs...>> {
  using type = delegated<Rs...>;
};

} // namespace detail

/// Returned by default handlers to leave a message in the mailbox until the
/// behaviour changes.
struct skip_t {};
inline constexpr skip_t skip{};

template <class... Ts>
class result;

namespace detail {

enum class result_kind : uint8_t { value, error, delegated, skip };

/// The type-erased form every handler result is converted to.
struct handler_result {
  result_kind kind = result_kind::value;
  message value;
  troupe::error err;
};

} // namespace detail

template <class... Ts>
class result {
public:
  template <class... Us>
    requires(sizeof...(Us) == sizeof...(Ts) && sizeof...(Ts) > 0
             && (std::is_convertible_v<Us&&, Ts> && ...))
  result(Us&&... xs) : value_(make_message(Ts(std::forward<Us>(xs))...)) {}

  /// An empty error would leave the requester with neither value nor error:
  /// it becomes errc::runtime_error.
  result(troupe::error err) : kind_(detail::result_kind::error), err_(std::move(err)) {
    if (!err_)
      err_ = troupe::error{errc::runtime_error, "a handler returned no value and no error"};
  }

  template <class Enum>
    requires is_error_code_enum_v<Enum>
  result(Enum code) : result(troupe::error{code}) {}

  result(delegated<Ts...>) : kind_(detail::result_kind::delegated) {}

  /// Leaves the message in the mailbox for a later behavior.
  result(skip_t) : kind_(detail::result_kind::skip) {}

  result(const response_promise&) : kind_(detail::result_kind::delegated) {}

  result(const typed_response_promise<Ts...>&) : kind_(detail::result_kind::delegated) {}

  template <class T>
    requires(sizeof...(Ts) == 1)
  result(expected<T> x) {
    if (x)
      value_ = make_message(std::move(*x));
    else {
      kind_ = detail::result_kind::error;
      err_ = std::move(x).error();
    }
  }

  detail::handler_result release() && {
    return detail::handler_result{kind_, std::move(value_), std::move(err_)};
  }

private:
  detail::result_kind kind_ = detail::result_kind::value;
  message value_;
  troupe::error err_;
};

template <>
class result<void> {
public:
  result() = default;
  result(unit_t) {}
  /// An empty error means success.
  result(troupe::error err)
    : kind_(err ? detail::result_kind::error : detail::result_kind::value),
      err_(std::move(err)) {}
  template <class Enum>
    requires is_error_code_enum_v<Enum>
  result(Enum code) : result(troupe::error{code}) {}
  result(delegated<void>) : kind_(detail::result_kind::delegated) {}
  result(skip_t) : kind_(detail::result_kind::skip) {}
  result(delegated<>) : kind_(detail::result_kind::delegated) {}
  result(const response_promise&) : kind_(detail::result_kind::delegated) {}
  result(const typed_response_promise<void>&) : kind_(detail::result_kind::delegated) {}
  result(const typed_response_promise<>&) : kind_(detail::result_kind::delegated) {}

  detail::handler_result release() && {
    return detail::handler_result{kind_, message{}, std::move(err_)};
  }

private:
  detail::result_kind kind_ = detail::result_kind::value;
  troupe::error err_;
};

template <>
class result<> : public result<void> {
public:
  using result<void>::result;
};

/// A handler's result from values, as CAF's make_result:
/// `return make_result(pong_atom_v, x);` is a result<pong_atom, int>.
template <class... Ts>
result<detail::message_element_t<Ts>...> make_result(Ts&&... xs) {
  return result<detail::message_element_t<Ts>...>{std::forward<Ts>(xs)...};
}

} // namespace troupe
