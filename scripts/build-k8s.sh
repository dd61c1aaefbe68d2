#!/usr/bin/env bash
# Builds the control plane the integration tests run (kube-apiserver, kube-controller-manager, kubectl,
# etcd, helm) from the helper Go modules in tools/, into a cache directory keyed by versions, and prints
# that bin directory as the last line of stdout:   BIN=$(scripts/build-k8s.sh | tail -1)
#
# A present cache entry is reused as is (the build is 10-25 minutes cold on 2 cores). Set
# ASSAY_K8S_BIN_DIR to use binaries from elsewhere; ASSAY_CACHE moves the cache (default ~/.cache/assay).
set -euo pipefail

if [[ -n "${ASSAY_NO_BUILDS:-}" ]]; then  # make test's first phase, which runs beside this build
  echo "$0: ASSAY_NO_BUILDS is set (make test's first phase): a test that needs the control plane," \
    "helm or kubectl must be marked \`builds\` (tests/conftest.py marks the fixtures' users)" >&2
  exit 1
fi

BINARIES=(kube-apiserver kube-controller-manager kubectl etcd helm)

has_all() {
  local dir=$1 b
  for b in "${BINARIES[@]}"; do
    [[ -x "$dir/$b" ]] || return 1
  done
}

if [[ -n "${ASSAY_K8S_BIN_DIR:-}" ]]; then
  if has_all "$ASSAY_K8S_BIN_DIR"; then
    echo "$ASSAY_K8S_BIN_DIR"
    exit 0
  fi
  echo "ASSAY_K8S_BIN_DIR=$ASSAY_K8S_BIN_DIR lacks one of: ${BINARIES[*]}" >&2
  exit 1
fi

repo=$(cd "$(dirname "$0")/.." && pwd)
tools="$repo/tools"

# The committed go.mod files are the single source of the versions.
mod_version() {  # mod_version <go.mod> <module path>
  awk -v m="$2" '$1 == m && $2 ~ /^v/ { print $2; exit }' "$1"
}
k8s_version=$(mod_version "$tools/k8s/go.mod" k8s.io/kubernetes)
etcd_version=$(mod_version "$tools/etcd/go.mod" go.etcd.io/etcd/server/v3)
helm_version=$(mod_version "$tools/helm/go.mod" helm.sh/helm/v3)
helm_client_go=$(mod_version "$tools/helm/go.mod" k8s.io/client-go)
if [[ -z "$k8s_version" || -z "$etcd_version" || -z "$helm_version" ]]; then
  echo "cannot read versions from $tools/{k8s,etcd,helm}/go.mod" >&2
  exit 1
fi

key="${k8s_version}-etcd${etcd_version#v}-helm${helm_version#v}"
cache="${ASSAY_CACHE:-$HOME/.cache/assay}/k8s"
final="$cache/$key"
mkdir -p "$cache"

if has_all "$final/bin"; then
  echo "$final/bin"
  exit 0
fi

# One builder at a time per key; a second caller waits, then finds the result.
exec 9>"$cache/.lock-$key"
flock 9
if has_all "$final/bin"; then
  echo "$final/bin"
  exit 0
fi

export GOTOOLCHAIN=local   # a dependency that wants a newer Go fails here instead of downloading one
export CGO_ENABLED=0
export GOFLAGS="-mod=readonly -buildvcs=false"

tmp=$(mktemp -d "$cache/.build-$key.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
chmod 755 "$tmp"  # mktemp makes it private; the published directory is shared
mkdir -p "$tmp/bin"

minor=${k8s_version#v1.}; minor=${minor%%.*}
k8s_ldflags="-s -w"
for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
  k8s_ldflags+=" -X $pkg.gitVersion=$k8s_version -X $pkg.gitMajor=1 -X $pkg.gitMinor=$minor"
  k8s_ldflags+=" -X $pkg.gitTreeState=clean"
done

helm_minor=${helm_client_go#v0.}; helm_minor=${helm_minor%%.*}
helm_ldflags="-s -w -X helm.sh/helm/v3/internal/version.version=$helm_version"
helm_ldflags+=" -X helm.sh/helm/v3/internal/version.gitTreeState=clean"
for pkg in helm.sh/helm/v3/pkg/lint/rules helm.sh/helm/v3/pkg/chartutil; do
  helm_ldflags+=" -X $pkg.k8sVersionMajor=1 -X $pkg.k8sVersionMinor=$helm_minor"
done

build() {  # build <module dir> <ldflags> <output dir or file> <packages...>
  local dir=$1 ldflags=$2 out=$3
  shift 3
  echo "+ go build ($dir) $*" >&2
  (cd "$dir" && go build -p 2 -trimpath -ldflags "$ldflags" -o "$out" "$@") >&2
}

start=$SECONDS
echo "building $key into $final (cold: 10-25 minutes on 2 cores)" >&2
build "$tools/etcd" "-s -w" "$tmp/bin/etcd" go.etcd.io/etcd/server/v3
build "$tools/helm" "$helm_ldflags" "$tmp/bin/helm" helm.sh/helm/v3/cmd/helm
build "$tools/k8s" "$k8s_ldflags" "$tmp/bin/" \
  k8s.io/kubernetes/cmd/kube-apiserver k8s.io/kubernetes/cmd/kube-controller-manager k8s.io/kubernetes/cmd/kubectl

has_all "$tmp/bin" || { echo "build finished without all of: ${BINARIES[*]}" >&2; exit 1; }
# Each binary must run and report the pinned version (no pipes here: `| head` would SIGPIPE under pipefail).
"$tmp/bin/kube-apiserver" --version >&2
"$tmp/bin/kubectl" version --client >&2
"$tmp/bin/etcd" --version >&2
"$tmp/bin/helm" version --short >&2
echo "built in $((SECONDS - start)) s" >&2

# Publish atomically: readers see either no directory or a complete one.
mv -T "$tmp" "$final"
trap - EXIT
echo "$final/bin"
