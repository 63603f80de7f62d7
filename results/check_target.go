package results

import (
	sbv1 "github.com/storagebench/storagebench/api/v1alpha1"
)

// maxRatePerCount bounds a rate by what it counts: IOPS at most this many
// times the IOs, bytes per second at most this many times the bytes. A cell
// runs for a second or more, so even a factor of 1000 (a run shorter than a
// millisecond) is impossible; the bound keeps absurd rates out, and with
// them sums that overflow to infinity.
const maxRatePerCount = 1000

// maxMetadataRatePerCount is maxRatePerCount for metadata cells, which end
// when their names are done: a thousand stats of cached names take about a
// millisecond, so the bound is a cell of a microsecond.
const maxMetadataRatePerCount = 1e6

// Check rejects a target's results that cannot be rendered or cannot be
// what Merge wrote (see check.go). path is where the result sits in its
// document: "" for a results ConfigMap, "targets[1]" in a run's results;
// errors name the offending value by its JSON path from there.
func (tr *TargetResult) Check(path string) error {
	if tr == nil {
		return &invalidValue{path: path, problem: "null"}
	}
	c := &checker{}
	c.target(path, tr)
	return c.err
}

func (c *checker) target(path string, tr *TargetResult) {
	at := func(name string) string { return jsonField(path, name) }
	if tr.SchemaVersion != TargetResultSchema {
		c.failf(at("schemaVersion"), "%q, want %q", tr.SchemaVersion, TargetResultSchema)
	}
	c.named(at("target"), tr.Target)
	if tr.Clients < 1 || tr.Clients > sbv1.MaxClients {
		c.failf(at("clients"), "%d, want 1 to %d", tr.Clients, sbv1.MaxClients)
	}
	// Backends and the environment's node names are left as they are:
	// Merge copies them from what the engine and the cluster said, which
	// may be empty, and the renderers only print them.
	c.nonNegative(at("startSkewMicroseconds"), tr.StartSkewMicroseconds)
	c.nonNegative(at("timings.volumesBoundMilliseconds"), tr.Timings.VolumesBoundMilliseconds)
	c.nonNegative(at("timings.clientsReadyMilliseconds"), tr.Timings.ClientsReadyMilliseconds)
	c.nonNegative(at("timings.prepareMilliseconds"), tr.Timings.PrepareMilliseconds)
	c.nonNegative(at("timings.startLeadMilliseconds"), tr.Timings.StartLeadMilliseconds)
	c.nonNegative(at("timings.collectionMilliseconds"), tr.Timings.CollectionMilliseconds)
	seen := map[int32]bool{}
	for i, s := range tr.ClientSummaries {
		p := jsonIndex(at("clientSummaries"), i)
		c.client(jsonField(p, "client"), s.Client, tr.Clients, seen)
		c.nonNegative(jsonField(p, "prepareMilliseconds"), s.PrepareMilliseconds)
	}
	c.warnings(at("warnings"), tr.Warnings)
	c.searches(at("searches"), tr.Searches)
	cells := map[string]int{}
	for i := range tr.Cells {
		if !c.ok() {
			return
		}
		p := jsonIndex(at("cells"), i)
		cr := &tr.Cells[i]
		if j, dup := cells[cr.Cell.Name]; dup && cr.Cell.Name != "" {
			c.failf(jsonField(p, "cell.name"), "%s again: cells[%d] holds its results", cr.Cell.Name, j)
		}
		cells[cr.Cell.Name] = i
		c.cell(p, cr, tr.Clients)
	}
}

// client checks a client index: within the target's clients, each once.
func (c *checker) client(path string, client, clients int32, seen map[int32]bool) {
	switch {
	case client < 0 || client >= clients:
		c.failf(path, "%d is not one of the %d clients (0 to %d)", client, clients, clients-1)
	case seen[client]:
		c.failf(path, "%d again", client)
	}
	seen[client] = true
}

func (c *checker) cell(path string, cr *CellResult, clients int32) {
	cell := &cr.Cell
	c.named(jsonField(path, "cell.name"), cell.Name)
	if cell.ReadPercent < 0 || cell.ReadPercent > 100 {
		c.failf(jsonField(path, "cell.readPercent"), "%d is not a percentage", cell.ReadPercent)
	}
	c.nonNegative(jsonField(path, "cell.blockSizeBytes"), cell.BlockSizeBytes)
	c.nonNegative(jsonField(path, "cell.blockSizeMaxBytes"), cell.BlockSizeMaxBytes)
	reps := jsonField(path, "repetitions")
	switch n := len(cr.Repetitions); {
	case n == 0:
		c.failf(reps, "empty: Merge keeps every repetition of a cell, and a cell has at least one")
	case cr.Chosen < 0 || cr.Chosen >= n:
		c.failf(jsonField(path, "chosen"), "%d is not one of the %d repetitions (0 to %d)", cr.Chosen, n, n-1)
	}
	c.rate(jsonField(path, "spreadPercent"), cr.SpreadPercent)
	for k := range cr.Repetitions {
		if !c.ok() {
			return
		}
		c.repetition(jsonIndex(reps, k), &cr.Repetitions[k], cell, clients)
	}
}

func (c *checker) repetition(path string, r *RepetitionResult, cell *sbv1.Cell, clients int32) {
	c.nonNegative(jsonField(path, "repetition"), int64(r.Repetition))
	c.nonNegative(jsonField(path, "startSkewMicroseconds"), r.StartSkewMicroseconds)
	// Merge gives a repetition the directions its cell does, always: a
	// missing one is a null or a hand edit, and would show as no IOs.
	c.directions(path, r.Read, r.Write, cell, true)
	c.cpu(jsonField(path, "cpu"), r.CPU)
	c.series(jsonField(path, "series"), r.Series)
	seen := map[int32]bool{}
	for i := range r.Clients {
		if !c.ok() {
			return
		}
		cr := &r.Clients[i]
		p := jsonIndex(jsonField(path, "clients"), i)
		c.client(jsonField(p, "client"), cr.Client, clients, seen)
		c.nonNegative(jsonField(p, "startOffsetMicroseconds"), cr.StartOffsetMicroseconds)
		c.nonNegative(jsonField(p, "endUnixNano"), cr.EndUnixNano)
		// A client's direction is left out when it did no IOs.
		c.directions(p, cr.Read, cr.Write, cell, false)
		c.cpu(jsonField(p, "cpu"), cr.CPU)
	}
}

// directions checks reads and writes against what the cell does.
func (c *checker) directions(path string, read, write *DirectionStats, cell *sbv1.Cell, required bool) {
	for _, d := range []struct {
		name  string
		stats *DirectionStats
		does  bool
	}{{"read", read, cell.Reads()}, {"write", write, cell.Writes()}} {
		p := jsonField(path, d.name)
		switch {
		case d.stats == nil && d.does && required:
			c.failf(p, "missing, yet cell %s is %d%% reads", cell.Name, cell.ReadPercent)
		case d.stats != nil && !d.does:
			c.failf(p, "present, yet cell %s is %d%% reads", cell.Name, cell.ReadPercent)
		case d.stats != nil:
			c.direction(p, d.stats, cell.MaxBlockSizeBytes(), ratePerCount(cell))
		}
	}
}

// ratePerCount is how much faster than one per second a cell's rates may
// be than its counts.
func ratePerCount(cell *sbv1.Cell) float64 {
	if cell.IsMetadata() {
		return maxMetadataRatePerCount
	}
	return maxRatePerCount
}

// cpu checks a cell's or client's CPU figures: finite, not negative.
func (c *checker) cpu(path string, u *CPUUsage) {
	if u == nil {
		return
	}
	c.rate(jsonField(path, "userSeconds"), u.UserSeconds)
	c.rate(jsonField(path, "systemSeconds"), u.SystemSeconds)
	c.rate(jsonField(path, "percent"), u.Percent)
	c.rate(jsonField(path, "microsecondsPerIO"), u.MicrosecondsPerIO)
}

func (c *checker) direction(path string, d *DirectionStats, maxBlockBytes int64, maxRate float64) {
	at := func(name string) string { return jsonField(path, name) }
	c.nonNegative(at("ios"), d.IOs)
	c.nonNegative(at("bytes"), d.Bytes)
	c.rate(at("iops"), d.IOPS)
	c.rate(at("bytesPerSecond"), d.BytesPerSecond)
	if !c.ok() {
		return
	}
	switch {
	case d.IOs == 0 && (d.Bytes != 0 || d.IOPS != 0 || d.BytesPerSecond != 0):
		c.failf(at("ios"), "0, yet %d bytes at %v IOPS and %v bytes per second", d.Bytes, d.IOPS, d.BytesPerSecond)
	case d.IOs > 0 && d.Bytes == 0 && maxBlockBytes > 0:
		c.failf(at("bytes"), "0, yet %d IOs of up to %d bytes", d.IOs, maxBlockBytes)
	case maxBlockBytes > 0 && float64(d.Bytes) > float64(d.IOs)*float64(maxBlockBytes):
		c.failf(at("bytes"), "%d is more than %d IOs of at most %d bytes each can move", d.Bytes, d.IOs, maxBlockBytes)
	case d.IOPS > float64(d.IOs)*maxRate:
		c.failf(at("iops"), "%v from %d IOs: the cell would have lasted under %s", d.IOPS, d.IOs, shortest(maxRate))
	case d.BytesPerSecond > float64(d.Bytes)*maxRate:
		c.failf(at("bytesPerSecond"), "%v from %d bytes: the cell would have lasted under %s", d.BytesPerSecond, d.Bytes, shortest(maxRate))
	}
	c.latency(at("latencyNs"), d.LatencyNs)
	c.latency(at("completionLatencyNs"), d.CompletionLatencyNs)
	c.histogram(at("latencyHistogram"), d.LatencyHistogram, d.IOs)
	c.histogram(at("completionLatencyHistogram"), d.CompletionLatencyHistogram, d.IOs)
}

// latency checks a summary as summarize writes it: no negative latency,
// and min <= p50 <= p90 <= p99 <= p99.9 <= max (percentiles are clamped to
// the exact extremes), the mean between the extremes.
func (c *checker) latency(path string, l LatencyNs) {
	if l.Min > l.Max {
		c.failf(jsonField(path, "min"), "%d is above max %d", l.Min, l.Max)
		return
	}
	order := []struct {
		name string
		v    int64
	}{{"min", l.Min}, {"p50", l.P50}, {"p90", l.P90}, {"p99", l.P99}, {"p999", l.P999}, {"max", l.Max}}
	for i, o := range order {
		c.nonNegative(jsonField(path, o.name), o.v)
		if i > 0 && o.v < order[i-1].v {
			c.failf(jsonField(path, o.name), "%d is below %s %d", o.v, order[i-1].name, order[i-1].v)
		}
	}
	c.rate(jsonField(path, "mean"), l.Mean)
	// The mean is exact; allow for its rounding.
	if slack := 1 + float64(l.Max)*1e-9; c.ok() && (l.Mean > float64(l.Max)+slack || l.Mean < float64(l.Min)-slack) {
		c.failf(jsonField(path, "mean"), "%v is outside min %d to max %d", l.Mean, l.Min, l.Max)
	}
}

// shortest names the shortest cell a rate bound allows.
func shortest(maxRate float64) string {
	if maxRate >= maxMetadataRatePerCount {
		return "a microsecond"
	}
	return "a millisecond"
}
