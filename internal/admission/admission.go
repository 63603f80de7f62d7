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
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/pruning"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	sigsjson "sigs.k8s.io/json"
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
// validated as `kubectl apply` and the API server would, plus the
// controller's own checks. The steps and their order are the API server's:
// the request size limit, strict decoding (unknown or duplicate fields are
// errors, as kubectl's default server-side field validation makes them),
// object metadata, the OpenAPI schema, and the CEL rules only when the
// schema found nothing that stops them (too many items, a missing or
// mistyped field), which also keeps a huge list from being walked by every
// rule.
func Admit(manifest []byte) (*sbv1.StorageBenchmark, error) {
	s, err := load()
	if err != nil {
		return nil, err
	}
	raw, err := singleObject(manifest)
	if err != nil {
		return nil, err
	}
	// Decode as the API server does: whole numbers become int64, which the
	// CEL rules' integer comparisons need, and a field given twice is an
	// error.
	obj := map[string]any{}
	strictErrs, err := sigsjson.UnmarshalStrict(raw, &obj)
	if err != nil {
		return nil, fmt.Errorf("not a StorageBenchmark: %w", err)
	}
	if err := checkTypeMeta(obj); err != nil {
		return nil, err
	}
	// The API server drops status on create, before it validates.
	delete(obj, "status")
	if errs := checkBounds(s.structural, obj); len(errs) > 0 {
		return nil, invalid(append(errs, notChecked()))
	}
	// Unknown fields are errors, as with kubectl's default server-side
	// field validation (Strict): the API server finds them by pruning the
	// object against the schema, and so does this.
	for _, path := range pruning.PruneWithOptions(obj, s.structural, true, structuralschema.UnknownFieldPathOptions{TrackUnknownFieldPaths: true}) {
		strictErrs = append(strictErrs, fmt.Errorf("unknown field %q", path))
	}
	if len(strictErrs) > 0 {
		msgs := make([]string, len(strictErrs))
		for i, e := range strictErrs {
			msgs[i] = e.Error()
		}
		return nil, fmt.Errorf("strict decoding error: %s", strings.Join(msgs, ", "))
	}
	meta, err := objectMeta(obj)
	if err != nil {
		return nil, err
	}
	errs := apimachineryvalidation.ValidateObjectMeta(meta, true, apimachineryvalidation.NameIsDNSSubdomain, field.NewPath("metadata"))
	structuraldefaulting.Default(obj, s.structural)
	errs = append(errs, validation.ValidateCustomResource(nil, obj, s.validator)...)
	errs = append(errs, listtype.ValidateListSetsAndMaps(nil, s.structural, obj)...)
	if blocking(errs) {
		return nil, invalid(append(errs, notChecked()))
	}
	celErrs, _ := s.cel.Validate(context.Background(), nil, s.structural, obj, nil, celconfig.RuntimeCELCostBudget)
	errs = append(errs, celErrs...)
	out := &sbv1.StorageBenchmark{}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(obj, out); err != nil {
		if len(errs) > 0 {
			return nil, invalid(errs) // e.g. a size that is not a quantity
		}
		return nil, fmt.Errorf("reading the defaulted spec: %w", err)
	}
	out.Namespace = meta.Namespace
	out.Generation = 1
	// The controller's own checks explain some of what a CEL rule refused
	// (which threshold, which value), so they are added even then.
	errs = append(errs, out.Spec.Validate()...)
	if len(errs) > 0 {
		return nil, invalid(errs)
	}
	return out, nil
}

// objectMeta reads the object's metadata. kubectl fills in the namespace
// of the current context; without a cluster that is "default", and a
// namespaced object needs one.
func objectMeta(obj map[string]any) (*metav1.ObjectMeta, error) {
	meta := &metav1.ObjectMeta{}
	if raw, ok := obj["metadata"].(map[string]any); ok {
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(raw, meta); err != nil {
			return nil, fmt.Errorf("metadata: %w", err)
		}
	} else if obj["metadata"] != nil {
		return nil, fmt.Errorf("metadata: want an object, found %T", obj["metadata"])
	}
	if meta.Namespace == "" {
		meta.Namespace = metav1.NamespaceDefault
	}
	return meta, nil
}

// checkTypeMeta refuses anything but a StorageBenchmark of this version.
func checkTypeMeta(obj map[string]any) error {
	apiVersion, _ := obj["apiVersion"].(string)
	kind, _ := obj["kind"].(string)
	if apiVersion != sbv1.GroupVersion.String() || kind != "StorageBenchmark" {
		return fmt.Errorf("apiVersion %q kind %q: want %s StorageBenchmark", apiVersion, kind, sbv1.GroupVersion)
	}
	return nil
}

// blocking reports errors after which the API server does not run the CEL
// rules (apiextensions-apiserver's hasBlockingErr): the rules assume the
// schema holds.
func blocking(errs field.ErrorList) bool {
	for _, e := range errs {
		switch e.Type {
		case field.ErrorTypeNotSupported, field.ErrorTypeRequired, field.ErrorTypeTooLong, field.ErrorTypeTooMany, field.ErrorTypeTypeInvalid:
			return true
		}
	}
	return false
}

// notChecked is the API server's note that validation stopped early.
func notChecked() *field.Error {
	return &field.Error{Type: field.ErrorTypeInvalid, Detail: "some validation rules were not checked because the object was invalid; correct the existing errors to complete validation"}
}

func invalid(errs field.ErrorList) error {
	lines := make([]string, len(errs))
	for i, e := range errs {
		lines[i] = e.Error()
		if e.Field == "" {
			lines[i] = e.Detail // a note on the whole object
		}
	}
	return fmt.Errorf("invalid StorageBenchmark:\n  %s", strings.Join(lines, "\n  "))
}
