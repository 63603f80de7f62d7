package results

import (
	"reflect"
	"testing"
)

func TestNodeTotals(t *testing.T) {
	tr := &TargetResult{ClientSummaries: []ClientSummary{{Client: 0, Node: "b"}, {Client: 1, Node: "a"}, {Client: 2, Node: "b"}}}
	rep := &RepetitionResult{
		Read:  &DirectionStats{IOPS: 600, BytesPerSecond: 6000},
		Write: &DirectionStats{IOPS: 60, BytesPerSecond: 600},
		Clients: []ClientResult{
			{Client: 0, Read: &DirectionStats{IOPS: 100, BytesPerSecond: 1000}, Write: &DirectionStats{IOPS: 10, BytesPerSecond: 100}},
			{Client: 1, Read: &DirectionStats{IOPS: 300, BytesPerSecond: 3000}}, // did no writes
			{Client: 2, Read: &DirectionStats{IOPS: 200, BytesPerSecond: 2000}, Write: &DirectionStats{IOPS: 50, BytesPerSecond: 500}},
		},
	}
	got := tr.NodeTotals(rep)
	want := []NodeTotal{
		{Node: "a", Clients: []int32{1}, ReadIOPS: 300, ReadBytesPerSecond: 3000},
		{Node: "b", Clients: []int32{0, 2}, ReadIOPS: 300, WriteIOPS: 60, ReadBytesPerSecond: 3000, WriteBytesPerSecond: 600},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("NodeTotals:\n  %+v\nwant\n  %+v", got, want)
	}
	var reads, writes float64
	for _, n := range got {
		reads += n.ReadIOPS
		writes += n.WriteIOPS
	}
	if reads != rep.Read.IOPS || writes != rep.Write.IOPS {
		t.Errorf("nodes add up to %v/%v, the run did %v/%v", reads, writes, rep.Read.IOPS, rep.Write.IOPS)
	}
	if n := tr.NodeTotals(&RepetitionResult{}); len(n) != 0 {
		t.Errorf("no per-client figures: %v", n)
	}
}
