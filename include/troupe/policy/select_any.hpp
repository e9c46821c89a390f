#pragma once

// fan_out_request's policy that takes the first answer: the handler gets it;
// the error handler runs only if every request failed, with the last error
// (troupe/fan_out_request.hpp).

namespace troupe::policy {

struct select_any_tag_t {};
inline constexpr select_any_tag_t select_any_tag{};

} // namespace troupe::policy
