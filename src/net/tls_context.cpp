#include "tls_context.hpp"

#include <filesystem>
#include <string>

namespace troupe::net::detail {

namespace asio = boost::asio;

expected<std::unique_ptr<asio::ssl::context>>
make_tls_context(const net_tls_config& files, std::string_view key_prefix) {
  auto ctx = std::make_unique<asio::ssl::context>(asio::ssl::context::tls);
  ctx->set_options(asio::ssl::context::default_workarounds | asio::ssl::context::no_sslv2
                   | asio::ssl::context::no_sslv3 | asio::ssl::context::no_tlsv1
                   | asio::ssl::context::no_tlsv1_1);
  error err;
  auto load = [&](const char* key, const std::string& path, auto fn) {
    if (err || path.empty())
      return;
    auto name = std::string{key_prefix} + "." + key;
    std::error_code exists_ec;
    if (!std::filesystem::is_regular_file(path, exists_ec)) {
      err = make_error(errc::invalid_argument, name + ": no such file: " + path);
      return;
    }
    boost::system::error_code ec;
    fn(path, ec);
    if (ec)
      err = make_error(errc::invalid_argument, name + ": cannot use " + path + ": " + ec.message());
  };
  load("certificate", files.certificate,
       [&](const std::string& p, auto& ec) { ctx->use_certificate_chain_file(p, ec); });
  load("private-key", files.private_key, [&](const std::string& p, auto& ec) {
    ctx->use_private_key_file(p, asio::ssl::context::pem, ec);
  });
  load("ca", files.ca, [&](const std::string& p, auto& ec) { ctx->load_verify_file(p, ec); });
  if (err)
    return err;
  return ctx;
}

} // namespace troupe::net::detail
