package clientrun

import corev1 "k8s.io/api/core/v1"

func sbv1AccessMode(s string) corev1.PersistentVolumeAccessMode {
	return corev1.PersistentVolumeAccessMode(s)
}
