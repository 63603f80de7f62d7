// Package v1alpha1 contains the StorageBenchmark API, group storagebench.io.
//
// +kubebuilder:object:generate=true
// +groupName=storagebench.io
package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

var (
	// GroupVersion is the group and version of every kind in this package.
	GroupVersion = schema.GroupVersion{Group: "storagebench.io", Version: "v1alpha1"}

	// SchemeBuilder registers the kinds of this package with a scheme. It
	// is apimachinery's, as in k8s.io/api, so that importing the API does
	// not pull in controller-runtime.
	SchemeBuilder = runtime.NewSchemeBuilder(addKnownTypes)

	// AddToScheme adds the kinds of this package to a scheme.
	AddToScheme = SchemeBuilder.AddToScheme
)

func addKnownTypes(s *runtime.Scheme) error {
	s.AddKnownTypes(GroupVersion, &StorageBenchmark{}, &StorageBenchmarkList{}, &StorageBenchmarkSchedule{}, &StorageBenchmarkScheduleList{})
	metav1.AddToGroupVersion(s, GroupVersion)
	return nil
}
