package admission

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	utiljson "k8s.io/apimachinery/pkg/util/json"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	sigsyaml "sigs.k8s.io/yaml"
)

// MaxManifestBytes is the largest manifest accepted: the API server's limit
// on one request body (3 MiB), which is what `kubectl apply` sends a
// manifest as. Checking it first keeps a huge file from being parsed at all.
const MaxManifestBytes = 3 << 20

// document is one object of a manifest, as JSON.
type document struct {
	index int // 1-based, counting the non-empty documents as kubectl does
	json  []byte
}

// splitDocuments reads a manifest the way `kubectl apply -f` does: a stream
// of JSON values when it starts with "{", else YAML documents separated by
// "---", each decoded on its own; empty documents (only comments, or null)
// are skipped. What kubectl could not apply is an error naming the
// document: a syntax error, a document that is not an object, JSON with
// trailing garbage. One thing is stricter than kubectl: a key given twice in
// a YAML mapping is an error, where kubectl's conversion keeps the last
// value; the API server refuses duplicates in JSON, and a value silently
// dropped would change the benchmark.
func splitDocuments(manifest []byte) ([]document, error) {
	if len(manifest) > MaxManifestBytes {
		return nil, fmt.Errorf("the manifest is %d bytes, more than the %d bytes (3 MiB) the API server accepts in one request", len(manifest), MaxManifestBytes)
	}
	var docs []document
	add := func(read int, raw []byte) error {
		raw = bytes.TrimSpace(raw)
		if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
			return nil
		}
		if raw[0] != '{' {
			return fmt.Errorf("document %d is not an object: %s", read, excerpt(raw))
		}
		docs = append(docs, document{index: len(docs) + 1, json: raw})
		return nil
	}
	if trimmed := bytes.TrimSpace(manifest); len(trimmed) > 0 && trimmed[0] == '{' {
		dec := json.NewDecoder(bytes.NewReader(manifest))
		for read := 1; ; read++ {
			var raw json.RawMessage
			err := dec.Decode(&raw)
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				return nil, fmt.Errorf("document %d: %w", read, err)
			}
			if err := add(read, raw); err != nil {
				return nil, err
			}
		}
		return docs, nil
	}
	reader := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(manifest)))
	for read := 1; ; read++ {
		doc, err := reader.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("document %d: %w", read, err)
		}
		raw, err := sigsyaml.YAMLToJSONStrict(doc)
		if err != nil {
			return nil, fmt.Errorf("document %d: %w", read, err)
		}
		if err := add(read, raw); err != nil {
			return nil, err
		}
	}
	return docs, nil
}

// excerpt quotes the start of a value for a message.
func excerpt(raw []byte) string {
	const limit = 40
	if len(raw) > limit {
		return strconv.Quote(string(raw[:limit])) + "..."
	}
	return strconv.Quote(string(raw))
}

// singleObject returns the one object of a manifest. A file with several
// objects is refused, naming them: `kubectl apply` would create each, and
// running only the first (or all, one after another) would not be what the
// file says.
func singleObject(manifest []byte) ([]byte, error) {
	docs, err := splitDocuments(manifest)
	if err != nil {
		return nil, err
	}
	switch len(docs) {
	case 0:
		return nil, errors.New("the manifest holds no object")
	case 1:
		return docs[0].json, nil
	}
	names := make([]string, len(docs))
	for i, d := range docs {
		names[i] = describeDocument(d.json)
	}
	return nil, fmt.Errorf("the manifest holds %d objects (%s); give one StorageBenchmark per file", len(docs), strings.Join(names, ", "))
}

// describeDocument names an object by kind and name for messages.
func describeDocument(raw []byte) string {
	var head struct {
		Kind     string `json:"kind"`
		Metadata struct {
			Name string `json:"name"`
		} `json:"metadata"`
	}
	if utiljson.Unmarshal(raw, &head) != nil || head.Kind == "" {
		return "an object without a kind"
	}
	if head.Metadata.Name == "" {
		return head.Kind + " without a name"
	}
	return fmt.Sprintf("%s %q", head.Kind, head.Metadata.Name)
}
