package workload

import (
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

func TestEstablishedAt(t *testing.T) {
	crd := &unstructured.Unstructured{Object: map[string]any{"status": map[string]any{"conditions": []any{
		map[string]any{"type": "NamesAccepted", "status": "True", "lastTransitionTime": "2026-01-02T03:04:00Z"},
		map[string]any{"type": "Established", "status": "True", "lastTransitionTime": "2026-01-02T03:04:05Z"},
	}}}}
	got, ok := establishedAt(crd)
	if want := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC); !ok || !got.Equal(want) {
		t.Errorf("establishedAt = %v, %v; want %v", got, ok, want)
	}
	if _, ok := establishedAt(&unstructured.Unstructured{Object: map[string]any{}}); ok {
		t.Error("establishedAt of a CRD without conditions: ok")
	}
}
