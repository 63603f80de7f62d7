package main

import (
	"net/http"
	"sort"
	"strings"
	"sync"
)

// apiCounter counts the manager's requests to the API server, by verb and
// resource, and the bytes of its status PATCHes. It wraps the manager's
// transport, so the cache's lists and watches, the client's writes and the
// uncached reads are all seen.
type apiCounter struct {
	mu               sync.Mutex
	requests         map[string]int
	statusPatches    int
	statusPatchBytes int64
	statusConflicts  int
}

func newAPICounter() *apiCounter { return &apiCounter{requests: map[string]int{}} }

func (c *apiCounter) wrap(rt http.RoundTripper) http.RoundTripper {
	return roundTripper(func(req *http.Request) (*http.Response, error) {
		verb, resource, status := classify(req)
		resp, err := rt.RoundTrip(req)
		c.mu.Lock()
		defer c.mu.Unlock()
		c.requests[verb+" "+resource]++
		if status && req.Method == http.MethodPatch {
			c.statusPatches++
			c.statusPatchBytes += max(req.ContentLength, 0)
			if resp != nil && resp.StatusCode == http.StatusConflict {
				c.statusConflicts++
			}
		}
		return resp, err
	})
}

type roundTripper func(*http.Request) (*http.Response, error)

func (f roundTripper) RoundTrip(req *http.Request) (*http.Response, error) { return f(req) }

// classify reads the verb and resource of an API request from its path:
// /api/v1/namespaces/NS/pods/NAME/log, /apis/GROUP/VERSION/storageclasses/NAME.
func classify(req *http.Request) (verb, resource string, status bool) {
	parts := strings.Split(strings.Trim(req.URL.Path, "/"), "/")
	switch {
	case len(parts) >= 2 && parts[0] == "api":
		parts = parts[2:]
	case len(parts) >= 3 && parts[0] == "apis":
		parts = parts[3:]
	default:
		return req.Method, req.URL.Path, false
	}
	if len(parts) >= 2 && parts[0] == "namespaces" {
		parts = parts[2:]
	}
	if len(parts) == 0 {
		return strings.ToLower(req.Method), "namespaces", false
	}
	resource = parts[0]
	named := len(parts) >= 2
	if len(parts) >= 3 {
		resource += "/" + parts[2]
		status = parts[2] == "status"
	}
	switch req.Method {
	case http.MethodGet:
		switch {
		case req.URL.Query().Get("watch") == "true":
			verb = "watch"
		case named:
			verb = "get"
		default:
			verb = "list"
		}
	case http.MethodPost:
		verb = "create"
	case http.MethodPut:
		verb = "update"
	case http.MethodPatch:
		verb = "patch"
	case http.MethodDelete:
		verb = "delete"
	default:
		verb = strings.ToLower(req.Method)
	}
	return verb, resource, status
}

type apiCounts struct {
	total            int
	byRequest        map[string]int
	statusPatches    int
	statusPatchBytes int64
	statusConflicts  int
}

func (c *apiCounter) snapshot() apiCounts {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := apiCounts{byRequest: map[string]int{}, statusPatches: c.statusPatches, statusPatchBytes: c.statusPatchBytes, statusConflicts: c.statusConflicts}
	for k, v := range c.requests {
		out.byRequest[k] = v
		out.total += v
	}
	return out
}

// top lists the most frequent requests, "verb resource=count".
func (a apiCounts) top(n int) string {
	keys := make([]string, 0, len(a.byRequest))
	for k := range a.byRequest {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if a.byRequest[keys[i]] != a.byRequest[keys[j]] {
			return a.byRequest[keys[i]] > a.byRequest[keys[j]]
		}
		return keys[i] < keys[j]
	})
	var parts []string
	for i, k := range keys {
		if i == n {
			break
		}
		parts = append(parts, k+"="+itoa(a.byRequest[k]))
	}
	return strings.Join(parts, ", ")
}
