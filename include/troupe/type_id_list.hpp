#pragma once

// An interned list of type IDs: a pointer to {size, id0, id1, ...}. Lists
// built from a static type pack share one array per pack, so most equality
// checks end at the pointer comparison.

#include "troupe/type_id.hpp"

#include <cstddef>
#include <cstring>
#include <span>
#include <string>

namespace troupe {

namespace detail {

template <class... Ts>
inline constexpr type_id_t type_id_list_storage[] = {
  static_cast<type_id_t>(sizeof...(Ts)), type_id_v<Ts>...};

} // namespace detail

class type_id_list {
public:
  constexpr explicit type_id_list(const type_id_t* data) noexcept : data_(data) {}

  constexpr size_t size() const noexcept {
    return data_[0];
  }

  constexpr bool empty() const noexcept {
    return data_[0] == 0;
  }

  constexpr type_id_t operator[](size_t index) const noexcept {
    return data_[index + 1];
  }

  constexpr const type_id_t* begin() const noexcept {
    return data_ + 1;
  }

  constexpr const type_id_t* end() const noexcept {
    return data_ + 1 + size();
  }

  constexpr const type_id_t* data() const noexcept {
    return data_;
  }

  friend bool operator==(type_id_list x, type_id_list y) noexcept {
    if (x.data_ == y.data_)
      return true;
    auto n = x.size();
    if (n != y.size())
      return false;
    for (size_t i = 1; i <= n; ++i)
      if (x.data_[i] != y.data_[i])
        return false;
    return true;
  }

  /// The list for a static type pack.
  template <class... Ts>
  static constexpr type_id_list of() noexcept {
    return type_id_list{detail::type_id_list_storage<std::decay_t<Ts>...>};
  }

  /// The interned list equal to `ids`, created on first use.
  static type_id_list intern(std::span<const type_id_t> ids);

  /// "(int32_t, std::string)".
  friend std::string to_string(type_id_list xs);

private:
  const type_id_t* data_;
};

template <class... Ts>
type_id_list make_type_id_list() noexcept {
  return type_id_list::of<Ts...>();
}

} // namespace troupe
