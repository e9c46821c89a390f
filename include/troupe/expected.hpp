#pragma once

// expected<T>: a value or the error that prevented it.

#include "troupe/error.hpp"

#include <utility>
#include <type_traits>
#include <variant>

namespace troupe {

template <class T>
class expected {
public:
  static_assert(!std::is_same_v<T, troupe::error>,
                "troupe: expected<error> can't tell a value from a failure; "
                "return the error itself");

  using value_type = T;

  template <class U = T>
    requires std::is_constructible_v<T, U&&>
             && (!std::is_same_v<std::decay_t<U>, expected>)
             && (!std::is_same_v<std::decay_t<U>, troupe::error>)
  expected(U&& x) : value_(std::in_place_index<0>, std::forward<U>(x)) {}

  expected(troupe::error err) : value_(std::in_place_index<1>, std::move(err)) {}

  template <class Enum>
    requires is_error_code_enum_v<Enum>
  expected(Enum code) : expected(troupe::error{code}) {}

  bool has_value() const noexcept {
    return value_.index() == 0;
  }

  explicit operator bool() const noexcept {
    return has_value();
  }

  T& value() & {
    check();
    return std::get<0>(value_);
  }
  const T& value() const& {
    check();
    return std::get<0>(value_);
  }
  T&& value() && {
    check();
    return std::get<0>(std::move(value_));
  }

  T& operator*() & noexcept {
    return std::get<0>(value_);
  }
  const T& operator*() const& noexcept {
    return std::get<0>(value_);
  }
  T&& operator*() && noexcept {
    return std::get<0>(std::move(value_));
  }
  T* operator->() noexcept {
    return &std::get<0>(value_);
  }
  const T* operator->() const noexcept {
    return &std::get<0>(value_);
  }

  const troupe::error& error() const& noexcept {
    static const troupe::error none;
    return has_value() ? none : std::get<1>(value_);
  }
  /// Like the const& overload, an empty error if there is a value (a
  /// reference into the variant could not name one).
  troupe::error error() && noexcept {
    if (has_value())
      return {};
    return std::get<1>(std::move(value_));
  }

  template <class U>
  T value_or(U&& fallback) const& {
    return has_value() ? std::get<0>(value_) : static_cast<T>(std::forward<U>(fallback));
  }

  /// True if this holds a value equal to `y` (as std::expected compares).
  template <class U>
    requires(!std::is_same_v<std::decay_t<U>, expected>)
  friend bool operator==(const expected& x, const U& y) {
    return x.has_value() && std::get<0>(x.value_) == y;
  }

private:
  void check() const {
    if (!has_value())
      throw bad_expected_access{std::get<1>(value_)};
  }

  std::variant<T, troupe::error> value_;
};

template <>
class expected<void> {
public:
  using value_type = void;

  expected() noexcept = default;

  expected(troupe::error err) noexcept : err_(std::move(err)) {}

  template <class Enum>
    requires is_error_code_enum_v<Enum>
  expected(Enum code) : err_(code) {}

  bool has_value() const noexcept {
    return err_.empty();
  }

  explicit operator bool() const noexcept {
    return has_value();
  }

  void value() const {
    if (!has_value())
      throw bad_expected_access{err_};
  }

  const troupe::error& error() const& noexcept {
    return err_;
  }
  troupe::error&& error() && noexcept {
    return std::move(err_);
  }

private:
  troupe::error err_;
};

} // namespace troupe
