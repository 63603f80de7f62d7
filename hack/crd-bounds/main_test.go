package main

import (
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
)

func TestEveryIntOrStringGetsALengthBoundAndOthersStayAsTheyAre(t *testing.T) {
	given := int64(8)
	quantity := apiextensionsv1.JSONSchemaProps{XIntOrString: true}
	bounded := apiextensionsv1.JSONSchemaProps{XIntOrString: true, MaxLength: &given}
	schema := &apiextensionsv1.JSONSchemaProps{Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{
		"size":  quantity,
		"given": bounded,
		"name":  {Type: "string"},
		"list":  {Type: "array", Items: &apiextensionsv1.JSONSchemaPropsOrArray{Schema: &quantity}},
		"map":   {Type: "object", AdditionalProperties: &apiextensionsv1.JSONSchemaPropsOrBool{Schema: &apiextensionsv1.JSONSchemaProps{XIntOrString: true}}},
	}}
	boundIntOrString(schema)
	for name, want := range map[string]*int64{"size": ptr(maxQuantityLength), "given": &given, "name": nil} {
		got := schema.Properties[name].MaxLength
		if (got == nil) != (want == nil) || got != nil && *got != *want {
			t.Errorf("%s: maxLength %v, want %v", name, deref(got), deref(want))
		}
	}
	if l := schema.Properties["list"].Items.Schema.MaxLength; l == nil || *l != maxQuantityLength {
		t.Errorf("list items: maxLength %v", deref(l))
	}
	if l := schema.Properties["map"].AdditionalProperties.Schema.MaxLength; l == nil || *l != maxQuantityLength {
		t.Errorf("map values: maxLength %v", deref(l))
	}
}

func ptr(v int64) *int64 { return &v }

func deref(p *int64) any {
	if p == nil {
		return nil
	}
	return *p
}
