//go:build e2e

package e2e

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	sbv1 "github.com/storagebench/storagebench/api/v1alpha1"
	"github.com/storagebench/storagebench/results"
)

// The local cluster's dynamic provisioner (hack/local-cluster.sh: rancher's
// local-path-provisioner) and its network file system class.
const (
	localPathProvisioner = "rancher.io/local-path"
	glusterClass         = "gluster"
)

// boundVolumes waits until the namespace holds want bound claims and
// returns their volumes, checking that the provisioner made each one.
func boundVolumes(t *testing.T, ns string, want int) []*corev1.PersistentVolume {
	t.Helper()
	var pvs []*corev1.PersistentVolume
	waitFor(t, 3*time.Minute, fmt.Sprintf("%d bound claims in %s", want, ns), func() error {
		var claims corev1.PersistentVolumeClaimList
		if err := k8s.List(context.Background(), &claims, client.InNamespace(ns)); err != nil {
			return err
		}
		pvs = pvs[:0]
		for _, c := range claims.Items {
			if c.Status.Phase != corev1.ClaimBound {
				return fmt.Errorf("claim %s is %s", c.Name, c.Status.Phase)
			}
			pv := &corev1.PersistentVolume{}
			if err := k8s.Get(context.Background(), client.ObjectKey{Name: c.Spec.VolumeName}, pv); err != nil {
				return err
			}
			pvs = append(pvs, pv)
		}
		if len(pvs) != want {
			return fmt.Errorf("%d bound claims", len(pvs))
		}
		return nil
	})
	for _, pv := range pvs {
		if by := pv.Annotations["pv.kubernetes.io/provisioned-by"]; by != localPathProvisioner {
			t.Errorf("volume %s was provisioned by %q, want %s", pv.Name, by, localPathProvisioner)
		}
		if pv.Spec.HostPath == nil {
			t.Fatalf("volume %s has no hostPath: %+v", pv.Name, pv.Spec.PersistentVolumeSource)
		}
	}
	return pvs
}

// volumeNode is the node a node-local volume is pinned to.
func volumeNode(t *testing.T, pv *corev1.PersistentVolume) string {
	t.Helper()
	if a := pv.Spec.NodeAffinity; a != nil && a.Required != nil {
		for _, term := range a.Required.NodeSelectorTerms {
			for _, e := range term.MatchExpressions {
				if e.Key == corev1.LabelHostname && len(e.Values) == 1 {
					return e.Values[0]
				}
			}
		}
	}
	t.Fatalf("volume %s has no node affinity to one host: %+v", pv.Name, pv.Spec.NodeAffinity)
	return ""
}

// requireNodes fails the test on a cluster with fewer nodes than it needs
// (hack/local-cluster.sh starts two unless STORAGEBENCH_NODES says less).
func requireNodes(t *testing.T, n int) {
	t.Helper()
	if got := clusterNodes(t); got < n {
		t.Fatalf("this test needs %d nodes, the cluster has %d (start it with STORAGEBENCH_NODES=%d or more)", n, got, n)
	}
}

// timedTarget is a completed run's only target, with the timings every
// completed target records.
func timedTarget(t *testing.T, b *sbv1.StorageBenchmark) *sbv1.TargetStatus {
	t.Helper()
	if len(b.Status.Targets) == 0 {
		t.Fatalf("%s has no target status", b.Name)
	}
	ts := &b.Status.Targets[0]
	if ts.VolumesBoundMilliseconds == nil || ts.ClientsReadyMilliseconds == nil || ts.ProvisioningStartTime == nil || ts.MeasurementStartTime == nil {
		t.Fatalf("target %s lacks its timings: %+v", ts.Name, ts)
	}
	return ts
}

// clusterNodes counts the cluster's nodes.
func clusterNodes(t *testing.T) int {
	t.Helper()
	var nodes corev1.NodeList
	if err := k8s.List(context.Background(), &nodes); err != nil {
		t.Fatal(err)
	}
	return len(nodes.Items)
}

// waitVolumesDeleted waits until the provisioner has deleted the volumes and
// their folders (its teardown helper pods ran).
func waitVolumesDeleted(t *testing.T, pvs []*corev1.PersistentVolume) {
	t.Helper()
	waitFor(t, 3*time.Minute, "the provisioner deletes the volumes", func() error {
		for _, pv := range pvs {
			err := k8s.Get(context.Background(), client.ObjectKey{Name: pv.Name}, &corev1.PersistentVolume{})
			if !apierrors.IsNotFound(err) {
				return fmt.Errorf("volume %s still there (%v)", pv.Name, err)
			}
			if _, err := os.Stat(pv.Spec.HostPath.Path); !errors.Is(err, os.ErrNotExist) {
				return fmt.Errorf("folder %s still there (%v)", pv.Spec.HostPath.Path, err)
			}
		}
		return nil
	})
}

// TestDynamicallyProvisionedClaims runs 2 clients on claims of their own
// (ReadWriteOnce) of a capped class whose volumes local-path-provisioner
// makes on demand, with spread Required on the two nodes: each claim binds
// to a volume it provisioned on the node its client was scheduled to
// (WaitForFirstConsumer), the binding time in status is the provisioner's
// real time, the clients on both nodes together measure the class's device
// cap, and once the run deletes its claims the provisioner deletes the
// volumes and their folders.
func TestDynamicallyProvisionedClaims(t *testing.T) {
	requireNodes(t, 2)
	ns := benchNamespace(t, "dynamic")
	b := &sbv1.StorageBenchmark{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "dynamic"},
		Spec: sbv1.StorageBenchmarkSpec{
			Targets: []sbv1.Target{target("capped", "capped-1500")},
			Clients: sbv1.Clients{Count: 2, Spread: sbv1.SpreadRequired, Resources: clientResources()},
			Dataset: sbv1.Dataset{SizePerClient: "48Mi"},
			Workloads: []sbv1.WorkloadGroup{{Name: "rand", BlockSizes: []sbv1.BlockSize{"4Ki"}, ReadPercents: []int32{100},
				QueueDepths: []int32{8}, DurationSeconds: 8, RampSeconds: ptr.To[int32](1)}},
		},
	}
	create(t, b)
	pvs := boundVolumes(t, ns, 2)
	got := waitCompleted(t, ns, "dynamic", 5*time.Minute)
	ts := timedTarget(t, got)
	total := iops(t, cellSummary(t, got, "capped", "rand-bs4k-r100-qd8-j1"))
	limit := float64(classCap(t, "capped-1500"))
	t.Logf("2 clients on 2 provisioned volumes (%s, %s): %.0f IOPS together, cap %.0f; claims bound after %d ms, clients ready after %d ms",
		pvs[0].Name, pvs[1].Name, total, limit, *ts.VolumesBoundMilliseconds, *ts.ClientsReadyMilliseconds)
	if *ts.VolumesBoundMilliseconds <= 0 {
		t.Errorf("volumesBoundMilliseconds %d: the provisioner's time is missing", *ts.VolumesBoundMilliseconds)
	}
	if math.Abs(total/limit-1) > capTolerance {
		t.Errorf("aggregate %.0f IOPS is not within %.0f%% of the device cap %.0f", total, capTolerance*100, limit)
	}
	clientNodes := map[string]bool{}
	for _, c := range targetResult(t, got, "capped").ClientSummaries {
		clientNodes[c.Node] = true
	}
	volumeNodes := map[string]bool{}
	for _, pv := range pvs {
		volumeNodes[volumeNode(t, pv)] = true
	}
	t.Logf("clients on %v, volumes on %v", clientNodes, volumeNodes)
	if len(clientNodes) != 2 || len(volumeNodes) != 2 {
		t.Errorf("spread Required: clients on %v and volumes on %v, want each on its own node", clientNodes, volumeNodes)
	}
	for n := range volumeNodes {
		if !clientNodes[n] {
			t.Errorf("a volume was provisioned on node %s, where no client ran (clients on %v)", n, clientNodes)
		}
	}
	waitVolumesDeleted(t, pvs) // cleanup.volumes Delete: the claims go once the results are stored
}

// TestSeed003SharedNetworkVolume is seed 003's shape, scaled down: 4 clients
// on 2 nodes sharing one ReadWriteMany claim of the GlusterFS class (a real
// network file system: FUSE client, glusterd and brick behind a veth pair),
// a read-percent matrix. The brick's device cap bounds the volume, so every
// cell's reads and writes each stay within it and the all-read and
// all-write cells reach it; the clients' figures and the nodes' add up to
// the total.
func TestSeed003SharedNetworkVolume(t *testing.T) {
	ns := benchNamespace(t, "seed003")
	tgt := target("nfs", glusterClass)
	tgt.AccessMode = corev1.ReadWriteMany
	b := &sbv1.StorageBenchmark{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "seed003"},
		Spec: sbv1.StorageBenchmarkSpec{
			Targets: []sbv1.Target{tgt},
			Clients: sbv1.Clients{Count: 4, Resources: clientResources()},
			Dataset: sbv1.Dataset{SizePerClient: "32Mi"},
			Workloads: []sbv1.WorkloadGroup{{Name: "rand", BlockSizes: []sbv1.BlockSize{"4Ki"}, ReadPercents: []int32{100, 70, 0},
				QueueDepths: []int32{4}, DurationSeconds: 8, RampSeconds: ptr.To[int32](1)}},
		},
	}
	create(t, b)
	got := waitCompleted(t, ns, "seed003", 8*time.Minute)
	limit := float64(classCap(t, glusterClass))
	tr := targetResult(t, got, "nfs")
	nodes := map[string]bool{}
	for _, s := range tr.ClientSummaries {
		nodes[s.Node] = true
	}
	if len(tr.ClientSummaries) != 4 {
		t.Fatalf("%d clients in the results, want 4", len(tr.ClientSummaries))
	}
	for _, cell := range tr.Cells {
		rep := cell.Result()
		var reads, writes float64
		var per []string
		for _, c := range rep.Clients {
			r, w := dirIOPS(c.Read), dirIOPS(c.Write)
			reads += r
			writes += w
			per = append(per, fmt.Sprintf("%.0f", r+w))
		}
		t.Logf("%s: %.0f read + %.0f write IOPS (clients %s; cap %.0f per direction)", cell.Cell.Name,
			dirIOPS(rep.Read), dirIOPS(rep.Write), strings.Join(per, " + "), limit)
		if math.Abs(reads-dirIOPS(rep.Read)) > 1 || math.Abs(writes-dirIOPS(rep.Write)) > 1 {
			t.Errorf("%s: the clients' %.1f/%.1f IOPS do not add up to the merged %.1f/%.1f", cell.Cell.Name,
				reads, writes, dirIOPS(rep.Read), dirIOPS(rep.Write))
		}
		for dir, v := range map[string]float64{"read": dirIOPS(rep.Read), "write": dirIOPS(rep.Write)} {
			if v > limit*(1+capTolerance) {
				t.Errorf("%s: %.0f %s IOPS above the brick's cap %.0f", cell.Cell.Name, v, dir, limit)
			}
		}
		switch cell.Cell.ReadPercent {
		case 100, 0:
			if math.Abs(rep.TotalIOPS()/limit-1) > capTolerance {
				t.Errorf("%s: %.0f IOPS is not within %.0f%% of the brick's cap %.0f", cell.Cell.Name, rep.TotalIOPS(), capTolerance*100, limit)
			}
		}
	}
	if want := min(clusterNodes(t), 4); len(nodes) != want {
		t.Errorf("clients on %d node(s) (%v), want %d (spread Preferred)", len(nodes), nodes, want)
	}
	for _, cell := range tr.Cells {
		rep := cell.Result()
		var reads, writes float64
		for _, n := range tr.NodeTotals(rep) {
			t.Logf("%s on %s (clients %v): %.0f read + %.0f write IOPS", cell.Cell.Name, n.Node, n.Clients, n.ReadIOPS, n.WriteIOPS)
			reads += n.ReadIOPS
			writes += n.WriteIOPS
		}
		if math.Abs(reads-dirIOPS(rep.Read)) > 1 || math.Abs(writes-dirIOPS(rep.Write)) > 1 {
			t.Errorf("%s: the nodes' %.1f/%.1f IOPS do not add up to the merged %.1f/%.1f", cell.Cell.Name, reads, writes, dirIOPS(rep.Read), dirIOPS(rep.Write))
		}
	}
}

// TestSpreadRequiredWithMoreClientsThanNodes asks for every client on a node
// of its own with one client more than the cluster has nodes: the run fails
// at once naming the nodes that could take them (the scheduler alone would
// leave a client Pending until timeouts.prepareSeconds).
func TestSpreadRequiredWithMoreClientsThanNodes(t *testing.T) {
	ns := benchNamespace(t, "spread")
	nodes := clusterNodes(t)
	b := &sbv1.StorageBenchmark{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "spread"},
		Spec: sbv1.StorageBenchmarkSpec{
			Targets: []sbv1.Target{target("fast", "fast")},
			Clients: sbv1.Clients{Count: int32(nodes + 1), Spread: sbv1.SpreadRequired, Resources: clientResources()},
			Dataset: sbv1.Dataset{SizePerClient: "16Mi"},
			Workloads: []sbv1.WorkloadGroup{{Name: "one", BlockSizes: []sbv1.BlockSize{"4Ki"}, ReadPercents: []int32{100},
				QueueDepths: []int32{8}, DurationSeconds: 5, RampSeconds: ptr.To[int32](0)}},
		},
	}
	began := time.Now()
	create(t, b)
	stalled := waitStalled(t, ns, "spread")
	t.Logf("after %s: Stalled: %s: %s", time.Since(began).Round(100*time.Millisecond), stalled.Reason, stalled.Message)
	if stalled.Reason != sbv1.ReasonClientsUnschedulable {
		t.Errorf("Stalled reason %s, want %s", stalled.Reason, sbv1.ReasonClientsUnschedulable)
	}
	for _, want := range []string{"target fast", "clients.spread Required", fmt.Sprintf("but %d node(s) can take them", nodes), "localhost"} {
		if !strings.Contains(stalled.Message, want) {
			t.Errorf("Stalled message %q does not say %q", stalled.Message, want)
		}
	}
}

// dirIOPS is one direction's IOPS, 0 for a direction the cell did not run.
func dirIOPS(d *results.DirectionStats) float64 {
	if d == nil {
		return 0
	}
	return d.IOPS
}

// waitStalled waits for the benchmark's Stalled condition to be True.
func waitStalled(t *testing.T, ns, name string) *metav1.Condition {
	t.Helper()
	var stalled *metav1.Condition
	waitFor(t, 3*time.Minute, name+" Stalled", func() error {
		got := get(t, ns, name)
		if stalled = condition(got, sbv1.ConditionStalled); stalled == nil || stalled.Status != metav1.ConditionTrue {
			return fmt.Errorf("not stalled: %s", describeConditions(got))
		}
		return nil
	})
	return stalled
}

// localCluster runs a verb of hack/local-cluster.sh.
func localCluster(t *testing.T, args ...string) {
	t.Helper()
	out, err := exec.Command("../local-cluster.sh", args...).CombinedOutput()
	if err != nil {
		t.Fatalf("hack/local-cluster.sh %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// TestProvisionerStoppedMidRun kills the provisioner once the first of two
// targets runs: the second target's claims (WaitForFirstConsumer: they are
// provisioned only once its clients are scheduled) never bind, and the run
// stops at volumeBindSeconds with a Stalled condition naming the claim and
// the provisioner it waited for.
func TestProvisionerStoppedMidRun(t *testing.T) {
	ns := benchNamespace(t, "provisioner-down")
	b := &sbv1.StorageBenchmark{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "stalls"},
		Spec: sbv1.StorageBenchmarkSpec{
			Targets: []sbv1.Target{target("first", "fast"), target("second", "capped-8000")},
			Clients: sbv1.Clients{Count: 1, Resources: clientResources()},
			Dataset: sbv1.Dataset{SizePerClient: "16Mi"},
			Workloads: []sbv1.WorkloadGroup{{Name: "one", BlockSizes: []sbv1.BlockSize{"4Ki"}, ReadPercents: []int32{100},
				QueueDepths: []int32{8}, DurationSeconds: 5, RampSeconds: ptr.To[int32](0)}},
			Timeouts: sbv1.Timeouts{VolumeBindSeconds: 20},
		},
	}
	create(t, b)
	waitFor(t, 3*time.Minute, "target first running", func() error {
		got := get(t, ns, "stalls")
		for _, ts := range got.Status.Targets {
			if ts.Name == "first" && ts.VolumesBoundMilliseconds != nil {
				return nil
			}
		}
		return fmt.Errorf("target first not bound yet")
	})
	localCluster(t, "provisioner", "stop")
	t.Cleanup(func() { localCluster(t, "provisioner", "start") })
	stalled := waitStalled(t, ns, "stalls")
	t.Logf("Stalled: %s: %s", stalled.Reason, stalled.Message)
	if stalled.Reason != sbv1.ReasonVolumeNotBound {
		t.Errorf("Stalled reason %s, want %s", stalled.Reason, sbv1.ReasonVolumeNotBound)
	}
	for _, want := range []string{"target second", "stalls-second-", "waiting for provisioner " + localPathProvisioner, "timeouts.volumeBindSeconds"} {
		if !strings.Contains(stalled.Message, want) {
			t.Errorf("Stalled message %q does not name %q", stalled.Message, want)
		}
	}
}
