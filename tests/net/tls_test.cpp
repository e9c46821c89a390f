// Mutual TLS between nodes: certificates from one CA connect, a node
// without a certificate or with one from another CA is refused, and TLS
// settings that can't work are errors naming the key. The certificates are
// made at start with the `openssl` program.

#include "troupe/actor_system.hpp"
#include "troupe/event_based_actor.hpp"
#include "troupe/net/middleman.hpp"
#include "troupe/scoped_actor.hpp"

#include "test_certs.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>

using namespace std::chrono_literals;
using namespace troupe;
namespace fs = std::filesystem;

namespace {

fs::path cert_dir;

class tls_test : public ::testing::Test {
public:
  static void SetUpTestSuite() {
    if (!test_certs::run("openssl version"))
      return;
    cert_dir = fs::temp_directory_path() / ("troupe-tls-" + std::to_string(::getpid()));
    fs::create_directories(cert_dir);
    if (!test_certs::make_ca(cert_dir, "ca") || !test_certs::make_cert(cert_dir, "ca", "alice")
        || !test_certs::make_cert(cert_dir, "ca", "bob") || !test_certs::make_ca(cert_dir, "rogue-ca")
        || !test_certs::make_cert(cert_dir, "rogue-ca", "mallory"))
      cert_dir.clear();
  }

  static void TearDownTestSuite() {
    if (!cert_dir.empty())
      fs::remove_all(cert_dir);
  }

protected:
  void SetUp() override {
    if (cert_dir.empty())
      GTEST_SKIP() << "the openssl program is missing or failed (make test installs it)";
  }

  /// A node with `name`'s certificate and `ca` as the peers' CA; no TLS
  /// for an empty name.
  std::unique_ptr<actor_system> make_node_system(actor_system_config& cfg, const std::string& name,
                                                 const std::string& ca = "ca") {
    cfg.load<net::middleman>();
    cfg.shutdown.grace_period = 200ms;
    cfg.net.handshake_timeout = 2s;
    if (!name.empty()) {
      cfg.net.tls.certificate = (cert_dir / (name + ".pem")).string();
      cfg.net.tls.private_key = (cert_dir / (name + ".key")).string();
      cfg.net.tls.ca = (cert_dir / (ca + ".pem")).string();
    }
    return std::make_unique<actor_system>(cfg);
  }

  /// `client`'s request to the actor `server` publishes: 2 x 21.
  static expected<int32_t> ask(actor_system& client, uint16_t port) {
    auto remote = client.middleman().remote_actor("127.0.0.1", port);
    if (!remote)
      return remote.error();
    scoped_actor self{client};
    expected<int32_t> result{make_error(errc::runtime_error, "no answer")};
    self->request(*remote, 5s, int32_t{21})
      .receive([&](int32_t y) { result = y; }, [&](const error& err) { result = err; });
    return result;
  }
};

} // namespace

TEST_F(tls_test, nodes_with_certificates_from_one_ca_talk_over_tls) {
  actor_system_config server_cfg;
  auto server = make_node_system(server_cfg, "alice");
  auto doubler = server->spawn([] { return behavior{[](int32_t x) { return 2 * x; }}; });
  auto port = server->middleman().publish(doubler, 0);
  ASSERT_TRUE(port) << to_string(port.error());
  actor_system_config client_cfg;
  auto client = make_node_system(client_cfg, "bob");
  auto y = ask(*client, *port);
  ASSERT_TRUE(y) << to_string(y.error());
  EXPECT_EQ(*y, 42);
  anon_send_exit(doubler, exit_reason::user_shutdown);
}

TEST_F(tls_test, a_node_without_a_certificate_or_from_another_ca_is_refused) {
  actor_system_config server_cfg;
  auto server = make_node_system(server_cfg, "alice");
  auto doubler = server->spawn([] { return behavior{[](int32_t x) { return 2 * x; }}; });
  auto port = server->middleman().publish(doubler, 0);
  ASSERT_TRUE(port);
  {
    actor_system_config plain_cfg;
    auto plain = make_node_system(plain_cfg, "");
    auto y = ask(*plain, *port);
    ASSERT_FALSE(y);
    EXPECT_EQ(y.error(), errc::cannot_connect_to_node) << to_string(y.error());
  }
  {
    actor_system_config rogue_cfg;
    auto rogue = make_node_system(rogue_cfg, "mallory", "ca");
    auto y = ask(*rogue, *port);
    ASSERT_FALSE(y);
    EXPECT_EQ(y.error(), errc::cannot_connect_to_node) << to_string(y.error());
  }
  // The server still serves those who belong.
  actor_system_config good_cfg;
  auto good = make_node_system(good_cfg, "bob");
  auto y = ask(*good, *port);
  ASSERT_TRUE(y) << to_string(y.error());
  EXPECT_EQ(*y, 42);
  anon_send_exit(doubler, exit_reason::user_shutdown);
}

TEST_F(tls_test, tls_settings_that_cannot_work_are_errors_naming_the_key) {
  {
    actor_system_config cfg;
    cfg.load<net::middleman>();
    cfg.net.tls.certificate = (cert_dir / "alice.pem").string();
    actor_system sys{cfg};
    auto port = sys.middleman().open(0);
    ASSERT_FALSE(port);
    EXPECT_NE(to_string(port.error()).find("go together"), std::string::npos);
  }
  {
    actor_system_config cfg;
    cfg.load<net::middleman>();
    cfg.net.tls.certificate = (cert_dir / "alice.pem").string();
    cfg.net.tls.private_key = (cert_dir / "alice.key").string();
    cfg.net.tls.ca = (cert_dir / "no-such-file.pem").string();
    actor_system sys{cfg};
    auto node = sys.middleman().connect("127.0.0.1", 1);
    ASSERT_FALSE(node);
    EXPECT_NE(to_string(node.error()).find("troupe.net.tls.ca"), std::string::npos)
      << to_string(node.error());
  }
}

TEST(net_security, listening_beyond_loopback_without_tls_is_refused) {
  actor_system_config cfg;
  cfg.load<net::middleman>();
  actor_system sys{cfg};
  auto port = sys.middleman().open(0, "0.0.0.0");
  ASSERT_FALSE(port);
  EXPECT_NE(to_string(port.error()).find("troupe.net.tls"), std::string::npos);
}

TEST(net_security, the_default_listen_address_is_a_key_and_checked_like_an_argument) {
  actor_system_config cfg;
  cfg.load<net::middleman>();
  ASSERT_FALSE(cfg.parse({"--troupe.net.listen-address=0.0.0.0"}));
  EXPECT_EQ(cfg.net.listen_address, "0.0.0.0");
  actor_system sys{cfg};
  auto port = sys.middleman().open(0);
  ASSERT_FALSE(port);
  EXPECT_EQ(port.error(), errc::invalid_argument);
  EXPECT_NE(to_string(port.error()).find("0.0.0.0"), std::string::npos);
  // An explicit loopback address still listens.
  EXPECT_TRUE(sys.middleman().open(0, "127.0.0.1"));
}
