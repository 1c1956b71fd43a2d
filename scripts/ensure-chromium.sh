#!/bin/sh
# Installs Debian's chromium when it is missing (the client's browser test drives it headless through
# playwright-core). Safe to call every time: it does nothing when /usr/bin/chromium exists.
set -eu
exec sh "$(dirname "$0")/ensure-package.sh" "${CHROMIUM_PATH:-/usr/bin/chromium}" chromium
