package tgbexpect

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/restartsim/restartsim/controller/api/v1beta1"
	"github.com/restartsim/restartsim/internal/providerid"
	"github.com/restartsim/restartsim/sim/kubesim"
)

// Target is a target-group target: pod IP and container port (ip) or instance ID and NodePort (instance).
type Target struct {
	ID   string
	Port int32
}

func (t Target) String() string { return fmt.Sprintf("%s:%d", t.ID, t.Port) }

// DesiredTGB is what AWS should hold for one TargetGroupBinding, derived from the cluster alone.
type DesiredTGB struct {
	TargetGroupARN string
	TargetType     v1beta1.TargetType
	// Targets are sorted by ID, then port.
	Targets []Target
	// GatedPods are the target pods that carry this TGB's readiness gate; each gate should be True.
	GatedPods []types.NamespacedName
	// Rules are the security group ingress rules spec.networking asks for on the targets' groups, sorted.
	Rules []Rule
}

// Rule is one single-source ingress rule on a target's security group.
type Rule struct {
	// SecurityGroupID is the group the rule belongs on (a target's ENI or instance group).
	SecurityGroupID string
	// Protocol is "tcp" or "udp".
	Protocol         string
	FromPort, ToPort int32
	// Exactly one of CIDR and SourceSecurityGroupID is set.
	CIDR                  string
	SourceSecurityGroupID string
}

// What Desired reads of the objects besides their specs.
const (
	// ExcludeFromLBLabel on a node keeps it out of instance targets.
	ExcludeFromLBLabel = "node.kubernetes.io/exclude-from-external-load-balancers"
	// ReadinessGatePrefix is the prefix of a TGB's readiness-gate condition type.
	ReadinessGatePrefix = "target-health.elbv2.k8s.aws/"
	// SecurityGroupsAnnotation on a pod or node lists the security group IDs of its ENI, comma-separated.
	SecurityGroupsAnnotation = "restartsim.io/security-groups"
)

// clusterState is the cluster as Desired reads it, indexed for joins.
type clusterState struct {
	services map[types.NamespacedName]*corev1.Service
	slices   map[types.NamespacedName][]*discoveryv1.EndpointSlice // by service
	pods     map[types.NamespacedName]*corev1.Pod
	nodes    []*corev1.Node
}

// Desired computes, from the cluster only (TGBs, Services, EndpointSlices, Pods, Nodes), what AWS should
// hold for every TGB not being deleted:
//   - ip: the endpoints of the Service port's EndpointSlices that are ready, plus those not ready only
//     because of the TGB's readiness gate (pod ContainersReady, gate condition not True, not terminating),
//     on the slice's target port;
//   - instance: every Ready node matching spec.nodeSelector and not excluded from load balancers, on the
//     Service port's NodePort;
//   - the ingress rules of spec.networking on the targets' security groups (pod and node annotation
//     restartsim.io/security-groups).
//
// opts narrow every list (use label selectors such as client.MatchingLabels(run); no namespace, since
// Nodes are cluster-scoped). Each kind is listed once, so the cost is linear in the cluster size.
func Desired(ctx context.Context, c client.Reader, opts ...client.ListOption) (map[types.NamespacedName]DesiredTGB, error) {
	objs, err := listObjects(ctx, c, opts...)
	if err != nil {
		return nil, err
	}
	return objs.Desired()
}

// Objects are the objects Desired reads. They are only read, so they may be an informer's own
// (Objects never copies or changes them).
type Objects struct {
	TGBs     []*v1beta1.TargetGroupBinding
	Services []*corev1.Service
	Slices   []*discoveryv1.EndpointSlice
	Pods     []*corev1.Pod
	Nodes    []*corev1.Node
}

// listObjects lists what Desired reads from c, each kind once, narrowed by opts.
func listObjects(ctx context.Context, c client.Reader, opts ...client.ListOption) (Objects, error) {
	var (
		tgbs  v1beta1.TargetGroupBindingList
		svcs  corev1.ServiceList
		eps   discoveryv1.EndpointSliceList
		pods  corev1.PodList
		nodes corev1.NodeList
	)
	// A cache-backed reader may hand out its own objects: they are only read. Other readers ignore it.
	opts = append(opts[:len(opts):len(opts)], client.UnsafeDisableDeepCopy)
	for _, l := range []client.ObjectList{&tgbs, &svcs, &eps, &pods, &nodes} {
		if err := c.List(ctx, l, opts...); err != nil {
			return Objects{}, fmt.Errorf("desired state: listing %T: %w", l, err)
		}
	}
	return Objects{TGBs: pointers(tgbs.Items), Services: pointers(svcs.Items), Slices: pointers(eps.Items),
		Pods: pointers(pods.Items), Nodes: pointers(nodes.Items)}, nil
}

func pointers[T any](items []T) []*T {
	out := make([]*T, len(items))
	for i := range items {
		out[i] = &items[i]
	}
	return out
}

// Desired is Desired of these objects.
func (o Objects) Desired() (map[types.NamespacedName]DesiredTGB, error) {
	st := clusterState{
		services: make(map[types.NamespacedName]*corev1.Service, len(o.Services)),
		slices:   make(map[types.NamespacedName][]*discoveryv1.EndpointSlice, len(o.Slices)),
		pods:     make(map[types.NamespacedName]*corev1.Pod, len(o.Pods)),
		nodes:    o.Nodes,
	}
	for _, s := range o.Services {
		st.services[types.NamespacedName{Namespace: s.Namespace, Name: s.Name}] = s
	}
	for _, e := range o.Slices {
		key := types.NamespacedName{Namespace: e.Namespace, Name: e.Labels[discoveryv1.LabelServiceName]}
		st.slices[key] = append(st.slices[key], e)
	}
	for _, p := range o.Pods {
		st.pods[types.NamespacedName{Namespace: p.Namespace, Name: p.Name}] = p
	}
	out := make(map[types.NamespacedName]DesiredTGB, len(o.TGBs))
	for _, tgb := range o.TGBs {
		if tgb.DeletionTimestamp != nil {
			continue
		}
		d, err := st.desired(tgb)
		if err != nil {
			return nil, fmt.Errorf("desired state of %s/%s: %w", tgb.Namespace, tgb.Name, err)
		}
		out[types.NamespacedName{Namespace: tgb.Namespace, Name: tgb.Name}] = d
	}
	return out, nil
}

func (st *clusterState) desired(tgb *v1beta1.TargetGroupBinding) (DesiredTGB, error) {
	d := DesiredTGB{TargetGroupARN: tgb.Spec.TargetGroupARN, TargetType: v1beta1.TargetTypeIP}
	if tgb.Spec.TargetType != nil {
		d.TargetType = *tgb.Spec.TargetType
	}
	svcKey := types.NamespacedName{Namespace: tgb.Namespace, Name: tgb.Spec.ServiceRef.Name}
	svc := st.services[svcKey]
	if svc == nil {
		return d, nil // no Service: no targets
	}
	sp := servicePort(svc, tgb.Spec.ServiceRef.Port)
	if sp == nil {
		return d, nil
	}
	groups := map[string]bool{}
	var targetPods []*corev1.Pod
	if d.TargetType == v1beta1.TargetTypeInstance {
		sel := labels.Everything()
		if tgb.Spec.NodeSelector != nil {
			s, err := metav1.LabelSelectorAsSelector(tgb.Spec.NodeSelector)
			if err != nil {
				return d, fmt.Errorf("spec.nodeSelector: %w", err)
			}
			sel = s
		}
		for _, n := range st.nodes {
			id := providerid.InstanceID(n.Spec.ProviderID)
			if id == "" || !kubesim.NodeReady(n) || !sel.Matches(labels.Set(n.Labels)) {
				continue
			}
			if _, excluded := n.Labels[ExcludeFromLBLabel]; excluded {
				continue
			}
			d.Targets = append(d.Targets, Target{ID: id, Port: sp.NodePort})
			addGroups(groups, n.Annotations)
		}
	} else {
		gate := corev1.PodConditionType(ReadinessGatePrefix + tgb.Name)
		for _, e := range st.slices[svcKey] {
			port, ok := slicePort(e, sp.Name)
			if !ok {
				continue
			}
			for _, ep := range e.Endpoints {
				var pod *corev1.Pod
				if ep.TargetRef != nil && ep.TargetRef.Kind == "Pod" {
					pod = st.pods[types.NamespacedName{Namespace: ep.TargetRef.Namespace, Name: ep.TargetRef.Name}]
				}
				if !wantedEndpoint(ep, pod, gate) {
					continue
				}
				for _, a := range ep.Addresses {
					d.Targets = append(d.Targets, Target{ID: a, Port: port})
				}
				if pod != nil {
					targetPods = append(targetPods, pod)
					addGroups(groups, pod.Annotations)
					if hasGate(pod, gate) {
						d.GatedPods = append(d.GatedPods, types.NamespacedName{Namespace: pod.Namespace, Name: pod.Name})
					}
				}
			}
		}
	}
	d.Targets = sortedUnique(d.Targets, func(a, b Target) int {
		return cmp.Or(strings.Compare(a.ID, b.ID), cmp.Compare(a.Port, b.Port))
	})
	d.GatedPods = sortedUnique(d.GatedPods, func(a, b types.NamespacedName) int { return strings.Compare(a.String(), b.String()) })
	if len(d.Targets) > 0 {
		d.Rules = networkingRules(tgb, sp, d.TargetType, targetPods, groups)
	}
	return d, nil
}

// wantedEndpoint: ready endpoints, plus not-ready ones held back only by the TGB's readiness gate.
func wantedEndpoint(ep discoveryv1.Endpoint, pod *corev1.Pod, gate corev1.PodConditionType) bool {
	if ep.Conditions.Ready == nil || *ep.Conditions.Ready {
		return true
	}
	if ep.Conditions.Terminating != nil && *ep.Conditions.Terminating {
		return false
	}
	return pod != nil && pod.DeletionTimestamp == nil && hasGate(pod, gate) &&
		kubesim.ConditionTrue(pod, corev1.ContainersReady) && !kubesim.ConditionTrue(pod, gate)
}

func hasGate(pod *corev1.Pod, gate corev1.PodConditionType) bool {
	return slices.ContainsFunc(pod.Spec.ReadinessGates, func(g corev1.PodReadinessGate) bool { return g.ConditionType == gate })
}

func servicePort(svc *corev1.Service, ref intstr.IntOrString) *corev1.ServicePort {
	for i := range svc.Spec.Ports {
		p := &svc.Spec.Ports[i]
		if (ref.Type == intstr.Int && p.Port == ref.IntVal) || (ref.Type == intstr.String && p.Name == ref.StrVal) {
			return p
		}
	}
	return nil
}

func slicePort(e *discoveryv1.EndpointSlice, name string) (int32, bool) {
	for _, p := range e.Ports {
		if p.Port != nil && (p.Name == nil && name == "" || p.Name != nil && *p.Name == name) {
			return *p.Port, true
		}
	}
	return 0, false
}

func addGroups(groups map[string]bool, ann map[string]string) {
	for g := range strings.SplitSeq(ann[SecurityGroupsAnnotation], ",") {
		if g = strings.TrimSpace(g); g != "" {
			groups[g] = true
		}
	}
}

// networkingRules expands spec.networking over the targets' security groups.
func networkingRules(tgb *v1beta1.TargetGroupBinding, sp *corev1.ServicePort, tt v1beta1.TargetType,
	pods []*corev1.Pod, groups map[string]bool) []Rule {
	if tgb.Spec.Networking == nil {
		return nil
	}
	var rules []Rule
	for _, in := range tgb.Spec.Networking.Ingress {
		for _, port := range in.Ports {
			proto := "tcp"
			if port.Protocol != nil {
				proto = strings.ToLower(string(*port.Protocol))
			}
			from, to, ok := resolvePort(port.Port, tt, sp, pods)
			if !ok {
				continue
			}
			for _, peer := range in.From {
				for g := range groups {
					r := Rule{SecurityGroupID: g, Protocol: proto, FromPort: from, ToPort: to}
					switch {
					case peer.IPBlock != nil:
						r.CIDR = peer.IPBlock.CIDR
					case peer.SecurityGroup != nil:
						r.SourceSecurityGroupID = peer.SecurityGroup.GroupID
					default:
						continue
					}
					rules = append(rules, r)
				}
			}
		}
	}
	return sortedUnique(rules, func(a, b Rule) int {
		return cmp.Or(strings.Compare(a.SecurityGroupID, b.SecurityGroupID), strings.Compare(a.Protocol, b.Protocol),
			cmp.Compare(a.FromPort, b.FromPort), cmp.Compare(a.ToPort, b.ToPort),
			strings.Compare(a.CIDR, b.CIDR), strings.Compare(a.SourceSecurityGroupID, b.SourceSecurityGroupID))
	})
}

// resolvePort turns a networking port into a range: nil is every port; a number is itself; a name is the
// pods' container port of that name (ip) or, for instance targets, the NodePort of the Service port so
// named.
func resolvePort(p *intstr.IntOrString, tt v1beta1.TargetType, sp *corev1.ServicePort, pods []*corev1.Pod) (int32, int32, bool) {
	switch {
	case p == nil:
		return 0, 65535, true
	case p.Type == intstr.Int:
		return p.IntVal, p.IntVal, true
	case tt == v1beta1.TargetTypeInstance:
		return sp.NodePort, sp.NodePort, sp.Name == p.StrVal
	}
	for _, pod := range pods {
		for _, ctr := range pod.Spec.Containers {
			for _, cp := range ctr.Ports {
				if cp.Name == p.StrVal {
					return cp.ContainerPort, cp.ContainerPort, true
				}
			}
		}
	}
	return 0, 0, false
}

func sortedUnique[T comparable](s []T, cmpFn func(a, b T) int) []T {
	slices.SortFunc(s, cmpFn)
	return slices.Compact(s)
}
