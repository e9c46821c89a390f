// CHAT (CAF 0.17 and 1.x): the chat server of the seed's section V.C. One
// session actor per user, each with a logger it spawns (its local cache); a
// registry, the central database; one group actor per group, which fans a
// message out to its subscribers by hand (CAF 1.x has no groups, so the
// 0.17 program does the same). Friends, groups and blocked users are drawn
// with a seed. Once every session has spawned its logger, main starts them:
// each then ticks `seconds` times, once a second from a random moment in
// the first, on a timer of its own. At a tick it makes a message of 1 to
// 1,023 bytes as its client would send it, XOR-"encrypted" with its key, to
// a friend (95%) or one of its groups (5%); it decrypts it, looks the
// receiver up in the handle table, forwards it, and logs it to its logger
// and the registry. A session that receives a message drops it if it
// blocks the sender; otherwise it encrypts it with its own key for its
// client and records the latency from the sender's tick. The text is
// shared, never copied, between receiver, logs and a group's subscribers.

#include "common/caf_compat.hpp"
#include "common/options.hpp"
#include "locality/common/workloads.hpp"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <vector>

// The text is shared by pointer, which CAF cannot serialize: local only.
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(locality::chat_text)

#if CAF_MAJOR_VERSION >= 1
CAF_BEGIN_TYPE_ID_BLOCK(locality_chat, caf::first_custom_type_id)
  CAF_ADD_TYPE_ID(locality_chat, (locality::chat_text))
  CAF_ADD_ATOM(locality_chat, start_atom)
  CAF_ADD_ATOM(locality_chat, tick_atom)
  CAF_ADD_ATOM(locality_chat, chat_atom)
  CAF_ADD_ATOM(locality_chat, log_atom)
CAF_END_TYPE_ID_BLOCK(locality_chat)
#else
using start_atom = caf::atom_constant<caf::atom("start")>;
constexpr start_atom start_atom_v{};
using tick_atom = caf::atom_constant<caf::atom("tick")>;
constexpr tick_atom tick_atom_v{};
using chat_atom = caf::atom_constant<caf::atom("chat")>;
constexpr chat_atom chat_atom_v{};
using log_atom = caf::atom_constant<caf::atom("log")>;
constexpr log_atom log_atom_v{};
#endif

namespace {

/// A tick to `self` after `delay` (delayed_send in 0.17, the mail API in 1.x).
void tick_later(caf::event_based_actor* self, std::chrono::nanoseconds delay) {
#if CAF_MAJOR_VERSION >= 1
  self->mail(tick_atom_v).delay(delay).send(caf::actor_cast<caf::actor>(self));
#else
  self->delayed_send(caf::actor_cast<caf::actor>(self), delay, tick_atom_v);
#endif
}

/// The handles every actor may look up, filled by main before the start and
/// read-only from then on.
struct directory {
  std::vector<caf::actor> sessions;
  std::vector<caf::actor> groups;
  caf::actor registry;
};

/// A session's local cache: it keeps the session's log.
class logger : public caf::event_based_actor {
public:
  explicit logger(caf::actor_config& cfg) : caf::event_based_actor(cfg) {}

  caf::behavior make_behavior() override {
    return {
      [this](log_atom, uint32_t sender, uint32_t to, const locality::chat_text& text) {
        auto entry = locality::chat_log_entry(sender, to, text);
        ++entries_;
        hash_ = (hash_ ^ entry) * 0x100000001b3ULL;
        auto& c = locality::chat_counters::mine();
        ++c.cached;
        c.cache_digest += entry;
        locality::chat_counters::bump(c.logged);
      },
    };
  }

private:
  uint64_t entries_ = 0;
  uint64_t hash_ = 0;
};

/// The central database: logs every message.
class registry : public caf::event_based_actor {
public:
  registry(caf::actor_config& cfg, locality::chat_log* result)
    : caf::event_based_actor(cfg), result_(result) {}

  caf::behavior make_behavior() override {
    return {
      [this](log_atom, uint32_t sender, uint32_t to, const locality::chat_text& text) {
        ++result_->entries;
        result_->digest += locality::chat_log_entry(sender, to, text);
        locality::chat_counters::bump(locality::chat_counters::mine().logged);
      },
    };
  }

private:
  locality::chat_log* result_; // read by main after the system has shut down
};

/// A chat group: forwards each message to every subscriber.
class group : public caf::event_based_actor {
public:
  group(caf::actor_config& cfg, const directory* dir, std::vector<uint32_t> subscribers)
    : caf::event_based_actor(cfg), dir_(dir), subscribers_(std::move(subscribers)) {}

  caf::behavior make_behavior() override {
    return {
      [this](chat_atom, uint32_t sender, int64_t stamp, const locality::chat_text& text) {
        for (auto s : subscribers_)
          caf_compat::tell(this, dir_->sessions[s], chat_atom_v, sender, stamp, text);
      },
    };
  }

private:
  const directory* dir_;
  std::vector<uint32_t> subscribers_;
};

class session : public caf::event_based_actor {
public:
  session(caf::actor_config& cfg, const directory* dir, uint32_t id, locality::chat_user user,
          uint32_t ticks)
    : caf::event_based_actor(cfg), dir_(dir), user_(std::move(user)),
      rng_(locality::chat_session_random(id)), key_(locality::chat_key(id)), id_(id),
      ticks_(ticks) {
    first_tick_ = locality::chat_first_tick(rng_);
  }

  caf::behavior make_behavior() override {
    logger_ = spawn<logger>();
    link_to(logger_);
    locality::chat_counters::bump(locality::chat_counters::mine().ready);
    return {
      [this](start_atom) {
        start_ = locality::now_ns();
        tick_later(this, std::chrono::nanoseconds{first_tick_});
      },
      [this](tick_atom) { tick(); },
      [this](chat_atom, uint32_t sender, int64_t stamp, const locality::chat_text& text) {
        locality::chat_receive(user_, key_, sender, stamp, text);
      },
    };
  }

private:
  void tick() {
    auto [stamp, m, text] = locality::chat_make_tick(rng_, user_, key_);
    if (m.to_group)
      caf_compat::tell(this, dir_->groups[m.target], chat_atom_v, id_, stamp, text);
    else
      caf_compat::tell(this, dir_->sessions[m.target], chat_atom_v, id_, stamp, text);
    caf_compat::tell(this, logger_, log_atom_v, id_, m.address(), text);
    caf_compat::tell(this, dir_->registry, log_atom_v, id_, m.address(), std::move(text));
    if (++ticked_ == ticks_)
      return;
    tick_later(this,
               std::chrono::nanoseconds{locality::chat_next_tick_in(start_, first_tick_, ticked_)});
  }

  const directory* dir_;
  locality::chat_user user_;
  locality::random rng_;
  uint64_t key_;
  int64_t first_tick_; // after the start, in ns
  int64_t start_ = 0;
  caf::actor logger_;
  uint32_t id_;
  uint32_t ticks_;
  uint32_t ticked_ = 0;
};

} // namespace

int main(int argc, char** argv) {
  bench::options opts{argc, argv, locality::chat_sizes()};
  BENCH_CAF_INIT_META_OBJECTS(locality_chat);
  auto sessions = opts["sessions"];
  auto groups = opts["groups"];
  auto seconds = opts["seconds"];
  if (auto err = locality::chat_size_error(sessions, groups, opts["max-friends"],
                                           opts["max-groups"], opts["max-blocked"], seconds)) {
    std::fprintf(stderr, "%s\n", err);
    return 2;
  }
  auto users = locality::chat_users(sessions, groups, opts["max-friends"], opts["max-groups"],
                                    opts["max-blocked"]);
  auto members = locality::chat_members(users, groups);
  auto expected = locality::chat_expected_deliveries(users, members, seconds);
  auto messages = sessions * seconds;
  locality::chat_log registry_log;
  {
    caf::actor_system_config cfg;
    caf_compat::set_max_threads(cfg, opts.threads());
    caf::actor_system sys{cfg};
    directory dir;
    dir.registry = sys.spawn<registry>(&registry_log);
    dir.groups.reserve(groups);
    for (uint64_t g = 0; g < groups; ++g)
      dir.groups.push_back(sys.spawn<group>(&dir, std::move(members[g])));
    dir.sessions.reserve(sessions);
    for (uint64_t s = 0; s < sessions; ++s)
      dir.sessions.push_back(sys.spawn<session>(&dir, static_cast<uint32_t>(s),
                                                std::move(users[s]),
                                                static_cast<uint32_t>(seconds)));
    users = {};
    members = {};
    bool ok = locality::chat_wait("the sessions to start",
                                  [&](const locality::chat_progress& p) {
                                    return p.ready == sessions;
                                  });
    if (ok) {
      for (const auto& x : dir.sessions)
        caf_compat::anon_tell(x, start_atom_v);
      ok = locality::chat_wait("the deliveries and the logs",
                               [&](const locality::chat_progress& p) {
                                 return p.deliveries >= expected && p.logged >= 2 * messages;
                               });
    }
    if (!ok) {
      std::fflush(stdout);
      std::_Exit(1);
    }
    // A session's exit takes its logger along (they are linked).
    for (const auto& x : dir.sessions)
      caf::anon_send_exit(x, caf::exit_reason::user_shutdown);
    for (const auto& x : dir.groups)
      caf::anon_send_exit(x, caf::exit_reason::user_shutdown);
    caf::anon_send_exit(dir.registry, caf::exit_reason::user_shutdown);
  } // ~actor_system waits for every actor
  auto logs_ok = locality::chat_report(registry_log, messages);
  auto status = bench::checksum("deliveries", locality::chat_progress::now().deliveries,
                                expected);
  return status != 0 ? status : logs_ok;
}
