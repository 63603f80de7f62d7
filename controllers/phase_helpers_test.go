package controllers

// The harness of the phase tests: builders for a benchmark and for the
// objects a snapshot holds, a reconciler on the fake client whose
// interceptor records the API calls and injects API errors, a fake log
// reader and a fake clock. Each phase_<name>_test.go drives one phase with
// it, row by row, in the manner of JobSet's per-policy tests.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"path"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	clocktesting "k8s.io/utils/clock/testing"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	sbv1 "github.com/storagebench/storagebench/api/v1alpha1"
	"github.com/storagebench/storagebench/engine/hist"
	"github.com/storagebench/storagebench/engine/result"
	"github.com/storagebench/storagebench/internal/plan"
	"github.com/storagebench/storagebench/results"
)

// t0 is the fake clock's time when a row starts: every time in a row is
// written relative to it.
var t0 = time.Date(2026, 1, 2, 10, 0, 0, 0, time.UTC)

func at(d time.Duration) *metav1.Time { return ptr.To(metav1.NewTime(t0.Add(d))) }

var testScheme = func() *runtime.Scheme {
	s := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(s); err != nil {
		panic(err)
	}
	if err := sbv1.AddToScheme(s); err != nil {
		panic(err)
	}
	return s
}()

// --- benchmarks ---

// benchOption changes the spec (applied first, in order) or the status
// (applied after the default status for the spec is laid out).
type benchOption struct {
	spec   func(*sbv1.StorageBenchmark)
	status func(*sbv1.StorageBenchmark)
}

func specOption(f func(*sbv1.StorageBenchmark)) benchOption   { return benchOption{spec: f} }
func statusOption(f func(*sbv1.StorageBenchmark)) benchOption { return benchOption{status: f} }

// newBenchmark is a benchmark "bench" in namespace "ns", generation 1, with
// the spec's defaults filled in as admission would (the fake client does
// not default): one target t1 on class "fast" (1Gi, ReadWriteOnce), one
// client, one 1-second cell. Its status is that of a run of the generation
// started a minute before t0, every target Pending.
func newBenchmark(opts ...benchOption) *sbv1.StorageBenchmark {
	b := &sbv1.StorageBenchmark{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "bench", UID: "bench-uid", Generation: 1},
		Spec: sbv1.StorageBenchmarkSpec{
			Targets: []sbv1.Target{classTarget("t1", "fast")},
			Clients: sbv1.Clients{Count: 1, Spread: sbv1.SpreadPreferred, MaxClockOffsetMilliseconds: 500},
			Dataset: sbv1.Dataset{SizePerClient: "64Mi", FilesPerClient: 1, Fill: sbv1.FillIfMissing, Content: sbv1.ContentRandom},
			Workloads: []sbv1.WorkloadGroup{{
				Name: "w", Access: sbv1.AccessRandom, BlockSizes: []sbv1.BlockSize{"4Ki"}, ReadPercents: []int32{100},
				QueueDepths: []int32{8}, NumJobs: []int32{1}, DurationSeconds: 1, RampSeconds: ptr.To[int32](0), Direct: ptr.To(true), SyncWrites: ptr.To(false),
			}},
			Repetitions:     1,
			TargetExecution: sbv1.TargetsSequential,
			Cleanup:         sbv1.Cleanup{Volumes: sbv1.CleanupDelete, ClientPods: sbv1.CleanupDelete},
			Timeouts:        sbv1.Timeouts{VolumeBindSeconds: 600, PrepareSeconds: 3600, CollectSeconds: 300},
		},
	}
	for _, o := range opts {
		if o.spec != nil {
			o.spec(b)
		}
	}
	b.Status = sbv1.StorageBenchmarkStatus{ObservedGeneration: b.Generation, StartTime: at(-time.Minute)}
	for _, t := range b.Spec.Targets {
		b.Status.Targets = append(b.Status.Targets, sbv1.TargetStatus{Name: t.Name, State: sbv1.TargetPending})
	}
	conditionSetter{status: &b.Status, generation: b.Generation}.running(sbv1.ReasonRunStarted, "run started")
	for _, o := range opts {
		if o.status != nil {
			o.status(b)
		}
	}
	return b
}

func classTarget(name, class string) sbv1.Target {
	return sbv1.Target{Name: name, StorageClassName: ptr.To(class), Size: ptr.To(resource.MustParse("1Gi")),
		AccessMode: corev1.ReadWriteOnce, VolumeMode: corev1.PersistentVolumeFilesystem}
}

func claimTarget(name, claim string) sbv1.Target {
	return sbv1.Target{Name: name, ExistingClaimName: ptr.To(claim), AccessMode: corev1.ReadWriteMany, VolumeMode: corev1.PersistentVolumeFilesystem}
}

func withTargets(targets ...sbv1.Target) benchOption {
	return specOption(func(b *sbv1.StorageBenchmark) { b.Spec.Targets = targets })
}

func withClients(n int32) benchOption {
	return specOption(func(b *sbv1.StorageBenchmark) { b.Spec.Clients.Count = n })
}

func withSpread(p sbv1.SpreadPolicy) benchOption {
	return specOption(func(b *sbv1.StorageBenchmark) { b.Spec.Clients.Spread = p })
}

func node(name string) *corev1.Node {
	return &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{corev1.LabelHostname: name}}}
}

func cordoned(n *corev1.Node) *corev1.Node {
	n.Spec.Unschedulable = true
	return n
}

func withWorkloads(w ...sbv1.WorkloadGroup) benchOption {
	return specOption(func(b *sbv1.StorageBenchmark) { b.Spec.Workloads = w })
}

func withGeneration(g int64) benchOption {
	return specOption(func(b *sbv1.StorageBenchmark) { b.Generation = g })
}

func withSpec(f func(*sbv1.StorageBenchmarkSpec)) benchOption {
	return specOption(func(b *sbv1.StorageBenchmark) { f(&b.Spec) })
}

// withStatus edits the status after the default one is laid out.
func withStatus(f func(*sbv1.StorageBenchmarkStatus)) benchOption {
	return statusOption(func(b *sbv1.StorageBenchmark) { f(&b.Status) })
}

// withTarget edits one target's status entry.
func withTarget(name string, f func(*sbv1.TargetStatus)) benchOption {
	return statusOption(func(b *sbv1.StorageBenchmark) {
		for i := range b.Status.Targets {
			if b.Status.Targets[i].Name == name {
				f(&b.Status.Targets[i])
				return
			}
		}
		panic("no status entry for target " + name)
	})
}

// provisioning is a target whose provisioning started at since (from t0).
func provisioning(since time.Duration) func(*sbv1.TargetStatus) {
	return func(st *sbv1.TargetStatus) {
		st.State = sbv1.TargetProvisioning
		st.ProvisioningStartTime = at(since)
	}
}

// bound is a provisioning target whose volumes bound after ms.
func bound(since time.Duration, ms int64) func(*sbv1.TargetStatus) {
	return func(st *sbv1.TargetStatus) {
		provisioning(since)(st)
		st.VolumesBoundMilliseconds = ptr.To(ms)
	}
}

// freshGeneration is a benchmark whose generation has not been observed:
// the status the CRD defaults (observedGeneration -1), or a previous run's.
func freshGeneration() benchOption {
	return statusOption(func(b *sbv1.StorageBenchmark) { b.Status = sbv1.StorageBenchmarkStatus{ObservedGeneration: -1} })
}

func target(b *sbv1.StorageBenchmark, name string) *sbv1.Target {
	for i := range b.Spec.Targets {
		if b.Spec.Targets[i].Name == name {
			return &b.Spec.Targets[i]
		}
	}
	panic("no target " + name)
}

func targetStatus(b *sbv1.StorageBenchmark, name string) *sbv1.TargetStatus {
	for i := range b.Status.Targets {
		if b.Status.Targets[i].Name == name {
			return &b.Status.Targets[i]
		}
	}
	return nil
}

// --- the objects of a snapshot ---

// owned makes obj the benchmark's child, as createOwned would.
func owned(b *sbv1.StorageBenchmark, obj client.Object) client.Object {
	if err := controllerutil.SetControllerReference(b, obj, testScheme); err != nil {
		panic(err)
	}
	if obj.GetUID() == "" {
		obj.SetUID(types.UID("uid-" + obj.GetName()))
	}
	return obj
}

// claimsOf are the target's claims, as the controller creates them, in
// the given phase ("" for a claim no controller has looked at yet).
func claimsOf(b *sbv1.StorageBenchmark, target string, phase corev1.PersistentVolumeClaimPhase) []client.Object {
	var out []client.Object
	for _, c := range buildClaims(b, targetOf(b, target)) {
		c.Status.Phase = phase
		out = append(out, owned(b, c))
	}
	return out
}

// jobsOf are the target's client Jobs; each condition given is True on
// every Job (with a reason and a message).
func jobsOf(b *sbv1.StorageBenchmark, target string, conditions ...batchv1.JobCondition) []client.Object {
	t := targetOf(b, target)
	var out []client.Object
	for _, j := range clientJobs(b, t) {
		job := buildClientJob(b, t, targetPlan(b, t), j, ClientPodConfig{Image: "storagebench:test"})
		job.Status.Conditions = append(job.Status.Conditions, conditions...)
		out = append(out, owned(b, job))
	}
	return out
}

func jobFailed(reason, message string) batchv1.JobCondition {
	return batchv1.JobCondition{Type: batchv1.JobFailed, Status: corev1.ConditionTrue, Reason: reason, Message: message}
}

func jobComplete() batchv1.JobCondition {
	return batchv1.JobCondition{Type: batchv1.JobComplete, Status: corev1.ConditionTrue}
}

// podOption changes the pod of one client (index i).
type podOption func(i int32, pod *corev1.Pod)

// podsOf are the target's client pods as the Job controller would create
// them: scheduled on node-1, Running and Ready unless options say else.
func podsOf(b *sbv1.StorageBenchmark, target string, opts ...podOption) []client.Object {
	var out []client.Object
	for _, obj := range jobsOf(b, target) {
		job := obj.(*batchv1.Job)
		for i := int32(0); i < *job.Spec.Completions; i++ {
			tmpl := job.Spec.Template.DeepCopy()
			index := i
			if c, ok := tmpl.Labels[labelClient]; ok {
				n, _ := strconv.Atoi(c)
				index = int32(n)
			}
			pod := &corev1.Pod{
				ObjectMeta: metav1.ObjectMeta{
					Name: fmt.Sprintf("%s-%d-abcde", job.Name, i), Namespace: job.Namespace, UID: types.UID(fmt.Sprintf("uid-pod-%s-%d", job.Name, i)),
					Labels: tmpl.Labels, Annotations: tmpl.Annotations,
					OwnerReferences: []metav1.OwnerReference{{APIVersion: "batch/v1", Kind: "Job", Name: job.Name, UID: job.UID, Controller: ptr.To(true)}},
				},
				Spec: tmpl.Spec,
				Status: corev1.PodStatus{Phase: corev1.PodRunning, Conditions: []corev1.PodCondition{
					{Type: corev1.PodScheduled, Status: corev1.ConditionTrue}, {Type: corev1.PodReady, Status: corev1.ConditionTrue},
				}},
			}
			pod.Annotations[batchv1.JobCompletionIndexAnnotation] = strconv.Itoa(int(i))
			pod.Spec.NodeName = "node-1"
			for _, o := range opts {
				o(index, pod)
			}
			out = append(out, pod)
		}
	}
	return out
}

// onClient applies opts to one client's pod only.
func onClient(client int32, opts ...podOption) podOption {
	return func(i int32, pod *corev1.Pod) {
		if i == client {
			for _, o := range opts {
				o(i, pod)
			}
		}
	}
}

// notReady is a running pod still laying out its data set.
func notReady() podOption {
	return func(_ int32, pod *corev1.Pod) {
		pod.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionTrue}, {Type: corev1.PodReady, Status: corev1.ConditionFalse}}
	}
}

// unschedulable is a pending pod the scheduler could not place.
func unschedulable(message string) podOption {
	return func(_ int32, pod *corev1.Pod) {
		pod.Spec.NodeName = ""
		pod.Status = corev1.PodStatus{Phase: corev1.PodPending, Conditions: []corev1.PodCondition{
			{Type: corev1.PodScheduled, Status: corev1.ConditionFalse, Reason: corev1.PodReasonUnschedulable, Message: message},
		}}
	}
}

// succeeded is a pod whose engine exited 0.
func succeeded() podOption {
	return func(_ int32, pod *corev1.Pod) { terminate(pod, corev1.PodSucceeded, 0, "Completed", "") }
}

// failed is a pod whose engine exited non-zero with a termination message.
func failed(exitCode int32, message string) podOption {
	return func(_ int32, pod *corev1.Pod) { terminate(pod, corev1.PodFailed, exitCode, "Error", message) }
}

func terminate(pod *corev1.Pod, phase corev1.PodPhase, exitCode int32, reason, message string) {
	pod.Status.Phase = phase
	pod.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionFalse}}
	pod.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "engine", State: corev1.ContainerState{
		Terminated: &corev1.ContainerStateTerminated{ExitCode: exitCode, Reason: reason, Message: message},
	}}}
}

// deleting is a pod being deleted (the finalizer keeps it in the fake
// client, as the Job controller's tracking finalizer would).
func deleting() podOption {
	return func(_ int32, pod *corev1.Pod) {
		pod.DeletionTimestamp = at(-time.Second)
		pod.Finalizers = []string{batchv1.JobTrackingFinalizer}
	}
}

// ofGeneration relabels a pod as one of another generation's.
func ofGeneration(g int64) podOption {
	return func(_ int32, pod *corev1.Pod) { pod.Labels[labelGeneration] = generationLabel(g) }
}

// runObjects are what ensureRunObjects creates: the client identity, the
// plan ConfigMap and an empty start ConfigMap.
func runObjects(b *sbv1.StorageBenchmark) []client.Object {
	sa, role, binding := buildClientAccess(b)
	plans := map[string]string{}
	for i := range b.Spec.Targets {
		plans[planKey(&b.Spec.Targets[i])] = "{}"
	}
	return []client.Object{owned(b, sa), owned(b, role), owned(b, binding), owned(b, buildPlanConfigMap(b, plans)), startConfigMap(b, nil)}
}

// startConfigMap holds the given start records, by target.
func startConfigMap(b *sbv1.StorageBenchmark, records map[string]plan.StartRecord) client.Object {
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: startConfigMapName(b), Namespace: b.Namespace, Labels: benchmarkLabels(b, componentStart)}}
	for target, r := range records {
		if cm.Data == nil {
			cm.Data = map[string]string{}
		}
		cm.Data[target] = r.Encode()
	}
	return owned(b, cm)
}

// testLead is the start lead the phases publish with in these tests: the
// fake clock stands still, so the measured read takes no time, and the
// benchmarks allow a 500 ms clock offset.
var testLead = plan.StartLead(0, 500*time.Millisecond)

// startedAt is a start record of the benchmark's generation published
// testLead before start.
func startedAt(b *sbv1.StorageBenchmark, start time.Time) plan.StartRecord {
	return plan.StartRecord{Generation: b.Generation, Start: start, PublishedAt: start.Add(-testLead)}
}

// resultsConfigMap stores a target's result for the benchmark's generation.
func resultsConfigMap(b *sbv1.StorageBenchmark, target string, tr *results.TargetResult) *corev1.ConfigMap {
	data, binary, err := results.EncodeStored(tr)
	if err != nil {
		panic(err)
	}
	t := targetOf(b, target)
	return owned(b, &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: resultsConfigMapName(b, t), Namespace: b.Namespace, Labels: runLabels(b, t, componentResults)},
		Data:       data, BinaryData: binary,
	}).(*corev1.ConfigMap)
}

func storageClass(name string) *storagev1.StorageClass {
	return &storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: name}, Provisioner: "example.com/" + name, Parameters: map[string]string{"tier": name}}
}

func userClaim(name string, mode corev1.PersistentVolumeAccessMode, volumeMode corev1.PersistentVolumeMode) *corev1.PersistentVolumeClaim {
	return &corev1.PersistentVolumeClaim{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name},
		Spec:       corev1.PersistentVolumeClaimSpec{AccessModes: []corev1.PersistentVolumeAccessMode{mode}, VolumeMode: ptr.To(volumeMode)},
	}
}

func targetOf(b *sbv1.StorageBenchmark, name string) *sbv1.Target { return target(b, name) }

func objects(groups ...[]client.Object) []client.Object {
	var out []client.Object
	for _, g := range groups {
		out = append(out, g...)
	}
	return out
}

func one(objs ...client.Object) []client.Object { return objs }

// --- client reports and results ---

// clientLog is the log of a client that ran the target's plan from start:
// its framed report, one engine document per cell run.
func clientLog(b *sbv1.StorageBenchmark, target string, client int32, start time.Time) string {
	return clientLogWithError(b, target, client, start, "")
}

// clientLogWithError is clientLog with the report's error set.
func clientLogWithError(b *sbv1.StorageBenchmark, target string, client int32, start time.Time, failure string) string {
	p := targetPlan(b, targetOf(b, target))
	report := &results.ClientReport{
		SchemaVersion: results.ClientReportSchema, Benchmark: p.Benchmark, Generation: p.Generation,
		Target: p.Target, Client: client, Node: "node-1", EngineVersion: "test", StartUnixNano: start.UnixNano(),
		Error: failure,
	}
	for _, slot := range p.Slots {
		for _, cell := range slot.Cells {
			report.Runs = append(report.Runs, results.CellRun{Cell: cell.Name, Repetition: slot.Repetition,
				Document: engineDocument(cell, client, start.Add(time.Duration(slot.OffsetMilliseconds)*time.Millisecond))})
		}
	}
	var buf bytes.Buffer
	buf.WriteString("I0102 a log line before the report\n")
	if err := results.WriteClientReport(&buf, report); err != nil {
		panic(err)
	}
	return buf.String()
}

func engineDocument(cell sbv1.Cell, client int32, start time.Time) *result.Document {
	job := result.Job{JobName: cell.Name}
	ext := result.JobExtension{JobName: cell.Name, Backend: "io_uring", StartUnixNano: start.UnixNano() + int64(client)*1000, EndUnixNano: start.Add(time.Second).UnixNano()}
	fill := func(d *result.Direction, e *result.DirectionExtension) {
		h := hist.New()
		for i := 0; i < 100; i++ {
			h.Record(int64(20_000 + i*100 + int(client)*10))
		}
		n := h.Count()
		*d = result.Direction{TotalIOs: n, IOBytes: n * 4096, BwBytes: n * 4096, IOPS: float64(n)}
		*e = result.DirectionExtension{Lat: h.Encode(), Clat: h.Encode()}
	}
	if cell.Reads() {
		fill(&job.Read, &ext.Read)
	}
	if cell.Writes() {
		fill(&job.Write, &ext.Write)
	}
	return &result.Document{Jobs: []result.Job{job}, Storagebench: result.Extension{SchemaVersion: result.SchemaVersion, Jobs: []result.JobExtension{ext}}}
}

// mergedResult is the target's result as collect merges it from every
// client's log.
func mergedResult(b *sbv1.StorageBenchmark, target string, start time.Time) *results.TargetResult {
	p := targetPlan(b, targetOf(b, target))
	var reports []*results.ClientReport
	for c := int32(0); c < p.Clients; c++ {
		r, err := results.ReadClientReport(strings.NewReader(clientLog(b, target, c, start)), results.MaxReportBytes)
		if err != nil {
			panic(err)
		}
		reports = append(reports, r)
	}
	tr, err := results.Merge(p, reports)
	if err != nil {
		panic(err)
	}
	return tr
}

// --- the reconciler on the fake client ---

// fakeLogs serves client logs by pod name; a pod without one gets err.
// The controller reads several at once.
type fakeLogs struct {
	mu   sync.Mutex
	logs map[string]string
	errs map[string]error
	read []string
}

func (f *fakeLogs) ReadLog(_ context.Context, _, pod, container string, limitBytes int64) (io.ReadCloser, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.read = append(f.read, pod+"/"+container)
	if err := f.errs[pod]; err != nil {
		return nil, err
	}
	log, ok := f.logs[pod]
	if !ok {
		return nil, fmt.Errorf("pods %q not found", pod)
	}
	if int64(len(log)) > limitBytes {
		log = log[:limitBytes]
	}
	return io.NopCloser(strings.NewReader(log)), nil
}

// fault makes the API answer err to one kind of call: verb is get, create,
// update or delete; kind the object's kind; name "" matches any name.
type fault struct {
	verb, kind, name string
	err              error
}

func failing(verb, kind, name string, err error) fault { return fault{verb, kind, name, err} }

var (
	errInternal = apierrors.NewInternalError(errors.New("etcd leader changed"))
	errTimeout  = apierrors.NewTimeoutError("request timed out", 1)
)

func conflict(kind, name string) error {
	return apierrors.NewConflict(schema.GroupResource{Resource: strings.ToLower(kind) + "s"}, name, errors.New("the object has been modified"))
}

func alreadyExists(kind, name string) error {
	return apierrors.NewAlreadyExists(schema.GroupResource{Resource: strings.ToLower(kind) + "s"}, name)
}

func notFound(kind, name string) error {
	return apierrors.NewNotFound(schema.GroupResource{Resource: strings.ToLower(kind) + "s"}, name)
}

// harness is one row's world: the reconciler, its fake API and clock, and
// what the phase did to them.
type harness struct {
	t      *testing.T
	r      *StorageBenchmarkReconciler
	b      *sbv1.StorageBenchmark
	clock  *clocktesting.FakeClock
	logs   *fakeLogs
	faults []fault
	// calls are the writes attempted ("create ConfigMap/name"), failed
	// ones included; reads are the uncached gets. A phase may make them
	// from several goroutines (createAllOwned).
	mu           sync.Mutex
	calls, reads []string
	p            *pass
}

func newHarness(t *testing.T, b *sbv1.StorageBenchmark, objs []client.Object, faults ...fault) *harness {
	t.Helper()
	h := &harness{t: t, b: b, clock: clocktesting.NewFakeClock(t0), logs: &fakeLogs{logs: map[string]string{}, errs: map[string]error{}}, faults: faults}
	for _, o := range objs {
		o.SetResourceVersion("")
	}
	c := fake.NewClientBuilder().WithScheme(testScheme).WithObjects(objs...).WithInterceptorFuncs(interceptor.Funcs{
		Get: func(ctx context.Context, c client.WithWatch, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
			h.mu.Lock()
			h.reads = append(h.reads, h.describe("get", obj, key.Name))
			h.mu.Unlock()
			if err := h.fault("get", obj, key.Name); err != nil {
				return err
			}
			return c.Get(ctx, key, obj, opts...)
		},
		Create: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.CreateOption) error {
			return h.write("create", obj, func() error { return c.Create(ctx, obj, opts...) })
		},
		Update: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.UpdateOption) error {
			return h.write("update", obj, func() error { return c.Update(ctx, obj, opts...) })
		},
		Delete: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.DeleteOption) error {
			return h.write("delete", obj, func() error { return c.Delete(ctx, obj, opts...) })
		},
		Patch: func(ctx context.Context, c client.WithWatch, obj client.Object, patch client.Patch, opts ...client.PatchOption) error {
			return h.write("patch", obj, func() error { return c.Patch(ctx, obj, patch, opts...) })
		},
	}).Build()
	h.r = &StorageBenchmarkReconciler{
		Client: cacheLike{c}, APIReader: c, Scheme: testScheme, Logs: h.logs,
		ClientPods: ClientPodConfig{Image: "storagebench:test"}, Clock: h.clock, references: newReferences(), generations: newGenerations(),
	}
	return h
}

// cacheLike reads as the manager's cache does: ConfigMaps of stored
// results come without their data (CacheOptions).
type cacheLike struct{ client.Client }

func (c cacheLike) Get(ctx context.Context, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
	if err := c.Client.Get(ctx, key, obj, opts...); err != nil {
		return err
	}
	_, err := dropStoredResultsData(obj)
	return err
}

func (c cacheLike) List(ctx context.Context, list client.ObjectList, opts ...client.ListOption) error {
	if err := c.Client.List(ctx, list, opts...); err != nil {
		return err
	}
	if cms, ok := list.(*corev1.ConfigMapList); ok {
		for i := range cms.Items {
			if _, err := dropStoredResultsData(&cms.Items[i]); err != nil {
				return err
			}
		}
	}
	return nil
}

func (h *harness) write(verb string, obj client.Object, do func() error) error {
	h.mu.Lock()
	h.calls = append(h.calls, h.describe(verb, obj, obj.GetName()))
	h.mu.Unlock()
	if err := h.fault(verb, obj, obj.GetName()); err != nil {
		if verb == "create" && apierrors.IsAlreadyExists(err) {
			// A create that loses to AlreadyExists lost to an earlier
			// pass, whose object is there: the controller reads it back.
			_ = do()
		}
		return err
	}
	return do()
}

func (h *harness) kind(obj client.Object) string {
	gvk, err := apiutil.GVKForObject(obj, testScheme)
	if err != nil {
		return fmt.Sprintf("%T", obj)
	}
	return gvk.Kind
}

func (h *harness) describe(verb string, obj client.Object, name string) string {
	return verb + " " + h.kind(obj) + "/" + name
}

func (h *harness) fault(verb string, obj client.Object, name string) error {
	for _, f := range h.faults {
		if f.verb == verb && f.kind == h.kind(obj) && (f.name == "" || f.name == name) {
			return f.err
		}
	}
	return nil
}

// snapshot reads the world as a pass does (observe, through the fake
// client); its reads are not recorded.
func (h *harness) snapshot() *snapshot {
	h.t.Helper()
	s, err := h.r.observe(context.Background(), h.b)
	if err != nil {
		h.t.Fatalf("observe: %v", err)
	}
	h.reads = nil
	return s
}

// pass is a pass over the benchmark at the fake clock's time; the row's
// events are read from the last one made.
func (h *harness) pass() *pass {
	h.p = newPass(h.b, h.clock)
	return h.p
}

// target is the named target's run within a pass.
func (h *harness) target(p *pass, name string) *targetRun {
	for i := range h.b.Spec.Targets {
		if h.b.Spec.Targets[i].Name == name {
			return h.r.targetRun(p, i)
		}
	}
	h.t.Fatalf("no target %s", name)
	return nil
}

// --- what a row expects ---

// outcome is what a phase returned and left behind.
type outcome struct {
	// err is a substring of the returned error ("" for no error); errIs
	// checks that the API's error is wrapped, not replaced.
	err   string
	errIs func(error) bool
	// done, wait and failure are the targetStep: failure is the reason,
	// failureHas substrings of its message.
	done       bool
	wait       time.Duration
	failure    string
	failureHas []string
	// events are "Type Reason/Action", in order.
	events []string
	// calls are the writes, "verb Kind/name" (path.Match patterns), in
	// order; nil means none.
	calls []string
}

func (h *harness) expectStep(step targetStep, err error, want outcome) {
	h.t.Helper()
	h.expectErr(err, want)
	if step.done != want.done || step.wait != want.wait {
		h.t.Errorf("step: done %v, wait %s; want done %v, wait %s", step.done, step.wait, want.done, want.wait)
	}
	switch {
	case want.failure == "" && step.failure != nil:
		h.t.Errorf("step fails the run (%s: %s); want no failure", step.failure.reason, step.failure.message)
	case want.failure != "" && step.failure == nil:
		h.t.Errorf("step does not fail the run; want %s", want.failure)
	case want.failure != "":
		if step.failure.reason != want.failure {
			h.t.Errorf("failure reason %s, want %s (message %q)", step.failure.reason, want.failure, step.failure.message)
		}
		for _, s := range want.failureHas {
			if !strings.Contains(step.failure.message, s) {
				h.t.Errorf("failure message %q lacks %q", step.failure.message, s)
			}
		}
	}
	h.expectEffects(want)
}

func (h *harness) expectErr(err error, want outcome) {
	h.t.Helper()
	switch {
	case want.err == "" && err != nil:
		h.t.Errorf("unexpected error: %v", err)
	case want.err != "" && err == nil:
		h.t.Errorf("no error; want one containing %q", want.err)
	case want.err != "" && !strings.Contains(err.Error(), want.err):
		h.t.Errorf("error %q lacks %q", err, want.err)
	}
	if want.errIs != nil && (err == nil || !want.errIs(err)) {
		h.t.Errorf("error %v does not wrap the API's error", err)
	}
}

// expectEffects checks the events queued and the writes made.
func (h *harness) expectEffects(want outcome) {
	h.t.Helper()
	h.expectEvents(want.events)
	h.expectCalls(want.calls)
}

func (h *harness) expectEvents(want []string) {
	h.t.Helper()
	var got []string
	for _, e := range h.lastPass().events {
		got = append(got, e.kind+" "+e.reason+"/"+e.action)
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		h.t.Errorf("events:\n  %s\nwant:\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
}

// expectCalls checks the writes as a set of patterns: a phase that
// creates or deletes several objects does so in parallel, in no order.
func (h *harness) expectCalls(want []string) {
	h.t.Helper()
	ok := len(want) == len(h.calls)
	used := make([]bool, len(h.calls))
	for _, pattern := range want {
		if !ok {
			break
		}
		ok = false
		for i, call := range h.calls {
			if matched, _ := path.Match(pattern, call); matched && !used[i] {
				used[i], ok = true, true
				break
			}
		}
	}
	if !ok {
		h.t.Errorf("API writes:\n  %s\nwant:\n  %s", strings.Join(h.calls, "\n  "), strings.Join(want, "\n  "))
	}
}

func (h *harness) lastPass() *pass {
	h.t.Helper()
	if h.p == nil {
		h.t.Fatal("the row made no pass")
	}
	return h.p
}

// expectConditions checks the benchmark's conditions, as "Type=Status/Reason"
// in any order, and that each carries the generation it describes.
func expectConditions(t *testing.T, b *sbv1.StorageBenchmark, want ...string) {
	t.Helper()
	var got []string
	for _, c := range b.Status.Conditions {
		got = append(got, fmt.Sprintf("%s=%s/%s", c.Type, c.Status, c.Reason))
		if c.ObservedGeneration != b.Generation {
			t.Errorf("condition %s has observedGeneration %d, want %d", c.Type, c.ObservedGeneration, b.Generation)
		}
	}
	sort.Strings(got)
	want = append([]string(nil), want...)
	sort.Strings(want)
	if strings.Join(got, ", ") != strings.Join(want, ", ") {
		t.Errorf("conditions %v, want %v", got, want)
	}
}

// conditionMessage is the message of one condition ("" if absent).
func conditionMessage(b *sbv1.StorageBenchmark, kind string) string {
	for _, c := range b.Status.Conditions {
		if c.Type == kind {
			return c.Message
		}
	}
	return ""
}

// running are the conditions of a run in progress.
var running = []string{"Reconciling=True/RunStarted", "Completed=False/RunStarted", "Ready=False/RunStarted"}

// --- rows over one target's phase ---

// phase is one of the target phases, as a method expression.
type phase func(r *StorageBenchmarkReconciler, ctx context.Context, p *pass, s *snapshot, t *targetRun) (targetStep, error)

// phaseRow is one sentence about a phase run on target t1.
type phaseRow struct {
	name   string
	bench  *sbv1.StorageBenchmark
	objs   func(b *sbv1.StorageBenchmark) []client.Object
	faults []fault
	// logs are the client logs by pod name; logErrs the pods whose log
	// cannot be read.
	logs    func(b *sbv1.StorageBenchmark) map[string]string
	logErrs map[string]error
	outcome
	// state and message are t1's status afterwards.
	state   sbv1.TargetState
	message string
	// check looks at whatever else the row is about.
	check func(t *testing.T, h *harness)
}

func runPhase(t *testing.T, f phase, rows []phaseRow) {
	t.Helper()
	for _, tc := range rows {
		t.Run(tc.name, func(t *testing.T) {
			var objs []client.Object
			if tc.objs != nil {
				objs = tc.objs(tc.bench)
			}
			h := newHarness(t, tc.bench, objs, tc.faults...)
			if tc.logs != nil {
				h.logs.logs = tc.logs(tc.bench)
			}
			for pod, err := range tc.logErrs {
				h.logs.errs[pod] = err
			}
			s := h.snapshot()
			p := h.pass()
			step, err := f(h.r, context.Background(), p, s, h.target(p, "t1"))
			h.expectStep(step, err, tc.outcome)
			st := targetStatus(tc.bench, "t1")
			if st.State != tc.state {
				t.Errorf("state %s, want %s", st.State, tc.state)
			}
			if st.Message != tc.message {
				t.Errorf("message:\n  %q\nwant\n  %q", st.Message, tc.message)
			}
			if tc.check != nil {
				tc.check(t, h)
			}
		})
	}
}

// pods keeps the pods of the given clients only.
func pods(objs []client.Object, clients ...int32) []client.Object {
	keep := map[string]bool{}
	for _, c := range clients {
		keep[strconv.Itoa(int(c))] = true
	}
	var out []client.Object
	for _, o := range objs {
		pod := o.(*corev1.Pod)
		c := pod.Labels[labelClient]
		if c == "" {
			c = pod.Annotations[batchv1.JobCompletionIndexAnnotation]
		}
		if keep[c] {
			out = append(out, o)
		}
	}
	return out
}

// matches reports whether name matches pattern (path.Match syntax).
func matches(pattern, name string) bool {
	ok, _ := path.Match(pattern, name)
	return ok
}
