// Fuzzes HTTP route patterns and paths (net/detail/route.hpp): the input is
// a pattern and a path separated by a newline. Every pattern parses or gives
// an error; a parsed pattern matches its own text when it has no
// parameters, and a match yields one value per parameter, none empty.

#include "troupe/net/detail/route.hpp"

#include <cstdint>
#include <cstdlib>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view input{reinterpret_cast<const char*>(data), size};
  auto nl = input.find('\n');
  auto pattern = input.substr(0, nl);
  auto path = nl == std::string_view::npos ? pattern : input.substr(nl + 1);
  auto route = troupe::net::detail::route_pattern::parse(pattern);
  if (!route)
    return 0;
  std::vector<std::pair<std::string, std::string>> params;
  if (pattern.find('<') == std::string_view::npos
      && (!route->match(pattern, params) || !params.empty()))
    std::abort();
  if (route->match(path, params)) {
    size_t count = 0;
    for (char c : pattern)
      count += c == '<';
    if (params.size() != count)
      std::abort();
    for (auto& [name, value] : params)
      if (name.empty() || value.empty())
        std::abort();
  }
  return 0;
}
