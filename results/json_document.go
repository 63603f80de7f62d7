package results

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"strings"
)

// DecodeJSON decodes one untrusted JSON document (a results file, a results
// ConfigMap's data) into v. Its errors say where the document is wrong, as
// name:line:column: and the JSON path of the value, so that whoever
// hand-edited or truncated a file can find the spot:
//
//	result.json:12:7: targets[0].cells: want an array, found a string
//
// Data after the document's value is an error too: json.Unmarshal checks
// the whole input before it decodes anything, which also means a damaged
// document is never half decoded.
func DecodeJSON(name string, data []byte, v any) error {
	err := json.Unmarshal(data, v)
	if err == nil {
		return nil
	}
	var syntax *json.SyntaxError
	var wrongType *json.UnmarshalTypeError
	switch {
	case len(bytes.TrimSpace(data)) == 0:
		return &documentError{name: name, problem: "empty, no JSON document", err: err}
	case errors.As(err, &syntax):
		return syntaxError(name, data, syntax)
	case errors.As(err, &wrongType):
		path, start := valueAtOffset(data, wrongType.Offset)
		line, col := lineColumn(data, start)
		problem := fmt.Sprintf("want %s, found %s", wantedJSON(wrongType.Type), foundJSON(wrongType.Value))
		return &documentError{name: name, line: line, col: col, path: path, problem: problem, err: err}
	default:
		// A type's own UnmarshalJSON failed (a time, a quantity): the
		// decoder does not say where, but the message names the value.
		return &documentError{name: name, problem: err.Error(), err: err}
	}
}

// documentError is a problem of a JSON document, with where it is when
// known (line 0: unknown).
type documentError struct {
	name      string
	line, col int
	path      string
	problem   string
	err       error
}

func (e *documentError) Error() string {
	var b strings.Builder
	b.WriteString(e.name)
	if e.line > 0 {
		fmt.Fprintf(&b, ":%d:%d", e.line, e.col)
	}
	b.WriteString(": ")
	if e.path != "" {
		b.WriteString(e.path + ": ")
	}
	b.WriteString(e.problem)
	return b.String()
}

func (e *documentError) Unwrap() error { return e.err }

func syntaxError(name string, data []byte, err *json.SyntaxError) error {
	// Offset counts the bytes read, the offending one included; at the end
	// of the input there is no offending byte, so point just past the last
	// value byte.
	at := err.Offset - 1
	problem := err.Error()
	switch {
	case strings.HasPrefix(problem, "unexpected end of JSON input"):
		at = int64(len(bytes.TrimRight(data, " \t\r\n")))
		problem = "the document ends inside a value (truncated?)"
	case strings.HasSuffix(problem, "after top-level value"):
		problem = "trailing data after the JSON value"
	}
	at = min(max(at, 0), int64(len(data)))
	path := ""
	if !strings.HasPrefix(problem, "trailing") {
		path = pathAtSyntaxError(data)
	}
	line, col := lineColumn(data, at)
	return &documentError{name: name, line: line, col: col, path: path, problem: problem, err: err}
}

// lineColumn turns a byte offset into a 1-based line and column (in bytes,
// as compilers count them).
func lineColumn(data []byte, offset int64) (line, col int) {
	before := data[:min(max(offset, 0), int64(len(data)))]
	line = 1 + bytes.Count(before, []byte{'\n'})
	col = len(before) - bytes.LastIndexByte(before, '\n')
	return line, col
}

// wantedJSON says what JSON a Go type decodes from.
func wantedJSON(t reflect.Type) string {
	if t == nil {
		return "another value"
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.Struct, reflect.Map:
		return "an object"
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		lim := int64(1)<<(t.Bits()-1) - 1
		return fmt.Sprintf("an integer from %d to %d", -lim-1, lim)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return fmt.Sprintf("an integer from 0 to %d", uint64(math.MaxUint64)>>(64-t.Bits()))
	case reflect.Float32:
		return "a number within ±3.4e38"
	case reflect.Float64:
		return "a number within ±1.8e308"
	}
	return "another value"
}

// foundJSON names what the decoder found, from UnmarshalTypeError.Value:
// a kind of value, or "number" and the number's text.
func foundJSON(value string) string {
	if literal, ok := strings.CutPrefix(value, "number "); ok {
		return literal
	}
	switch value {
	case "array", "object":
		return "an " + value
	case "bool":
		return "a boolean"
	case "":
		return "something else"
	}
	return "a " + value
}
