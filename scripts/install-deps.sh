#!/usr/bin/env bash
# Installs the Debian packages a profile needs, and only those missing.
#
#   scripts/install-deps.sh test    build and run the tests
#   scripts/install-deps.sh bench   the above, plus the benchmark competitors
#
# apt-get runs only when something is missing; sudo only when not root.
set -euo pipefail

test_packages=(
  cmake ninja-build g++ pkg-config
  libgtest-dev libgmock-dev librapidcheck-dev
  libfmt-dev libtomlplusplus-dev libhwloc-dev libsimdjson-dev
  libmimalloc-dev libboost-dev libssl-dev openssl curl
  clang-14 libclang-rt-14-dev
)
bench_packages=(
  "${test_packages[@]}"
  libcaf-dev libbenchmark-dev libconcurrentqueue-dev libreaderwriterqueue-dev
  libtbb-dev
  python3 python3-matplotlib
)

profile=${1:-test}
case "$profile" in
  test) packages=("${test_packages[@]}") ;;
  bench) packages=("${bench_packages[@]}") ;;
  *)
    echo "usage: $0 [test|bench]" >&2
    exit 2
    ;;
esac

if ! command -v dpkg-query >/dev/null; then
  echo "install-deps: dpkg-query not found; install these by hand:" \
       "${packages[*]}" >&2
  exit 1
fi

missing=()
for p in "${packages[@]}"; do
  status=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)
  [[ "$status" == installed ]] || missing+=("$p")
done

if ((${#missing[@]} == 0)); then
  echo "install-deps ($profile): all ${#packages[@]} packages are installed"
  exit 0
fi

echo "install-deps ($profile): installing ${missing[*]}"
sudo=()
if ((EUID != 0)); then
  if ! command -v sudo >/dev/null; then
    echo "install-deps: not root and no sudo; run as root:" \
         "apt-get install ${missing[*]}" >&2
    exit 1
  fi
  sudo=(sudo)
fi
"${sudo[@]}" apt-get update
"${sudo[@]}" env DEBIAN_FRONTEND=noninteractive \
  apt-get install -y --no-install-recommends "${missing[@]}"
