#include "troupe/error.hpp"

namespace troupe {

std::string to_string(errc x) {
  switch (x) {
    case errc::none:
      return "none";
    case errc::unexpected_message:
      return "unexpected_message";
    case errc::unexpected_response:
      return "unexpected_response";
    case errc::request_timeout:
      return "request_timeout";
    case errc::actor_down:
      return "actor_down";
    case errc::invalid_argument:
      return "invalid_argument";
    case errc::unknown_key:
      return "unknown_key";
    case errc::malformed_value:
      return "malformed_value";
    case errc::parse_error:
      return "parse_error";
    case errc::runtime_error:
      return "runtime_error";
    case errc::system_shutdown:
      return "system_shutdown";
    case errc::queue_full:
      return "queue_full";
    case errc::broken_promise:
      return "broken_promise";
    case errc::unsupported_type:
      return "unsupported_type";
    case errc::truncated_input:
      return "truncated_input";
    case errc::malformed_input:
      return "malformed_input";
    case errc::invalid_field:
      return "invalid_field";
    case errc::unhandled_exception:
      return "unhandled_exception";
    case errc::cannot_connect_to_node:
      return "cannot_connect_to_node";
    case errc::unexpected_actor_messaging_interface:
      return "unexpected_actor_messaging_interface";
    case errc::incompatible_versions:
      return "incompatible_versions";
    case errc::cannot_publish_invalid_actor:
      return "cannot_publish_invalid_actor";
    case errc::connection_closed:
      return "connection_closed";
  }
  return "errc(" + std::to_string(static_cast<int>(x)) + ")";
}

std::string to_string(exit_reason x) {
  switch (x) {
    case exit_reason::normal:
      return "normal";
    case exit_reason::unhandled_exception:
      return "unhandled_exception";
    case exit_reason::kill:
      return "kill";
    case exit_reason::user_shutdown:
      return "user_shutdown";
    case exit_reason::unreachable:
      return "unreachable";
    case exit_reason::unknown:
      return "unknown";
    case exit_reason::system_shutdown:
      return "system_shutdown";
    case exit_reason::remote_link_unreachable:
      return "remote_link_unreachable";
  }
  return "exit_reason(" + std::to_string(static_cast<int>(x)) + ")";
}

error::error(uint8_t code, type_id_t category, std::string context,
             std::string (*code_name)(uint8_t)) {
  if (code != 0 || !context.empty())
    data_ = std::make_unique<data>(data{code, category, std::move(context), code_name});
}

error::error(const error& other)
  : data_(other.data_ ? std::make_unique<data>(*other.data_) : nullptr) {}

error& error::operator=(const error& other) {
  if (this != &other)
    data_ = other.data_ ? std::make_unique<data>(*other.data_) : nullptr;
  return *this;
}

const std::string& error::context() const noexcept {
  static const std::string empty;
  return data_ ? data_->context : empty;
}

void error::prepend_context(std::string_view prefix) {
  if (!data_)
    return;
  if (data_->context.empty())
    data_->context = prefix;
  else
    data_->context.insert(0, prefix);
}

error error::restore(uint8_t code, type_id_t category, std::string context) {
  if (code == 0 && context.empty()) {
    data_.reset();
    return {};
  }
  auto* meta = detail::global_meta_object(category);
  if (meta == nullptr || meta->code_name == nullptr)
    return error{errc::invalid_field,
                 "type ID " + std::to_string(category) + " names no error code enum"};
  data_ = std::make_unique<data>(data{code, category, std::move(context), meta->code_name});
  return {};
}

std::string to_string(const error& x) {
  if (!x.data_)
    return "none";
  std::string result{query_type_name(x.data_->category)};
  result += "::";
  if (x.data_->code_name)
    result += x.data_->code_name(x.data_->code);
  else
    result += std::to_string(x.data_->code);
  if (!x.data_->context.empty()) {
    result += ": ";
    result += x.data_->context;
  }
  return result;
}

bad_expected_access::bad_expected_access(troupe::error err)
  : err_(std::move(err)), what_("troupe::bad_expected_access: " + to_string(err_)) {}

const char* bad_expected_access::what() const noexcept {
  return what_.c_str();
}

} // namespace troupe
