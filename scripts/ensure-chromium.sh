#!/bin/sh
# Installs Debian's chromium when it is missing (the client's browser test drives it headless through
# playwright-core). Safe to call every time: it does nothing when /usr/bin/chromium exists.
set -eu
CHROMIUM="${CHROMIUM_PATH:-/usr/bin/chromium}"
if [ -x "$CHROMIUM" ]; then
  exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
  SUDO="sudo"
else
  SUDO=""
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends chromium
"$CHROMIUM" --version
