#!/usr/bin/env bash
# Makes sure a Chromium exists for the browser tests. Playwright cannot
# download its own browsers on every machine, so we use the system one:
# CHROMIUM_PATH if set, else /usr/bin/chromium, installed with apt when missing.
set -euo pipefail
if [ -n "${CHROMIUM_PATH:-}" ] && [ -x "${CHROMIUM_PATH}" ]; then
  echo "using CHROMIUM_PATH=${CHROMIUM_PATH}"; exit 0
fi
if [ -x /usr/bin/chromium ]; then
  echo "using /usr/bin/chromium"; exit 0
fi
if command -v apt-get >/dev/null 2>&1; then
  SUDO=""; [ "$(id -u)" = "0" ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium
  echo "installed /usr/bin/chromium"; exit 0
fi
echo "No Chromium found: install one and set CHROMIUM_PATH" >&2
exit 1
