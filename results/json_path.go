package results

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
)

// JSON paths name a value in a document the way people read it:
// targets[1].cells[3].repetitions[0].read.ios. Check builds them while it
// walks a decoded result; the functions below find them in the document's
// text, so that an error can also say line and column.

// jsonField is the path of an object member.
func jsonField(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

// jsonIndex is the path of an array element.
func jsonIndex(path string, i int) string { return path + "[" + strconv.Itoa(i) + "]" }

// jsonValue is one value of a document as walkJSON meets it: its path and
// where its first token starts and ends (for an array or an object, that
// token is the opening bracket).
type jsonValue struct {
	path       string
	start, end int64
}

// walkJSON calls visit for every value of data in document order until
// visit returns false. On a syntax error it stops and returns the path of
// the value it was reading.
func walkJSON(data []byte, visit func(jsonValue) bool) (brokenAt string) {
	type frame struct {
		array bool
		index int    // arrays: the element being read
		key   string // objects: the member being read
		atKey bool   // objects: a key (or the closing brace) comes next
	}
	var stack []frame
	path := func() string {
		var b strings.Builder
		for i, f := range stack {
			switch {
			case f.array:
				b.WriteString("[" + strconv.Itoa(f.index) + "]")
			case i == len(stack)-1 && f.atKey:
				// Between members: the object itself is where we are.
			default:
				if b.Len() > 0 {
					b.WriteByte('.')
				}
				b.WriteString(f.key)
			}
		}
		return b.String()
	}
	// done moves the innermost container past the value just read.
	done := func() {
		if n := len(stack); n > 0 {
			if stack[n-1].array {
				stack[n-1].index++
			} else {
				stack[n-1].atKey = true
			}
		}
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber() // a number out of float64's range is still a token
	for {
		before := dec.InputOffset()
		tok, err := dec.Token()
		if err != nil {
			return path()
		}
		if n := len(stack); n > 0 && !stack[n-1].array && stack[n-1].atKey {
			if key, ok := tok.(string); ok {
				stack[n-1].key, stack[n-1].atKey = key, false
				continue
			}
		}
		if d, ok := tok.(json.Delim); ok && (d == ']' || d == '}') {
			stack = stack[:len(stack)-1]
			done()
			continue
		}
		if !visit(jsonValue{path: path(), start: skipSeparators(data, before), end: dec.InputOffset()}) {
			return ""
		}
		if d, ok := tok.(json.Delim); ok {
			stack = append(stack, frame{array: d == '[', atKey: d == '{'})
			continue
		}
		done()
	}
}

// skipSeparators skips what may stand between two tokens.
func skipSeparators(data []byte, i int64) int64 {
	for i < int64(len(data)) && strings.IndexByte(" \t\r\n:,", data[i]) >= 0 {
		i++
	}
	return i
}

// valueAtOffset finds the value a decoder error's Offset points at: it is
// the end of the offending scalar, or just past the opening bracket of an
// offending array or object.
func valueAtOffset(data []byte, offset int64) (path string, start int64) {
	start = -1
	walkJSON(data, func(v jsonValue) bool {
		if v.end >= offset {
			path, start = v.path, v.start
			return false
		}
		return true
	})
	if start < 0 {
		return "", offset
	}
	return path, start
}

// pathAtSyntaxError is the path of the value a syntax error interrupts.
func pathAtSyntaxError(data []byte) string {
	return walkJSON(data, func(jsonValue) bool { return true })
}

// offsetOfPath finds where a path's value starts; when the document does
// not spell that value out (a member left out, an element that is null),
// where its closest enclosing value starts.
func offsetOfPath(data []byte, path string) int64 {
	best, bestLen := int64(0), -1
	walkJSON(data, func(v jsonValue) bool {
		switch {
		case v.path == path:
			best, bestLen = v.start, len(path)
			return false
		case len(v.path) > bestLen && encloses(v.path, path):
			best, bestLen = v.start, len(v.path)
		}
		return true
	})
	return best
}

// encloses says whether outer is path or one of its ancestors.
func encloses(outer, path string) bool {
	if outer == "" || outer == path {
		return true
	}
	rest, ok := strings.CutPrefix(path, outer)
	return ok && (rest[0] == '.' || rest[0] == '[')
}
