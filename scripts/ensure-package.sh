#!/bin/sh
# Installs Debian packages when their program is missing: `ensure-package.sh <program path> <package>...`. Safe to
# call every time: it does nothing when the program exists. Needs root or sudo for apt-get.
set -eu
PROGRAM="$1"
shift
if [ -x "$PROGRAM" ]; then
  exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
  SUDO="sudo"
else
  SUDO=""
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "$@"
"$PROGRAM" --version
