#!/bin/sh
# Installs Debian's espeak-ng when it is missing (the voice tests speak with it: the server's espeak-ng engine, the
# scripted backend's /audio/speech and the fake microphone's recordings). Safe to call every time.
set -eu
exec sh "$(dirname "$0")/ensure-package.sh" "${ESPEAK_NG_PATH:-/usr/bin/espeak-ng}" espeak-ng
