package engine

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// Parse errors say what is wrong with a number, not what was wanted: the
// option's kind (options.go) adds that and quotes the value.
var (
	// errNotNumber: the value is not a whole number at all.
	errNotNumber = errors.New("not a whole number")
	// errNegative is reported apart from errNotNumber because a
	// negative count, rate or time is the commonest slip.
	errNegative = errors.New("negative")
	errTooLarge = errors.New("too large")
)

// leadingMinus tells a negative number ("-1", "-4k") from other garbage.
func leadingMinus(t string) bool {
	return len(t) > 1 && t[0] == '-' && t[1] >= '0' && t[1] <= '9'
}

// parseSize parses a fio size: an integer (decimal or 0x hex) with an
// optional unit. fio's default kb_base=1024 is matched exactly, including
// its compatibility quirk: k, kb, ki (and m, g, t, p likewise) mean powers of
// 1024, while the IEC spellings kib, mib, gib, tib, pib mean powers of 1000.
// Units are case-insensitive; "b" alone means bytes. fio also accepts units
// on counts (iodepth=1k), so counts, rates and percentages parse with it.
func parseSize(s string) (int64, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	if leadingMinus(t) {
		return 0, errNegative
	}
	i := 0
	if strings.HasPrefix(t, "0x") {
		i = 2
		for i < len(t) && strings.ContainsRune("0123456789abcdef", rune(t[i])) {
			i++
		}
	} else {
		for i < len(t) && t[i] >= '0' && t[i] <= '9' {
			i++
		}
	}
	num, unit := t[:i], t[i:]
	if num == "" || num == "0x" {
		return 0, errNotNumber
	}
	// Decimal unless 0x, as fio's str_to_decimal: a leading 0 is not
	// octal (size=010 is 10 bytes).
	base := 10
	if strings.HasPrefix(num, "0x") {
		num, base = num[2:], 16
	}
	v, err := strconv.ParseUint(num, base, 63)
	if err != nil {
		return 0, errTooLarge // only digits of the base reach here: the range is all that can fail
	}
	mult, err := sizeUnit(unit)
	if err != nil {
		return 0, err
	}
	if mult > 1 && v > math.MaxInt64/mult {
		return 0, errTooLarge
	}
	return int64(v * mult), nil
}

func sizeUnit(unit string) (uint64, error) {
	if unit == "" || unit == "b" {
		return 1, nil
	}
	pow := strings.IndexByte("kmgtp", unit[0]) + 1
	if pow == 0 {
		return 0, fmt.Errorf("unknown size unit %s (k, m, g, t, p with optional i/b/ib)", excerpt(unit))
	}
	base := uint64(1024)
	switch unit[1:] {
	case "", "b", "i":
	case "ib":
		base = 1000 // fio's kb_base=1024 compatibility quirk, see parseSize
	default:
		return 0, fmt.Errorf("unknown size unit %s (k, m, g, t, p with optional i/b/ib)", excerpt(unit))
	}
	mult := uint64(1)
	for range pow {
		mult *= base
	}
	return mult, nil
}

// parseDuration parses a fio time: an integer with an optional unit (us,
// ms, s, m, h, d and their long spellings); a bare number is seconds, as
// for fio's runtime and ramp_time.
func parseDuration(s string) (time.Duration, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	if leadingMinus(t) {
		return 0, errNegative
	}
	i := 0
	for i < len(t) && t[i] >= '0' && t[i] <= '9' {
		i++
	}
	if i == 0 {
		return 0, errNotNumber
	}
	v, err := strconv.ParseInt(t[:i], 10, 64)
	if err != nil {
		return 0, errTooLarge
	}
	var unit time.Duration
	switch t[i:] {
	case "us", "usec":
		unit = time.Microsecond
	case "ms", "msec":
		unit = time.Millisecond
	case "", "s", "sec":
		unit = time.Second
	case "m", "min":
		unit = time.Minute
	case "h", "hour":
		unit = time.Hour
	case "d", "day":
		unit = 24 * time.Hour
	default:
		return 0, fmt.Errorf("unknown time unit %s (us, ms, s, m, h, d)", excerpt(t[i:]))
	}
	if v > int64(math.MaxInt64/unit) {
		return 0, errTooLarge
	}
	return time.Duration(v) * unit, nil
}

// parseBool parses fio's boolean values; a flag given without a value is
// true.
func parseBool(s string) (bool, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "1", "true", "yes", "on":
		return true, nil
	case "0", "false", "no", "off":
		return false, nil
	}
	return false, fmt.Errorf("%s is not a boolean (0 or 1)", excerpt(s))
}
