#include "troupe/scoped_actor.hpp"

#include "detail/system_internals.hpp"

#include "troupe/actor_system.hpp"

namespace troupe {

scoped_actor::scoped_actor(actor_system& sys)
  : handle_(detail::make_actor<blocking_actor>(detail::system_internals::next_actor_id(sys), &sys)),
    self_(static_cast<blocking_actor*>(handle_.ctrl()->get())) {
  self_->borrows_thread_ = true;
  detail::system_internals::list_actor(sys, self_);
}

scoped_actor::~scoped_actor() {
  self_->finish(exit_reason::normal);
}

} // namespace troupe
