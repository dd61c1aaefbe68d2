#!/usr/bin/env bash
# Bootstraps the Debian base of Assay's images when no UBI registry answers: Debian 12 (bookworm) minbase with
# the python3.11 runtime, its venv module (ensurepip: the builder stage makes a virtualenv) and the CA
# certificates, from Debian's own packages with mmdebstrap (unshare mode: no root-owned chroot on the host;
# `--mode=root` fails on some hosts), imported into buildah's storage from scratch as IMAGE.
#
#   images/base/debian-python.sh IMAGE
#
# Called by `python -m assay_dev.images` (make images), which names IMAGE after the hash of this file: edit
# the package list here and the next build bootstraps a new base. Same paths as UBI's python3.11 RPM
# (/usr/bin/python3.11), so the Containerfiles work on either base.
set -euo pipefail

image=${1:?usage: debian-python.sh IMAGE}
suite=bookworm
mirror=${ASSAY_DEBIAN_MIRROR:-http://deb.debian.org/debian}
packages=python3.11,python3.11-venv,ca-certificates

work=$(mktemp -d "${TMPDIR:-/tmp}/assay-base.XXXXXX")
trap 'rm -rf "$work"' EXIT

# merged-usr hook: a merged /usr without the usrmerge package (which would pull perl in); documentation,
# manual pages and translations left out, each package's copyright notice kept.
mmdebstrap --mode=unshare --variant=minbase --include="$packages" \
  --hook-dir=/usr/share/mmdebstrap/hooks/merged-usr \
  --dpkgopt='path-exclude=/usr/share/doc/*' \
  --dpkgopt='path-include=/usr/share/doc/*/copyright' \
  --dpkgopt='path-exclude=/usr/share/man/*' \
  --dpkgopt='path-exclude=/usr/share/info/*' \
  --dpkgopt='path-exclude=/usr/share/locale/*' \
  --dpkgopt='path-exclude=/usr/share/lintian/*' \
  "$suite" "$work/rootfs.tar" \
  "deb $mirror $suite main" "deb $mirror $suite-updates main" \
  "deb ${mirror%/debian}/debian-security $suite-security main"

container=$(buildah from scratch)
trap 'buildah rm "$container" >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
buildah add --quiet "$container" "$work/rootfs.tar" / >/dev/null
buildah config \
  --env PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
  --env LANG=C.UTF-8 \
  --cmd /bin/sh \
  --label org.opencontainers.image.title=assay-base-debian-python \
  --label "org.opencontainers.image.description=Debian $suite minbase with python3.11 ($packages)" \
  --label org.opencontainers.image.base.name=scratch \
  "$container"
buildah commit --quiet --rm "$container" "$image"
