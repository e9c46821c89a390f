#include "troupe/system_messages.hpp"

namespace troupe {

std::string to_string(const exit_msg& x) {
  return "exit_msg(" + to_string(x.source) + ", " + to_string(x.reason) + ")";
}

std::string to_string(const down_msg& x) {
  return "down_msg(" + to_string(x.source) + ", " + to_string(x.reason) + ")";
}

namespace detail {

std::string to_string(const request_timeout_msg& x) {
  return "request_timeout_msg(" + std::to_string(x.request_number) + ")";
}

std::string to_string(const idle_timeout_msg& x) {
  return "idle_timeout_msg(" + std::to_string(x.generation) + ")";
}

} // namespace detail

} // namespace troupe
