#include "troupe/abstract_actor.hpp"

#include "detail/system_internals.hpp"

#include "troupe/actor_system.hpp"
#include "troupe/detail/assert.hpp"
#include "troupe/logger.hpp"

#include <algorithm>

namespace troupe {

void actor_control_block::on_last_strong_ref() noexcept {
  // Nobody can send to or run the actor any more.
  actor_->on_unreachable();
  // An exit notice still held has nobody left to release it.
  actor_->release_exit_notice(nullptr);
  destroy_(actor_);
  weak_deref();
}

bool abstract_actor::add_muted(strong_actor_ptr) {
  return false;
}

error abstract_actor::fail_state() const {
  std::lock_guard guard{mtx_};
  return fail_state_;
}

void abstract_actor::on_unreachable() noexcept {
  cleanup(exit_reason::unreachable, nullptr);
}

void abstract_actor::send_exit_to(const actor_addr& dest, const actor_addr& source,
                                  const error& reason, execution_unit* ctx) {
  if (auto hdl = dest.lock())
    hdl.ctrl()->get()->enqueue(
      make_mailbox_element(nullptr, message_id::make_system(message_priority::urgent),
                           make_message(exit_msg{source, reason})),
      ctx);
}

void abstract_actor::link_to(abstract_actor* other) {
  if (other == nullptr || other == this)
    return;
  error other_reason;
  bool other_down = false;
  {
    std::scoped_lock guard{mtx_, other->mtx_};
    if (notice_sent_)
      return;
    if (other->notice_sent_) {
      other_down = true;
      other_reason = other->fail_state_;
    } else {
      auto other_addr = other->address();
      if (std::find(links_.begin(), links_.end(), other_addr) == links_.end()) {
        links_.push_back(other_addr);
        other->links_.push_back(address());
      }
    }
  }
  if (other_down)
    send_exit_to(address(), other->address(), other_reason, nullptr);
}

void abstract_actor::unlink_from(abstract_actor* other) {
  if (other == nullptr || other == this)
    return;
  std::scoped_lock guard{mtx_, other->mtx_};
  std::erase(links_, other->address());
  std::erase(other->links_, address());
}

void abstract_actor::add_monitor(const actor_addr& observer) {
  error reason;
  {
    std::lock_guard guard{mtx_};
    if (!notice_sent_) {
      monitors_.push_back(observer);
      return;
    }
    reason = fail_state_;
  }
  if (auto hdl = observer.lock())
    hdl.ctrl()->get()->enqueue(make_mailbox_element(nullptr, message_id::make_system(),
                                                    make_message(down_msg{address(), reason})),
                               nullptr);
}

void abstract_actor::remove_monitor(const actor_addr& observer) {
  std::lock_guard guard{mtx_};
  auto i = std::find(monitors_.begin(), monitors_.end(), observer);
  if (i != monitors_.end())
    monitors_.erase(i);
}

bool abstract_actor::cleanup(error reason, execution_unit* ctx) {
  std::vector<actor_addr> links;
  std::vector<actor_addr> monitors;
  {
    std::lock_guard guard{mtx_};
    if (terminated_.load(std::memory_order_relaxed))
      return false;
    fail_state_ = reason;
    if (!may_hold_exit_notice_)
      take_exit_notice(links, monitors);
    terminated_.store(true, std::memory_order_release);
  }
  on_cleanup(reason, ctx);
  if (may_hold_exit_notice_) {
    std::lock_guard guard{mtx_};
    if (notice_held_)
      return true;
    take_exit_notice(links, monitors);
  }
  send_exit_notice(links, monitors, reason, ctx);
  return true;
}

void abstract_actor::hold_exit_notice() noexcept {
  TROUPE_ASSERT(may_hold_exit_notice_);
  std::lock_guard guard{mtx_};
  notice_held_ = !notice_sent_;
}

void abstract_actor::release_exit_notice(execution_unit* ctx) {
  if (!may_hold_exit_notice_)
    return;
  std::vector<actor_addr> links;
  std::vector<actor_addr> monitors;
  error reason;
  {
    std::lock_guard guard{mtx_};
    if (!notice_held_ || notice_sent_)
      return;
    take_exit_notice(links, monitors);
    reason = fail_state_;
  }
  send_exit_notice(links, monitors, reason, ctx);
}

void abstract_actor::take_exit_notice(std::vector<actor_addr>& links,
                                      std::vector<actor_addr>& monitors) noexcept {
  links.swap(links_);
  monitors.swap(monitors_);
  notice_sent_ = true;
}

void abstract_actor::send_exit_notice(const std::vector<actor_addr>& links,
                                      const std::vector<actor_addr>& monitors,
                                      const error& reason, execution_unit* ctx) {
  // Most actors have neither; taking their address costs two atomic updates.
  if (!links.empty() || !monitors.empty()) {
    auto self = address();
    for (auto& link : links) {
      if (auto hdl = link.lock()) {
        auto* other = hdl.ctrl()->get();
        {
          std::lock_guard guard{other->mtx_};
          std::erase(other->links_, self);
        }
        send_exit_to(link, self, reason, ctx);
      }
    }
    for (auto& observer : monitors)
      if (auto hdl = observer.lock())
        hdl.ctrl()->get()->enqueue(make_mailbox_element(nullptr, message_id::make_system(),
                                                        make_message(down_msg{self, reason})),
                                   ctx);
  }
  if (listed_)
    detail::system_internals::unlist_actor(system(), this);
  // Last: await_all_actors_done may return as soon as this runs.
  if (registered_)
    detail::system_internals::unregister_actor(system());
}

void abstract_actor::bounce(mailbox_element_ptr elem, const error& reason,
                            actor_system& sys, execution_unit* ctx) noexcept {
  if (elem->mid.is_request() && elem->sender) {
    auto* requester = elem->sender->get();
    requester->enqueue(make_mailbox_element(nullptr, elem->mid.response_id(),
                                            make_message(reason)),
                       ctx);
    return;
  }
  sys.add_dead_letter(*elem);
}

} // namespace troupe
