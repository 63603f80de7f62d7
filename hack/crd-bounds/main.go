// Command crd-bounds bounds the length of every int-or-string value
// (resource quantities) in the generated CRDs, after controller-gen and
// before hack/sync-chart (make manifests runs all three).
//
//	go run ./hack/crd-bounds config/crd/bases/*.yaml
//
// Why: the API server estimates the cost of a CEL rule from the largest
// value a field may hold, and an int-or-string without maxLength may hold a
// whole request (3 MiB), so even one quantity() call on such a field is
// over the per-rule budget and the CRD is refused. controller-gen will not
// put maxLength on an int-or-string (its marker only applies to strings),
// although the API server accepts it there and uses it for the estimate.
// With the bound, rules can check that sizes, limits and rates are positive
// quantities and say which value is not.
package main

import (
	"bytes"
	"fmt"
	"os"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/yaml"
)

// maxQuantityLength is far above any real quantity ("1.5Ti", "250m",
// "10737418240") and keeps a rule's estimated cost small.
const maxQuantityLength int64 = 64

func main() {
	for _, path := range os.Args[1:] {
		if err := bound(path); err != nil {
			fmt.Fprintf(os.Stderr, "crd-bounds: %s: %v\n", path, err)
			os.Exit(1)
		}
	}
}

func bound(path string) error {
	src, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var crd apiextensionsv1.CustomResourceDefinition
	if err := yaml.UnmarshalStrict(src, &crd); err != nil {
		return err
	}
	for i := range crd.Spec.Versions {
		if s := crd.Spec.Versions[i].Schema; s != nil {
			boundIntOrString(s.OpenAPIV3Schema)
		}
	}
	out, err := yaml.Marshal(&crd)
	if err != nil {
		return err
	}
	// controller-gen writes a document start and no status; keep its form
	// so that an unchanged CRD stays byte for byte the same.
	out = append([]byte("---\n"), bytes.Replace(out, []byte("status:\n  acceptedNames:\n    kind: \"\"\n    plural: \"\"\n  conditions: null\n  storedVersions: null\n"), nil, 1)...)
	if bytes.Equal(out, src) {
		return nil
	}
	return os.WriteFile(path, out, 0o644)
}

func boundIntOrString(s *apiextensionsv1.JSONSchemaProps) {
	if s == nil {
		return
	}
	if s.XIntOrString && s.MaxLength == nil {
		n := maxQuantityLength
		s.MaxLength = &n
	}
	for name, p := range s.Properties {
		boundIntOrString(&p)
		s.Properties[name] = p
	}
	if s.Items != nil {
		boundIntOrString(s.Items.Schema)
		for i := range s.Items.JSONSchemas {
			boundIntOrString(&s.Items.JSONSchemas[i])
		}
	}
	if s.AdditionalProperties != nil {
		boundIntOrString(s.AdditionalProperties.Schema)
	}
}
