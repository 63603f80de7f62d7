package engine

import (
	"strings"
	"testing"
)

func TestExcerpt(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"a short value is quoted whole", "4k", `"4k"`},
		{"control characters are escaped, never raw", "a\x00\x1b[2J", `"a\x00\x1b[2J"`},
		{"invalid UTF-8 is escaped", "\xff\xfe", `"\xff\xfe"`},
		{"a long value is cut to 60 bytes with an ellipsis", strings.Repeat("9", 70000), `"` + strings.Repeat("9", 60) + `"...`},
		{"a cut never splits a character", strings.Repeat("a", 59) + "é" + "b", `"` + strings.Repeat("a", 59) + `"...`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := excerpt(tc.in); got != tc.want {
				t.Errorf("excerpt(%.80q) = %s, want %s", tc.in, got, tc.want)
			}
		})
	}
}
