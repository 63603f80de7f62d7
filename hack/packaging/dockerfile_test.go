package packaging

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The image has one binary at /storagebench, run as 65532:65532, whether it
// is built from the Dockerfile or by `make image`; the controller starts
// client pods with that path and user.
const (
	imageBinary = "/storagebench"
	imageUser   = "65532:65532"
	imageSource = "https://github.com/storagebench/storagebench"
)

func readRepoFile(t *testing.T, name string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(repoRoot, name))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func TestDockerfileAndMakeImageBuildTheSameImage(t *testing.T) {
	df := readRepoFile(t, "Dockerfile")
	// Logical lines: continuations joined.
	joined := strings.ReplaceAll(df, "\\\n", " ")
	var froms []string
	for _, line := range strings.Split(joined, "\n") {
		if f, ok := strings.CutPrefix(strings.TrimSpace(line), "FROM "); ok {
			froms = append(froms, f)
		}
	}
	if len(froms) < 2 || froms[len(froms)-1] != "gcr.io/distroless/static:nonroot" {
		t.Errorf("stages %q: want a build stage and gcr.io/distroless/static:nonroot last", froms)
	}
	for _, want := range []string{
		"CGO_ENABLED=0", "-trimpath",
		"-X github.com/storagebench/storagebench/internal/version.Version=${VERSION}",
		"-X github.com/storagebench/storagebench/internal/version.Commit=${COMMIT}",
		"COPY --from=build /out/storagebench " + imageBinary + "\n",
		"USER " + imageUser + "\n",
		`ENTRYPOINT ["` + imageBinary + `"]`,
		`org.opencontainers.image.source="` + imageSource + `"`,
		`org.opencontainers.image.version="${VERSION}"`,
		`org.opencontainers.image.revision="${REVISION}"`,
	} {
		if !strings.Contains(joined, want) {
			t.Errorf("the Dockerfile lacks %q", want)
		}
	}

	// What make image and make build run (make -n prints without running).
	cmd := exec.Command("make", "-n", "--always-make", "image", "IMG=localhost/storagebench/storagebench:test", "VERSION=v1.2.3", "COMMIT=abc1234", "REVISION=abc1234full")
	cmd.Dir = repoRoot
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("make -n image: %v\n%s", err, out)
	}
	recipe := strings.ReplaceAll(string(out), "\\\n", " ")
	for _, want := range []string{
		"CGO_ENABLED=0 go build -trimpath",
		"internal/version.Version=v1.2.3", "internal/version.Commit=abc1234",
		"--entrypoint " + imageBinary, "--user " + imageUser,
		"--source " + imageSource, "--version 'v1.2.3'", "--revision 'abc1234full'",
		`--out "` + filepath.Join(repoRoot, "dist", "storagebench-v1.2.3.tar") + `"`,
	} {
		if !strings.Contains(recipe, want) {
			t.Errorf("make image does not run %q; it runs:\n%s", want, recipe)
		}
	}

	// The controller's idea of the image.
	config := readRepoFile(t, "controllers/config.go")
	if m := regexp.MustCompile(`clientBinary = "([^"]+)"`).FindStringSubmatch(config); m == nil || m[1] != imageBinary {
		t.Errorf("controllers/config.go clientBinary %v, want %s", m, imageBinary)
	}
	if m := regexp.MustCompile(`clientUID = (\d+)`).FindStringSubmatch(config); m == nil || m[1]+":"+m[1] != imageUser {
		t.Errorf("controllers/config.go clientUID %v, want the image user %s", m, imageUser)
	}
}

func TestMakeImageTagsAreValid(t *testing.T) {
	for version, tag := range map[string]string{
		"v0.1.0":                  "v0.1.0",
		"v0.1.0-3-gabc1234-dirty": "v0.1.0-3-gabc1234-dirty",
		"abc1234-dirty":           "abc1234-dirty",
		"v1.0.0+build.5":          "v1.0.0-build.5",
		"release/v2":              "release-v2",
	} {
		cmd := exec.Command("make", "-s", "--no-print-directory", "-f", "-", "print-tag", "VERSION="+version)
		cmd.Dir = repoRoot
		cmd.Stdin = strings.NewReader("include Makefile\nprint-tag:\n\t@echo '$(IMG)'\n")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%v: %s", err, out)
		}
		if got := strings.TrimSpace(string(out)); got != "ghcr.io/storagebench/storagebench:"+tag {
			t.Errorf("VERSION=%s: IMG=%s, want tag %s", version, got, tag)
		}
	}
}

// Every file the binary is built from is in the Docker build context.
func TestDockerignoreKeepsEverySourceOfTheBinary(t *testing.T) {
	patterns := dockerignore(t)
	cmd := exec.Command("go", "list", "-deps", "-f", `{{if not .Standard}}{{.Dir}}{{range .GoFiles}} {{.}}{{end}}{{range .EmbedFiles}} {{.}}{{end}}{{end}}`, ".")
	cmd.Dir = repoRoot
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	files := []string{"go.mod", "go.sum"}
	sc := bufio.NewScanner(strings.NewReader(string(out)))
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) == 0 {
			continue
		}
		rel, err := filepath.Rel(repoRoot, fields[0])
		if err != nil || strings.HasPrefix(rel, "..") {
			continue // a dependency from the module cache
		}
		for _, f := range fields[1:] {
			files = append(files, filepath.ToSlash(filepath.Join(rel, f)))
		}
	}
	if len(files) < 10 {
		t.Fatalf("found only %q", files)
	}
	// And the matcher works: what must stay out, stays out.
	for _, f := range []string{"hack/k8s-binaries.sh", "controllers/build_test.go", "README.md", "charts/storagebench/values.yaml", ".git/HEAD", "engine/testdata/x"} {
		if !ignored(patterns, f) {
			t.Errorf(".dockerignore sends %s into the build context", f)
		}
	}
	for _, f := range files {
		if ignored(patterns, f) {
			t.Errorf(".dockerignore leaves %s out of the build context", f)
		}
	}
}

type ignorePattern struct {
	re     *regexp.Regexp
	negate bool
}

// dockerignore reads .dockerignore with Docker's rules as far as this file
// uses them: "*" within a path element, "**" across elements, "!" negates,
// the last matching pattern wins, and a match on a folder covers its files.
func dockerignore(t *testing.T) []ignorePattern {
	t.Helper()
	var out []ignorePattern
	for _, line := range strings.Split(readRepoFile(t, ".dockerignore"), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		p := ignorePattern{}
		if rest, ok := strings.CutPrefix(line, "!"); ok {
			p.negate, line = true, rest
		}
		line = strings.Trim(filepath.ToSlash(filepath.Clean(line)), "/")
		var re strings.Builder
		for i := 0; i < len(line); i++ {
			switch {
			case strings.HasPrefix(line[i:], "**/"):
				re.WriteString("(.*/)?")
				i += 2
			case strings.HasPrefix(line[i:], "**"):
				re.WriteString(".*")
				i++
			case line[i] == '*':
				re.WriteString("[^/]*")
			case line[i] == '?':
				re.WriteString("[^/]")
			default:
				re.WriteString(regexp.QuoteMeta(line[i : i+1]))
			}
		}
		p.re = regexp.MustCompile("^" + re.String() + "$")
		out = append(out, p)
	}
	return out
}

func ignored(patterns []ignorePattern, file string) bool {
	out := false
	for _, p := range patterns {
		for prefix := file; prefix != "."; prefix = filepath.ToSlash(filepath.Dir(prefix)) {
			if p.re.MatchString(prefix) {
				out = !p.negate
				break
			}
		}
	}
	return out
}
