#include "troupe/behavior.hpp"

namespace troupe::detail {

or_else_impl::or_else_impl(std::shared_ptr<behavior_impl> first,
                           std::shared_ptr<behavior_impl> second)
  : first_(std::move(first)), second_(std::move(second)) {
  first_->append_handlers(handlers_);
  catch_all_ = !handlers_.empty() && handlers_.back().types == nullptr;
  // A catch-all of the first behavior shadows all of the second.
  if (!catch_all_) {
    second_->append_handlers(handlers_);
    catch_all_ = !handlers_.empty() && handlers_.back().types == nullptr;
  }
  std::vector<const type_id_t*> keys;
  keys.reserve(handlers_.size());
  for (auto& x : handlers_)
    keys.push_back(x.types);
  table_ = dynamic_dispatch_table<handler_entry>{keys, handlers_};
}

bool or_else_impl::invoke(message& msg, handler_result& out) {
  auto* handler = table_.find(msg.types());
  if (handler == nullptr) {
    if (!catch_all_)
      return false;
    handler = &handlers_.back();
  }
  handler->fn(handler->owner, msg, out);
  return true;
}

void or_else_impl::append_handlers(std::vector<handler_entry>& out) {
  out.insert(out.end(), handlers_.begin(), handlers_.end());
}

} // namespace troupe::detail
