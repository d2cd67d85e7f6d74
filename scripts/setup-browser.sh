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
  # env, not export: sudo drops the caller's environment.
  AS_ROOT="$SUDO env DEBIAN_FRONTEND=noninteractive"
  # An earlier install that was interrupted leaves dpkg half-configured and
  # every later apt-get refusing to run: finish or repair it first.
  $AS_ROOT dpkg --configure -a
  $AS_ROOT apt-get --fix-broken install -y -qq
  $AS_ROOT apt-get update -qq
  $AS_ROOT apt-get install -y -qq chromium
  echo "installed /usr/bin/chromium"; exit 0
fi
echo "No Chromium found: install one and set CHROMIUM_PATH" >&2
exit 1
