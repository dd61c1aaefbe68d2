// Command olm-validate validates an OLM bundle directory (manifests/ + metadata/) with the
// operator-framework's own validation library, github.com/operator-framework/api — the checks
// `operator-sdk bundle validate --select-optional suite=operatorframework` runs.
//
// Usage: olm-validate [-k8s-version 1.37] BUNDLE_DIR
//
// Every finding is one JSON line on stdout: {"object": ..., "level": "Error"|"Warning", "type": ...,
// "field": ..., "detail": ...}. Exit status: 0 no errors (warnings allowed), 1 errors found, 2 the bundle
// could not be loaded.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"

	"github.com/operator-framework/api/pkg/manifests"
	"github.com/operator-framework/api/pkg/validation"
	"github.com/operator-framework/api/pkg/validation/errors"
)

type finding struct {
	Object string `json:"object"`
	Level  string `json:"level"`
	Type   string `json:"type"`
	Field  string `json:"field"`
	Detail string `json:"detail"`
}

func main() {
	k8sVersion := flag.String("k8s-version", "", "the Kubernetes version to check deprecated APIs against")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: olm-validate [-k8s-version X.Y] BUNDLE_DIR")
		os.Exit(2)
	}
	bundle, err := manifests.GetBundleFromDir(flag.Arg(0))
	if err != nil {
		fmt.Fprintf(os.Stderr, "olm-validate: cannot load bundle %s: %v\n", flag.Arg(0), err)
		os.Exit(2)
	}
	objects := bundle.ObjectsToValidate()
	// Optional values travel as a map among the objects, as operator-sdk passes them.
	optional := map[string]string{}
	if *k8sVersion != "" {
		optional["k8s-version"] = *k8sVersion
	}
	objects = append(objects, optional)

	// operator-sdk's default set plus its "operatorframework" optional suite.
	suite := validation.DefaultBundleValidators.WithValidators(
		validation.OperatorHubV2Validator,
		validation.StandardCapabilitiesValidator,
		validation.StandardCategoriesValidator,
		validation.ObjectValidator,
		validation.AlphaDeprecatedAPIsValidator,
		validation.GoodPracticesValidator,
	)
	out := json.NewEncoder(os.Stdout)
	failed := false
	for _, result := range suite.Validate(objects...) {
		for _, list := range [][]errors.Error{result.Errors, result.Warnings} {
			for _, e := range list {
				failed = failed || e.Level == errors.LevelError
				_ = out.Encode(finding{
					Object: result.Name,
					Level:  string(e.Level),
					Type:   string(e.Type),
					Field:  e.Field,
					Detail: e.Detail,
				})
			}
		}
	}
	if failed {
		os.Exit(1)
	}
}
