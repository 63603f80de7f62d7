package report

import (
	"io"

	"github.com/storagebench/storagebench/results"
)

// WriteHTML writes a self-contained HTML page with the results.
func WriteHTML(w io.Writer, rr *results.RunResult) error {
	if rr == nil {
		return errNoResults
	}
	return htmlPage.Execute(w, newPage(rr))
}
