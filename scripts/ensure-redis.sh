#!/bin/sh
# Installs Debian's redis-server when it is missing (the bridge cluster's tests and benchmark start their own on a
# random port). Safe to call every time: it does nothing when /usr/bin/redis-server exists.
set -eu
exec sh "$(dirname "$0")/ensure-package.sh" "${REDIS_SERVER_PATH:-/usr/bin/redis-server}" redis-server
