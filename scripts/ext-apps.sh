#!/usr/bin/env bash
# Fetches the official MCP Apps host bridge (@modelcontextprotocol/ext-apps on
# npm) into .cache/ext-apps and bundles its AppBridge for the browser, for
# the browser test of examples/apps. Safe to run again: it does nothing when
# the bundle of this version is there. Prints the bundle's path.
set -euo pipefail
cd "$(dirname "$0")/.."
cache="${SAKE_CACHE:-$(pwd)/.cache}/ext-apps"
version="2.0.4"
bundle="$cache/app-bridge-$version.js"
if [ -s "$bundle" ]; then echo "$bundle"; exit 0; fi
if ! command -v npm >/dev/null 2>&1; then
  echo "npm is missing: installing Debian's nodejs and npm" >&2
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq >&2 && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq nodejs npm >&2
fi
mkdir -p "$cache"
echo "installing @modelcontextprotocol/ext-apps@$version and its bundler" >&2
# The bridge's peers (the MCP client and core, zod) are installed next to
# it; React and the server side are not needed by a host page.
npm install --silent --no-audit --no-fund --legacy-peer-deps --prefix "$cache" \
  "@modelcontextprotocol/ext-apps@$version" @modelcontextprotocol/client@2.4.0 @modelcontextprotocol/core@2.4.0 \
  zod@4.6.7 esbuild@0.28.2 >&2
echo 'export { AppBridge, PostMessageTransport } from "@modelcontextprotocol/ext-apps/app-bridge";' >"$cache/entry.js"
"$cache/node_modules/.bin/esbuild" "$cache/entry.js" --bundle --format=esm --platform=browser \
  --log-level=warning --outfile="$bundle.tmp" >&2
mv "$bundle.tmp" "$bundle"
echo "$bundle"
