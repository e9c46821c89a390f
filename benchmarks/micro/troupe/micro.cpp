// micro (Troupe): the micro-benchmarks of CAF's 0.18 release notes (seed 004)
// plus two actor cases, as one Google Benchmark program. The case names and
// the work of each case are those of ../caf/micro.cpp; see ../README.md.

#include "micro/types.hpp"

#include <troupe/all.hpp>
#include <troupe/binary_deserializer.hpp>
#include <troupe/binary_serializer.hpp>

#include <benchmark/benchmark.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <thread>

namespace micro {

template <class Inspector>
bool inspect(Inspector& f, foo& x) {
  return f.object(x).fields(f.field("a", x.a), f.field("b", x.b));
}

template <class Inspector>
bool inspect(Inspector& f, bar& x) {
  return f.object(x).fields(f.field("a", x.a), f.field("b", x.b));
}

} // namespace micro

TROUPE_BEGIN_TYPE_ID_BLOCK(micro, troupe::first_custom_type_id)
  TROUPE_ADD_TYPE_ID(micro, (micro::foo))
  TROUPE_ADD_TYPE_ID(micro, (micro::bar))
  TROUPE_ADD_ATOM(micro, done_atom)
TROUPE_END_TYPE_ID_BLOCK(micro)

namespace {

troupe::actor_system* sys = nullptr;

// -- message creation ---------------------------------------------------------------

void make_message(benchmark::State& state) {
  for (auto _ : state) {
    auto msg = troupe::make_message(size_t{0});
    benchmark::DoNotOptimize(msg);
  }
}

void message_builder(benchmark::State& state) {
  for (auto _ : state) {
    troupe::message_builder mb;
    auto msg = mb.append(size_t{0}).move_to_message();
    benchmark::DoNotOptimize(msg);
  }
}

// -- dispatch -----------------------------------------------------------------------

// Ten handlers for ten types; the message matches the last one.
void dispatch(benchmark::State& state, const troupe::behavior& bhvr, const int& invoked) {
  auto msg = troupe::make_message(micro::bar_value);
  troupe::detail::handler_result result;
  for (auto _ : state) {
    bhvr.invoke(msg, result);
    if (invoked != 10) {
      state.SkipWithError("the wrong handler ran");
      break;
    }
  }
}

void pattern_matching(benchmark::State& state) {
  int invoked = 0;
  troupe::behavior bhvr{
    [&](int8_t) { invoked = 1; },
    [&](int16_t) { invoked = 2; },
    [&](int32_t) { invoked = 3; },
    [&](int64_t) { invoked = 4; },
    [&](uint32_t) { invoked = 5; },
    [&](uint64_t) { invoked = 6; },
    [&](float) { invoked = 7; },
    [&](double) { invoked = 8; },
    [&](const std::string&) { invoked = 9; },
    [&](const micro::bar&) { invoked = 10; },
  };
  dispatch(state, bhvr, invoked);
}

void or_else(benchmark::State& state) {
  using troupe::behavior;
  int invoked = 0;
  auto bhvr = behavior{[&](int8_t) { invoked = 1; }}
                .or_else(behavior{[&](int16_t) { invoked = 2; }})
                .or_else(behavior{[&](int32_t) { invoked = 3; }})
                .or_else(behavior{[&](int64_t) { invoked = 4; }})
                .or_else(behavior{[&](uint32_t) { invoked = 5; }})
                .or_else(behavior{[&](uint64_t) { invoked = 6; }})
                .or_else(behavior{[&](float) { invoked = 7; }})
                .or_else(behavior{[&](double) { invoked = 8; }})
                .or_else(behavior{[&](const std::string&) { invoked = 9; }})
                .or_else(behavior{[&](const micro::bar&) { invoked = 10; }});
  dispatch(state, bhvr, invoked);
}

// -- serialization ----------------------------------------------------------------

template <class T>
void save_case(benchmark::State& state, T value) {
  for (auto _ : state) {
    troupe::byte_buffer buf;
    buf.reserve(micro::save_reserve);
    troupe::binary_serializer sink{buf};
    if (!sink.apply(value)) {
      state.SkipWithError("saving failed");
      break;
    }
    benchmark::DoNotOptimize(buf);
  }
}

template <class T, class Check>
void load_case(benchmark::State& state, T value, Check check) {
  troupe::byte_buffer buf;
  troupe::binary_serializer sink{buf};
  if (!sink.apply(value)) {
    state.SkipWithError("saving the input failed");
    return;
  }
  T result;
  for (auto _ : state) {
    result = T{};
    troupe::binary_deserializer source{buf};
    if (!source.apply(result)) {
      state.SkipWithError("loading failed");
      return;
    }
    benchmark::DoNotOptimize(result);
  }
  // Checked once: a comparison in the loop would time operator==, not loading.
  if (!check(result))
    state.SkipWithError("loading produced a different value");
}

bool is_two_ints(const troupe::message& msg) {
  return msg.match_elements<int32_t, int32_t>() && msg.get_as<int32_t>(0) == 1
         && msg.get_as<int32_t>(1) == 2;
}

// -- actors -----------------------------------------------------------------------

troupe::behavior echo(troupe::event_based_actor*) {
  return {
    [](troupe::ping_atom, int32_t value) { return value; },
  };
}

void spawn_and_await(benchmark::State& state) {
  troupe::scoped_actor self{*sys};
  int32_t i = 0;
  for (auto _ : state) {
    auto worker = sys->spawn(echo);
    bool ok = false;
    ++i;
    self->request(worker, troupe::infinite, troupe::ping_atom_v, i)
      .receive([&](int32_t value) { ok = value == i; }, [&](troupe::error&) {});
    self->send_exit(worker, troupe::exit_reason::user_shutdown);
    if (!ok) {
      state.SkipWithError("the request failed");
      break;
    }
  }
}

// Counts ints and tells `waiter` after every `n`.
troupe::behavior int_receiver(troupe::event_based_actor* self, troupe::actor waiter,
                              int32_t n) {
  int32_t count = 0;
  return {
    [self, waiter, n, count](int32_t) mutable {
      if (++count == n) {
        count = 0;
        self->send(waiter, done_atom_v);
      }
    },
  };
}

// Sends `n` ints to `receiver` on request.
troupe::behavior int_sender(troupe::event_based_actor* self, troupe::actor receiver) {
  return {
    [self, receiver](int32_t n) {
      for (int32_t i = 0; i < n; ++i)
        self->send(receiver, i);
    },
  };
}

void int_queue(benchmark::State& state) {
  troupe::scoped_actor self{*sys};
  auto receiver = sys->spawn(int_receiver, self.handle(), micro::int_queue_ints);
  auto sender = sys->spawn(int_sender, receiver);
  for (auto _ : state) {
    self->send(sender, micro::int_queue_ints);
    self->receive([](done_atom) {});
  }
  state.counters["items_per_iteration"] = micro::int_queue_ints;
  self->send_exit(sender, troupe::exit_reason::user_shutdown);
  self->send_exit(receiver, troupe::exit_reason::user_shutdown);
}

} // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv))
    return 2;
  troupe::actor_system_config cfg;
  cfg.scheduler.max_threads = std::thread::hardware_concurrency();
  troupe::actor_system system{cfg};
  sys = &system;
  auto add = [](const char* name, void (*fn)(benchmark::State&)) {
    return benchmark::RegisterBenchmark(name, fn)->UseRealTime();
  };
  add("make_message", make_message);
  add("message_builder", message_builder);
  add("pattern_matching", pattern_matching);
  add("or_else", or_else);
  add("alloc_copy_floor", micro::alloc_copy_floor);
  add("save_foo", [](benchmark::State& st) { save_case(st, micro::foo_value); });
  add("save_bar", [](benchmark::State& st) { save_case(st, micro::bar_value); });
  add("save_msg_2int", [](benchmark::State& st) {
    save_case(st, troupe::make_message(int32_t{1}, int32_t{2}));
  });
  add("load_foo", [](benchmark::State& st) {
    load_case(st, micro::foo_value, [](const micro::foo& x) { return x == micro::foo_value; });
  });
  add("load_bar", [](benchmark::State& st) {
    load_case(st, micro::bar_value, [](const micro::bar& x) { return x == micro::bar_value; });
  });
  add("load_msg_2int", [](benchmark::State& st) {
    load_case(st, troupe::make_message(int32_t{1}, int32_t{2}), is_two_ints);
  });
  add("spawn_and_await", spawn_and_await);
  add("int_queue", int_queue)->Iterations(micro::int_queue_iterations);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
