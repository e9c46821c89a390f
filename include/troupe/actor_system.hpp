#pragma once

// The actor system owns the scheduler, the clock and the threads of
// detached and blocking actors, and spawns actors. Destroying it waits until
// every actor (but hidden ones) has terminated: while anything inside the
// system can still make an actor run (activity()), it waits for that and
// says every troupe.shutdown.report-interval what it is; once nothing can,
// it waits one grace period (troupe.shutdown.grace-period) for a message
// from outside, then logs which actors are left, calls shutdown(), waits
// for them to stop, and stops the threads.
//
//   actor_system_config cfg;
//   actor_system sys{cfg};
//   auto worker = sys.spawn([] { return behavior{[](int x) { return x * 2; }}; });

#include "troupe/actor.hpp"
#include "troupe/actor_clock.hpp"
#include "troupe/actor_registry.hpp"
#include "troupe/actor_system_config.hpp"
#include "troupe/actor_system_module.hpp"
#include "troupe/blocking_actor.hpp"
#include "troupe/detail/callable_trait.hpp"
#include "troupe/event_based_actor.hpp"
#include "troupe/scheduler/scheduler.hpp"
#include "troupe/spawn_options.hpp"

#include <array>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <new>
#include <string>
#include <type_traits>
#include <vector>

namespace troupe::net {
class middleman;
} // namespace troupe::net

namespace troupe {

namespace detail {

class due_deliveries;

/// Allocates control block and actor in one block (control block first).
template <class T, class... Ts>
strong_actor_ptr make_actor(actor_id id, actor_system* sys, Ts&&... xs);

inline constexpr size_t actor_block_offset = 64;

void free_actor_block(actor_control_block* ctrl) noexcept;

void destroy_actor(abstract_actor* ptr) noexcept;

template <class T, class... Ts>
strong_actor_ptr make_actor(actor_id id, actor_system* sys, Ts&&... xs) {
  static_assert(sizeof(actor_control_block) <= actor_block_offset);
  static_assert(alignof(T) <= actor_block_offset,
                "troupe: actor types may be aligned to at most 64 bytes");
  void* mem = ::operator new(actor_block_offset + sizeof(T),
                             std::align_val_t{actor_block_offset});
  auto* ctrl = new (mem) actor_control_block(id, sys, destroy_actor, free_actor_block);
  try {
    actor_config cfg{ctrl};
    auto* ptr = new (static_cast<std::byte*>(mem) + actor_block_offset)
      T(cfg, std::forward<Ts>(xs)...);
    ctrl->set_actor(ptr);
  } catch (...) {
    ctrl->~actor_control_block();
    ::operator delete(mem, std::align_val_t{actor_block_offset});
    throw;
  }
  return strong_actor_ptr{ctrl, false};
}

/// The actor that runs a state class (actor_from_state.hpp).
template <class State>
class actor_from_state_impl;

/// The actor class for a function without self parameter, from what it
/// returns; typed_actor.hpp adds typed behaviors.
template <class Behavior>
struct behavior_actor {
  using type = event_based_actor;
};

/// The actor class a spawned function runs in, from its first parameter.
template <class F, class Args = typename callable_trait_t<F>::arg_types>
struct spawn_fun_trait {
  using impl = typename behavior_actor<
    std::decay_t<typename callable_trait_t<F>::result_type>>::type;
  static constexpr bool has_self = false;
};

template <class F, class Self, class... Ts>
  requires std::is_pointer_v<Self>
           && std::is_base_of_v<local_actor, std::remove_pointer_t<Self>>
struct spawn_fun_trait<F, type_list<Self, Ts...>> {
  using impl = std::remove_pointer_t<Self>;
  static constexpr bool has_self = true;
};

/// The handle type of actor class `T`.
class system_internals;

template <class T>
using handle_type_t = typename T::handle_type;

} // namespace detail

class actor_system {
public:
  explicit actor_system(const actor_system_config& cfg);

  /// Parts a caller puts in place of the configured ones, each behind an
  /// interface the caller implements: the deterministic test fixture
  /// (troupe/test/fixture/deterministic.hpp) takes control so. A part left
  /// empty keeps the default.
  struct custom_setup {
    /// Runs the jobs in place of the scheduler named in the configuration.
    std::unique_ptr<troupe::scheduler> scheduler;
    /// Fires the timers in place of the steady-clock timer thread, on the
    /// thread that advances it: their messages go straight into mailboxes.
    std::unique_ptr<actor_clock> clock;
    /// Runs an actor spawned `detached` in place of a thread of its own;
    /// it takes its own reference to the actor, as a scheduler does.
    std::function<void(scheduled_actor*)> launch_detached;
  };

  actor_system(const actor_system_config& cfg, custom_setup setup);

  actor_system(const actor_system&) = delete;
  actor_system& operator=(const actor_system&) = delete;

  /// Calls await_end(), then stops the modules, the clock, the scheduler
  /// and every actor thread.
  ~actor_system();

  // -- spawning -------------------------------------------------------------------

  /// Spawns a class-based actor: `spawn<my_actor>(args...)`.
  template <class T, spawn_options Os = no_spawn_options, class... Ts>
    requires std::is_base_of_v<local_actor, T>
  detail::handle_type_t<T> spawn(Ts&&... xs) {
    auto ptr = detail::make_actor<T>(next_actor_id(), this, std::forward<Ts>(xs)...);
    launch<T>(ptr, Os);
    return detail::handle_type_t<T>{actor{std::move(ptr)}};
  }

  /// Spawns an actor made of a state class with a make_behavior(), as CAF
  /// 1.x does: `spawn(actor_from_state<cell_state>, args...)`; needs
  /// troupe/actor_from_state.hpp.
  template <spawn_options Os = no_spawn_options, class State, class... Ts>
  auto spawn(actor_from_state_t<State>, Ts&&... xs) {
    return spawn<detail::actor_from_state_impl<State>, Os>(std::forward<Ts>(xs)...);
  }

  /// Spawns a function-based actor. The function may take a self pointer
  /// (`event_based_actor*`, `stateful_actor<S>*`, a typed actor pointer or
  /// `blocking_actor*`) and returns the actor's behavior (or nothing).
  template <spawn_options Os = no_spawn_options, class F, class... Ts>
    requires(!std::is_base_of_v<local_actor, F> && !std::is_same_v<F, mailbox_limit>
             && !detail::is_actor_from_state_v<F>)
  auto spawn(F fn, Ts&&... xs) {
    return spawn_function<Os>(mailbox_limit{}, std::move(fn), std::forward<Ts>(xs)...);
  }

  /// Spawns a function-based actor whose mailbox is bounded from the start
  /// (a class-based actor calls set_mailbox_capacity in its constructor).
  template <spawn_options Os = no_spawn_options, class F, class... Ts>
  auto spawn(mailbox_limit limit, F fn, Ts&&... xs) {
    return spawn_function<Os>(limit, std::move(fn), std::forward<Ts>(xs)...);
  }

private:
  template <spawn_options Os, class F, class... Ts>
  auto spawn_function(mailbox_limit limit, F fn, Ts&&... xs) {
    using trait = detail::spawn_fun_trait<F>;
    using impl = typename trait::impl;
    using handle = detail::handle_type_t<impl>;
    detail::check_mailbox_capacity(limit.capacity);
    strong_actor_ptr ptr;
    if constexpr (std::is_base_of_v<blocking_actor, impl>) {
      static_assert(trait::has_self);
      ptr = detail::make_actor<impl>(next_actor_id(), this);
      auto* self = static_cast<impl*>(ptr->get());
      if (limit.capacity > 0)
        self->set_mailbox_capacity(limit.capacity, limit.overflow);
      launch_blocking(ptr, Os, [self, fn = std::move(fn),
                                ... xs = std::forward<Ts>(xs)]() mutable {
        fn(self, std::move(xs)...);
      });
      return handle{actor{std::move(ptr)}};
    } else {
      auto init = [fn = std::move(fn), ... xs = std::forward<Ts>(xs)](impl* self) mutable
        -> behavior {
        using result_type = typename detail::callable_trait_t<F>::result_type;
        auto call = [&]() -> decltype(auto) {
          if constexpr (trait::has_self)
            return fn(self, std::move(xs)...);
          else
            return fn(std::move(xs)...);
        };
        if constexpr (std::is_void_v<result_type>) {
          call();
          return behavior{};
        } else {
          return unbox_behavior(call());
        }
      };
      using wrapper = detail::function_based_actor<impl>;
      ptr = detail::make_actor<wrapper>(next_actor_id(), this,
                                        typename wrapper::init_fn{std::move(init)});
      if (limit.capacity > 0)
        static_cast<wrapper*>(ptr->get())->set_mailbox_capacity(limit.capacity, limit.overflow);
      launch<wrapper>(ptr, Os);
      return handle{actor{std::move(ptr)}};
    }
  }

public:

  // -- lifetime -------------------------------------------------------------------

  /// Blocks until every non-hidden actor has terminated.
  void await_all_actors_done();

  /// Blocks until every non-hidden actor has terminated or `timeout` has
  /// passed; true if they all have.
  bool await_all_actors_done(timespan timeout);

  /// Waits as the destructor does until every non-hidden actor has
  /// terminated: while anything inside the system can still make an actor
  /// run (see activity()), saying every troupe.shutdown.report-interval
  /// what; once nothing can, one grace period (troupe.shutdown.grace-period)
  /// for a message from outside; then it stops the actors left with
  /// shutdown(), saying which. An actor that keeps sending itself messages
  /// keeps it waiting, as in CAF: shutdown(grace) ends that. exec_main calls
  /// it before the system goes out of scope, so that SIGINT still reaches
  /// the system while it waits. Not from an actor of this system.
  void await_end();

  /// What inside the system can still make an actor run, one line each: an
  /// active actor (abstract_actor::active: queued messages, a handler or a
  /// blocking body running, a receive with a timeout) with what it waits
  /// on, the pending timers (delayed messages, request timeouts, idle
  /// handlers), and what a module holds open (a listening port). Hidden
  /// actors' work counts too: it may be on behalf of others. Empty once
  /// the system is quiescent: then only a message from outside (a handle
  /// kept outside, a remote node) can make an actor run. Any thread; a
  /// snapshot.
  std::vector<std::string> activity() const;

  /// Ends the system `grace` from now: then shutdown() stops every actor,
  /// whatever it does; until then, actors finish on their own. What SIGINT
  /// and SIGTERM do under TROUPE_MAIN. Any thread; `grace` finite (zero
  /// calls shutdown() at once).
  void shutdown(timespan grace);

  /// Stops everything, from any thread (a handler too): pending timers
  /// are dropped (a delayed message counts as a dead letter), and every
  /// live actor gets an exit that it can't trap, with reason
  /// exit_reason::system_shutdown. An event-based actor terminates after
  /// the handler it runs; a blocking actor's receive gives its error
  /// handler errc::system_shutdown (or throws actor_exited); a request
  /// still queued anywhere is answered with errc::system_shutdown. Messages
  /// dropped on the way are dead letters, and the call logs how many.
  /// Calling it again stops only the actors spawned since; they get no
  /// timers either.
  void shutdown();

  /// True once shutdown() has begun.
  bool shutting_down() const noexcept {
    return shutting_down_.load(std::memory_order_acquire);
  }

  /// One line per live actor the system knows (every spawned actor and
  /// scoped actor): id, kind, and what it waits on (local_actor::wait_report).
  std::vector<std::string> live_actor_report() const;

  /// Number of non-hidden actors alive.
  size_t running_actors() const noexcept {
    return running_.load(std::memory_order_acquire);
  }

  /// Prints one line to stdout (see local_actor::println).
  template <class... Ts>
  void println(detail::log_format_string<std::type_identity_t<Ts>...> fmt,
               const Ts&... xs) {
    detail::print_line(detail::format_line<Ts...>(fmt, xs...));
  }

  // -- services -------------------------------------------------------------------

  troupe::scheduler& scheduler() noexcept {
    return *scheduler_;
  }

  /// Runs delayed sends, request timeouts and idle handlers.
  actor_clock& clock() noexcept {
    return *clock_;
  }

  /// The clock, for what may outlive the system (a disposable cancels its
  /// timer through it while the system lives).
  std::weak_ptr<actor_clock> weak_clock() const noexcept {
    return clock_;
  }

  /// Per-worker counters of the scheduler.
  std::vector<worker_stats> scheduler_stats() const {
    return scheduler_->stats();
  }

  const actor_system_config& config() const noexcept {
    return cfg_;
  }

  /// Actors by name (as CAF's sys.registry()).
  actor_registry& registry() noexcept {
    return names_;
  }

  /// The loaded module called `name`, or null.
  actor_system_module* module(std::string_view name) const noexcept;

  /// The network layer, as CAF's sys.middleman(): defined by the
  /// troupe::net library; throws std::logic_error unless the config loaded
  /// it (cfg.load<troupe::net::middleman>()).
  net::middleman& middleman();

  size_t max_throughput() const noexcept {
    return max_throughput_;
  }

  // -- dead letters -------------------------------------------------------------------

  /// Messages that reached no actor: sent to a terminated actor or an
  /// invalid handle, or left in a mailbox at termination.
  uint64_t dead_letters() const noexcept {
    return dead_letters_.load(std::memory_order_relaxed);
  }

  /// Counts `elem` as a dead letter and logs it at debug level.
  void add_dead_letter(const mailbox_element& elem) noexcept;

  /// Counts `msg` as a dead letter and logs it at debug level with `why`.
  void add_dead_letter(const message& msg, std::string_view why) noexcept;

private:
  // The runtime's classes reach these through detail::system_internals
  // (src/detail/system_internals.hpp).
  friend class detail::system_internals;

  actor_id next_actor_id() noexcept {
    return next_id_.fetch_add(1, std::memory_order_relaxed);
  }

  void register_actor() noexcept;
  void unregister_actor() noexcept;

  /// Adds `x` to the live actors shutdown() reaches; undone by cleanup.
  void list_actor(abstract_actor* x);
  void unlist_actor(abstract_actor* x) noexcept;

  /// Runs `job` on a thread of its own; joined at shutdown.
  void start_thread(std::function<void()> job);

  /// Delivers `elem`, the message of a timer that came due, to `dest`: the
  /// clock's actions call it. An actor the workers run gets it through
  /// them (src/detail/due_deliveries.hpp), any other at once.
  void deliver_due(strong_actor_ptr dest, mailbox_element_ptr elem);

  template <class T>
  void launch(const strong_actor_ptr& ptr, spawn_options os) {
    auto* self = static_cast<T*>(ptr->get());
    if constexpr (std::is_base_of_v<blocking_actor, T>) {
      launch_blocking(ptr, os, [self] { self->act(); });
    } else {
      launch_scheduled(self, os);
    }
  }

  /// Messages the live actors have taken from their mailboxes: the
  /// destructor's sign of life (a sum over actors that come and go, so it
  /// is compared for change only).
  uint64_t messages_taken() const;

  void launch_scheduled(scheduled_actor* self, spawn_options os);

  /// The default launch_detached: a thread of its own.
  void launch_on_thread(scheduled_actor* self);

  void launch_blocking(const strong_actor_ptr& ptr, spawn_options os,
                       std::function<void()> body);

  const actor_system_config& cfg_;
  size_t max_throughput_;
  std::unique_ptr<troupe::scheduler> scheduler_;
  // Null for a custom clock: its owner runs due timers when it advances
  // time, and expects their messages delivered by then. Made before the
  // clock, from whether the setup has one.
  std::unique_ptr<detail::due_deliveries> due_;
  // Shared only with weak references (disposables): the system owns it.
  std::shared_ptr<actor_clock> clock_;
  std::function<void(scheduled_actor*)> launch_detached_;
  std::atomic<actor_id> next_id_{1};
  std::atomic<uint64_t> dead_letters_{0};
  std::atomic<uint64_t> dead_letters_at_shutdown_{0};
  std::atomic<size_t> running_{0};
  std::atomic<bool> shutting_down_{false};
  std::mutex running_mtx_;
  std::condition_variable running_cv_;
  // The live actors, as an intrusive list through abstract_actor, split
  // over shards so that spawning on many workers rarely meets one lock.
  struct alignas(64) registry_shard {
    mutable std::mutex mtx;
    abstract_actor* head = nullptr;
  };
  static constexpr size_t registry_shards = 8;
  std::array<registry_shard, registry_shards> registry_;
  struct thread_registry;
  std::unique_ptr<thread_registry> threads_;
  actor_registry names_;
  // Built and started by the constructor, stopped once by the destructor.
  std::vector<std::unique_ptr<actor_system_module>> modules_;
};

// -- spawning from an actor (declared in local_actor.hpp) ------------------------

template <class T, spawn_options Os, class... Ts>
  requires std::is_base_of_v<local_actor, T>
auto local_actor::spawn(Ts&&... xs) {
  return system().template spawn<T, Os>(std::forward<Ts>(xs)...);
}

template <spawn_options Os, class F, class... Ts>
  requires(!std::is_base_of_v<local_actor, F>)
auto local_actor::spawn(F fn, Ts&&... xs) {
  return system().template spawn<Os>(std::move(fn), std::forward<Ts>(xs)...);
}

} // namespace troupe
