#!/usr/bin/env bash
# Times `make test` (through .ci/run) from a fresh clone as a fresh machine would run it, without touching
# this machine's caches: the clone runs with a scratch HOME (so the Go build and module caches, pip's, uv's
# and npm's caches and ~/.cache/assay start empty) and a scratch containers/storage (so the image builds
# find no layer). The machine's access settings (.npmrc, Go's env file, .gitconfig) are copied, being what
# a fresh machine is configured with; Debian packages already installed stay installed (their install is a
# few minutes that overlap the Go builds).
#
# Usage: scripts/cold-make-test.sh [REV] [SCRATCH]   (default HEAD, /tmp/assay-cold; SCRATCH is emptied)
# The log and the time are in SCRATCH/make-test.log; SCRATCH keeps about 20 GB afterwards (remove it).
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
rev=${1:-HEAD}
scratch=${2:-/tmp/assay-cold}

if [[ -e $scratch ]]; then
  rm -rf "$scratch"
fi
mkdir -p "$scratch/home/.config/go" "$scratch/storage" "$scratch/run"
for file in .npmrc .gitconfig .config/go/env; do
  if [[ -e $HOME/$file ]]; then
    cp "$HOME/$file" "$scratch/home/$file"
  fi
done
cat >"$scratch/storage.conf" <<EOF
[storage]
driver = "overlay"
graphroot = "$scratch/storage"
runroot = "$scratch/run"
EOF

git clone --quiet "$repo" "$scratch/checkout"
git -C "$scratch/checkout" checkout --quiet "$(git -C "$repo" rev-parse "$rev")"

cd "$scratch/checkout"
env -u XDG_CACHE_HOME -u GOCACHE -u GOMODCACHE -u GOPATH -u ASSAY_CACHE -u ASSAY_K8S_BIN_DIR \
  HOME="$scratch/home" CONTAINERS_STORAGE_CONF="$scratch/storage.conf" CI=true \
  bash -c 'time bash .ci/run' >"$scratch/make-test.log" 2>&1 && status=0 || status=$?
echo "exit $status" >>"$scratch/make-test.log"
tail -n 5 "$scratch/make-test.log"
exit "$status"
