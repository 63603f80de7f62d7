package engine

import (
	"strconv"
	"unicode/utf8"
)

// maxExcerptBytes bounds how much of a user's value an error message
// quotes: enough to recognise it, and a pasted binary or a megabyte-long
// line cannot flood a log or a termination message.
const maxExcerptBytes = 60

// excerpt quotes s for an error message: escaped by strconv.Quote (control
// characters and invalid UTF-8 never reach a terminal raw) and cut to
// maxExcerptBytes of the input, on a character boundary, with "..." when
// cut.
func excerpt(s string) string {
	if len(s) <= maxExcerptBytes {
		return strconv.Quote(s)
	}
	cut := maxExcerptBytes
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return strconv.Quote(s[:cut]) + "..."
}

// excerptValue is excerpt without the quotes for a value that is
// ordinary (short, printable): "--bs=4k" reads better than "--bs=\"4k\"".
func excerptValue(s string) string {
	q := excerpt(s)
	if q == strconv.Quote(s) && q[1:len(q)-1] == s {
		return s
	}
	return q
}
