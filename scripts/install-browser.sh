#!/usr/bin/env bash
# Installs Debian's headless-capable Chromium for the report's browser tests (tests/browser), and nothing
# else. Idempotent: does nothing when /usr/bin/chromium is already there. Runs apt-get as root, or through
# sudo when not root.
set -euo pipefail

if [[ -x /usr/bin/chromium ]]; then
  exit 0
fi

if ! command -v apt-get >/dev/null 2>&1; then
  echo "install-browser.sh: apt-get not found; install Chromium so that /usr/bin/chromium exists" >&2
  exit 1
fi

as_root=()
if [[ $(id -u) -ne 0 ]]; then
  as_root=(sudo)
fi

export DEBIAN_FRONTEND=noninteractive
# A fresh image has no package lists; try the install first so a warm machine skips the update.
if ! "${as_root[@]}" apt-get install -y --no-install-recommends chromium; then
  "${as_root[@]}" apt-get update
  "${as_root[@]}" apt-get install -y --no-install-recommends chromium
fi

test -x /usr/bin/chromium
