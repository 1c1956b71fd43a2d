#!/bin/sh
# Installs Debian's redis-server when it is missing (the bridge cluster's tests and benchmark start their own on a
# random port). Safe to call every time: it does nothing when /usr/bin/redis-server exists.
set -eu
REDIS="${REDIS_SERVER_PATH:-/usr/bin/redis-server}"
if [ -x "$REDIS" ]; then
  exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
  SUDO="sudo"
else
  SUDO=""
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends redis-server
"$REDIS" --version
