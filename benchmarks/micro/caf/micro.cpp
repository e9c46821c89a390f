// micro (CAF 0.17 and 1.x): the micro-benchmarks of CAF's 0.18 release notes
// (seed 004) plus two actor cases, as one Google Benchmark program. The case
// names and the work of each case are those of ../troupe/micro.cpp; see
// ../README.md.

#include "common/caf_compat.hpp"
#include "micro/types.hpp"

#include <benchmark/benchmark.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <thread>
#include <vector>

#if CAF_MAJOR_VERSION >= 1
CAF_BEGIN_TYPE_ID_BLOCK(micro, caf::first_custom_type_id)
  CAF_ADD_TYPE_ID(micro, (micro::foo))
  CAF_ADD_TYPE_ID(micro, (micro::bar))
  CAF_ADD_ATOM(micro, ping_atom)
  CAF_ADD_ATOM(micro, done_atom)
CAF_END_TYPE_ID_BLOCK(micro)
#else
using ping_atom = caf::atom_constant<caf::atom("ping")>;
constexpr ping_atom ping_atom_v{};
using done_atom = caf::atom_constant<caf::atom("done")>;
constexpr done_atom done_atom_v{};
#endif

namespace micro {

#if CAF_MAJOR_VERSION >= 1

template <class Inspector>
bool inspect(Inspector& f, foo& x) {
  return f.object(x).fields(f.field("a", x.a), f.field("b", x.b));
}

template <class Inspector>
bool inspect(Inspector& f, bar& x) {
  return f.object(x).fields(f.field("a", x.a), f.field("b", x.b));
}

#else

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, foo& x) {
  return f(x.a, x.b);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, bar& x) {
  return f(x.a, x.b);
}

#endif

} // namespace micro

namespace {

caf::actor_system* sys = nullptr;

// -- serialization, as each version spells it -------------------------------------

#if CAF_MAJOR_VERSION >= 1

using buffer_type = caf::byte_buffer;

// Without the actor system: CAF's main branch removed the (actor_system&,
// buffer) constructors, and 1.1.0 has the buffer-only ones too. The system is
// only needed for actor handles, which foo and bar do not contain.
template <class T>
bool save(buffer_type& buf, T& x) {
  caf::binary_serializer sink{buf};
  return sink.apply(x);
}

template <class T>
bool load(const buffer_type& buf, T& x) {
  caf::binary_deserializer source{buf};
  return source.apply(x);
}

#else

using buffer_type = std::vector<char>;

template <class T>
bool save(buffer_type& buf, T& x) {
  caf::binary_serializer sink{*sys, buf};
  return !sink(x);
}

template <class T>
bool load(const buffer_type& buf, T& x) {
  caf::binary_deserializer source{*sys, buf};
  return !source(x);
}

#endif

// -- message creation ---------------------------------------------------------------

void make_message(benchmark::State& state) {
  for (auto _ : state) {
    auto msg = caf::make_message(size_t{0});
    benchmark::DoNotOptimize(msg);
  }
}

void message_builder(benchmark::State& state) {
  for (auto _ : state) {
    caf::message_builder mb;
    auto msg = mb.append(size_t{0}).move_to_message();
    benchmark::DoNotOptimize(msg);
  }
}

// -- dispatch -----------------------------------------------------------------------

// Ten handlers for ten types; the message matches the last one.
template <class Handler>
void dispatch(benchmark::State& state, Handler& handler, const int& invoked) {
  auto msg = caf::make_message(micro::bar_value);
  for (auto _ : state) {
    handler(msg);
    if (invoked != 10) {
      state.SkipWithError("the wrong handler ran");
      break;
    }
  }
}

void pattern_matching(benchmark::State& state) {
  int invoked = 0;
  caf::behavior bhvr{
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
  int invoked = 0;
  auto handler = caf::message_handler{[&](int8_t) { invoked = 1; }}
                   .or_else([&](int16_t) { invoked = 2; })
                   .or_else([&](int32_t) { invoked = 3; })
                   .or_else([&](int64_t) { invoked = 4; })
                   .or_else([&](uint32_t) { invoked = 5; })
                   .or_else([&](uint64_t) { invoked = 6; })
                   .or_else([&](float) { invoked = 7; })
                   .or_else([&](double) { invoked = 8; })
                   .or_else([&](const std::string&) { invoked = 9; })
                   .or_else([&](const micro::bar&) { invoked = 10; });
  dispatch(state, handler, invoked);
}

// -- serialization ----------------------------------------------------------------

template <class T>
void save_case(benchmark::State& state, T value) {
  for (auto _ : state) {
    buffer_type buf;
    buf.reserve(micro::save_reserve);
    if (!save(buf, value)) {
      state.SkipWithError("saving failed");
      break;
    }
    benchmark::DoNotOptimize(buf);
  }
}

template <class T, class Check>
void load_case(benchmark::State& state, T value, Check check) {
  buffer_type buf;
  if (!save(buf, value)) {
    state.SkipWithError("saving the input failed");
    return;
  }
  T result;
  for (auto _ : state) {
    result = T{};
    if (!load(buf, result)) {
      state.SkipWithError("loading failed");
      return;
    }
    benchmark::DoNotOptimize(result);
  }
  // Checked once: a comparison in the loop would time operator==, not loading.
  if (!check(result))
    state.SkipWithError("loading produced a different value");
}

bool is_two_ints(const caf::message& msg) {
  return msg.match_elements<int32_t, int32_t>() && msg.get_as<int32_t>(0) == 1
         && msg.get_as<int32_t>(1) == 2;
}

// -- actors -----------------------------------------------------------------------

caf::behavior echo(caf::event_based_actor*) {
  return {
    [](ping_atom, int32_t value) { return value; },
  };
}

void spawn_and_await(benchmark::State& state) {
  caf::scoped_actor self{*sys};
  int32_t i = 0;
  for (auto _ : state) {
    auto worker = sys->spawn(echo);
    bool ok = false;
    ++i;
    caf_compat::ask(self.ptr(), worker, ping_atom_v, i)
      .receive([&](int32_t value) { ok = value == i; }, [&](caf::error&) {});
    self->send_exit(worker, caf::exit_reason::user_shutdown);
    if (!ok) {
      state.SkipWithError("the request failed");
      break;
    }
  }
}

// Counts ints and tells `waiter` after every `n`.
caf::behavior int_receiver(caf::event_based_actor* self, caf::actor waiter, int32_t n) {
  int32_t count = 0;
  return {
    [self, waiter, n, count](int32_t) mutable {
      if (++count == n) {
        count = 0;
        caf_compat::tell(self, waiter, done_atom_v);
      }
    },
  };
}

// Sends `n` ints to `receiver` on request.
caf::behavior int_sender(caf::event_based_actor* self, caf::actor receiver) {
  return {
    [self, receiver](int32_t n) {
      for (int32_t i = 0; i < n; ++i)
        caf_compat::tell(self, receiver, i);
    },
  };
}

void int_queue(benchmark::State& state) {
  caf::scoped_actor self{*sys};
  auto receiver = sys->spawn(int_receiver, caf::actor_cast<caf::actor>(self),
                             micro::int_queue_ints);
  auto sender = sys->spawn(int_sender, receiver);
  for (auto _ : state) {
    caf_compat::tell(self.ptr(), sender, micro::int_queue_ints);
    self->receive([](done_atom) {});
  }
  state.counters["items_per_iteration"] = micro::int_queue_ints;
  self->send_exit(sender, caf::exit_reason::user_shutdown);
  self->send_exit(receiver, caf::exit_reason::user_shutdown);
}

} // namespace

int main(int argc, char** argv) {
  BENCH_CAF_INIT_META_OBJECTS(micro);
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv))
    return 2;
  caf::actor_system_config cfg;
  caf_compat::set_max_threads(cfg, std::thread::hardware_concurrency());
  caf::actor_system system{cfg};
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
  add("save_msg_2int",
      [](benchmark::State& st) { save_case(st, caf::make_message(int32_t{1}, int32_t{2})); });
  add("load_foo", [](benchmark::State& st) {
    load_case(st, micro::foo_value, [](const micro::foo& x) { return x == micro::foo_value; });
  });
  add("load_bar", [](benchmark::State& st) {
    load_case(st, micro::bar_value, [](const micro::bar& x) { return x == micro::bar_value; });
  });
  add("load_msg_2int", [](benchmark::State& st) {
    load_case(st, caf::make_message(int32_t{1}, int32_t{2}), is_two_ints);
  });
  add("spawn_and_await", spawn_and_await);
  add("int_queue", int_queue)->Iterations(micro::int_queue_iterations);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
