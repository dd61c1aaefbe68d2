#!/usr/bin/env bash
# Starts the test control plane (etcd, kube-apiserver, kube-controller-manager, local kubelet) for a
# developer and prints `export KUBECONFIG=...`; runs until Ctrl-C. Builds the binaries on first use.
#   scripts/k8s-shell.sh            # then, in another shell, paste the export lines
# Extra arguments go to `python -m assay_dev.cluster` (try --help).
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
python=${PYTHON:-}
if [[ -z "$python" ]]; then
  for candidate in "${VIRTUAL_ENV:-}/bin/python" "$repo/.venv/bin/python"; do
    [[ -x "$candidate" ]] && { python=$candidate; break; }
  done
fi
cd "$repo"
exec "${python:-python3}" -m assay_dev.cluster "$@"
