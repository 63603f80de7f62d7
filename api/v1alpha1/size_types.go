package v1alpha1

import (
	"k8s.io/apimachinery/pkg/api/resource"
)

// BlockSize is an IO size written as a Kubernetes quantity ("4Ki", "64Ki",
// "1Mi", "4096"): a multiple of 512 bytes from 512 to 64Mi. A string type
// with a bounded length rather than resource.Quantity, because admission
// rules that parse quantities must be cheap enough for the API server's CEL
// cost budget.
//
// +kubebuilder:validation:MinLength=1
// +kubebuilder:validation:MaxLength=16
// +kubebuilder:validation:XValidation:rule="isQuantity(self) && quantity(self).isInteger() && quantity(self).asInteger() % 512 == 0 && quantity(self).asInteger() >= 512 && quantity(self).asInteger() <= 67108864",messageExpression="'block size ' + self + ' must be a multiple of 512 bytes between 512 and 64Mi (use binary suffixes: 4Ki, not 4k)'"
type BlockSize string

// Bytes is the size in bytes; 0 when the string is not a quantity (which
// admission rejects).
func (b BlockSize) Bytes() int64 { return quantityBytes(string(b)) }

// ByteSize is an amount of data written as a Kubernetes quantity ("400Mi",
// "1Ti").
//
// +kubebuilder:validation:MinLength=1
// +kubebuilder:validation:MaxLength=16
// +kubebuilder:validation:XValidation:rule="isQuantity(self) && quantity(self).isInteger() && quantity(self).compareTo(quantity('0')) > 0",messageExpression="'size ' + self + ' must be a positive whole number of bytes such as 400Mi or 1Ti'"
type ByteSize string

// Bytes is the size in bytes; 0 when the string is not a quantity.
func (b ByteSize) Bytes() int64 { return quantityBytes(string(b)) }

func quantityBytes(s string) int64 {
	q, err := resource.ParseQuantity(s)
	if err != nil {
		return 0
	}
	return q.Value()
}
