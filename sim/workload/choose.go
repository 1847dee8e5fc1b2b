package workload

import (
	"math/rand/v2"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/types"

	"github.com/restartsim/restartsim/controller/api/v1beta1"
)

// TGBInfo is a snapshot of one TGB, for choosing.
type TGBInfo struct {
	Key            types.NamespacedName
	TargetType     v1beta1.TargetType
	ReadinessGate  bool
	Networking     NetworkingSource
	Pods           int
	TargetGroupARN string
}

// PodInfo is a snapshot of one pod, for choosing.
type PodInfo struct {
	Key  types.NamespacedName
	IP   string
	Node string
	TGB  TGBInfo
}

func (t *TGBPlan) info() TGBInfo {
	return TGBInfo{Key: t.Key(), TargetType: t.TargetType, ReadinessGate: t.ReadinessGate,
		Networking: t.Networking, Pods: len(t.Pods), TargetGroupARN: t.TargetGroupARN}
}

// TGB returns a snapshot of the TGB named key.
func (f *FleetPlan) TGB(key types.NamespacedName) (TGBInfo, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	t, ok := f.byKey[key]
	if !ok {
		return TGBInfo{}, false
	}
	return t.info(), true
}

// TGBCount is the number of live TGBs.
func (f *FleetPlan) TGBCount() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.TGBs)
}

// ChooseTGBs draws up to n distinct TGBs that pass filter (nil: all), uniformly with rng, in draw order.
func (f *FleetPlan) ChooseTGBs(rng *rand.Rand, n int, filter func(TGBInfo) bool) []types.NamespacedName {
	f.mu.Lock()
	var cands []types.NamespacedName
	for _, t := range f.TGBs {
		if filter == nil || filter(t.info()) {
			cands = append(cands, t.Key())
		}
	}
	f.mu.Unlock()
	return draw(rng, cands, n)
}

// ChoosePods draws up to n distinct pods that pass filter (nil: all), uniformly with rng, in draw order.
func (f *FleetPlan) ChoosePods(rng *rand.Rand, n int, filter func(PodInfo) bool) []types.NamespacedName {
	f.mu.Lock()
	var cands []types.NamespacedName
	for _, t := range f.TGBs {
		ti := t.info()
		for _, p := range t.Pods {
			pi := PodInfo{Key: types.NamespacedName{Namespace: t.Namespace, Name: p.Name}, IP: p.IP, Node: f.Nodes[p.Node].Name, TGB: ti}
			if filter == nil || filter(pi) {
				cands = append(cands, pi.Key)
			}
		}
	}
	f.mu.Unlock()
	return draw(rng, cands, n)
}

// draw is a partial Fisher-Yates shuffle: the first min(n, len) of a uniform permutation.
func draw[T any](rng *rand.Rand, items []T, n int) []T {
	n = min(max(n, 0), len(items))
	for i := range n {
		j := i + rng.IntN(len(items)-i)
		items[i], items[j] = items[j], items[i]
	}
	return items[:n:n]
}

// tgbOfPod finds the TGB a pod of the fleet belongs to (pods are named <service>-<ordinal>).
func (f *FleetPlan) tgbOfPod(pod types.NamespacedName) (types.NamespacedName, bool) {
	i := strings.LastIndexByte(pod.Name, '-')
	if i < 0 {
		return types.NamespacedName{}, false
	}
	key := types.NamespacedName{Namespace: pod.Namespace, Name: pod.Name[:i]}
	f.mu.Lock()
	defer f.mu.Unlock()
	t, ok := f.byKey[key]
	return key, ok && slices.ContainsFunc(t.Pods, func(p PodPlan) bool { return p.Name == pod.Name })
}
