#pragma once

// Test certificates made with the `openssl` program: a CA, and
// certificates it signs, as PEM files in a folder of the test's own.

#include <cstdlib>
#include <filesystem>
#include <string>

namespace test_certs {

inline bool run(const std::string& cmd) {
  return std::system((cmd + " > /dev/null 2>&1").c_str()) == 0;
}

/// `dir`/`ca`.{pem,key}: a self-signed CA.
inline bool make_ca(const std::filesystem::path& dir, const std::string& ca) {
  return run("openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes"
             " -keyout " + (dir / (ca + ".key")).string() + " -out "
             + (dir / (ca + ".pem")).string() + " -days 2 -subj /CN=" + ca);
}

/// `dir`/`name`.{pem,key}: a certificate for common name `cn` (default:
/// `name`) that `ca` signed.
inline bool make_cert(const std::filesystem::path& dir, const std::string& ca,
                      const std::string& name, std::string cn = {}) {
  if (cn.empty())
    cn = name;
  auto key = (dir / (name + ".key")).string();
  auto csr = (dir / (name + ".csr")).string();
  auto pem = (dir / (name + ".pem")).string();
  return run("openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout "
             + key + " -out " + csr + " -subj /CN=" + cn)
         && run("openssl x509 -req -in " + csr + " -CA " + (dir / (ca + ".pem")).string()
                + " -CAkey " + (dir / (ca + ".key")).string() + " -CAcreateserial -out " + pem
                + " -days 2");
}

} // namespace test_certs
