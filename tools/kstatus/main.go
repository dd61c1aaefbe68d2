// Command kstatus prints what sigs.k8s.io/cli-utils/pkg/kstatus/status (the library Flux's
// kustomize-controller and helm-controller run for `wait: true`) computes for each object it reads.
//
// Usage: kstatus [FILE...]   (no FILE: standard input)
//
// Each input is YAML or JSON holding one or more objects ("---"-separated documents, or a List); each
// object gives one JSON line on stdout: {"name": ..., "status": ..., "message": ..., "conditions": [...]}.
// Bad input exits 2 with a message naming the file and document.
package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	kjson "k8s.io/apimachinery/pkg/util/json"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/cli-utils/pkg/kstatus/status"
)

type line struct {
	Kind       string             `json:"kind"`
	Name       string             `json:"name"`
	Status     string             `json:"status"`
	Message    string             `json:"message"`
	Conditions []status.Condition `json:"conditions"`
}

func main() {
	inputs := os.Args[1:]
	if len(inputs) == 0 {
		inputs = []string{"-"}
	}
	out := json.NewEncoder(os.Stdout)
	for _, name := range inputs {
		if err := computeAll(name, out); err != nil {
			fmt.Fprintf(os.Stderr, "kstatus: %s: %v\n", name, err)
			os.Exit(2)
		}
	}
}

func computeAll(name string, out *json.Encoder) error {
	var in io.Reader = os.Stdin
	if name != "-" {
		f, err := os.Open(name)
		if err != nil {
			return err
		}
		defer f.Close()
		in = f
	}
	decoder := utilyaml.NewYAMLOrJSONDecoder(bufio.NewReader(in), 4096)
	for doc := 1; ; doc++ {
		var data json.RawMessage
		if err := decoder.Decode(&data); err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return fmt.Errorf("document %d: %w", doc, err)
		}
		// Kubernetes' own JSON decoding: whole numbers become int64, as kstatus's accessors expect.
		var raw map[string]interface{}
		if err := kjson.Unmarshal(data, &raw); err != nil {
			return fmt.Errorf("document %d: %w", doc, err)
		}
		if raw == nil {
			continue // an empty document
		}
		obj := &unstructured.Unstructured{Object: raw}
		if obj.IsList() {
			list, err := obj.ToList()
			if err != nil {
				return fmt.Errorf("document %d: %w", doc, err)
			}
			for i := range list.Items {
				if err := emit(&list.Items[i], out); err != nil {
					return fmt.Errorf("document %d, item %d: %w", doc, i, err)
				}
			}
			continue
		}
		if err := emit(obj, out); err != nil {
			return fmt.Errorf("document %d: %w", doc, err)
		}
	}
}

func emit(obj *unstructured.Unstructured, out *json.Encoder) error {
	result, err := status.Compute(obj)
	if err != nil {
		return err
	}
	conditions := result.Conditions
	if conditions == nil {
		conditions = []status.Condition{}
	}
	return out.Encode(line{
		Kind:       obj.GetKind(),
		Name:       obj.GetName(),
		Status:     result.Status.String(),
		Message:    result.Message,
		Conditions: conditions,
	})
}
