// The pieces a CAF program needs when it ports by the rename: mail_cache,
// chrono::to_string, default_enum_inspect, TROUPE_RAISE_ERROR,
// json_reader::load_file, typed delegation and promises, `hdl->`, `self` as a
// message argument, expected<T> printed as CAF prints it, and CAF's
// predefined atoms.

#include "troupe/actor_system.hpp"
#include "troupe/binary_deserializer.hpp"
#include "troupe/binary_serializer.hpp"
#include "troupe/chrono.hpp"
#include "troupe/deep_to_string.hpp"
#include "troupe/default_enum_inspect.hpp"
#include "troupe/event_based_actor.hpp"
#include "troupe/init_global_meta_objects.hpp"
#include "troupe/json_reader.hpp"
#include "troupe/json_writer.hpp"
#include "troupe/mail_cache.hpp"
#include "troupe/raise_error.hpp"
#include "troupe/scoped_actor.hpp"
#include "troupe/system_messages.hpp"
#include "troupe/type_id.hpp"
#include "troupe/typed_actor.hpp"
#include "troupe/typed_event_based_actor.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace porting {

enum class signal : uint8_t { red = 1, green = 2 };

std::string to_string(signal x) {
  return x == signal::red ? "red" : "green";
}

bool from_string(std::string_view in, signal& out) {
  if (in == "red")
    out = signal::red;
  else if (in == "green")
    out = signal::green;
  else
    return false;
  return true;
}

bool from_integer(uint8_t in, signal& out) {
  if (in != 1 && in != 2)
    return false;
  out = static_cast<signal>(in);
  return true;
}

template <class Inspector>
bool inspect(Inspector& f, signal& x) {
  return troupe::default_enum_inspect(f, x);
}

/// A closed hierarchy held by pointer, inspected as variant<none_t, dot, line>.
struct figure {
  virtual ~figure() = default;
  virtual troupe::type_id_t type() const noexcept = 0;
};

struct dot;
struct line;

using figure_ptr = std::shared_ptr<figure>;

struct echo_trait {
  using signatures = troupe::type_list<troupe::result<int32_t>(int32_t)>;
};

using echo = troupe::typed_actor<echo_trait>;

/// What an echo actor's `self` travels as: the handle of its signatures.
using echo_self = troupe::typed_actor<troupe::result<int32_t>(int32_t)>;

} // namespace porting

TROUPE_BEGIN_TYPE_ID_BLOCK(caf_porting_test, 1950)
  TROUPE_ADD_TYPE_ID(caf_porting_test, (porting::echo_self))
  TROUPE_ADD_TYPE_ID(caf_porting_test, (porting::dot))
  TROUPE_ADD_TYPE_ID(caf_porting_test, (porting::line))
  TROUPE_ADD_TYPE_ID(caf_porting_test, (porting::figure_ptr))
  TROUPE_ADD_TYPE_ID(caf_porting_test, (porting::signal))
  TROUPE_ADD_ATOM(caf_porting_test, ready_atom)
TROUPE_END_TYPE_ID_BLOCK(caf_porting_test)

namespace porting {

struct dot final : figure {
  int32_t x = 0;
  troupe::type_id_t type() const noexcept override {
    return troupe::type_id_v<dot>;
  }
};

template <class Inspector>
bool inspect(Inspector& f, dot& x) {
  return f.object(x).fields(f.field("x", x.x));
}

struct line final : figure {
  int32_t from = 0;
  int32_t to = 0;
  troupe::type_id_t type() const noexcept override {
    return troupe::type_id_v<line>;
  }
};

template <class Inspector>
bool inspect(Inspector& f, line& x) {
  return f.object(x).fields(f.field("from", x.from), f.field("to", x.to));
}

} // namespace porting

template <>
struct troupe::variant_inspector_traits<porting::figure_ptr> {
  using value_type = porting::figure_ptr;

  static constexpr type_id_t allowed_types[] = {type_id_v<none_t>, type_id_v<porting::dot>,
                                                type_id_v<porting::line>};

  static size_t type_index(const value_type& x) {
    if (!x)
      return 0;
    return x->type() == type_id_v<porting::dot> ? 1 : 2;
  }

  template <class F>
  static auto visit(F&& f, const value_type& x) {
    switch (type_index(x)) {
      case 0: {
        none_t nothing;
        return f(nothing);
      }
      case 1:
        return f(static_cast<porting::dot&>(*x));
      default:
        return f(static_cast<porting::line&>(*x));
    }
  }

  template <class U>
  static void assign(value_type& x, U value) {
    if constexpr (std::is_same_v<U, none_t>)
      x.reset();
    else
      x = std::make_shared<U>(std::move(value));
  }

  template <class F>
  static bool load(type_id_t type, F continuation) {
    switch (type) {
      case type_id_v<none_t>: {
        none_t nothing;
        continuation(nothing);
        return true;
      }
      case type_id_v<porting::dot>: {
        porting::dot tmp;
        continuation(tmp);
        return true;
      }
      case type_id_v<porting::line>: {
        porting::line tmp;
        continuation(tmp);
        return true;
      }
      default:
        return false;
    }
  }
};

template <>
struct troupe::inspector_access<porting::figure_ptr>
  : troupe::variant_inspector_access<porting::figure_ptr> {};

using namespace std::chrono_literals;
using namespace std::string_literals;
using namespace troupe;

namespace {

constexpr auto patience = 30s;

// -- mail_cache -----------------------------------------------------------------

/// Stashes what comes before ready_atom, then handles it in arrival order:
/// ints are answered doubled, strings reported to `observer`.
behavior late_starter(event_based_actor* self, actor observer, size_t cache_size) {
  auto cache = std::make_shared<mail_cache>(self, cache_size);
  behavior ready{
    [](int32_t x) { return x * 2; },
    [self, observer](const std::string& x) { self->send(observer, x); },
  };
  return {
    [self, cache, ready](ready_atom) {
      cache->unstash();
      self->become(ready);
    },
    [cache](message msg) { cache->stash(std::move(msg)); },
  };
}

TEST(mail_cache, unstash_replays_in_arrival_order_and_a_stashed_request_is_answered_then) {
  actor_system_config cfg;
  actor_system sys{cfg};
  scoped_actor self{sys};
  auto a = sys.spawn(late_starter, actor(self), size_t{10});
  self->send(a, "one"s);
  int32_t doubled = 0;
  bool answered = false;
  auto rh = self->request(a, patience, int32_t{21});
  self->send(a, "two"s);
  // Nothing may come back before ready_atom: not even an empty response.
  self->receive([&](const std::string&) { ADD_FAILURE() << "handled before ready"; },
                after(50ms) >> [] {});
  self->send(a, ready_atom_v);
  std::vector<std::string> seen;
  for (int i = 0; i < 2; ++i)
    self->receive([&](const std::string& x) { seen.push_back(x); },
                  after(patience) >> [] { ADD_FAILURE() << "no message in time"; });
  EXPECT_EQ(seen, (std::vector<std::string>{"one", "two"}));
  std::move(rh).receive(
    [&](int32_t x) {
      doubled = x;
      answered = true;
    },
    [](const error& err) { ADD_FAILURE() << to_string(err); });
  EXPECT_TRUE(answered);
  EXPECT_EQ(doubled, 42);
  self->send_exit(a, exit_reason::user_shutdown);
}

TEST(mail_cache, a_full_cache_fails_the_actor_with_an_error) {
  actor_system_config cfg;
  actor_system sys{cfg};
  scoped_actor self{sys};
  auto a = sys.spawn(late_starter, actor(self), size_t{1});
  self->monitor(a);
  self->send(a, "one"s);
  self->send(a, "two"s);
  error reason;
  self->receive([&](down_msg& x) { reason = std::move(x.reason); },
                after(patience) >> [] { ADD_FAILURE() << "no down_msg in time"; });
  EXPECT_TRUE(static_cast<bool>(reason));
  EXPECT_NE(to_string(reason).find("mail_cache: full"), std::string::npos) << to_string(reason);
}

TEST(mail_cache, a_request_left_in_the_cache_gets_an_error_when_the_actor_goes) {
  actor_system_config cfg;
  actor_system sys{cfg};
  scoped_actor self{sys};
  auto a = sys.spawn(late_starter, actor(self), size_t{4});
  auto rh = self->request(a, patience, int32_t{1});
  self->send_exit(a, exit_reason::user_shutdown);
  error err;
  std::move(rh).receive([](int32_t) { ADD_FAILURE() << "answered"; },
                        [&](error& x) { err = std::move(x); });
  EXPECT_EQ(err.code(), static_cast<uint8_t>(errc::actor_down)) << to_string(err);
}

// -- chrono::to_string ----------------------------------------------------------

class utc_time : public ::testing::Test {
protected:
  void SetUp() override {
    if (auto* tz = std::getenv("TZ"))
      saved_ = tz;
    setenv("TZ", "UTC", 1);
    tzset();
  }
  void TearDown() override {
    if (saved_.empty())
      unsetenv("TZ");
    else
      setenv("TZ", saved_.c_str(), 1);
    tzset();
  }
  std::string saved_;
};

TEST_F(utc_time, chrono_to_string_prints_iso_8601_with_the_resolution_asked_for) {
  using namespace std::chrono;
  auto t = sys_time<nanoseconds>{seconds{86400 + 3661} + milliseconds{500} + nanoseconds{7}};
  EXPECT_EQ(chrono::to_string(t), "1970-01-02T01:01:01.500000007+00:00");
  EXPECT_EQ(chrono::to_string<milliseconds>(t), "1970-01-02T01:01:01.5+00:00");
  EXPECT_EQ((chrono::to_string<milliseconds, chrono::fixed>(t)), "1970-01-02T01:01:01.500+00:00");
  EXPECT_EQ(chrono::to_string<seconds>(t), "1970-01-02T01:01:01+00:00");
  EXPECT_EQ(chrono::to_string<milliseconds>(sys_time<seconds>{seconds{0}}),
            "1970-01-01T00:00:00+00:00")
    << "no fractional digit left: no point";
}

// -- default_enum_inspect -------------------------------------------------------

TEST(default_enum_inspect, names_in_text_formats_and_integers_in_binary) {
  EXPECT_EQ(deep_to_string(porting::signal::green), "green");
  auto json = to_json(porting::signal::red);
  ASSERT_TRUE(json) << to_string(json.error());
  EXPECT_EQ(*json, R"("red")");
  auto bytes = to_binary(porting::signal::green);
  ASSERT_TRUE(bytes);
  EXPECT_EQ(*bytes, byte_buffer{std::byte{2}});
  auto back = from_binary<porting::signal>(*bytes);
  ASSERT_TRUE(back);
  EXPECT_EQ(*back, porting::signal::green);
}

TEST(default_enum_inspect, an_unknown_name_or_integer_is_an_error) {
  auto bad = from_binary<porting::signal>(byte_buffer{std::byte{9}});
  ASSERT_FALSE(bad);
  EXPECT_NE(to_string(bad.error()).find("no enumerator has the value 9"), std::string::npos)
    << to_string(bad.error());
  json_reader reader;
  ASSERT_TRUE(reader.load(R"("blue")"));
  porting::signal x = porting::signal::red;
  EXPECT_FALSE(reader.apply(x));
  EXPECT_NE(to_string(reader.get_error()).find("blue"), std::string::npos);
  EXPECT_EQ(x, porting::signal::red);
}

// -- TROUPE_RAISE_ERROR -----------------------------------------------------------

TEST(raise_error, throws_a_runtime_error_or_the_type_given) {
  auto saved = logger::level();
  logger::set_level(log_level::quiet);
  try {
    TROUPE_RAISE_ERROR("broken shape");
    ADD_FAILURE() << "did not throw";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "broken shape");
  }
  EXPECT_THROW(TROUPE_RAISE_ERROR(std::logic_error, "unreachable"), std::logic_error);
  logger::set_level(saved);
}

// -- json_reader::load_file -------------------------------------------------------

TEST(json_reader, load_file_reads_a_file_and_names_one_it_cannot_read) {
  auto path = std::filesystem::temp_directory_path()
              / ("troupe_caf_porting_" + std::to_string(::getpid()) + ".json");
  {
    std::ofstream out{path};
    out << R"([1, 2, 3])";
  }
  json_reader reader;
  ASSERT_TRUE(reader.load_file(path.string())) << to_string(reader.get_error());
  std::vector<int32_t> xs;
  ASSERT_TRUE(reader.apply(xs)) << to_string(reader.get_error());
  EXPECT_EQ(xs, (std::vector<int32_t>{1, 2, 3}));
  std::filesystem::remove(path);
  json_reader missing;
  EXPECT_FALSE(missing.load_file(path.string()));
  EXPECT_NE(to_string(missing.get_error()).find(path.string()), std::string::npos)
    << to_string(missing.get_error());
}

// -- typed delegation and promises ------------------------------------------------

struct adder_trait {
  using signatures = type_list<result<int32_t>(add_atom, int32_t, int32_t)>;
};

using adder = typed_actor<adder_trait>;

adder::behavior_type adding_worker() {
  return {[](add_atom, int32_t x, int32_t y) { return x + y; }};
}

adder::behavior_type delegating_server(adder::pointer self, adder worker) {
  return {[self, worker](add_atom add, int32_t x, int32_t y) {
    auto result = self->mail(add, x, y).delegate(worker);
    static_assert(std::is_same_v<decltype(result), delegated<int32_t>>);
    return result;
  }};
}

adder::behavior_type promising_server(adder::pointer self, adder worker) {
  return {[self, worker](add_atom add, int32_t x, int32_t y) {
    auto rp = self->make_response_promise<int32_t>();
    static_assert(std::is_same_v<decltype(rp), typed_response_promise<int32_t>>);
    self->mail(add, x, y).request(worker, patience).then([rp](int32_t sum) mutable {
      rp.deliver(sum);
    });
    return rp;
  }};
}

TEST(typed_actor, delegates_and_promises_name_the_response_type) {
  actor_system_config cfg;
  actor_system sys{cfg};
  scoped_actor self{sys};
  auto worker = sys.spawn(adding_worker);
  for (auto server : {sys.spawn(delegating_server, worker), sys.spawn(promising_server, worker)}) {
    int32_t sum = 0;
    self->request(server, patience, add_atom_v, int32_t{20}, int32_t{22})
      .receive([&](int32_t x) { sum = x; },
               [](const error& err) { ADD_FAILURE() << to_string(err); });
    EXPECT_EQ(sum, 42);
  }
}

// -- handles ----------------------------------------------------------------------

using porting::echo;

TEST(handles, arrow_reaches_the_actor_and_self_travels_as_a_handle) {
  actor_system_config cfg;
  actor_system sys{cfg};
  scoped_actor self{sys};
  auto e = sys.spawn([]() -> echo::behavior_type { return {[](int32_t x) { return x; }}; });
  EXPECT_EQ(e->id(), e.id());
  actor plain = self;
  EXPECT_EQ(plain->id(), self->id());
  EXPECT_EQ(actor{}.operator->(), nullptr);
  // An actor sends itself as a message element; the receiver gets a handle
  // equal to the sender, and the typed one its typed handle.
  auto introducer = sys.spawn([](event_based_actor* me, actor observer) {
    me->send(observer, me);
    return behavior{[](int32_t) {}};
  }, plain);
  self->receive([&](const actor& x) { EXPECT_EQ(x, introducer); },
                after(patience) >> [] { ADD_FAILURE() << "no handle in time"; });
  auto typed_introducer = sys.spawn([](echo::pointer me, actor observer) -> echo::behavior_type {
    me->send(observer, me);
    return {[](int32_t x) { return x; }};
  }, plain);
  self->receive(
    [&](const porting::echo_self& x) {
      EXPECT_EQ(echo{x}, typed_introducer);
      EXPECT_TRUE(x == strong_actor_ptr{typed_introducer.ctrl()});
    },
    after(patience) >> [] { ADD_FAILURE() << "no typed handle in time"; });
  self->send_exit(introducer, exit_reason::user_shutdown);
  self->send_exit(typed_introducer, exit_reason::user_shutdown);
}

// -- printing ----------------------------------------------------------------------

TEST(deep_to_string, expected_prints_its_value_or_bang_and_its_error) {
  EXPECT_EQ(deep_to_string(expected<int32_t>{42}), "42");
  EXPECT_EQ(deep_to_string(expected<std::string>{"hi"s}), R"("hi")");
  auto err = deep_to_string(expected<int32_t>{make_error(errc::runtime_error, "boom")});
  EXPECT_EQ(err, "!" + to_string(make_error(errc::runtime_error, "boom")));
}

// -- variant_inspector_traits ----------------------------------------------------

TEST(variant_inspector_access, a_pointer_to_a_closed_hierarchy_round_trips_and_prints) {
  auto l = std::make_shared<porting::line>();
  l->from = 3;
  l->to = 4;
  porting::figure_ptr figures[] = {nullptr, std::make_shared<porting::dot>(), l};
  EXPECT_EQ(deep_to_string(figures[0]), "none");
  EXPECT_EQ(deep_to_string(figures[2]), "porting::line(3, 4)");
  for (auto& x : figures) {
    auto bytes = to_binary(x);
    ASSERT_TRUE(bytes) << to_string(bytes.error());
    auto back = from_binary<porting::figure_ptr>(*bytes);
    ASSERT_TRUE(back) << to_string(back.error());
    EXPECT_EQ(deep_to_string(*back), deep_to_string(x));
    auto json = to_json(x);
    ASSERT_TRUE(json) << to_string(json.error());
    json_reader reader;
    ASSERT_TRUE(reader.load(*json));
    porting::figure_ptr from_json;
    ASSERT_TRUE(reader.apply(from_json)) << to_string(reader.get_error());
    EXPECT_EQ(deep_to_string(from_json), deep_to_string(x)) << *json;
  }
  auto bad = from_binary<porting::figure_ptr>(byte_buffer{std::byte{7}});
  EXPECT_FALSE(bad) << "an index past the allowed types is an error";
}

// -- atoms and blocks ---------------------------------------------------------------

TEST(predefined_atoms, cafs_atoms_have_type_ids_and_names) {
  EXPECT_TRUE(has_type_id_v<ping_atom>);
  EXPECT_TRUE(has_type_id_v<wait_for_atom>);
  EXPECT_NE(type_id_v<ping_atom>, type_id_v<pong_atom>);
  EXPECT_LT(type_id_v<registry_lookup_atom>, first_custom_type_id);
  EXPECT_EQ(to_string(ping_atom_v), "ping_atom");
  auto msg = make_message(ping_atom_v, int32_t{1});
  EXPECT_TRUE((msg.match_elements<ping_atom, int32_t>()));
  // What CAF programs call before they start: nothing to do here.
  init_global_meta_objects<id_block::caf_porting_test>();
  core::init_global_meta_objects();
}

} // namespace
