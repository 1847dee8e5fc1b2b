package actions

import (
	"context"
	"fmt"
	"time"

	"github.com/restartsim/restartsim/sim/measure"
	"github.com/restartsim/restartsim/sim/objects"
	"github.com/restartsim/restartsim/sim/scenario"
)

// ObjectDeps are the scenario's object groups as a run made them.
type ObjectDeps struct {
	Fleet *objects.Fleet
	// Env is what the groups' templates and patches were rendered with.
	Env objects.Env
	// AWS finds the resource of an object named by AWS name at the patch.
	AWS objects.AWSState
}

// patch applies a churn step's merge patch to st.Count objects of its group, drawn with the run's
// seed, and records one change per object, applied once AWS is seen to show it.
func (e *Executor) patch(ctx context.Context, st scenario.Step) error {
	if e.objects == nil || e.objApplied == nil {
		return fmt.Errorf("churn %s: the run has no object groups", st.Kind)
	}
	pt, err := e.objects.Fleet.CompilePatch(objects.Patch{Group: st.Group, Merge: st.Patch, Applied: st.Applied, Mutations: st.Mutations}, "patch")
	if err != nil {
		return fmt.Errorf("churn %s: %w", st.Kind, err)
	}
	e.mu.Lock()
	first := e.patchSeq + 1
	e.patchSeq += st.Count
	e.mu.Unlock()
	e.event("churn", fmt.Sprintf("%s %s × %d", st.Kind, st.Group, st.Count), time.Now(), nil)
	at := time.Now()
	changes, err := pt.Apply(ctx, e.client, e.objects.Env, objects.PatchOptions{Count: st.Count, Rand: e.rng, FirstSeq: first,
		Concurrency: mutationWorkers, AWS: e.objects.AWS})
	// The objects patched before an error are changes all the same.
	for _, ch := range changes {
		id := fmt.Sprintf("patch-%s-%04d", ch.Group, ch.Seq)
		e.objApplied.Track(id, ch)
		e.mu.Lock()
		e.changes = append(e.changes, measure.Change{ID: id, Kind: scenario.ChurnPatch, Object: ch.Group + "/" + ch.Key.String(),
			ARN: ch.ARN, Mutations: ch.Mutations, At: e.sec(at)})
		e.mu.Unlock()
	}
	if err != nil {
		return fmt.Errorf("churn %s %s: %w", st.Kind, st.Group, err)
	}
	return nil
}
