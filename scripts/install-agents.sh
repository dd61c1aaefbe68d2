#!/usr/bin/env bash
# Installs the agent CLIs pinned in agents/package.json + agents/package-lock.json (opencode-ai,
# @anthropic-ai/claude-code, @openai/codex) into agents/node_modules with `npm ci`, for the real-agent tests
# (tests/agents) and `make demo-agent`. The runner image's agents stage installs the same lockfile.
# Cheap when present: a stamp holds the lockfile's checksum, and nothing runs while it matches.
set -euo pipefail

cd "$(dirname "$0")/../agents"
stamp=node_modules/.assay-installed
want=$(sha256sum package-lock.json | cut -d' ' -f1)
if [[ -f $stamp && $(cat "$stamp") == "$want" ]]; then
  exit 0
fi
if ! command -v npm >/dev/null 2>&1; then
  echo "install-agents.sh: npm not found; install Node.js (>= 20) and npm" >&2
  exit 1
fi
# Only on a platform the lockfile pins every CLI's native binary for (agents/platforms.js): elsewhere npm
# would install one the lockfile does not hold, with no integrity check.
node platforms.js
# Optional dependencies carry each CLI's native binary for this platform; the install scripts of
# @anthropic-ai/claude-code and opencode-ai put it in place of their bin stubs. `npm install --no-save`
# rather than `npm ci`: npm leaves opencode-ai's other-platform packages out of the lockfile it writes, and
# `npm ci` then refuses the lockfile as out of sync. The versions are still the lockfile's (and every
# package.json entry is exact).
npm install --no-save --no-fund --no-audit --loglevel=error
for cli in opencode claude codex; do
  node_modules/.bin/$cli --version >/dev/null
done
echo "$want" >"$stamp"
