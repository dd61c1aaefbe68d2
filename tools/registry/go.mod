// go-containerregistry's registry (pkg/registry, what `crane registry serve` runs) behind TLS, for the
// suite-artifact tests. Built and cached by scripts/build-go-tools.sh.
module assay.dev/tools/registry

go 1.26.0

require github.com/google/go-containerregistry v0.22.1
