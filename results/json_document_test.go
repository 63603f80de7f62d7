package results

import (
	"encoding/json"
	"errors"
	"testing"
)

func TestDecodeJSONSaysWhereTheDocumentIsWrong(t *testing.T) {
	for _, tc := range []struct {
		name, doc, want string
	}{
		{"a string for an array", "{\n  \"targets\": [\n    {\"cells\": \"x\"}\n  ]\n}",
			"result.json:3:15: targets[0].cells: want an array, found a string"},
		{"a number out of its type's range", `{"targets": [{"clients": 3000000000}]}`,
			"result.json:1:26: targets[0].clients: want an integer from -2147483648 to 2147483647, found 3000000000"},
		{"a fraction for an integer", `{"targets": [{"cells": [{}, {"repetitions": [{"read": {"ios": 1.5}}]}]}]}`,
			"result.json:1:63: targets[0].cells[1].repetitions[0].read.ios: want an integer from -9223372036854775808 to 9223372036854775807, found 1.5"},
		{"a number beyond float64", `{"targets": [{"cells": [{"spreadPercent": 1e400}]}]}`,
			"result.json:1:43: targets[0].cells[0].spreadPercent: want a number within ±1.8e308, found 1e400"},
		{"an object for a string", `{"benchmark": {"name": "b"}}`,
			"result.json:1:15: benchmark: want a string, found an object"},
		{"a boolean for a string", `{"benchmark": true}`,
			"result.json:1:15: benchmark: want a string, found a boolean"},
		{"an array for the document", `[{}]`,
			"result.json:1:1: want an object, found an array"},
		{"a syntax error", "{\n  \"benchmark\": x\n}",
			"result.json:2:16: benchmark: invalid character 'x' looking for beginning of value"},
		{"a truncated document", "{\"targets\": [{\"cells\": [\n",
			"result.json:1:25: targets[0].cells[0]: the document ends inside a value (truncated?)"},
		{"data after the document", "{}\n{}\n",
			"result.json:2:1: trailing data after the JSON value"},
		{"an empty document", " \n", "result.json: empty, no JSON document"},
		{"a value whose own decoder fails", `{"startTime": "yesterday"}`,
			`result.json: parsing time "yesterday" as "2006-01-02T15:04:05Z07:00": cannot parse "yesterday" as "2006"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := DecodeJSON("result.json", []byte(tc.doc), &RunResult{})
			if err == nil || err.Error() != tc.want {
				t.Fatalf("error\n  %v\nwant\n  %s", err, tc.want)
			}
		})
	}
}

func TestDecodeJSONKeepsTheDecodersError(t *testing.T) {
	err := DecodeJSON("r.json", []byte(`{"generation": "1"}`), &RunResult{})
	var wrongType *json.UnmarshalTypeError
	if !errors.As(err, &wrongType) {
		t.Fatalf("error %v does not wrap the json.UnmarshalTypeError", err)
	}
	err = DecodeJSON("r.json", []byte(`{`), &RunResult{})
	var syntax *json.SyntaxError
	if !errors.As(err, &syntax) {
		t.Fatalf("error %v does not wrap the json.SyntaxError", err)
	}
}

func TestOffsetOfPathFallsBackToTheEnclosingValue(t *testing.T) {
	doc := []byte(`{"a": [1, {"b": null}], "c": {"d": 2}}`)
	for path, want := range map[string]int64{
		"":         0,
		"a":        6,
		"a[1].b":   16,
		"a[1].b.x": 16, // inside a null: the null
		"c.d":      35,
		"c.e":      29, // a member left out: its object
		"z":        0,
	} {
		if got := offsetOfPath(doc, path); got != want {
			t.Errorf("%q: offset %d, want %d", path, got, want)
		}
	}
}
