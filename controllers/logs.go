package controllers

import (
	"context"
	"io"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/kubernetes"
)

// LogReader reads a client container's log, where its report is. An
// interface so integration tests, which have no kubelet, can serve logs.
type LogReader interface {
	ReadLog(ctx context.Context, namespace, pod, container string, limitBytes int64) (io.ReadCloser, error)
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
