#pragma once

// troupe::test::deterministic: a GoogleTest fixture whose actor system has no
// threads. Actors run only when the test says so, one message at a time, on
// the test's thread; time moves only when the test moves it. So a test can
// say which message comes next and what happens then, and a timeout is as
// quick and as certain as any other step.
//
//   struct calculator_test : troupe::test::deterministic {};
//
//   TEST_F(calculator_test, adds) {
//     auto calc = sys.spawn(calculator);
//     auto client = sys.spawn(client_fn, calc); // requests add(1, 2) at start
//     expect<add_atom, int32_t, int32_t>().with(add_atom_v, 1, 2).from(client).to(calc);
//     expect<int32_t>().with(3).from(calc).to(client);
//   }
//
// - expect<Ts...>() checks that the next message of the receiver has the
//   types Ts... (and the sender and values given), then has the receiver
//   handle it. If it has not, the test fails naming the expected and the
//   actual next message, and stops.
// - allow<Ts...>() does the same when the next message matches, else
//   nothing; disallow<Ts...>() fails if it matches; prepone<Ts...>() moves
//   the first matching message of the mailbox to its front.
// - inject().with(xs...).from(src).to(dst) sends xs... and has dst handle
//   it at once.
// - dispatch_message() runs one message of the first actor that has one;
//   dispatch_messages() runs until no actor has one.
// - advance_time(d) moves the virtual clock, which delivers the delayed
//   messages, request timeouts and idle timeouts due by then; they are
//   handled like any other message.
//
// Actors initialise (run their behavior factory) before the test looks at
// anything, so what they send at start already waits in mailboxes.
// Detached actors run here too. Blocking actors and scoped actors run on
// their own threads as usual: send from a scoped actor, and receive what the
// actors answered with receive(..., after(timespan{0}) >> ...) once they ran.
// Nothing runs while the test's thread waits, so a test never waits on the
// system (await_all_actors_done, a receive without a timeout).

#include "troupe/actor_system.hpp"
#include "troupe/actor_system_config.hpp"
#include "troupe/detail/handle_traits.hpp"
#include "troupe/local_actor.hpp"
#include "troupe/mailbox_element.hpp"
#include "troupe/message.hpp"
#include "troupe/system_messages.hpp"
#include "troupe/test/deterministic_scheduler.hpp"
#include "troupe/test/virtual_clock.hpp"

#include <gtest/gtest.h>

#include <cstddef>
#include <functional>
#include <optional>
#include <source_location>
#include <stdexcept>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>

namespace troupe::test {

/// Ends a test after a failed expectation has been reported to GoogleTest.
class expectation_failed : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

namespace detail {

template <class T>
struct is_reference_wrapper : std::false_type {};

template <class T>
struct is_reference_wrapper<std::reference_wrapper<T>> : std::true_type {};

/// One argument of with(): a value to compare with, a predicate, std::ignore
/// (anything), or std::ref(x) (anything, stored in x on a match).
template <class T, class Arg>
class element_matcher {
public:
  explicit element_matcher(Arg arg) : arg_(std::move(arg)) {}

  bool matches(const T& x) const {
    if constexpr (std::is_same_v<Arg, std::decay_t<decltype(std::ignore)>>
                  || is_reference_wrapper<Arg>::value)
      return true;
    else if constexpr (std::is_invocable_r_v<bool, const Arg&, const T&>)
      return std::invoke(arg_, x);
    else
      return x == arg_;
  }

  void capture(const T& x) const {
    if constexpr (is_reference_wrapper<Arg>::value)
      arg_.get() = x;
  }

private:
  Arg arg_;
};

} // namespace detail

class deterministic : public ::testing::Test {
public:
  /// What an evaluator does with the receiver's next message.
  enum class algorithm { expect, allow, disallow, prepone, prepone_and_expect, prepone_and_allow };

  /// What a message must be to match.
  struct message_filter {
    /// The expected types, for failure messages: "(int32_t, std::string)".
    std::string types;
    /// Checks types and values.
    std::function<bool(const message&)> matches;
    /// Stores the values that with() asked for by std::ref; after a match.
    std::function<void(const message&)> capture;
    /// Whether from() was given; then `sender` must be the sender (nullptr:
    /// an anonymous message).
    bool sender_given = false;
    actor_control_block* sender = nullptr;

    bool accepts(const mailbox_element& elem) const;

    /// "expect<(int32_t)>().from(actor#3)" and the like.
    std::string describe(algorithm algo) const;
  };

  /// The fluent half of expect, allow, disallow and prepone: give the
  /// sender and values, then the receiver, which runs the check.
  template <class... Ts>
  class evaluator {
  public:
    evaluator(deterministic* fix, std::source_location loc, algorithm algo)
      : fix_(fix), loc_(loc), algo_(algo) {
      filter_.types = to_string(make_type_id_list<Ts...>());
      filter_.matches = [](const message& msg) { return msg.match_elements<Ts...>(); };
    }

    evaluator(const evaluator&) = delete;
    evaluator& operator=(const evaluator&) = delete;

    /// The values, one per type: a value (compared with ==), a predicate
    /// taking the element, std::ignore, or std::ref(x) to store the element
    /// in x when the message matches.
    template <class... Args>
    evaluator&& with(Args... args) && {
      static_assert(sizeof...(Args) == sizeof...(Ts),
                    "troupe::test: with() takes one argument per message element");
      using matchers = std::tuple<detail::element_matcher<Ts, Args>...>;
      auto xs = std::make_shared<matchers>(detail::element_matcher<Ts, Args>{std::move(args)}...);
      filter_.matches = [xs](const message& msg) {
        if (!msg.match_elements<Ts...>())
          return false;
        return [&]<size_t... Is>(std::index_sequence<Is...>) {
          return (std::get<Is>(*xs).matches(msg.get_as<Ts>(Is)) && ...);
        }(std::index_sequence_for<Ts...>{});
      };
      filter_.capture = [xs](const message& msg) {
        [&]<size_t... Is>(std::index_sequence<Is...>) {
          (std::get<Is>(*xs).capture(msg.get_as<Ts>(Is)), ...);
        }(std::index_sequence_for<Ts...>{});
      };
      return std::move(*this);
    }

    /// Matches only messages from `src`.
    template <troupe::detail::actor_handle Handle>
    evaluator&& from(const Handle& src) && {
      filter_.sender_given = true;
      filter_.sender = troupe::detail::handle_ctrl(src);
      return std::move(*this);
    }

    /// Matches only messages from `src`; a null `src` only anonymous ones.
    evaluator&& from(const strong_actor_ptr& src) && {
      filter_.sender_given = true;
      filter_.sender = src.get();
      return std::move(*this);
    }

    /// Matches only anonymous messages.
    evaluator&& from(std::nullptr_t) && {
      filter_.sender_given = true;
      filter_.sender = nullptr;
      return std::move(*this);
    }

    /// Runs the check on the mailbox of `dst`. expect and
    /// prepone_and_expect return true or fail; the others return whether
    /// they matched (disallow: true if nothing matched).
    template <troupe::detail::actor_handle Handle>
    bool to(const Handle& dst) && {
      return fix_->evaluate(algo_, troupe::detail::handle_ctrl(dst), filter_, loc_);
    }

  private:
    deterministic* fix_;
    std::source_location loc_;
    algorithm algo_;
    message_filter filter_;
  };

  /// The fluent half of inject.
  template <class... Ts>
  class injector {
  public:
    injector(deterministic* fix, std::source_location loc, Ts... xs)
      : fix_(fix), loc_(loc), values_(std::move(xs)...) {}

    injector(const injector&) = delete;
    injector& operator=(const injector&) = delete;

    /// The sender; anonymous if not given.
    template <troupe::detail::actor_handle Handle>
    injector&& from(const Handle& src) && {
      sender_ = strong_actor_ptr{troupe::detail::handle_ctrl(src)};
      return std::move(*this);
    }

    /// Sends the values to `dst` and has it handle them at once, as
    /// prepone_and_expect.
    template <troupe::detail::actor_handle Handle>
    void to(const Handle& dst) && {
      auto* ctrl = troupe::detail::handle_ctrl(dst);
      std::apply(
        [&](const Ts&... xs) {
          fix_->send_from(sender_, ctrl, make_message(xs...));
          evaluator<Ts...>{fix_, loc_, algorithm::prepone_and_expect}
            .with(xs...)
            .from(sender_)
            .to(dst);
        },
        values_);
    }

  private:
    deterministic* fix_;
    std::source_location loc_;
    std::tuple<Ts...> values_;
    strong_actor_ptr sender_;
  };

  struct inject_helper {
    deterministic* fix;
    std::source_location loc;

    template <class... Ts>
    injector<Ts...> with(Ts... xs) {
      return {fix, loc, std::move(xs)...};
    }
  };

  deterministic();

  /// Lets `configure` change the configuration before the system starts.
  explicit deterministic(const std::function<void(actor_system_config&)>& configure);

  ~deterministic() override;

  // -- checking messages -----------------------------------------------------------

  /// Fails and stops the test unless the next message of the receiver
  /// matches; then the receiver handles it.
  template <class... Ts>
  evaluator<Ts...> expect(std::source_location loc = std::source_location::current()) {
    return {this, loc, algorithm::expect};
  }

  /// Has the receiver handle its next message if that matches.
  template <class... Ts>
  evaluator<Ts...> allow(std::source_location loc = std::source_location::current()) {
    return {this, loc, algorithm::allow};
  }

  /// Fails and stops the test if the next message of the receiver matches.
  template <class... Ts>
  evaluator<Ts...> disallow(std::source_location loc = std::source_location::current()) {
    return {this, loc, algorithm::disallow};
  }

  /// Moves the first matching message of the receiver to the front of its
  /// mailbox (urgent messages still come first).
  template <class... Ts>
  evaluator<Ts...> prepone(std::source_location loc = std::source_location::current()) {
    return {this, loc, algorithm::prepone};
  }

  /// prepone, then expect.
  template <class... Ts>
  evaluator<Ts...> prepone_and_expect(std::source_location loc
                                      = std::source_location::current()) {
    return {this, loc, algorithm::prepone_and_expect};
  }

  /// prepone, then allow.
  template <class... Ts>
  evaluator<Ts...> prepone_and_allow(std::source_location loc
                                     = std::source_location::current()) {
    return {this, loc, algorithm::prepone_and_allow};
  }

  /// Starts `inject().with(xs...).from(src).to(dst)`.
  inject_helper inject(std::source_location loc = std::source_location::current()) {
    return {this, loc};
  }

  /// Sends `dst` an exit message with `reason` and has it handle it at once.
  template <troupe::detail::actor_handle Handle>
  void inject_exit(const Handle& dst, error reason = exit_reason::user_shutdown,
                   std::source_location loc = std::source_location::current()) {
    inject_exit_impl(troupe::detail::handle_ctrl(dst), std::move(reason), loc);
  }

  // -- running ---------------------------------------------------------------------

  /// Runs one message of the first actor in line that has one; false if
  /// none has.
  bool dispatch_message();

  /// Runs one message of `dst`; false if it has none.
  template <troupe::detail::actor_handle Handle>
  bool dispatch_message(const Handle& dst) {
    return dispatch_message_of(troupe::detail::handle_ctrl(dst));
  }

  /// Runs messages until no actor has one; returns how many ran. Actors
  /// that keep sending to each other keep it running.
  size_t dispatch_messages();

  // -- looking ---------------------------------------------------------------------

  /// Messages waiting in the mailboxes of all actors that run here.
  size_t mail_count();

  /// Messages waiting in the mailbox of `dst`.
  template <troupe::detail::actor_handle Handle>
  size_t mail_count(const Handle& dst) {
    return mail_count_of(troupe::detail::handle_ctrl(dst));
  }

  /// Calls `f(const mailbox_element&)` for each message of `dst`, in the
  /// order it would handle them.
  template <troupe::detail::actor_handle Handle, class F>
  void for_each_message(const Handle& dst, F f) {
    visit_mailbox(troupe::detail::handle_ctrl(dst),
                  [&f](const mailbox_element& elem) { f(elem); });
  }

  /// True once `dst` has terminated.
  template <troupe::detail::actor_handle Handle>
  bool terminated(const Handle& dst) {
    start_actors();
    auto* ctrl = troupe::detail::handle_ctrl(dst);
    return ctrl == nullptr || ctrl->get()->terminated();
  }

  // -- time ------------------------------------------------------------------------

  /// The virtual time.
  actor_clock::time_point now() const noexcept {
    return clock_->now();
  }

  /// Moves the time forward by `amount` and runs the timers due by then;
  /// returns how many ran. What they deliver waits for dispatch or expect.
  size_t advance_time(actor_clock::duration_type amount);

  /// Moves the time to `t` (never back); see advance_time.
  size_t set_time(actor_clock::time_point t);

  /// Runs the earliest timer, moving the time to its deadline; false if
  /// none is pending.
  bool trigger_timeout();

  /// Runs timers until none is pending; returns how many ran.
  size_t trigger_all_timeouts();

  /// Timers pending.
  size_t num_timeouts();

  /// The deadline of the earliest pending timer.
  std::optional<actor_clock::time_point> next_timeout();

  // -- the system ------------------------------------------------------------------

  /// The configuration, as CAF's fixture has it.
  actor_system_config cfg;

  /// The actor system; it stops its actors when the test ends.
  actor_system sys;

private:
  bool evaluate(algorithm algo, actor_control_block* dst, const message_filter& filter,
                const std::source_location& loc);

  /// The event-based actor behind `dst`, or a failure.
  scheduled_actor* target(actor_control_block* dst, const message_filter& filter,
                          algorithm algo, const std::source_location& loc);

  /// Has `self` handle its next message if it matches.
  bool dispatch_matching(scheduled_actor* self, const message_filter& filter, algorithm algo,
                         const std::source_location& loc);

  bool prepone_matching(scheduled_actor* self, const message_filter& filter);

  void send_from(const strong_actor_ptr& sender, actor_control_block* dst, message msg);

  void inject_exit_impl(actor_control_block* dst, error reason, const std::source_location& loc);

  bool dispatch_message_of(actor_control_block* dst);

  size_t mail_count_of(actor_control_block* dst);

  void visit_mailbox(actor_control_block* dst,
                     const std::function<void(const mailbox_element&)>& f);

  void start_actors();

  [[noreturn]] void fail(const std::source_location& loc, const std::string& what);

  deterministic_scheduler* sched_;
  virtual_clock* clock_;
  /// Nothing else runs the actors: the test's thread must never wait for
  /// room in a full mailbox; its messages go in over the bound.
  troupe::detail::no_push_wait no_push_wait_;
};

} // namespace troupe::test
