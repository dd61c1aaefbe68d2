#!/usr/bin/env bash
# Installs Debian's container tools for the project's images and the local kubelet's runc back end:
# buildah (builds the images), mmdebstrap (bootstraps the Debian base when no UBI registry answers),
# umoci (unpacks an image into a runc bundle's root filesystem), runc (runs the containers) and uidmap
# (newuidmap, which mmdebstrap's unshare mode needs); iptables and ipset, with which kube-router enforces
# NetworkPolicy in a networked local cluster (dev/assay_dev/cluster/network.py); gcc and libc6-dev, which
# link the sandbox's launcher statically for the runner image (scripts/build-launcher.sh). Idempotent: does nothing when all are present. Runs
# apt-get as root, or through sudo when not root.
set -euo pipefail

tools=(buildah mmdebstrap umoci runc newuidmap catatonit iptables ipset gcc)
packages=(buildah mmdebstrap umoci runc uidmap catatonit iptables ipset gcc libc6-dev)
# libc6-dev has no command of its own: its static C library stands for it.
static_libc=/usr/lib/x86_64-linux-gnu/libc.a

missing=0
for tool in "${tools[@]}"; do
  command -v "$tool" >/dev/null 2>&1 || missing=1
done
[[ -e $static_libc || $(uname -m) != x86_64 ]] || missing=1
if [[ $missing -eq 0 ]]; then
  exit 0
fi

if ! command -v apt-get >/dev/null 2>&1; then
  echo "install-container-tools.sh: apt-get not found; install ${packages[*]} yourself" >&2
  exit 1
fi

as_root=()
if [[ $(id -u) -ne 0 ]]; then
  as_root=(sudo)
fi

export DEBIAN_FRONTEND=noninteractive
# A fresh image has no package lists; try the install first so a warm machine skips the update.
if ! "${as_root[@]}" apt-get install -y --no-install-recommends "${packages[@]}"; then
  "${as_root[@]}" apt-get update
  "${as_root[@]}" apt-get install -y --no-install-recommends "${packages[@]}"
fi

for tool in "${tools[@]}"; do
  command -v "$tool" >/dev/null
done
