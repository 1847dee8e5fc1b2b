package actions

import (
	"context"
	"fmt"

	"github.com/restartsim/restartsim/sim/measure"
	"github.com/restartsim/restartsim/sim/objects"
	"github.com/restartsim/restartsim/sim/scenario"
)

// ObjectDeps are the scenario's object groups as a run made them.
type ObjectDeps struct {
	Fleet *objects.CompiledGroups
	// Churn are the object churn steps compiled with Fleet, by timeline index.
	Churn map[int]objects.Churn
	// Env is what the groups' templates and patches were rendered with.
	Env objects.Env
	// AWS finds the resource of an object named by AWS name at the patch.
	AWS objects.AWSState
}

// objectChurn applies the churn step at timeline index of kind patch, create or delete, compiled
// before the run, to st.Count objects of its group (a patch's and a delete's drawn with the run's
// seed) and records one change per object, applied once AWS (and, for a create or delete, the
// objects) are seen to show it.
func (e *Executor) objectChurn(ctx context.Context, index int, st scenario.Step) error {
	if e.objects == nil || e.objApplied == nil {
		return fmt.Errorf("churn %s: the run has no object groups", st.Kind)
	}
	step := e.objects.Churn[index]
	if step == nil {
		return fmt.Errorf("churn %s: timeline[%d] was not compiled with the scenario", st.Kind, index)
	}
	e.mu.Lock()
	first := e.patchSeq + 1
	e.patchSeq += st.Count
	e.mu.Unlock()
	e.event("churn", fmt.Sprintf("%s %s × %d", st.Kind, st.Group, st.Count), e.clock.Now(), nil)
	at := e.clock.Now()
	changes, err := step.Apply(ctx, e.client, e.objects.Env, objects.ChurnOptions{Count: st.Count, Rand: e.rng, FirstSeq: first, Concurrency: mutationWorkers, AWS: e.objects.AWS})
	// The objects changed before an error are changes all the same.
	for _, ch := range changes {
		id := fmt.Sprintf("%s-%s-%04d", st.Kind, ch.Group, ch.Seq)
		// Read before Track: from then on the applied watch may resolve the change's ResourceID.
		mc := measure.Change{ID: id, Kind: st.Kind, Object: ch.Group + "/" + ch.Key.String(),
			ResourceID: ch.ResourceID, AnyResource: ch.UnnamedByCalls(), Mutations: ch.Mutations, At: e.sec(at)}
		e.objApplied.Track(id, ch)
		e.mu.Lock()
		e.changes = append(e.changes, mc)
		e.mu.Unlock()
	}
	if err != nil {
		return fmt.Errorf("churn %s %s: %w", st.Kind, st.Group, err)
	}
	return nil
}
