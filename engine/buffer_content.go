package engine

import (
	"fmt"
	"strings"
)

// What written buffers hold, as fio's buffer options shape it: by default
// random data with each IO's offset and time stamped into every 512 bytes
// (fio's scramble_buffers), so that no two writes are alike;
// refill_buffers makes every write fresh random data; buffer_compress_
// percentage=N makes each buffer_compress_chunk N % zeros after (100-N) %
// random bytes, so that it compresses to about (100-N) %; dedupe_
// percentage=N makes N % of the writes repeat one earlier buffer, so that
// deduplicating storage stores them once. Compression and dedupe imply
// refill_buffers, as in fio, so that neighbours do not share content.

func init() {
	for _, o := range []option{
		{name: "refill_buffers", flag: true, help: "fresh random data in every write (default: random buffers with each IO's offset and time stamped in)", apply: boolOpt(func(j *JobSpec, v bool) { j.Content.Refill = v })},
		{name: "scramble_buffers", flag: true, help: "stamp each write's offset and time into its buffer so that no two writes are alike (default 1); 0 writes the same buffers over and over", apply: boolOpt(func(j *JobSpec, v bool) { j.Content.NoScramble = !v })},
		{name: "buffer_compress_percentage", help: "make each write compress to about (100 - N) %: every buffer_compress_chunk is (100 - N) % random bytes, then zeros", apply: numberOpt(percentKind, func(j *JobSpec, v int64) { j.Content.CompressPercent, j.Content.CompressSet = int(v), true })},
		{name: "buffer_compress_chunk", help: "the unit buffer_compress_percentage applies to (default 512)", apply: numberOpt(sizeKind, func(j *JobSpec, v int64) { j.Content.CompressChunk = v })},
		{name: "dedupe_percentage", help: "make N % of the writes repeat an earlier buffer (dedupable)", apply: numberOpt(percentKind, func(j *JobSpec, v int64) { j.Content.DedupePercent = int(v) })},
		{name: "dedupe_mode", help: "repeat (the default: dedupable writes repeat an earlier buffer); working_set is refused", apply: func(j *JobSpec, s string) error {
			if v := strings.TrimSpace(s); v != "repeat" {
				return fmt.Errorf("%s is not implemented: only repeat (the default) is", excerpt(s))
			}
			return nil
		}},
	} {
		registerOption(o)
	}
}

// BufferContent is a job's written-buffer options beyond zero_buffers.
type BufferContent struct {
	Refill, NoScramble bool
	// CompressPercent is buffer_compress_percentage (CompressSet: given);
	// CompressChunk its unit, 0 for fio's 512.
	CompressPercent int
	CompressSet     bool
	CompressChunk   int64
	DedupePercent   int
}

// custom reports whether writes need more than the default scramble.
func (c BufferContent) custom() bool {
	return c.Refill || c.NoScramble || c.CompressSet || c.DedupePercent > 0
}

// validateContent refuses combinations with no meaning.
func (j *JobSpec) validateContent() error {
	c := j.Content
	switch {
	case c.CompressChunk < 0:
		return fmt.Errorf("job %q: buffer_compress_chunk: must not be negative", j.Name)
	case j.ZeroBuffers && c.custom():
		return fmt.Errorf("job %q: zero_buffers: not with refill_buffers, scramble_buffers=0, buffer_compress_percentage or dedupe_percentage (zeros are all alike)", j.Name)
	case j.Verify.Sum != "" && (c.CompressSet || c.DedupePercent > 0):
		return fmt.Errorf("job %q: verify: not with buffer_compress_percentage or dedupe_percentage (every verified block carries its own header)", j.Name)
	}
	return nil
}

// contentFiller fills one worker's write buffers by its job's options.
type contentFiller struct {
	c      BufferContent
	chunk  int
	repeat []byte // what a dedupable write repeats (nil without dedupe)
}

func newContentFiller(c BufferContent, maxBlock int64, r *rng) *contentFiller {
	f := &contentFiller{c: c, chunk: int(c.CompressChunk)}
	if f.chunk <= 0 {
		f.chunk = 512
	}
	if c.DedupePercent > 0 {
		f.repeat = make([]byte, maxBlock)
		f.fresh(f.repeat, r)
	}
	return f
}

// fill makes buf the content of the next write; it reports whether buf
// is to be scrambled (stamped with the IO's offset and time) as well.
func (f *contentFiller) fill(buf []byte, r *rng) (scramble bool) {
	if f.repeat != nil && int(r.below(100)) < f.c.DedupePercent {
		copy(buf, f.repeat)
		return false
	}
	if f.c.Refill || f.c.CompressSet || f.c.DedupePercent > 0 {
		f.fresh(buf, r)
	}
	return !f.c.NoScramble && !f.c.CompressSet && f.c.DedupePercent == 0
}

// fresh fills buf with random bytes, each chunk ending in the zeros its
// compress percentage asks for.
func (f *contentFiller) fresh(buf []byte, r *rng) {
	if !f.c.CompressSet {
		r.fill(buf)
		return
	}
	for i := 0; i < len(buf); i += f.chunk {
		chunk := buf[i:min(i+f.chunk, len(buf))]
		random := len(chunk) * (100 - f.c.CompressPercent) / 100
		r.fill(chunk[:random])
		clear(chunk[random:])
	}
}
