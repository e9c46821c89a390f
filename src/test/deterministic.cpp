#include "troupe/test/fixture/deterministic.hpp"

#include "deterministic_scheduler.hpp"

#include "troupe/local_actor.hpp"
#include "troupe/scheduled_actor.hpp"

#include <utility>

namespace troupe::test::fixture {

namespace {

std::string name_of(const actor_control_block* ctrl) {
  return ctrl == nullptr ? "an anonymous sender" : "actor#" + std::to_string(ctrl->id());
}

std::string describe(const mailbox_element& elem) {
  return to_string(elem.payload) + " from " + name_of(elem.sender.get());
}

/// Every message of `mailbox`, taken out in the order they would run; the
/// caller puts them back with prepend().
local_actor::mailbox_type::list_type take_all(local_actor::mailbox_type& mailbox) {
  local_actor::mailbox_type::list_type all;
  while (auto* x = mailbox.pop())
    all.push_back(x);
  return all;
}

const char* name_of(deterministic::algorithm algo) {
  using algorithm = deterministic::algorithm;
  switch (algo) {
    case algorithm::expect:
      return "expect";
    case algorithm::allow:
      return "allow";
    case algorithm::disallow:
      return "disallow";
    case algorithm::prepone:
      return "prepone";
    case algorithm::prepone_and_expect:
      return "prepone_and_expect";
    case algorithm::prepone_and_allow:
      return "prepone_and_allow";
  }
  return "?";
}

actor_system_config& configured(actor_system_config& cfg,
                                const std::function<void(actor_system_config&)>& configure) {
  if (configure)
    configure(cfg);
  return cfg;
}

} // namespace

// -- message_filter -------------------------------------------------------------

bool deterministic::message_filter::accepts(const mailbox_element& elem) const {
  if (sender_given && elem.sender.get() != sender)
    return false;
  return matches(elem.payload);
}

std::string deterministic::message_filter::describe(algorithm algo) const {
  auto result = std::string{name_of(algo)} + "<" + types + ">()";
  if (sender_given)
    result += ".from(" + (sender == nullptr ? std::string{"nullptr"} : name_of(sender)) + ")";
  return result;
}

// -- construction ----------------------------------------------------------------

deterministic::deterministic() : deterministic(nullptr) {}

namespace {

/// The fixture's parts: its scheduler runs every actor, detached ones too,
/// so the test controls every step.
actor_system::custom_setup deterministic_setup() {
  auto sched = std::make_unique<deterministic_scheduler>();
  auto launch_detached = [ptr = sched.get()](scheduled_actor* self) {
    self->ref_resumable();
    ptr->schedule(self);
  };
  return {std::move(sched), std::make_unique<virtual_clock>(), std::move(launch_detached)};
}

} // namespace

deterministic::deterministic(const std::function<void(actor_system_config&)>& configure)
  : sys(configured(cfg, configure), deterministic_setup()),
    sched_(static_cast<deterministic_scheduler*>(&sys.scheduler())),
    clock_(static_cast<virtual_clock*>(&sys.clock())) {
}

deterministic::~deterministic() {
  // A test may end with messages queued on purpose: they go unhandled, not
  // to the dead letters a shutdown reports. Then, since only the test runs
  // the actors and it is done, stop them and run what that leaves before
  // the system's destructor waits for them.
  for (auto* job : sched_->jobs())
    if (auto* self = dynamic_cast<scheduled_actor*>(job); self != nullptr && !self->terminated())
      take_all(self->mailbox());
  sys.shutdown();
  sched_->stop();
}

// -- checking messages ---------------------------------------------------------------

bool deterministic::evaluate(algorithm algo, actor_control_block* dst,
                             const message_filter& filter, const std::source_location& loc) {
  start_actors();
  auto* self = target(dst, filter, algo, loc);
  switch (algo) {
    case algorithm::expect:
    case algorithm::allow:
      return dispatch_matching(self, filter, algo, loc);
    case algorithm::disallow: {
      auto* next = self->mailbox().peek();
      if (next != nullptr && filter.accepts(*next))
        fail(loc, filter.describe(algo) + ".to(" + name_of(dst) + "): its next message is "
                    + describe(*next));
      return true;
    }
    case algorithm::prepone:
      return prepone_matching(self, filter);
    case algorithm::prepone_and_expect:
    case algorithm::prepone_and_allow:
      prepone_matching(self, filter);
      return dispatch_matching(self, filter, algo, loc);
  }
  return false;
}

scheduled_actor* deterministic::target(actor_control_block* dst, const message_filter& filter,
                                       algorithm algo, const std::source_location& loc) {
  auto what = filter.describe(algo) + ".to(" + name_of(dst) + ")";
  if (dst == nullptr)
    fail(loc, what + ": the receiver is an invalid handle");
  auto* self = dynamic_cast<scheduled_actor*>(dst->get());
  if (self == nullptr)
    fail(loc, what + ": the receiver is a " + dst->get()->name()
                + ", which runs on a thread of its own; only event-based actors run here");
  if (self->terminated())
    fail(loc, what + ": the receiver has terminated");
  return self;
}

bool deterministic::dispatch_matching(scheduled_actor* self, const message_filter& filter,
                                      algorithm algo, const std::source_location& loc) {
  bool must = algo == algorithm::expect || algo == algorithm::prepone_and_expect;
  auto what = filter.describe(algo) + ".to(" + name_of(self->ctrl()) + ")";
  auto* next = self->mailbox().peek();
  if (next == nullptr) {
    if (must)
      fail(loc, what + ": its mailbox is empty");
    return false;
  }
  if (!filter.accepts(*next)) {
    if (must) {
      auto text = what + ": its next message is " + describe(*next);
      if (auto n = self->mailbox().size(); n > 1)
        text += " (and " + std::to_string(n - 1) + " more after it)";
      fail(loc, text);
    }
    return false;
  }
  if (filter.capture)
    filter.capture(next->payload);
  if (!sched_->run_once(self))
    fail(loc, what + ": the receiver has mail but does not run: it is muted by a full "
                       "mailbox it sent to");
  return true;
}

bool deterministic::prepone_matching(scheduled_actor* self, const message_filter& filter) {
  // Take every message out, in the order they would run, and put them
  // back with the first match in front.
  auto& mailbox = self->mailbox();
  auto all = take_all(mailbox);
  local_actor::mailbox_type::list_type rest;
  mailbox_element* match = nullptr;
  while (auto* x = all.pop_front()) {
    if (match == nullptr && filter.accepts(*x))
      match = x;
    else
      rest.push_back(x);
  }
  if (match != nullptr)
    rest.push_front(match);
  mailbox.prepend(std::move(rest));
  return match != nullptr;
}

void deterministic::send_from(const strong_actor_ptr& sender, actor_control_block* dst,
                              message msg) {
  if (dst == nullptr)
    return; // target() reports the invalid handle
  dst->get()->enqueue(make_mailbox_element(sender, message_id::make(), std::move(msg)), nullptr);
}

void deterministic::inject_exit_impl(actor_control_block* dst, error reason,
                                     const std::source_location& loc) {
  if (dst != nullptr)
    dst->get()->enqueue(
      make_mailbox_element(nullptr, message_id::make_system(message_priority::urgent),
                           make_message(exit_msg{actor_addr{}, std::move(reason)})),
      nullptr);
  message_filter filter;
  filter.types = to_string(make_type_id_list<exit_msg>());
  filter.matches = [](const message& msg) { return msg.match_elements<exit_msg>(); };
  filter.sender_given = true;
  evaluate(algorithm::prepone_and_expect, dst, filter, loc);
}

// -- running ----------------------------------------------------------------------------

bool deterministic::dispatch_message() {
  start_actors();
  return sched_->run_once();
}

bool deterministic::dispatch_message_of(actor_control_block* dst) {
  start_actors();
  return dst != nullptr && sched_->run_once(dynamic_cast<scheduled_actor*>(dst->get()));
}

size_t deterministic::dispatch_messages() {
  size_t n = 0;
  while (dispatch_message())
    ++n;
  return n;
}

// -- looking ----------------------------------------------------------------------------

size_t deterministic::mail_count() {
  start_actors();
  size_t n = 0;
  for (auto* job : sched_->jobs())
    if (auto* self = dynamic_cast<scheduled_actor*>(job))
      n += self->mailbox().size();
  return n;
}

size_t deterministic::mail_count_of(actor_control_block* dst) {
  size_t n = 0;
  visit_mailbox(dst, [&n](const mailbox_element&) { ++n; });
  return n;
}

void deterministic::visit_mailbox(actor_control_block* dst,
                                  const std::function<void(const mailbox_element&)>& f) {
  start_actors();
  if (dst == nullptr)
    return;
  auto* self = dynamic_cast<scheduled_actor*>(dst->get());
  if (self == nullptr || self->terminated())
    return;
  auto& mailbox = self->mailbox();
  auto all = take_all(mailbox);
  for (auto& x : all)
    f(x);
  mailbox.prepend(std::move(all));
}

void deterministic::start_actors() {
  sched_->start_actors();
}

// -- time -------------------------------------------------------------------------------

size_t deterministic::advance_time(actor_clock::duration_type amount) {
  start_actors();
  return clock_->advance_time(amount);
}

size_t deterministic::set_time(actor_clock::time_point t) {
  start_actors();
  return clock_->set_time(t);
}

bool deterministic::trigger_timeout() {
  start_actors();
  return clock_->trigger_timeout();
}

size_t deterministic::trigger_all_timeouts() {
  start_actors();
  return clock_->trigger_all_timeouts();
}

size_t deterministic::num_timeouts() {
  start_actors();
  return clock_->pending();
}

std::optional<actor_clock::time_point> deterministic::next_timeout() {
  start_actors();
  return clock_->next_timeout();
}

// -- failing ----------------------------------------------------------------------------

void deterministic::fail(const std::source_location& loc, const std::string& what) {
  ADD_FAILURE_AT(loc.file_name(), static_cast<int>(loc.line())) << what;
  throw expectation_failed{"troupe::test: the test stopped at the failed expectation above"};
}

} // namespace troupe::test::fixture
