// Package admission applies the StorageBenchmark CRD's own schema outside a
// cluster: the same defaults, OpenAPI validation and CEL rules the API
// server applies, read from the generated CRD rather than written twice.
// `storagebench run` and the report tools use it to accept exactly the
// YAML a cluster accepts.
package admission

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel"
	structuraldefaulting "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/listtype"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	"k8s.io/apimachinery/pkg/runtime"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"k8s.io/apimachinery/pkg/util/validation/field"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	"sigs.k8s.io/yaml"

	sbv1 "github.com/storagebench/storagebench/api/v1alpha1"
	"github.com/storagebench/storagebench/config/crd"
)

// schema is the CRD's v1alpha1 schema, compiled once.
type schema struct {
	structural *structuralschema.Structural
	validator  validation.SchemaValidator
	cel        *cel.Validator
}

var (
	compiled     *schema
	compileError error
	compileOnce  sync.Once
)

func load() (*schema, error) {
	compileOnce.Do(func() { compiled, compileError = compile(crd.StorageBenchmarks) })
	return compiled, compileError
}

func compile(crdYAML []byte) (*schema, error) {
	var def apiextensionsv1.CustomResourceDefinition
	if err := yaml.Unmarshal(crdYAML, &def); err != nil {
		return nil, fmt.Errorf("reading the embedded CRD: %w", err)
	}
	var v1Props *apiextensionsv1.JSONSchemaProps
	for _, v := range def.Spec.Versions {
		if v.Name == sbv1.GroupVersion.Version && v.Schema != nil {
			v1Props = v.Schema.OpenAPIV3Schema
		}
	}
	if v1Props == nil {
		return nil, fmt.Errorf("the embedded CRD has no %s schema", sbv1.GroupVersion.Version)
	}
	internal := &apiextensions.JSONSchemaProps{}
	if err := apiextensionsv1.Convert_v1_JSONSchemaProps_To_apiextensions_JSONSchemaProps(v1Props, internal, nil); err != nil {
		return nil, fmt.Errorf("converting the CRD schema: %w", err)
	}
	structural, err := structuralschema.NewStructural(internal)
	if err != nil {
		return nil, fmt.Errorf("the CRD schema is not structural: %w", err)
	}
	validator, _, err := validation.NewSchemaValidator(internal)
	if err != nil {
		return nil, fmt.Errorf("compiling the CRD schema: %w", err)
	}
	return &schema{structural: structural, validator: validator, cel: cel.NewValidator(structural, true, celconfig.PerCallLimit)}, nil
}

// Admit reads a StorageBenchmark manifest and returns it defaulted and
// validated as the API server would, plus the controller's own checks.
// Unknown fields are errors here (the API server would drop them with a
// warning): a misspelt field silently ignored would change a benchmark.
func Admit(manifest []byte) (*sbv1.StorageBenchmark, error) {
	s, err := load()
	if err != nil {
		return nil, err
	}
	typed := &sbv1.StorageBenchmark{}
	if err := yaml.UnmarshalStrict(manifest, typed); err != nil {
		return nil, fmt.Errorf("not a StorageBenchmark: %w", err)
	}
	if typed.APIVersion != sbv1.GroupVersion.String() || typed.Kind != "StorageBenchmark" {
		return nil, fmt.Errorf("apiVersion %q kind %q: want %s StorageBenchmark", typed.APIVersion, typed.Kind, sbv1.GroupVersion)
	}
	// Decode as the API server does: whole numbers become int64, which the
	// CEL rules' integer comparisons need.
	asJSON, err := yaml.YAMLToJSON(manifest)
	if err != nil {
		return nil, err
	}
	obj := map[string]any{}
	if err := utiljson.Unmarshal(asJSON, &obj); err != nil {
		return nil, err
	}
	delete(obj, "status")
	structuraldefaulting.Default(obj, s.structural)

	errs := validation.ValidateCustomResource(nil, obj, s.validator)
	errs = append(errs, listtype.ValidateListSetsAndMaps(nil, s.structural, obj)...)
	celErrs, _ := s.cel.Validate(context.Background(), nil, s.structural, obj, nil, celconfig.RuntimeCELCostBudget)
	errs = append(errs, celErrs...)
	if len(errs) > 0 {
		return nil, invalid(errs)
	}
	out := &sbv1.StorageBenchmark{}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(obj, out); err != nil {
		return nil, fmt.Errorf("reading the defaulted spec: %w", err)
	}
	if out.Name == "" {
		return nil, fmt.Errorf("metadata.name: Required value")
	}
	out.Generation = 1
	if errs := out.Spec.Validate(); len(errs) > 0 {
		return nil, invalid(errs)
	}
	return out, nil
}

func invalid(errs field.ErrorList) error {
	lines := make([]string, len(errs))
	for i, e := range errs {
		lines[i] = e.Error()
	}
	return fmt.Errorf("invalid StorageBenchmark:\n  %s", strings.Join(lines, "\n  "))
}
