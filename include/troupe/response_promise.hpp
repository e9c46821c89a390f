#pragma once

// A promise to answer the request an actor is handling now, later or from
// elsewhere. Copies share one state; the response goes out once. If the last
// copy is destroyed without delivering, the requester gets
// errc::broken_promise.

#include "troupe/actor_control_block.hpp"
#include "troupe/error.hpp"
#include "troupe/message.hpp"
#include "troupe/message_id.hpp"

#include <memory>

namespace troupe {

class response_promise {
public:
  static constexpr bool is_response_promise = true;

  response_promise() noexcept = default;

  response_promise(strong_actor_ptr self, strong_actor_ptr requester, message_id mid);

  /// True while a response is still owed.
  bool pending() const noexcept;

  template <class... Ts>
  void deliver(Ts&&... xs) {
    if constexpr (sizeof...(Ts) == 1
                  && (std::is_same_v<std::decay_t<Ts>, error> && ...)) {
      deliver_error(std::forward<Ts>(xs)...);
    } else {
      deliver_message(make_message(std::forward<Ts>(xs)...));
    }
  }

  void deliver_message(message msg);
  void deliver_error(error err);

private:
  struct state;
  std::shared_ptr<state> state_;
};

/// A response_promise whose response types are checked at compile time.
template <class... Ts>
class typed_response_promise {
public:
  static constexpr bool is_response_promise = true;

  typed_response_promise() noexcept = default;

  explicit typed_response_promise(response_promise impl) : impl_(std::move(impl)) {}

  bool pending() const noexcept {
    return impl_.pending();
  }

  template <class... Us>
    requires(sizeof...(Us) == sizeof...(Ts)
             && (std::is_convertible_v<Us&&, Ts> && ...))
  void deliver(Us&&... xs) {
    impl_.deliver_message(make_message(Ts(std::forward<Us>(xs))...));
  }

  void deliver(error err) {
    impl_.deliver_error(std::move(err));
  }

private:
  response_promise impl_;
};

} // namespace troupe
