#include "troupe/opt_group.hpp"

#include <stdexcept>

namespace troupe {

// A front-end to actor_system_config::declare, which checks the key.
void opt_group::add_impl(detail::config_option opt, std::string_view name,
                         std::string_view description) {
  auto caller = "opt_group{\"" + category_ + "\"}.add(\"" + std::string{name} + "\")";
  auto comma = name.find(',');
  if (comma != std::string_view::npos) {
    opt.short_names = name.substr(comma + 1);
    name = name.substr(0, comma);
    if (opt.short_names.empty())
      throw std::logic_error("troupe: " + caller
                             + ": a comma comes before short names, as in \"port,p\"");
  }
  // CAF's "global" group has keys without a prefix.
  bool global = category_ == "global";
  opt.key = global ? std::string{name} : category_ + '.' + std::string{name};
  opt.description = description;
  cfg_->declare(std::move(opt), caller, global);
}

} // namespace troupe
