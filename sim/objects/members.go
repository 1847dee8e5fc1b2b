package objects

import (
	"fmt"
	"maps"
	"slices"
	"sync"

	k8stypes "k8s.io/apimachinery/pkg/types"
)

// members are a group's objects during a run: the indexes made so far (the group's count, then those of each
// create churn step) and the ones deleted since. CompiledGroups are compiled once per run, so its members are that
// run's; they are safe for concurrent use.
type members struct {
	mu      sync.Mutex
	next    int // indexes below next have been made
	deleted map[int]*deletedObject
}

// deletedObject is what is known of a deleted object, to tell when it is gone and whether it left its AWS
// resource behind.
type deletedObject struct {
	key k8stypes.NamespacedName
	// awsKey is what the object's reference last found its AWS resource by; empty when it named none.
	awsKey awsID
}

func newMembers(count int) *members { return &members{next: count, deleted: map[int]*deletedObject{}} }

// made is how many indexes have been made: every index below it is, or was, an object.
func (m *members) made() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.next
}

// allocate reserves n new indexes and returns the first.
func (m *members) allocate(group string, n int) (int, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if n < 1 || m.next+n > MaxCount {
		return 0, fmt.Errorf("cannot make %d more objects of group %s: it has had %d, at most %d", n, group, m.next, MaxCount)
	}
	first := m.next
	m.next += n
	return first, nil
}

// live are the indexes made and not deleted, in order.
func (m *members) live() []int {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]int, 0, m.next-len(m.deleted))
	for i := range m.next {
		if m.deleted[i] == nil {
			out = append(out, i)
		}
	}
	return out
}

// liveCount is how many objects the group has: made and not deleted.
func (m *members) liveCount() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.next - len(m.deleted)
}

// deleteIndex marks index deleted, from now on out of the group's invariant set; false if it was already.
func (m *members) deleteIndex(index int, d *deletedObject) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.deleted[index] != nil || index >= m.next {
		return false
	}
	m.deleted[index] = d
	return true
}

// wasDeleted returns the record of a deleted index, nil for a live one.
func (m *members) wasDeleted(index int) *deletedObject {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.deleted[index]
}

// noteAWSKey records the AWS key a deleted object still names (its controller may have written the ARN after
// the delete was asked for); an empty one is ignored.
func (m *members) noteAWSKey(index int, key awsID) {
	if len(key.keys) == 0 {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if d := m.deleted[index]; d != nil {
		d.awsKey = key
	}
}

// deletedIndexes are the deleted indexes in order, with a copy of each record.
func (m *members) deletedIndexes() ([]int, map[int]deletedObject) {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make(map[int]deletedObject, len(m.deleted))
	for i, d := range m.deleted {
		out[i] = *d
	}
	return slices.Sorted(maps.Keys(m.deleted)), out
}

// Members is how many objects a group has now: its count, plus those created, minus those deleted (0 for an
// unknown group).
func (f *CompiledGroups) Members(group string) int {
	if g := f.byName[group]; g != nil {
		return g.members.liveCount()
	}
	return 0
}
