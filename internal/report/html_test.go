package report

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/storagebench/storagebench/results"
)

// testdata/quickstart-result.json is the output of a real
// `storagebench run -f config/samples/quickstart.yaml -o json`.
func quickstartResult(t *testing.T) *results.RunResult {
	t.Helper()
	data, err := os.ReadFile("testdata/quickstart-result.json")
	if err != nil {
		t.Fatal(err)
	}
	rr := &results.RunResult{}
	if err := json.Unmarshal(data, rr); err != nil {
		t.Fatal(err)
	}
	return rr
}

func TestHTMLReportIsSelfContainedWithWellFormedCharts(t *testing.T) {
	var page bytes.Buffer
	if err := WriteHTML(&page, quickstartResult(t)); err != nil {
		t.Fatal(err)
	}
	html := page.String()
	// Self-contained: no scripts, stylesheets or images fetched from anywhere.
	for _, external := range []string{"<script", "src=", "<link", "http://", "https://", "@import"} {
		if strings.Contains(strings.ReplaceAll(html, `xmlns="http://www.w3.org/2000/svg"`, ""), external) {
			t.Errorf("the page refers to something outside itself: %q", external)
		}
	}
	svgs := regexp.MustCompile(`(?s)<svg .*?</svg>`).FindAllString(html, -1)
	// Two sections (rand, seq): IOPS, throughput and ratio charts each, and
	// one latency chart per read mix (3 + 2).
	if len(svgs) != 2*3+5 {
		t.Fatalf("%d charts, want 11", len(svgs))
	}
	for i, svg := range svgs {
		dec := xml.NewDecoder(strings.NewReader(svg))
		for {
			if _, err := dec.Token(); err == io.EOF {
				break
			} else if err != nil {
				t.Fatalf("chart %d is not well-formed SVG: %v\n%s", i, err, svg)
			}
		}
	}
	for _, want := range []string{"Verdict: <span class=\"badge Passed\">Passed</span>", "IOPS relative to standard", "Latency, 70% read (all IOs)", "premium", "standard"} {
		if !strings.Contains(html, want) {
			t.Errorf("page lacks %q", want)
		}
	}
}

// TestHTMLReportRendersInChromium opens the page in headless Chromium
// (Debian's package) and takes a screenshot. Skipped without Chromium,
// unless STORAGEBENCH_REQUIRE_CHROMIUM is set (CI sets it, having
// installed Chromium). The screenshot goes to $STORAGEBENCH_ARTIFACTS.
func TestHTMLReportRendersInChromium(t *testing.T) {
	chromium, err := exec.LookPath("chromium")
	if err != nil {
		if os.Getenv("STORAGEBENCH_REQUIRE_CHROMIUM") != "" {
			t.Fatalf("chromium is required (STORAGEBENCH_REQUIRE_CHROMIUM) but not installed")
		}
		t.Skip("chromium not installed (apt-get install chromium); CI runs this test")
	}
	dir := t.TempDir()
	pagePath := filepath.Join(dir, "report.html")
	var page bytes.Buffer
	if err := WriteHTML(&page, quickstartResult(t)); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(pagePath, page.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	artifacts := os.Getenv("STORAGEBENCH_ARTIFACTS")
	if artifacts == "" {
		artifacts = dir
	}
	if err := os.MkdirAll(artifacts, 0o755); err != nil {
		t.Fatal(err)
	}
	shot := filepath.Join(artifacts, "report-screenshot.png")
	_ = os.Remove(shot)
	common := []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--user-data-dir=" + filepath.Join(dir, "profile"), "--window-size=1280,3000"}

	dom := runChromium(t, chromium, append(common, "--dump-dom", "file://"+pagePath)...)
	// The DOM Chromium built holds every chart as SVG elements, with bars
	// and lines: the markup was understood, not shown as text.
	if n := strings.Count(dom, "<svg"); n != 11 {
		t.Errorf("rendered DOM has %d svg elements, want 11", n)
	}
	if strings.Count(dom, "<rect") < 20 || strings.Count(dom, "<polyline") < 5 {
		t.Errorf("rendered DOM lacks bars or lines")
	}
	runChromium(t, chromium, append(common, "--screenshot="+shot, "file://"+pagePath)...)
	st, err := os.Stat(shot)
	if err != nil || st.Size() < 20_000 {
		t.Fatalf("no screenshot (or an empty one) at %s: %v", shot, err)
	}
	t.Logf("screenshot: %s (%d bytes)", shot, st.Size())
}

func runChromium(t *testing.T, chromium string, args ...string) string {
	t.Helper()
	cmd := exec.Command(chromium, args...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	done := make(chan error, 1)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("chromium %v: %v\n%s", args, err, errOut.String())
		}
	case <-time.After(90 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatalf("chromium did not finish within 90 s\n%s", errOut.String())
	}
	for _, line := range strings.Split(errOut.String(), "\n") {
		if strings.Contains(line, "CONSOLE") && strings.Contains(line, "rror") {
			t.Errorf("page error in chromium: %s", line)
		}
	}
	return out.String()
}
