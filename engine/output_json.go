package engine

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/storagebench/storagebench/engine/result"
)

// WriteOutput prints a document as "normal" (a readable summary like
// fio's), "json" (fio's layout plus the storagebench extension) or "json+"
// (json with histogram bins; the bins are only present when the document was
// produced with OutputFormat json+).
func WriteOutput(w io.Writer, doc *result.Document, format string) error {
	switch format {
	case "json", "json+":
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(doc)
	case "normal", "":
		return writeNormal(w, doc)
	}
	return fmt.Errorf("%w: unsupported output format %q (normal, json, json+)", ErrUsage, format)
}
