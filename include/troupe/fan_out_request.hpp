#pragma once

// One request to many actors, one answer for the requester, as CAF's
// fan_out_request:
//
//   self->mail(get_atom_v).fan_out_request(workers, 1s, policy::select_all_tag)
//     .then([](std::vector<int> xs) { ... }, [](error& err) { ... });
//
// select_all_tag: the handler gets every answer, in the order they arrived,
// once all are in; the first error (or timeout) goes to the error handler
// instead, once. select_any_tag: the handler gets the first answer; the
// error handler runs only if every request failed, with the last error.

#include "troupe/detail/callable_trait.hpp"
#include "troupe/detail/handle_traits.hpp"
#include "troupe/error.hpp"
#include "troupe/message_id.hpp"
#include "troupe/policy/select_all.hpp"
#include "troupe/policy/select_any.hpp"

#include <cstddef>
#include <memory>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

namespace troupe {

template <class Self, class Policy, class Handle, class... Ts>
class [[nodiscard]] fan_out_handle {
public:
  fan_out_handle(Self* self, message_priority prio, std::vector<Handle> hdls, timespan timeout,
                 std::tuple<Ts...> xs)
    : self_(self), prio_(prio), hdls_(std::move(hdls)), timeout_(timeout), xs_(std::move(xs)) {}

  /// Sends the requests; `f` gets the result (see the policies above).
  template <class F, class OnError>
  void then(F f, OnError on_error) && {
    using args = typename detail::callable_trait_t<F>::decayed_arg_types;
    static_assert(args::size == 1, "troupe: a fan-out handler takes one argument");
    using arg = typename detail::type_list_head<args>::type;
    if (hdls_.empty()) {
      error err{errc::invalid_argument, "fan_out_request to no actor"};
      on_error(err);
      return;
    }
    if constexpr (std::is_same_v<Policy, policy::select_all_tag_t>)
      send_all<typename arg::value_type>(std::move(f), std::move(on_error));
    else
      send_any<arg>(std::move(f), std::move(on_error));
  }

private:
  template <class OnValue, class OnError>
  void send_each(OnValue on_value, OnError on_error) {
    for (auto& hdl : hdls_)
      std::apply(
        [&](const Ts&... xs) {
          if (prio_ == message_priority::urgent)
            self_->template request<message_priority::urgent>(hdl, timeout_, xs...)
              .then(on_value, on_error);
          else
            self_->request(hdl, timeout_, xs...).then(on_value, on_error);
        },
        xs_);
  }

  template <class T, class F, class OnError>
  void send_all(F f, OnError on_error) {
    struct state {
      size_t pending;
      std::vector<T> results;
      F f;
      OnError on_error;
      bool failed = false;
    };
    auto st = std::make_shared<state>(state{hdls_.size(), {}, std::move(f), std::move(on_error)});
    st->results.reserve(hdls_.size());
    send_each(
      [st](T& x) {
        if (st->failed)
          return;
        st->results.push_back(std::move(x));
        if (--st->pending == 0)
          st->f(std::move(st->results));
      },
      [st](error& err) {
        if (std::exchange(st->failed, true))
          return;
        st->on_error(err);
      });
  }

  template <class T, class F, class OnError>
  void send_any(F f, OnError on_error) {
    struct state {
      size_t pending;
      F f;
      OnError on_error;
      bool done = false;
    };
    auto st = std::make_shared<state>(state{hdls_.size(), std::move(f), std::move(on_error)});
    send_each(
      [st](T& x) {
        if (std::exchange(st->done, true))
          return;
        st->f(std::move(x));
      },
      [st](error& err) {
        if (--st->pending == 0 && !st->done) {
          st->done = true;
          st->on_error(err);
        }
      });
  }

  Self* self_;
  message_priority prio_;
  std::vector<Handle> hdls_;
  timespan timeout_;
  std::tuple<Ts...> xs_;
};

} // namespace troupe
