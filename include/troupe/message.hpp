#pragma once

// A message is a reference-counted, copy-on-write tuple of values in one
// allocation: a header (reference count, interned type ID list) followed by
// the elements, each starting on an `element_alignment` boundary.
//
//   auto msg = make_message(1, std::string{"two"});
//   if (msg.match_elements<int, std::string>())
//     use(msg.get_as<int>(0), msg.get_as<std::string>(1));

#include "troupe/detail/thread_cache.hpp"
#include "troupe/type_id_list.hpp"

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <new>
#include <span>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>

namespace troupe {

namespace detail {

class message_data {
public:
  static constexpr size_t header_size = padded_size(2 * sizeof(uint32_t) + sizeof(void*));

  message_data(const message_data&) = delete;
  message_data& operator=(const message_data&) = delete;

  type_id_list types() const noexcept {
    return types_;
  }

  std::byte* storage() noexcept {
    return reinterpret_cast<std::byte*>(this) + header_size;
  }

  const std::byte* storage() const noexcept {
    return reinterpret_cast<const std::byte*>(this) + header_size;
  }

  void ref() noexcept {
    rc_.fetch_add(1, std::memory_order_relaxed);
  }

  void deref() noexcept {
    // A message with one owner (the common case) skips the atomic RMW.
    if (rc_.load(std::memory_order_acquire) == 1
        || rc_.fetch_sub(1, std::memory_order_acq_rel) == 1)
      destroy();
  }

  bool unique() const noexcept {
    return rc_.load(std::memory_order_acquire) == 1;
  }

  /// Allocates room for elements of `total_size` bytes; the caller constructs
  /// them and calls `set_types` last (until then destruction skips them).
  static message_data* allocate(size_t total_size);

  /// The same for a size known at compile time: the thread cache's size
  /// class is a constant and the fast path inline.
  template <size_t TotalSize>
  static message_data* allocate() {
    constexpr size_t size = header_size + TotalSize;
    static_assert(size < (size_t{1} << 31), "troupe: message larger than 2 GiB");
    return new (cached_allocate(size)) message_data(static_cast<uint32_t>(size));
  }

  /// Sets the type list once all elements are constructed. `trivial` says
  /// that no element needs its destructor run.
  void set_types(type_id_list types, bool trivial = false) noexcept {
    types_ = types;
    size_and_trivial_ = (size_and_trivial_ & size_mask) | (uint32_t{trivial} << 31);
  }

  /// Offset of element `index` by walking the meta objects.
  size_t offset_of(size_t index) const noexcept;

  /// A deep copy (used by copy-on-write).
  message_data* copy() const;

private:
  static constexpr uint32_t size_mask = 0x7FFF'FFFF;

  explicit message_data(uint32_t alloc_size) noexcept : size_and_trivial_(alloc_size) {}

  bool trivial() const noexcept {
    return (size_and_trivial_ >> 31) != 0;
  }

  size_t alloc_size() const noexcept {
    return size_and_trivial_ & size_mask;
  }

  void destroy() noexcept;

  /// Destroys the elements, then the rest as for trivial ones.
  void destroy_elements() noexcept;

  std::atomic<uint32_t> rc_{1};
  // Bytes of this block, header included (for the thread cache), and in the
  // top bit whether no element needs its destructor run. One word, not bit
  // fields: written and read whole, so that freeing a message right after
  // building it reads the word straight from the store buffer.
  uint32_t size_and_trivial_;
  type_id_list types_{type_id_list::of<>()};
};

// -- loops over elements known by their type IDs ------------------------------

/// Destroys the elements `ids` laid out from `ptr`.
void destroy_elements(std::span<const type_id_t> ids, std::byte* ptr) noexcept;

/// Copy-constructs the elements `ids` laid out from `src` into `dst`; if one
/// throws, destroys the copies made so far and rethrows.
void copy_elements(std::span<const type_id_t> ids, const std::byte* src, std::byte* dst);

/// The same with move construction (the sources stay, moved from).
void move_elements(std::span<const type_id_t> ids, std::byte* src, std::byte* dst);

template <class... Ts>
constexpr auto element_offsets() noexcept {
  std::array<size_t, sizeof...(Ts) + 1> result{};
  size_t sizes[] = {padded_size_v<Ts>..., 0};
  for (size_t i = 0; i < sizeof...(Ts); ++i)
    result[i + 1] = result[i] + sizes[i];
  return result;
}

template <class... Ts>
inline constexpr auto element_offsets_v = element_offsets<Ts...>();

template <class T>
inline constexpr bool fits_element_alignment_v = alignof(T) <= element_alignment;

} // namespace detail

class message {
public:
  message() noexcept = default;

  explicit message(detail::message_data* data) noexcept : data_(data) {}

  message(const message& other) noexcept : data_(other.data_) {
    if (data_)
      data_->ref();
  }

  message(message&& other) noexcept : data_(std::exchange(other.data_, nullptr)) {}

  message& operator=(const message& other) noexcept {
    message tmp{other};
    swap(tmp);
    return *this;
  }

  message& operator=(message&& other) noexcept {
    message tmp{std::move(other)};
    swap(tmp);
    return *this;
  }

  ~message() {
    if (data_)
      data_->deref();
  }

  void swap(message& other) noexcept {
    std::swap(data_, other.data_);
  }

  size_t size() const noexcept {
    return data_ ? data_->types().size() : 0;
  }

  bool empty() const noexcept {
    return size() == 0;
  }

  type_id_list types() const noexcept {
    return data_ ? data_->types() : type_id_list::of<>();
  }

  type_id_t type_at(size_t index) const noexcept {
    return types()[index];
  }

  template <class T>
  bool match_element(size_t index) const noexcept {
    return index < size() && type_at(index) == type_id_v<T>;
  }

  /// True if the elements are exactly `Ts...`.
  template <class... Ts>
  bool match_elements() const noexcept {
    return types() == type_id_list::of<Ts...>();
  }

  const void* data_at(size_t index) const noexcept {
    return data_->storage() + data_->offset_of(index);
  }

  /// Unshares the message first if others hold it too.
  void* mutable_data_at(size_t index) {
    unshare();
    return data_->storage() + data_->offset_of(index);
  }

  /// Element `index` as `T`; requires `match_element<T>(index)`.
  template <class T>
  const T& get_as(size_t index) const noexcept {
    return *static_cast<const T*>(data_at(index));
  }

  template <class T>
  T& get_mutable_as(size_t index) {
    return *static_cast<T*>(mutable_data_at(index));
  }

  /// A tuple of const references to all elements; requires match_elements.
  template <class... Ts>
  std::tuple<const Ts&...> get_as_tuple() const noexcept {
    return get_as_tuple_impl<Ts...>(std::index_sequence_for<Ts...>{});
  }

  /// Makes this message the only owner of its data.
  void unshare() {
    if (data_ && !data_->unique()) {
      auto* copy = data_->copy();
      data_->deref();
      data_ = copy;
    }
  }

  bool unique() const noexcept {
    return data_ == nullptr || data_->unique();
  }

  detail::message_data* raw() const noexcept {
    return data_;
  }

  detail::message_data* release() noexcept {
    return std::exchange(data_, nullptr);
  }

  /// "message(1, \"two\")".
  friend std::string to_string(const message& msg);

private:
  template <class... Ts, size_t... Is>
  std::tuple<const Ts&...> get_as_tuple_impl(std::index_sequence<Is...>) const noexcept {
    constexpr auto& offsets = detail::element_offsets_v<Ts...>;
    auto* base = data_->storage();
    return std::tuple<const Ts&...>{
      *reinterpret_cast<const Ts*>(base + offsets[Is])...};
  }

  detail::message_data* data_ = nullptr;
};

namespace detail {

template <class... Ts, class... Args>
message make_message_impl(Args&&... xs) {
  static_assert((fits_element_alignment_v<Ts> && ...),
                "troupe: message elements may not be over-aligned");
  constexpr auto& offsets = element_offsets_v<Ts...>;
  auto* data = message_data::allocate<offsets[sizeof...(Ts)]>();
  message result{data};
  if constexpr (sizeof...(Ts) > 0) {
    auto* base = data->storage();
    size_t constructed = 0;
    try {
      [&]<size_t... Is>(std::index_sequence<Is...>) {
        ((new (base + offsets[Is]) Ts(std::forward<Args>(xs)), ++constructed), ...);
      }(std::index_sequence_for<Ts...>{});
    } catch (...) {
      // Destroy what was built; the types are not set, so the message's
      // own destructor skips the elements.
      [&]<size_t... Is>(std::index_sequence<Is...>) {
        ((Is < constructed ? reinterpret_cast<Ts*>(base + offsets[Is])->~Ts() : void()), ...);
      }(std::index_sequence_for<Ts...>{});
      throw;
    }
  }
  data->set_types(type_id_list::of<Ts...>(), (std::is_trivially_destructible_v<Ts> && ...));
  return result;
}

template <class T>
struct message_element_type {
  using type = std::decay_t<T>;
};

template <>
struct message_element_type<const char*> {
  using type = std::string;
};

template <size_t N>
struct message_element_type<char[N]> {
  using type = std::string;
};

template <size_t N>
struct message_element_type<const char[N]> {
  using type = std::string;
};

/// An actor's own pointer in a message is its handle (`self` sent as an
/// argument, as in CAF).
template <class T>
  requires requires { typename T::handle_type; } && requires(T* x) { x->ctrl(); }
struct message_element_type<T*> {
  using type = typename T::handle_type;
};

template <class T>
using message_element_t = typename message_element_type<std::remove_cvref_t<T>>::type;

} // namespace detail

/// Builds a message from values; string literals become std::string.
template <class... Ts>
message make_message(Ts&&... xs) {
  return detail::make_message_impl<detail::message_element_t<Ts>...>(std::forward<Ts>(xs)...);
}

} // namespace troupe
