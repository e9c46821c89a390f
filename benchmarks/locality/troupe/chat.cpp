// CHAT (Troupe): the chat server of the seed's section V.C. One session
// actor per user, each with a logger it spawns (its local cache); a
// registry, the central database, spawned as a hub; one group actor per
// group, also a hub, which fans a message out to its subscribers by hand
// (Troupe has no groups). Friends, groups and blocked users are drawn with
// a seed. Once every session has spawned its logger, main starts them: each
// then ticks `seconds` times, once a second from a random moment in the
// first, on a timer of its own. At a tick it makes a message of 1 to 1,023
// bytes as its client would send it, XOR-"encrypted" with its key, to a
// friend (95%) or one of its groups (5%); it decrypts it, looks the receiver
// up in the handle table, forwards it, and logs it to its logger and the
// registry. A session that receives a message drops it if it blocks the
// sender; otherwise it encrypts it with its own key for its client and
// records the latency from the sender's tick. The text is shared, never
// copied, between receiver, logs and a group's subscribers.

#include "common/options.hpp"
#include "locality/common/workloads.hpp"
#include "locality/troupe/common.hpp"

#include <troupe/all.hpp>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <vector>

TROUPE_BEGIN_TYPE_ID_BLOCK(locality_chat, troupe::first_custom_type_id)
  TROUPE_ADD_TYPE_ID(locality_chat, (locality::chat_text))
  TROUPE_ADD_ATOM(locality_chat, start_atom)
  TROUPE_ADD_ATOM(locality_chat, tick_atom)
  TROUPE_ADD_ATOM(locality_chat, chat_atom)
  TROUPE_ADD_ATOM(locality_chat, log_atom)
TROUPE_END_TYPE_ID_BLOCK(locality_chat)

namespace {

/// The handles every actor may look up, filled by main before the start and
/// read-only from then on.
struct directory {
  std::vector<troupe::actor> sessions;
  std::vector<troupe::actor> groups;
  troupe::actor registry;
};

/// A session's local cache: it keeps the session's log.
class logger : public troupe::event_based_actor {
public:
  explicit logger(troupe::actor_config& cfg) : troupe::event_based_actor(cfg) {}

protected:
  troupe::behavior make_behavior() override {
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
class registry : public troupe::event_based_actor {
public:
  registry(troupe::actor_config& cfg, locality::chat_log* result)
    : troupe::event_based_actor(cfg), result_(result) {}

protected:
  troupe::behavior make_behavior() override {
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
class group : public troupe::event_based_actor {
public:
  group(troupe::actor_config& cfg, const directory* dir, std::vector<uint32_t> subscribers)
    : troupe::event_based_actor(cfg), dir_(dir), subscribers_(std::move(subscribers)) {}

protected:
  troupe::behavior make_behavior() override {
    return {
      [this](chat_atom, uint32_t sender, int64_t stamp, const locality::chat_text& text) {
        for (auto s : subscribers_)
          send(dir_->sessions[s], chat_atom_v, sender, stamp, text);
      },
    };
  }

private:
  const directory* dir_;
  std::vector<uint32_t> subscribers_;
};

class session : public troupe::event_based_actor {
public:
  session(troupe::actor_config& cfg, const directory* dir, uint32_t id, locality::chat_user user,
          uint32_t ticks)
    : troupe::event_based_actor(cfg), dir_(dir), user_(std::move(user)),
      rng_(locality::chat_session_random(id)), key_(locality::chat_key(id)), id_(id),
      ticks_(ticks) {
    first_tick_ = locality::chat_first_tick(rng_);
  }

protected:
  troupe::behavior make_behavior() override {
    logger_ = spawn<logger>();
    link_to(logger_);
    locality::chat_counters::bump(locality::chat_counters::mine().ready);
    return {
      [this](start_atom) {
        start_ = locality::now_ns();
        delayed_send(self_handle(), troupe::timespan{first_tick_}, tick_atom_v);
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
      send(dir_->groups[m.target], chat_atom_v, id_, stamp, text);
    else
      send(dir_->sessions[m.target], chat_atom_v, id_, stamp, text);
    send(logger_, log_atom_v, id_, m.address(), text);
    send(dir_->registry, log_atom_v, id_, m.address(), std::move(text));
    if (++ticked_ == ticks_)
      return;
    delayed_send(self_handle(),
                 troupe::timespan{locality::chat_next_tick_in(start_, first_tick_, ticked_)},
                 tick_atom_v);
  }

  const directory* dir_;
  locality::chat_user user_;
  locality::random rng_;
  uint64_t key_;
  int64_t first_tick_; // after the start, in ns
  int64_t start_ = 0;
  troupe::actor logger_;
  uint32_t id_;
  uint32_t ticks_;
  uint32_t ticked_ = 0;
};

} // namespace

int main(int argc, char** argv) {
  locality::scheduler_flags sched{argc, argv};
  bench::options opts{argc, argv, locality::chat_sizes()};
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
  troupe::actor_system_config cfg;
  if (!sched.apply(cfg, opts.threads()))
    return 2;
  locality::chat_log registry_log;
  {
    troupe::actor_system sys{cfg};
    directory dir;
    dir.registry = sys.spawn<registry, troupe::hub>(&registry_log);
    dir.groups.reserve(groups);
    for (uint64_t g = 0; g < groups; ++g)
      dir.groups.push_back(sys.spawn<group, troupe::hub>(&dir, std::move(members[g])));
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
        troupe::anon_send(x, start_atom_v);
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
      troupe::anon_send_exit(x, troupe::exit_reason::user_shutdown);
    for (const auto& x : dir.groups)
      troupe::anon_send_exit(x, troupe::exit_reason::user_shutdown);
    troupe::anon_send_exit(dir.registry, troupe::exit_reason::user_shutdown);
    locality::print_steals_when_done(sys);
  }
  auto logs_ok = locality::chat_report(registry_log, messages);
  auto status = bench::checksum("deliveries", locality::chat_progress::now().deliveries,
                                expected);
  return status != 0 ? status : logs_ok;
}
