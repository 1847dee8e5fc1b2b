package app

import (
	"fmt"

	"k8s.io/apimachinery/pkg/api/resource"
)

// byteSize is a flag holding a positive size, written as a Kubernetes quantity (32Mi, 1Gi) or in bytes.
type byteSize struct {
	text  string
	bytes int64
}

func newByteSize(n int64) byteSize {
	return byteSize{text: resource.NewQuantity(n, resource.BinarySI).String(), bytes: n}
}

func (b *byteSize) String() string { return b.text }
func (b *byteSize) Type() string   { return "quantity" }

func (b *byteSize) Set(s string) error {
	q, err := resource.ParseQuantity(s)
	if err != nil {
		return fmt.Errorf("%q is not a quantity such as 64Mi: %w", s, err)
	}
	if q.Sign() <= 0 {
		return fmt.Errorf("%q must be more than 0", s)
	}
	b.text, b.bytes = s, q.Value()
	return nil
}
