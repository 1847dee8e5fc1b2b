package app

import (
	"fmt"

	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/restartsim/restartsim/sim"
)

// memoryLimit is the --setup-memory-limit flag: a Kubernetes quantity (1792Mi, 2Gi), 0 for none;
// unset keeps sim's default.
type memoryLimit struct {
	text  string
	bytes int64 // sim.Options.SetupMemoryLimit: 0 default, -1 none
}

var setupMemoryLimitHelp = fmt.Sprintf("soft memory limit (GOMEMLIMIT) of the harness, kube-apiserver and etcd while the shared fleet is created and converged, e.g. 1536Mi; 0 for none (default %dMi; a GOMEMLIMIT in the environment wins)", sim.DefaultSetupMemoryLimit>>20)

func (m *memoryLimit) String() string { return m.text }
func (m *memoryLimit) Type() string   { return "quantity" }

func (m *memoryLimit) Set(s string) error {
	q, err := resource.ParseQuantity(s)
	if err != nil {
		return fmt.Errorf("%q is not a quantity such as 1536Mi: %w", s, err)
	}
	switch v := q.Value(); {
	case v < 0:
		return fmt.Errorf("%q is negative", s)
	case v == 0:
		m.bytes = -1
	case v < 64<<20:
		return fmt.Errorf("%q is below 64Mi: no Go process of the run fits in it", s)
	default:
		m.bytes = v
	}
	m.text = s
	return nil
}
