#include "connect.hpp"

#include <boost/asio/connect.hpp>
#include <boost/asio/steady_timer.hpp>

#include <memory>

namespace troupe::net::detail {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;

void connect_within(asio::io_context& io, const std::string& host, uint16_t port,
                    std::chrono::milliseconds limit, std::string limit_name,
                    address_check check, connect_handler fn) {
  auto resolver = std::make_shared<tcp::resolver>(io);
  resolver->async_resolve(
    host, std::to_string(port),
    [&io, resolver, limit, limit_name = std::move(limit_name), check = std::move(check),
     fn = std::move(fn)](const boost::system::error_code& ec,
                         tcp::resolver::results_type results) mutable {
      if (ec) {
        fn(make_error(errc::cannot_connect_to_node, ec.message()), tcp::socket{io});
        return;
      }
      if (check)
        for (auto& entry : results)
          if (auto err = check(entry.endpoint().address())) {
            fn(err, tcp::socket{io});
            return;
          }
      // An address that never answers must not hold the I/O threads' work
      // (and stop()).
      auto socket = std::make_shared<tcp::socket>(io);
      auto timer = std::make_shared<asio::steady_timer>(io, limit);
      timer->async_wait([socket](const boost::system::error_code& ec) {
        if (!ec) {
          boost::system::error_code ignored;
          socket->close(ignored);
        }
      });
      asio::async_connect(
        *socket, results,
        [&io, socket, timer, limit, limit_name,
         fn = std::move(fn)](const boost::system::error_code& ec, const tcp::endpoint&) {
          bool in_time = timer->cancel() > 0 || !ec;
          if (ec) {
            fn(make_error(errc::cannot_connect_to_node,
                          in_time ? ec.message()
                                  : "no answer within " + std::to_string(limit.count()) + " ms ("
                                      + limit_name + ")"),
               tcp::socket{io});
            return;
          }
          boost::system::error_code ignored;
          socket->set_option(tcp::no_delay(true), ignored);
          fn({}, std::move(*socket));
        });
    });
}

} // namespace troupe::net::detail
