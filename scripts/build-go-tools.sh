#!/usr/bin/env bash
# Builds the outside Go programs the tests run, each from its helper module under tools/ (Go module proxy
# only), into a cache keyed by the module's own files, and prints each binary's path, one per line:
#   kstatus       sigs.k8s.io/cli-utils/pkg/kstatus/status, what Flux's controllers judge health with
#   olm-validate  github.com/operator-framework/api's bundle validation (operator-sdk bundle validate)
#   promtool      Prometheus's promtool (check rules, test rules), without service-discovery plugins
#   kueue         the Kueue controller (sigs.k8s.io/kueue/cmd/kueue), with its CRDs and webhook manifests
#                 copied from the same module version into kueue-<key>/config/
#   syft          Anchore's SBOM generator, for the images' SBOMs (make images)
#   local-path-provisioner
#                 Rancher's dynamic PersistentVolume provisioner, which makes the Evaluations' answer volumes
#                 on the local control plane; its manifests (RBAC, default config) copied from the same
#                 module version into local-path-provisioner-<key>/config/
#   cni-plugins   the reference CNI plugins bridge, host-local and loopback, all three in one directory (the
#                 CNI_PATH; the path printed is the bridge plugin's), for a networked local cluster
#   kube-router   kube-router, of which a networked local cluster runs only the NetworkPolicy controller
#   registry      go-containerregistry's OCI registry (pkg/registry, what `crane registry serve` runs) behind
#                 TLS, for the suite-artifact tests (assay push/pull, oci:// suites)
#   cosign        sigstore's cosign (v2), to sign the images, their SBOMs and suite artifacts with a key pair
#                 and to cross-check the operator's own verifier
#   mirror        copies images and artifacts by digest to a second registry with their signatures and
#                 referrers (go-containerregistry's crane.Copy), for disconnected installs
#
# Usage: scripts/build-go-tools.sh [TOOL...]   (default: all eleven)
#   KSTATUS=$(scripts/build-go-tools.sh kstatus)
# A cached binary is reused as is (a check costs a hash of a few files); ASSAY_CACHE moves the cache
# (default ~/.cache/assay). Cold builds: see docs/control-plane.md.
set -euo pipefail

if [[ -n "${ASSAY_NO_BUILDS:-}" ]]; then  # make test's first phase, which runs beside these builds
  echo "$0: ASSAY_NO_BUILDS is set (make test's first phase): a test that runs ${*:-the Go tools}" \
    "must be marked \`builds\`" >&2
  exit 1
fi

ALL=(kstatus olm-validate promtool kueue syft local-path-provisioner cni-plugins kube-router registry cosign
  mirror)
repo=$(cd "$(dirname "$0")/.." && pwd)
cache="${ASSAY_CACHE:-$HOME/.cache/assay}/go-tools"
mkdir -p "$cache"

export GOTOOLCHAIN=local   # a module that wants a newer Go fails here instead of downloading one
export CGO_ENABLED=0
export GOFLAGS="-mod=readonly -buildvcs=false"

package_of() {  # what `go build` builds in the tool's module
  case $1 in
    promtool) echo github.com/prometheus/prometheus/cmd/promtool ;;
    kueue) echo sigs.k8s.io/kueue/cmd/kueue ;;
    syft) echo github.com/anchore/syft/cmd/syft ;;
    cosign) echo github.com/sigstore/cosign/v2/cmd/cosign ;;
    local-path-provisioner) echo github.com/rancher/local-path-provisioner ;;
    cni-plugins) echo github.com/containernetworking/plugins/plugins/main/bridge \
      github.com/containernetworking/plugins/plugins/ipam/host-local \
      github.com/containernetworking/plugins/plugins/main/loopback ;;
    kube-router) echo github.com/cloudnativelabs/kube-router/v2/cmd/kube-router ;;
    *) echo . ;;
  esac
}

ldflags_of() {  # a release's version stamp, read from the helper module's go.mod
  case $1 in
    syft) echo "-X main.version=$(awk '$1 == "github.com/anchore/syft" { print $2; exit }' "$repo/tools/syft/go.mod")" ;;
    cosign) echo "-X sigs.k8s.io/release-utils/version.gitVersion=$(awk \
      '$1 == "github.com/sigstore/cosign/v2" { print $2; exit }' "$repo/tools/cosign/go.mod")" ;;
    kube-router) echo "-X github.com/cloudnativelabs/kube-router/v2/pkg/version.Version=$(awk \
      '$1 == "github.com/cloudnativelabs/kube-router/v2" { print $2; exit }' "$repo/tools/kube-router/go.mod")" ;;
    *) echo "" ;;
  esac
}

binary_of() {  # the file printed (and checked for) in the tool's cache directory
  case $1 in
    cni-plugins) echo bridge ;;
    *) echo "$1" ;;
  esac
}

output_of() {  # go build -o: a directory when the tool is several programs
  case $1 in
    cni-plugins) echo "$2/" ;;
    *) echo "$2/$1" ;;
  esac
}

tags_of() {
  case $1 in
    promtool) echo remove_all_sd ;;  # the service-discovery plugins: half the build, unused by check/test
    *) echo "" ;;
  esac
}

copy_manifests() {  # a controller's manifests (CRDs, webhooks, RBAC), from the very module version built
  local src
  case $1 in
    kueue)
      src=$(cd "$2" && go list -m -f '{{.Dir}}' sigs.k8s.io/kueue)
      mkdir -p "$3/config"
      cp -r "$src/config/components/crd/bases" "$3/config/crd"
      cp -r "$src/config/components/webhook" "$3/config/webhook"
      chmod -R u+w "$3/config"
      ;;
    local-path-provisioner)
      src=$(cd "$2" && go list -m -f '{{.Dir}}' github.com/rancher/local-path-provisioner)
      mkdir -p "$3/config"
      cp "$src/deploy/local-path-storage.yaml" "$3/config/"
      chmod -R u+w "$3/config"
      ;;
  esac
}

build_one() {
  local tool=$1 dir="$repo/tools/$1"
  [[ -f "$dir/go.mod" ]] || { echo "no helper module tools/$tool" >&2; return 1; }
  local key
  key=$( (go env GOVERSION; cat "$dir"/go.mod "$dir"/go.sum; cat "$dir"/*.go 2>/dev/null || true
    printf '%s' "$(ldflags_of "$tool")") \
    | sha256sum | cut -c1-16)
  local final="$cache/$tool-$key" binary
  binary=$(binary_of "$tool")
  if [[ -x "$final/$binary" ]]; then
    echo "$final/$binary"
    return
  fi
  exec 9>"$cache/.lock-$tool-$key"
  flock 9
  if [[ ! -x "$final/$binary" ]]; then
    local tmp start=$SECONDS
    tmp=$(mktemp -d "$cache/.build-$tool.XXXXXX")
    chmod 755 "$tmp"
    echo "building $tool into $final" >&2
    if ! (cd "$dir" && go build -p 2 -trimpath -tags "$(tags_of "$tool")" -ldflags "-s -w $(ldflags_of "$tool")" \
      -o "$(output_of "$tool" "$tmp")" $(package_of "$tool")) >&2; then
      rm -rf "$tmp"
      return 1
    fi
    echo "built $tool in $((SECONDS - start)) s" >&2
    copy_manifests "$tool" "$dir" "$tmp"
    mv -T "$tmp" "$final"
  fi
  exec 9>&-
  echo "$final/$binary"
}

tools=("$@")
[[ ${#tools[@]} -gt 0 ]] || tools=("${ALL[@]}")
for tool in "${tools[@]}"; do
  build_one "$tool"
done
