package monitoring

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/prometheus/common/model"
	"github.com/prometheus/prometheus/promql/parser"
	"sigs.k8s.io/yaml"
)

var repoRoot = filepath.Join("..", "..", "..", "..")

// exported reads internal/benchmetrics/testdata/metrics.txt: every metric
// the manager exports and its labels (kept current by a test there).
func exported(t *testing.T) map[string]map[string]bool {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(repoRoot, "internal", "benchmetrics", "testdata", "metrics.txt"))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]map[string]bool{}
	for _, line := range strings.Split(string(data), "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		name, labelList, _ := strings.Cut(line, " ")
		out[name] = map[string]bool{}
		for _, l := range strings.Split(labelList, ",") {
			out[name][l] = true
		}
	}
	if len(out) == 0 {
		t.Fatal("metrics.txt lists no metric")
	}
	return out
}

// grafanaVariable is a dashboard variable reference: $name, ${name} or
// ${name:format}, and Grafana's own $__interval and friends.
var grafanaVariable = regexp.MustCompile(`\$\{[^}]+\}|\$[A-Za-z_]+`)

// asPromQL replaces dashboard variables with what Grafana substitutes: a
// label value inside a string, a duration elsewhere.
func asPromQL(expr string) string {
	return grafanaVariable.ReplaceAllStringFunc(expr, func(v string) string {
		if strings.HasPrefix(v, "$__") {
			return "5m"
		}
		return "x"
	})
}

// promql is Prometheus' parser with its default options, as a Prometheus
// server without feature flags parses rules and queries.
var promql = parser.NewParser(parser.Options{})

// checkExpr parses one expression and checks its selectors against what
// the manager exports. where names the expression in failures.
func checkExpr(t *testing.T, metrics map[string]map[string]bool, where, expr string) {
	t.Helper()
	parsed, err := promql.ParseExpr(expr)
	if err != nil {
		t.Errorf("%s: %q does not parse: %v", where, expr, err)
		return
	}
	selectors := 0
	parser.Inspect(parsed, func(node parser.Node, _ []parser.Node) error {
		vs, ok := node.(*parser.VectorSelector)
		if !ok {
			return nil
		}
		selectors++
		known, ok := metrics[vs.Name]
		if !ok {
			t.Errorf("%s: %s is not a metric the manager exports", where, vs.Name)
			return nil
		}
		for _, m := range vs.LabelMatchers {
			if m.Name != model.MetricNameLabel && !known[m.Name] {
				t.Errorf("%s: %s has no label %q", where, vs.Name, m.Name)
			}
		}
		return nil
	})
	if selectors == 0 {
		t.Errorf("%s: %q selects no metric", where, expr)
	}
}

func TestTheAlertRulesParseAndUseExportedMetrics(t *testing.T) {
	metrics := exported(t)
	data, err := os.ReadFile(filepath.Join(repoRoot, "charts", "storagebench", "files", "prometheus-rules.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	// Every key of Prometheus' rule-file format, read strictly: a misspelt
	// key would leave a part of a rule unread (promtool check rules also
	// refuses unknown keys).
	var file struct {
		Groups []struct {
			Name     string `json:"name"`
			Interval string `json:"interval"`
			Rules    []struct {
				Alert         string            `json:"alert"`
				Record        string            `json:"record"`
				Expr          string            `json:"expr"`
				For           string            `json:"for"`
				KeepFiringFor string            `json:"keep_firing_for"`
				Labels        map[string]string `json:"labels"`
				Annotations   map[string]string `json:"annotations"`
			} `json:"rules"`
		} `json:"groups"`
	}
	if err := yaml.UnmarshalStrict(data, &file); err != nil {
		t.Fatal(err)
	}
	alerts := 0
	for _, g := range file.Groups {
		for _, r := range g.Rules {
			checkExpr(t, metrics, "alert "+r.Alert, r.Expr)
			alerts++
		}
	}
	if alerts < 3 {
		t.Fatalf("%d alerts, want at least the failed-verdict, drift and late-schedule ones", alerts)
	}
}

func TestTheDashboardParsesAndUsesExportedMetrics(t *testing.T) {
	metrics := exported(t)
	data, err := os.ReadFile(filepath.Join(repoRoot, "charts", "storagebench", "files", "grafana-dashboard.json"))
	if err != nil {
		t.Fatal(err)
	}
	var dash struct {
		Panels []struct {
			Title   string `json:"title"`
			Targets []struct {
				Expr string `json:"expr"`
			} `json:"targets"`
		} `json:"panels"`
		Templating struct {
			List []struct {
				Name  string `json:"name"`
				Type  string `json:"type"`
				Query any    `json:"query"`
			} `json:"list"`
		} `json:"templating"`
	}
	if err := json.Unmarshal(data, &dash); err != nil {
		t.Fatal(err)
	}
	exprs := 0
	for _, p := range dash.Panels {
		if len(p.Targets) == 0 {
			t.Errorf("panel %q has no query", p.Title)
		}
		for _, target := range p.Targets {
			checkExpr(t, metrics, "panel "+p.Title, asPromQL(target.Expr))
			exprs++
		}
	}
	// label_values(selector, label): the selector is PromQL, the label
	// must be one of its metric's.
	labelValues := regexp.MustCompile(`^label_values\((.+),\s*([A-Za-z_]+)\)$`)
	for _, v := range dash.Templating.List {
		if v.Type != "query" {
			continue
		}
		q, _ := v.Query.(map[string]any)
		query, _ := q["query"].(string)
		m := labelValues.FindStringSubmatch(query)
		if m == nil {
			t.Errorf("variable %s: query %q is not label_values(selector, label)", v.Name, query)
			continue
		}
		checkExpr(t, metrics, "variable "+v.Name, asPromQL(m[1]))
		if sel, err := promql.ParseMetricSelector(asPromQL(m[1])); err == nil {
			for _, matcher := range sel {
				if matcher.Name == model.MetricNameLabel && !metrics[matcher.Value][m[2]] {
					t.Errorf("variable %s: %s has no label %q", v.Name, matcher.Value, m[2])
				}
			}
		}
	}
	if exprs < 6 {
		t.Fatalf("%d panel queries, want IOPS, bandwidth, p99, verdicts, drift and timings at least", exprs)
	}
}
