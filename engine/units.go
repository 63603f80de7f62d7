package engine

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// parseSize parses a fio size: an integer (decimal or 0x hex) with an
// optional unit. fio's default kb_base=1024 is matched exactly, including
// its compatibility quirk: k, kb, ki (and m, g, t, p likewise) mean powers of
// 1024, while the IEC spellings kib, mib, gib, tib, pib mean powers of 1000.
// Units are case-insensitive; "b" alone means bytes.
func parseSize(s string) (int64, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	if t == "" {
		return 0, fmt.Errorf("empty size")
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
		return 0, fmt.Errorf("%q is not a size (want a whole number with an optional unit such as 4k, 1m, 2g)", s)
	}
	v, err := strconv.ParseUint(num, 0, 63)
	if err != nil {
		return 0, fmt.Errorf("%q is not a size: %w", s, err)
	}
	mult, err := sizeUnit(unit)
	if err != nil {
		return 0, fmt.Errorf("%q: %w", s, err)
	}
	if mult > 1 && v > math.MaxInt64/mult {
		return 0, fmt.Errorf("%q is too large", s)
	}
	return int64(v * mult), nil
}

func sizeUnit(unit string) (uint64, error) {
	if unit == "" || unit == "b" {
		return 1, nil
	}
	pow := strings.IndexByte("kmgtp", unit[0]) + 1
	if pow == 0 {
		return 0, fmt.Errorf("unknown size unit %q (k, m, g, t, p with optional i/b/ib)", unit)
	}
	base := uint64(1024)
	switch unit[1:] {
	case "", "b", "i":
	case "ib":
		base = 1000 // fio's kb_base=1024 compatibility quirk, see parseSize
	default:
		return 0, fmt.Errorf("unknown size unit %q (k, m, g, t, p with optional i/b/ib)", unit)
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
	i := 0
	for i < len(t) && t[i] >= '0' && t[i] <= '9' {
		i++
	}
	if i == 0 {
		return 0, fmt.Errorf("%q is not a time (want a whole number with an optional unit: us, ms, s, m, h, d)", s)
	}
	v, err := strconv.ParseInt(t[:i], 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%q is not a time: %w", s, err)
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
		return 0, fmt.Errorf("%q: unknown time unit %q (us, ms, s, m, h, d)", s, t[i:])
	}
	if v > int64(math.MaxInt64/unit) {
		return 0, fmt.Errorf("%q is too long", s)
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
	return false, fmt.Errorf("%q is not a boolean (0 or 1)", s)
}

// parseInt parses a non-negative integer option that fio also accepts with
// size units (iodepth=1k is legal fio), bounded to int.
func parseInt(s string) (int, error) {
	v, err := parseSize(s)
	if err != nil {
		return 0, err
	}
	if v > math.MaxInt32 {
		return 0, fmt.Errorf("%q is too large", s)
	}
	return int(v), nil
}
