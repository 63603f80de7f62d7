package v1alpha1

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// Target is one storage to benchmark: a storage class the controller
// provisions volumes from, or an existing claim.
//
// +kubebuilder:validation:XValidation:rule="has(self.storageClassName) != has(self.existingClaimName)",message="a target needs exactly one of storageClassName or existingClaimName"
// +kubebuilder:validation:XValidation:rule="!has(self.storageClassName) || has(self.size)",message="size is required with storageClassName: it is the size of each volume to provision",fieldPath=".size"
// +kubebuilder:validation:XValidation:rule="!has(self.existingClaimName) || !has(self.size)",message="size only applies to storageClassName targets: an existing claim has its own size",fieldPath=".size"
// +kubebuilder:validation:XValidation:rule="!has(self.size) || !isQuantity(string(self.size)) || (quantity(string(self.size)).isInteger() && quantity(string(self.size)).compareTo(quantity('0')) > 0)",messageExpression="'size ' + string(self.size) + ' must be a positive whole number of bytes such as 10Gi'",fieldPath=".size"
type Target struct {
	// name identifies the target in results and in the names of the objects
	// created for it.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=32
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`
	Name string `json:"name"`

	// storageClassName is the class to provision volumes from.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	StorageClassName *string `json:"storageClassName,omitempty"`

	// size of each provisioned volume. Many cloud disks scale their
	// performance with size, so it is part of what is measured.
	// +optional
	Size *resource.Quantity `json:"size,omitempty"`

	// accessMode is ReadWriteOnce or ReadWriteOncePod (one volume per
	// client) or ReadWriteMany (one volume shared by all clients, e.g. NFS).
	// For existingClaimName it states how the claim is shared.
	// +optional
	// +kubebuilder:default=ReadWriteOnce
	// +kubebuilder:validation:Enum=ReadWriteOnce;ReadWriteOncePod;ReadWriteMany
	AccessMode corev1.PersistentVolumeAccessMode `json:"accessMode,omitempty"`

	// volumeMode is Filesystem (clients work on files) or Block (clients
	// work on the raw device, without a filesystem in between).
	// +optional
	// +kubebuilder:default=Filesystem
	// +kubebuilder:validation:Enum=Filesystem;Block
	VolumeMode corev1.PersistentVolumeMode `json:"volumeMode,omitempty"`

	// existingClaimName is a claim in the benchmark's namespace to use
	// instead of provisioning. Its data outside the clients' files is not
	// touched; with volumeMode Block the whole device may be overwritten.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	ExistingClaimName *string `json:"existingClaimName,omitempty"`

	// price of one volume of this target, for price-performance in the
	// comparison and for the recommendation (cheapest target meeting every
	// threshold).
	// +optional
	Price *Price `json:"price,omitempty"`
}

// Price is what one volume of a target costs.
type Price struct {
	// amount is a decimal number, e.g. "170.00".
	// +required
	// +kubebuilder:validation:MaxLength=20
	// +kubebuilder:validation:Pattern=`^[0-9]+(\.[0-9]+)?$`
	Amount string `json:"amount"`

	// currency is an ISO 4217 code, e.g. USD.
	// +required
	// +kubebuilder:validation:MaxLength=3
	// +kubebuilder:validation:Pattern=`^[A-Z]{3}$`
	Currency string `json:"currency"`

	// period the amount is charged for.
	// +optional
	// +kubebuilder:default=Month
	// +kubebuilder:validation:Enum=Hour;Month
	Period string `json:"period,omitempty"`
}
