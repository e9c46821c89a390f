#pragma once

// The actor of an ordered or broadcast farm. It sends each item to its
// replicas as requests through their routes (the replicas answer it, not the
// requester) and sends the results on in input order (reorder_window). A failed
// item answers its own requester with the error and takes its turn in the
// order like any other.

#include "troupe/detail/reorder_window.hpp"
#include "troupe/patterns/detail/stage.hpp"

#include <cstdint>
#include <unordered_map>
#include <vector>

namespace troupe::patterns::detail {

class gather_stage : public stage_actor {
public:
  gather_stage(actor_config& cfg, stage_config sc, std::vector<route_ptr> replicas);

protected:
  behavior make_behavior() final;

  /// A new item (the current message) arrived as item `seq`.
  virtual void on_item(uint64_t seq, message& msg) = 0;

  /// Replica `replica` answered item `seq` with `out`.
  virtual void on_reply(uint64_t seq, size_t replica, message& out) = 0;

  /// Replica `replica` failed item `seq`.
  virtual void on_reply_error(uint64_t seq, size_t replica, error& err) {
    static_cast<void>(replica);
    fail(seq, std::move(err));
  }

  /// Sends `msg` to replica `replica` as a request for item `seq`.
  void ask(size_t replica, uint64_t seq, message msg);

  /// Item `seq`'s result is ready (later calls for it are ignored).
  void finish(uint64_t seq, message result);

  /// Item `seq` failed (later calls for it are ignored).
  void fail(uint64_t seq, error err);

  size_t num_replicas() const noexcept {
    return replicas_.size();
  }

  void on_drained() override;

  void on_cleanup(const error& reason, execution_unit* ctx) override;

private:
  pending_request* find(uint64_t seq) noexcept;
  void flush();

  std::vector<route_ptr> replicas_;
  troupe::detail::reorder_window<pending_request> window_;
};

/// Ordered farm: each item to one replica picked by the routing.
class ordered_stage final : public gather_stage {
public:
  ordered_stage(actor_config& cfg, stage_config sc, std::vector<route_ptr> replicas,
                pick_fn pick);

protected:
  void on_item(uint64_t seq, message& msg) override;
  void on_reply(uint64_t seq, size_t replica, message& out) override;

private:
  pick_fn pick_;
};

/// Broadcast farm: each item to every replica; the result is the vector of
/// their results in replica order.
template <class Out>
class broadcast_stage final : public gather_stage {
public:
  broadcast_stage(actor_config& cfg, stage_config sc, std::vector<route_ptr> replicas)
    : gather_stage(cfg, std::move(sc), std::move(replicas)) {}

protected:
  void on_item(uint64_t seq, message& msg) override {
    auto& p = parts_[seq];
    p.results.resize(num_replicas());
    p.missing = num_replicas();
    for (size_t i = 0; i < num_replicas(); ++i)
      ask(i, seq, msg);
  }

  void on_reply(uint64_t seq, size_t replica, message& out) override {
    auto i = parts_.find(seq);
    if (i == parts_.end())
      return; // failed earlier
    if (!out.match_elements<Out>()) {
      parts_.erase(i);
      fail(seq, make_error(errc::unexpected_response,
                           std::string{"stage "} + name() + ": a replica answered "
                             + to_string(out)));
      return;
    }
    i->second.results[replica] = std::move(out.get_mutable_as<Out>(0));
    if (--i->second.missing == 0) {
      auto results = std::move(i->second.results);
      parts_.erase(i);
      finish(seq, make_message(std::move(results)));
    }
  }

  void on_reply_error(uint64_t seq, size_t, error& err) override {
    parts_.erase(seq);
    fail(seq, std::move(err));
  }

private:
  struct parts {
    std::vector<Out> results;
    size_t missing = 0;
  };

  std::unordered_map<uint64_t, parts> parts_;
};

} // namespace troupe::patterns::detail
