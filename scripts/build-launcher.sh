#!/usr/bin/env bash
# Compiles the cell sandbox's launcher (runner/assay_runner/sandbox/launcher.c, `assay-confine`) with the
# system's C compiler, linked statically so that one binary runs on any glibc (the runner image's bases
# differ from the build host's).
#
#   scripts/build-launcher.sh OUT [static|any]
#
# `make launcher` builds runner/assay_runner/sandbox/assay-confine (where the runner looks for it), `make
# images` images/launcher/assay-confine (which the runner Containerfile copies to the same place in the
# image). `static` (the default) fails when the compiler cannot link statically (Debian: libc6-dev has
# libc.a); `any` then links dynamically, for this machine only. Without the launcher the runner confines
# each agent in a forked child instead (assay_runner.sandbox.launcher): as confined, a few milliseconds
# slower per agent start.
set -euo pipefail

out=${1:?usage: build-launcher.sh OUT [static|any]}
link=${2:-static}
source="$(dirname "$0")/../runner/assay_runner/sandbox/launcher.c"
compiler=${CC:-$(command -v cc || command -v gcc || true)}
if [[ -z $compiler ]]; then
  echo "build-launcher.sh: no C compiler (cc or gcc) on PATH" >&2
  exit 1
fi
flags=(-std=c11 -O2 -Wall -Wextra -Werror -s)
mkdir -p "$(dirname "$out")"
temporary="$out.tmp.$$"
trap 'rm -f "$temporary"' EXIT
if ! "$compiler" "${flags[@]}" -static -o "$temporary" "$source"; then
  if [[ $link != any ]]; then
    echo "build-launcher.sh: $compiler cannot link statically (Debian: apt-get install libc6-dev)" >&2
    exit 1
  fi
  "$compiler" "${flags[@]}" -o "$temporary" "$source"
fi
chmod 0755 "$temporary"
mv -f "$temporary" "$out"
