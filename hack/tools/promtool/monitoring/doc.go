// Package monitoring holds the check of the dashboard and the alert rules
// the chart ships (charts/storagebench/files): its test parses every PromQL
// expression with Prometheus' own parser and refuses a selector of a metric,
// or a matcher of a label, the manager does not export.
package monitoring
