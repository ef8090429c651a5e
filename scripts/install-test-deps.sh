#!/usr/bin/env bash
# System packages the test suite uses, installed only when missing (Debian/Ubuntu):
# PostgreSQL (the store suite starts its own server from these binaries) and
# chromium + chromedriver (the review page's browser tests), valgrind (instruction counts: the
# linear-time test of every text the rules read, and the benchmark's counts). Idempotent; exits 0
# when everything is there already.
set -euo pipefail
missing=()
compgen -G "/usr/lib/postgresql/*/bin/initdb" > /dev/null || missing+=(postgresql)
[ -x /usr/bin/chromium ] || missing+=(chromium)
[ -x /usr/bin/chromedriver ] || missing+=(chromium-driver)
command -v valgrind > /dev/null || missing+=(valgrind)
if [ ${#missing[@]} -gt 0 ]; then
  sudo_=""; [ "$(id -u)" -eq 0 ] || sudo_="sudo"
  $sudo_ apt-get update -q
  DEBIAN_FRONTEND=noninteractive $sudo_ apt-get install -y -q --no-install-recommends "${missing[@]}"
fi
