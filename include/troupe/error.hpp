#pragma once

// Errors are values. An `error` is empty (no error) or carries a code from an
// error code enum, the enum's type ID as its category, and a context string
// that says what went wrong in words.

#include "troupe/detail/meta_object.hpp"
#include "troupe/type_id.hpp"

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <type_traits>

namespace troupe {

/// Troupe's own error codes.
enum class errc : uint8_t {
  none = 0,
  /// No handler of the receiver matched the message.
  unexpected_message,
  /// A response arrived that no handler of the requester could take.
  unexpected_response,
  /// A request got no response before its timeout.
  request_timeout,
  /// The receiver had terminated (or terminated before answering).
  actor_down,
  /// A function got an argument it can't use.
  invalid_argument,
  /// A configuration key nobody declared, or (get_as) one given no value.
  unknown_key,
  /// A configuration value of the wrong type or out of range.
  malformed_value,
  /// A file or command line that could not be parsed.
  parse_error,
  /// A handler threw or returned a failure that has no code of its own.
  runtime_error,
  /// The actor system is shutting down and no longer runs actors.
  system_shutdown,
  /// A bounded queue had no room left.
  queue_full,
  /// A response promise was dropped without a response.
  broken_promise,
  /// A type that can't be serialized: no inspect(), no type ID, no default
  /// constructor, or an unknown type ID in the input.
  unsupported_type,
  /// The input ended before the value it encodes.
  truncated_input,
  /// Input that encodes no value: a bad length, tag or byte.
  malformed_input,
  /// A loaded value its field rejects: a broken invariant, a refusing setter.
  invalid_field,
  /// User code threw on behalf of a request that others keep running, such
  /// as a stage of a parallel pattern; the context names where.
  unhandled_exception,
  /// No connection to a node could be made (troupe::net): the address does
  /// not resolve, nobody listens, or the handshake failed.
  cannot_connect_to_node,
  /// A remote actor offers another interface than the handle asked for.
  unexpected_actor_messaging_interface,
  /// A peer speaks another protocol or protocol version.
  incompatible_versions,
  /// publish() of an invalid handle, or a port that could not be opened.
  cannot_publish_invalid_actor,
  /// A network service's connection ended: the peer closed it, or it failed
  /// (the context says how).
  connection_closed,
};

std::string to_string(errc x);

/// CAF's name for its system error codes; the codes both define
/// (unexpected_message, request_timeout, runtime_error, ...) have one name.
using sec = errc;

/// Why an actor terminated.
enum class exit_reason : uint8_t {
  normal = 0,
  /// A handler threw an exception that nobody caught.
  unhandled_exception,
  /// Killed: `send_exit(x, exit_reason::kill)`; cannot be trapped.
  kill,
  /// Asked to stop by a user (`send_exit(x, exit_reason::user_shutdown)`).
  user_shutdown,
  /// No handle to the actor remained.
  unreachable,
  /// Terminated by an error that is not an exit reason.
  unknown,
  /// Stopped by actor_system::shutdown, which the system's destructor calls
  /// once the grace period has passed; cannot be trapped.
  system_shutdown,
  /// The actor lives on a node this one lost (troupe::net): the node closed
  /// the connection, crashed or stopped answering heartbeats.
  remote_link_unreachable,
};

std::string to_string(exit_reason x);

/// Enums usable as error codes. Specialise to `true` for your own enum
/// (its underlying type must be uint8_t) and give it a type ID, or write
/// TROUPE_ERROR_CODE_ENUM(my_errc) at global scope, as CAF_ERROR_CODE_ENUM.
/// A to_string(my_errc) found by ADL names the codes in printed errors.
template <class T>
struct is_error_code_enum : std::false_type {};

template <>
struct is_error_code_enum<errc> : std::true_type {};

template <>
struct is_error_code_enum<exit_reason> : std::true_type {};

template <class T>
inline constexpr bool is_error_code_enum_v = is_error_code_enum<T>::value;

class error {
public:
  error() noexcept = default;

  error(uint8_t code, type_id_t category, std::string context = {},
        std::string (*code_name)(uint8_t) = nullptr);

  template <class Enum>
    requires is_error_code_enum_v<Enum>
  error(Enum code) : error(code, std::string{}) {}

  template <class Enum>
    requires is_error_code_enum_v<Enum>
  error(Enum code, std::string context) {
    static_assert(std::is_same_v<std::underlying_type_t<Enum>, uint8_t>,
                  "troupe: error code enums have uint8_t as underlying type");
    if (static_cast<uint8_t>(code) != 0 || !context.empty())
      data_ = std::make_unique<data>(data{static_cast<uint8_t>(code),
                                          type_id<Enum>::value, std::move(context),
                                          &code_name_of<Enum>});
  }

  error(const error& other);
  error(error&&) noexcept = default;
  error& operator=(const error& other);
  error& operator=(error&&) noexcept = default;

  /// True if this is an error.
  explicit operator bool() const noexcept {
    return data_ != nullptr;
  }

  bool empty() const noexcept {
    return data_ == nullptr;
  }

  uint8_t code() const noexcept {
    return data_ ? data_->code : 0;
  }

  type_id_t category() const noexcept {
    return data_ ? data_->category : invalid_type_id;
  }

  const std::string& context() const noexcept;

  /// Puts `prefix` in front of the context (e.g. the path of the field that
  /// failed to load); no effect on an empty error.
  void prepend_context(std::string_view prefix);

  /// "troupe::errc::actor_down: the receiver had terminated".
  friend std::string to_string(const error& x);

  friend bool operator==(const error& x, const error& y) noexcept {
    return x.code() == y.code() && x.category() == y.category();
  }

  template <class Enum>
    requires is_error_code_enum_v<Enum>
  friend bool operator==(const error& x, Enum y) noexcept {
    if (static_cast<uint8_t>(y) == 0)
      return x.empty();
    return x.code() == static_cast<uint8_t>(y) && x.category() == type_id<Enum>::value;
  }

  /// Code, context and category (the type ID of the code's enum); an empty
  /// error is code 0 without context or category. Loading rejects a
  /// category that names no error code enum with errc::invalid_field.
  template <class Inspector>
  friend bool inspect(Inspector& f, error& x) {
    uint8_t code = x.code();
    if constexpr (Inspector::is_loading) {
      std::string context;
      // The category comes last: its setter builds the error.
      auto get = [&x] { return x.category(); };
      auto set = [&](type_id_t category) { return x.restore(code, category, std::move(context)); };
      return f.object(x).fields(f.field("code", code), f.field("context", context),
                                f.field("category", get, set));
    } else {
      type_id_t category = x.category();
      // Savers only read the fields they are given.
      auto& context = const_cast<std::string&>(x.context());
      return f.object(x).fields(f.field("code", code), f.field("context", context),
                                f.field("category", category));
    }
  }

private:
  /// Sets the parts of a loaded error, or says why they make no error.
  error restore(uint8_t code, type_id_t category, std::string context);

  template <class Enum>
  static std::string code_name_of(uint8_t code) {
    if constexpr (requires(Enum e) { to_string(e); })
      return to_string(static_cast<Enum>(code));
    else
      return std::to_string(code);
  }

  struct data {
    uint8_t code;
    type_id_t category;
    std::string context;
    std::string (*code_name)(uint8_t);
  };

  std::unique_ptr<data> data_;
};

template <class Enum>
  requires is_error_code_enum_v<Enum>
error make_error(Enum code, std::string context = {}) {
  return error{code, std::move(context)};
}

/// Thrown by `expected<T>::value()` on an error, and nowhere else.
class bad_expected_access : public std::exception {
public:
  explicit bad_expected_access(troupe::error err);
  const char* what() const noexcept override;
  const troupe::error& error() const noexcept {
    return err_;
  }

private:
  troupe::error err_;
  std::string what_;
};

} // namespace troupe

/// Makes `enum_name` (qualified, at global scope) an error code enum.
#define TROUPE_ERROR_CODE_ENUM(enum_name)                                      \
  template <>                                                                  \
  struct troupe::is_error_code_enum<enum_name> : std::true_type {};

TROUPE_BEGIN_TYPE_ID_BLOCK(core_errors, 100)
  TROUPE_ADD_CORE_TYPE_ID(core_errors, (troupe::errc))
  TROUPE_ADD_CORE_TYPE_ID(core_errors, (troupe::exit_reason))
  TROUPE_ADD_CORE_TYPE_ID(core_errors, (troupe::error))
TROUPE_END_TYPE_ID_BLOCK(core_errors)
