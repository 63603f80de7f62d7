package results

import "sort"

// NodeTotal is what the clients on one node did together in one cell run.
// With clients spread over nodes it shows how the load split: a node whose
// network link or CPU is the limit gets less than its share.
type NodeTotal struct {
	Node    string  `json:"node"`
	Clients []int32 `json:"clients"`
	// Reads and writes of those clients added up (IOPS and bytes/s).
	ReadIOPS            float64 `json:"readIOPS"`
	WriteIOPS           float64 `json:"writeIOPS"`
	ReadBytesPerSecond  float64 `json:"readBytesPerSecond"`
	WriteBytesPerSecond float64 `json:"writeBytesPerSecond"`
}

// NodeTotals adds up a cell run's per-client figures by the node each
// client ran on (from the target's client summaries), nodes by name. They
// add up to the run's totals, as the clients' do. Empty when the per-client
// figures were left out of stored results.
func (tr *TargetResult) NodeTotals(rep *RepetitionResult) []NodeTotal {
	nodeOf := map[int32]string{}
	for _, s := range tr.ClientSummaries {
		nodeOf[s.Client] = s.Node
	}
	index := map[string]int{}
	var out []NodeTotal
	for _, c := range rep.Clients {
		node, ok := nodeOf[c.Client]
		if !ok || node == "" {
			node = "(unknown node)"
		}
		i, ok := index[node]
		if !ok {
			i = len(out)
			index[node] = i
			out = append(out, NodeTotal{Node: node})
		}
		t := &out[i]
		t.Clients = append(t.Clients, c.Client)
		t.ReadIOPS += c.Read.iops()
		t.WriteIOPS += c.Write.iops()
		t.ReadBytesPerSecond += c.Read.bytesPerSecond()
		t.WriteBytesPerSecond += c.Write.bytesPerSecond()
	}
	sort.Slice(out, func(a, b int) bool { return out[a].Node < out[b].Node })
	return out
}
