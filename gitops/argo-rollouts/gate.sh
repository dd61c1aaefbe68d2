#!/bin/sh
# Assay release gate for Argo Rollouts / Kargo analysis Jobs (and any CI step): create an Evaluation from a
# template, wait until its run completed, and exit with its verdict.
#
#   exit 0  verdict Pass (of the Evaluation's current generation)
#   exit 1  verdict Blocked (the gate, or a failed run: the status message says which)
#   exit 2  no verdict: bad input, API error, or ASSAY_TIMEOUT passed (the Evaluation is left for a look)
#
# Environment:
#   ASSAY_EVALUATION_TEMPLATE  Evaluation manifest, usually with metadata.generateName
#                              (default /etc/assay-gate/evaluation.yaml, the ConfigMap the template mounts)
#   ASSAY_BRAIN                optional: ConfigMap name to put in spec.brain.configMap.name
#   ASSAY_TIMEOUT              how long to wait for the verdict, a kubectl duration (default 45m)
#   ASSAY_NAMESPACE            optional: namespace (default: kubectl's, in a pod the ServiceAccount's)
# Needs kubectl, and RBAC to create/get/list/watch evaluations.assay.dev (see rbac.yaml).
set -u

template=${ASSAY_EVALUATION_TEMPLATE:-/etc/assay-gate/evaluation.yaml}
timeout=${ASSAY_TIMEOUT:-45m}
brain=${ASSAY_BRAIN:-}
namespace=${ASSAY_NAMESPACE:-}

fail() {
  echo "assay-gate: $*" >&2
  exit 2
}

[ -r "$template" ] || fail "cannot read the Evaluation template $template"
set --
[ -n "$namespace" ] && set -- "--namespace=$namespace"

if [ -n "$brain" ]; then
  # A ConfigMap name (DNS subdomain) only: it goes into a JSON patch.
  case "$brain" in
    *[!a-z0-9.-]* | [!a-z0-9]* | *[!a-z0-9]) fail "ASSAY_BRAIN is not a ConfigMap name: $brain" ;;
  esac
  patch="{\"spec\":{\"brain\":{\"configMap\":{\"name\":\"$brain\"}}}}"
  manifest=$(kubectl patch --local --type=merge -f "$template" -p "$patch" -o yaml) || fail "cannot set the brain"
else
  manifest=$(cat "$template") || fail "cannot read $template"
fi

evaluation=$(printf '%s\n' "$manifest" | kubectl create "$@" -f - -o name) || fail "cannot create the Evaluation"
echo "assay-gate: created $evaluation; waiting up to $timeout for its verdict"

# `kubectl wait` skips conditions whose observedGeneration is older than the object's generation.
if ! kubectl wait "$@" --for=condition=Completed --timeout="$timeout" "$evaluation"; then
  kubectl get "$@" "$evaluation" -o wide >&2
  fail "no verdict for $evaluation within $timeout"
fi

verdict=$(kubectl get "$@" "$evaluation" -o jsonpath='{.status.verdict}') || fail "cannot read the verdict"
summary=$(kubectl get "$@" "$evaluation" -o jsonpath='score {.status.score}, tickets {.status.tickets.summary}: {.status.message}')
echo "assay-gate: $evaluation: $verdict ($summary)"
case "$verdict" in
  Pass) exit 0 ;;
  Blocked) exit 1 ;;
  *) fail "unexpected verdict '$verdict' on $evaluation" ;;
esac
