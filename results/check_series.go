package results

// series checks a repetition's time series: every column as long as the
// others, within the point bound, no negative count.
func (c *checker) series(path string, s *Series) {
	if s == nil {
		return
	}
	if s.IntervalSeconds < 1 || s.IntervalSeconds > 86400 {
		c.failf(jsonField(path, "intervalSeconds"), "%d, want 1 to 86400", s.IntervalSeconds)
	}
	n := len(s.ReadIOs)
	if n > MaxSeriesPoints {
		c.failf(jsonField(path, "readIOs"), "%d points, at most %d", n, MaxSeriesPoints)
	}
	columns := []struct {
		name   string
		values []int64
	}{{"readIOs", s.ReadIOs}, {"writeIOs", s.WriteIOs}, {"readBytes", s.ReadBytes}, {"writeBytes", s.WriteBytes},
		{"meanLatencyNs", s.MeanLatencyNs}, {"p99UpperBoundNs", s.P99UpperBoundNs}}
	for _, column := range columns {
		if len(column.values) != n {
			c.failf(jsonField(path, column.name), "%d points, readIOs has %d", len(column.values), n)
			return
		}
		for i, v := range column.values {
			c.nonNegative(jsonIndex(jsonField(path, column.name), i), v)
		}
	}
}

// searches checks the capacity searches: known outcomes, a capacity where
// one was found, steps within the bound of maxSteps.
func (c *checker) searches(path string, searches []SearchResult) {
	seen := map[string]bool{}
	for i := range searches {
		r := &searches[i]
		p := jsonIndex(path, i)
		c.named(jsonField(p, "search"), r.Search)
		if seen[r.Search] {
			c.failf(jsonField(p, "search"), "%s again", r.Search)
		}
		seen[r.Search] = true
		switch r.Outcome {
		case SearchFound, SearchHoldsAtMaximum:
			if r.Capacity == nil {
				c.failf(jsonField(p, "capacity"), "missing: a %s search has one", r.Outcome)
			}
		case SearchNotReachable:
			if r.Capacity != nil {
				c.failf(jsonField(p, "capacity"), "set, but the bound was not reachable")
			}
		default:
			c.failf(jsonField(p, "outcome"), "%q is not Found, HoldsAtMaximum or NotReachable", r.Outcome)
		}
		if len(r.Steps) == 0 || len(r.Steps) > 24 {
			c.failf(jsonField(p, "steps"), "%d steps, want 1 to 24", len(r.Steps))
		}
		steps := append([]SearchStep(nil), r.Steps...)
		if r.Capacity != nil {
			steps = append(steps, *r.Capacity)
		}
		for k, st := range steps {
			sp := jsonIndex(jsonField(p, "steps"), k)
			if k == len(r.Steps) {
				sp = jsonField(p, "capacity")
			}
			c.rate(jsonField(sp, "achievedIOPS"), st.AchievedIOPS)
			c.rate(jsonField(sp, "bytesPerSecond"), st.BytesPerSecond)
			c.nonNegative(jsonField(sp, "offeredIOPS"), st.OfferedIOPS)
			c.nonNegative(jsonField(sp, "p50Ns"), st.P50Ns)
			c.nonNegative(jsonField(sp, "p99Ns"), st.P99Ns)
			c.nonNegative(jsonField(sp, "p999Ns"), st.P999Ns)
			c.nonNegative(jsonField(sp, "atPercentileNs"), st.AtPercentileNs)
			if st.QueueDepth < 1 || st.QueueDepth > 4096 {
				c.failf(jsonField(sp, "queueDepth"), "%d, want 1 to 4096", st.QueueDepth)
			}
		}
	}
}
