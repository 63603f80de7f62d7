package controllers

import (
	"context"
	"io"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// LogReader reads a client container's log, where its report is. An
// interface so integration tests, which have no kubelet, can serve logs.
type LogReader interface {
	ReadLog(ctx context.Context, namespace, pod, container string, limitBytes int64) (io.ReadCloser, error)
}

// SinceLogReader also reads only the lines written since a time: a client
// of a target with searches writes a report per round, and its log grows
// with every round (and may be rotated by the kubelet), while the round's
// report is among the lines after the round's start.
type SinceLogReader interface {
	ReadLogSince(ctx context.Context, namespace, pod, container string, limitBytes int64, since time.Time) (io.ReadCloser, error)
}

// KubeletLogReader reads logs through the API server (pods/log).
type KubeletLogReader struct {
	Clientset kubernetes.Interface
}

// ReadLog streams at most limitBytes of the container's log.
func (k KubeletLogReader) ReadLog(ctx context.Context, namespace, pod, container string, limitBytes int64) (io.ReadCloser, error) {
	return k.Clientset.CoreV1().Pods(namespace).GetLogs(pod, &corev1.PodLogOptions{
		Container:  container,
		LimitBytes: &limitBytes,
	}).Stream(ctx)
}

// ReadLogSince streams at most limitBytes of the lines logged since a time
// (the kubelet compares it with each line's own timestamp, whole seconds).
func (k KubeletLogReader) ReadLogSince(ctx context.Context, namespace, pod, container string, limitBytes int64, since time.Time) (io.ReadCloser, error) {
	sinceTime := metav1.NewTime(since)
	return k.Clientset.CoreV1().Pods(namespace).GetLogs(pod, &corev1.PodLogOptions{
		Container:  container,
		LimitBytes: &limitBytes,
		SinceTime:  &sinceTime,
	}).Stream(ctx)
}
