#pragma once

// TLS contexts from PEM files: the one place that turns certificate,
// private key and CA files into a Boost.Asio context, for the middleman's
// nodes and for network services alike.

#include "troupe/config_sections.hpp"
#include "troupe/expected.hpp"

#include <boost/asio/ssl/context.hpp>

#include <memory>
#include <string_view>

namespace troupe::net::detail {

/// A TLS 1.2+ context with `files` loaded; `key_prefix` ("troupe.net.tls",
/// "tls()") names the setting in errors. Files not given are not loaded.
expected<std::unique_ptr<boost::asio::ssl::context>>
make_tls_context(const net_tls_config& files, std::string_view key_prefix);

} // namespace troupe::net::detail
