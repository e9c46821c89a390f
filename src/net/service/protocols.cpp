// The protocols of net/lp.hpp and net/octet_stream.hpp.

#include "protocol.hpp"

#include "troupe/net/lp.hpp"
#include "troupe/net/octet_stream.hpp"

#include <algorithm>
#include <memory>

namespace troupe::net::detail {

expected<std::span<const std::byte>> payload_bytes(const message& msg, std::string_view protocol) {
  if (msg.match_elements<byte_buffer>()) {
    auto& buf = msg.get_as<byte_buffer>(0);
    return std::span<const std::byte>{buf.data(), buf.size()};
  }
  if (msg.match_elements<std::string>()) {
    auto& str = msg.get_as<std::string>(0);
    return std::span<const std::byte>{reinterpret_cast<const std::byte*>(str.data()), str.size()};
  }
  return make_error(errc::unexpected_message,
                    std::string{protocol} + " writes a byte_buffer or a std::string, not "
                      + to_string(msg));
}

namespace {

class lp_protocol final : public protocol {
public:
  lp_protocol(lp::size_field field, size_t max_message_size)
    : decoder_{field, max_message_size} {}

  expected<size_t> consume(std::span<const std::byte> data, const strong_actor_ptr&,
                           std::vector<delivery>& out) override {
    return decoder_.decode(data, [&out](std::span<const std::byte> frame) {
      out.push_back({nullptr, message_id{}, make_message(byte_buffer{frame.begin(), frame.end()})});
    });
  }

  error finish(std::span<const std::byte> rest, std::vector<delivery>&) override {
    if (rest.empty())
      return {};
    return make_error(errc::truncated_input, "the connection ended inside a frame ("
                                               + std::to_string(rest.size())
                                               + " bytes of it arrived)");
  }

  error encode(const mailbox_element& elem, byte_buffer& out, bool&) override {
    auto bytes = payload_bytes(elem.payload, name());
    if (!bytes)
      return bytes.error();
    return lp_encode(decoder_.field, decoder_.max_message_size, *bytes, out);
  }

  size_t max_unit_size() const noexcept override {
    return decoder_.header_size() + decoder_.max_message_size;
  }

  std::string_view name() const noexcept override {
    return "length-prefix framing";
  }

private:
  lp_decoder decoder_;
};

class octet_protocol final : public protocol {
public:
  octet_protocol(bool lines, size_t max_message_size)
    : lines_(lines), max_(max_message_size) {}

  expected<size_t> consume(std::span<const std::byte> data, const strong_actor_ptr&,
                           std::vector<delivery>& out) override {
    if (!lines_) {
      out.push_back({nullptr, message_id{}, make_message(byte_buffer{data.begin(), data.end()})});
      return data.size();
    }
    size_t pos = 0;
    for (;;) {
      auto rest = data.subspan(pos);
      auto nl = std::find(rest.begin(), rest.end(), std::byte{'\n'});
      if (nl == rest.end()) {
        // Room for a "\r" still to be followed by "\n".
        if (rest.size() > max_ + 1)
          return too_long(rest.size());
        return pos;
      }
      auto len = static_cast<size_t>(nl - rest.begin());
      auto content = len - (len > 0 && rest[len - 1] == std::byte{'\r'} ? 1 : 0);
      if (content > max_)
        return too_long(content);
      push_line(rest.first(len), out);
      pos += len + 1;
    }
  }

  error finish(std::span<const std::byte> rest, std::vector<delivery>& out) override {
    // A last line without its "\n" is still a line.
    if (lines_ && !rest.empty())
      push_line(rest, out);
    return {};
  }

  error encode(const mailbox_element& elem, byte_buffer& out, bool&) override {
    auto bytes = payload_bytes(elem.payload, name());
    if (!bytes)
      return bytes.error();
    out.insert(out.end(), bytes->begin(), bytes->end());
    if (lines_ && elem.payload.match_elements<std::string>())
      out.push_back(std::byte{'\n'});
    return {};
  }

  size_t max_unit_size() const noexcept override {
    // A line and its "\r\n".
    return max_ + 2;
  }

  std::string_view name() const noexcept override {
    return lines_ ? "a line stream" : "an octet stream";
  }

private:
  static void push_line(std::span<const std::byte> line, std::vector<delivery>& out) {
    if (!line.empty() && line.back() == std::byte{'\r'})
      line = line.first(line.size() - 1);
    out.push_back({nullptr, message_id{},
                   make_message(std::string{reinterpret_cast<const char*>(line.data()), line.size()})});
  }

  error too_long(size_t n) const {
    return make_error(errc::invalid_argument,
                      "a line of " + std::to_string(n) + " bytes or more exceeds max_message_size ("
                        + std::to_string(max_) + " bytes)");
  }

  bool lines_;
  size_t max_;
};

} // namespace

} // namespace troupe::net::detail

namespace troupe::net {

detail::protocol_factory lp::builder::make_protocol() const {
  auto field = field_;
  return [field](const service_options& opts) -> std::unique_ptr<detail::protocol> {
    return std::make_unique<detail::lp_protocol>(field, opts.max_message_size);
  };
}

detail::protocol_factory octet_stream::builder::make_protocol() const {
  auto lines = lines_;
  return [lines](const service_options& opts) -> std::unique_ptr<detail::protocol> {
    return std::make_unique<detail::octet_protocol>(lines, opts.max_message_size);
  };
}

} // namespace troupe::net
