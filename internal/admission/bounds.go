package admission

import (
	"unicode/utf8"

	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// checkBounds checks the schema's size bounds (maxItems, maxProperties,
// maxLength) before anything else looks at the object, and does not descend
// into a list or map that is already too long. The full validation walks
// every item with every rule; a file with tens of thousands of list items
// would otherwise take tens of seconds to be told that a list may hold 16.
// The errors are the ones the schema validation reports for the same
// values, so the answer does not depend on which check found them.
func checkBounds(s *structuralschema.Structural, obj any) field.ErrorList {
	var errs field.ErrorList
	walkBounds(nil, s, obj, &errs)
	return errs
}

func walkBounds(path *field.Path, s *structuralschema.Structural, value any, errs *field.ErrorList) {
	if s == nil || value == nil {
		return
	}
	v := s.ValueValidation
	switch x := value.(type) {
	case []any:
		if v != nil && v.MaxItems != nil && int64(len(x)) > *v.MaxItems {
			*errs = append(*errs, field.TooMany(path, len(x), int(*v.MaxItems)))
			return
		}
		for i, item := range x {
			walkBounds(path.Index(i), s.Items, item, errs)
		}
	case map[string]any:
		if v != nil && v.MaxProperties != nil && int64(len(x)) > *v.MaxProperties {
			*errs = append(*errs, field.TooMany(path, len(x), int(*v.MaxProperties)))
			return
		}
		for name, item := range x {
			if prop, ok := s.Properties[name]; ok {
				walkBounds(path.Child(name), &prop, item, errs)
			} else if s.AdditionalProperties != nil && s.AdditionalProperties.Structural != nil {
				walkBounds(path.Key(name), s.AdditionalProperties.Structural, item, errs)
			}
		}
	case string:
		if v != nil && v.MaxLength != nil && int64(utf8.RuneCountInString(x)) > *v.MaxLength {
			*errs = append(*errs, field.TooLong(path, "", int(*v.MaxLength)))
		}
	}
}
