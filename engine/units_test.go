package engine

import (
	"errors"
	"testing"
	"time"
)

func TestParseSizeMatchesFio(t *testing.T) {
	// Expected values were measured with fio 3.33 (kb_base=1024), including
	// its quirk that the IEC spellings (kib, mib) mean powers of 1000.
	for in, want := range map[string]int64{
		"4096": 4096, "4k": 4096, "4K": 4096, "4ki": 4096, "4KB": 4096, "4kB": 4096,
		"4kib": 4000, "4KiB": 4000, "1m": 1 << 20, "1mi": 1 << 20, "1MiB": 1000000,
		"1MB": 1 << 20, "2g": 2 << 30, "1t": 1 << 40, "4b": 4, "0x1000": 4096, "0": 0, "010": 10, "0x10k": 16 << 10,
	} {
		got, err := parseSize(in)
		if err != nil || got != want {
			t.Errorf("parseSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "k", "1.5k", "4x", "4kbb", "-1", "99999999999999999999", "9000000p", "0x"} {
		if v, err := parseSize(in); err == nil {
			t.Errorf("parseSize(%q) = %d, want an error", in, v)
		}
	}
}

func TestParseDuration(t *testing.T) {
	for in, want := range map[string]time.Duration{
		"10": 10 * time.Second, "10s": 10 * time.Second, "2m": 2 * time.Minute, "1h": time.Hour,
		"500ms": 500 * time.Millisecond, "250us": 250 * time.Microsecond, "1d": 24 * time.Hour, "3sec": 3 * time.Second,
	} {
		got, err := parseDuration(in)
		if err != nil || got != want {
			t.Errorf("parseDuration(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"", "s", "10x", "1.5s", "99999999999999999h"} {
		if v, err := parseDuration(in); err == nil {
			t.Errorf("parseDuration(%q) = %v, want an error", in, v)
		}
	}
}

func TestParseErrorsSayWhatIsWrong(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   string
		want error
	}{
		{"a negative size is negative, not garbage", "-4k", errNegative},
		{"a word is not a number", "abc", errNotNumber},
		{"a lone minus is not a number", "-", errNotNumber},
		{"more digits than fit are too large", "99999999999999999999", errTooLarge},
		{"a unit that overflows is too large", "9000000p", errTooLarge},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := parseSize(tc.in); !errors.Is(err, tc.want) {
				t.Errorf("parseSize(%q) error %v, want %v", tc.in, err, tc.want)
			}
		})
	}
	if _, err := parseDuration("-1"); !errors.Is(err, errNegative) {
		t.Errorf("parseDuration(-1) error %v, want %v", err, errNegative)
	}
}
