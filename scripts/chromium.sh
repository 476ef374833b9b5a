#!/usr/bin/env bash
# Installs Debian's chromium when no Chromium is on the machine; the browser
# tests drive it headless. Safe to run again: it does nothing when one is
# there. Prints the browser's path.
set -euo pipefail
for b in "${SAKE_CHROMIUM:-}" chromium chromium-browser google-chrome; do
  [ -n "$b" ] || continue
  if path=$(command -v "$b" 2>/dev/null); then
    echo "$path"
    exit 0
  fi
done
echo "chromium is missing: installing Debian's chromium" >&2
SUDO=""; [ "$(id -u)" = 0 ] || SUDO="sudo"
$SUDO apt-get update -qq >&2
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium >&2
command -v chromium
