package lbmodel

import (
	"fmt"
	"sort"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
)

// ClassDefaults are the group-wide settings of an IngressClass's parameters (LBC's IngressClassParams); a set
// field wins over the members' annotations, as IngressClassParams does.
type ClassDefaults struct {
	Scheme        string            `json:"scheme,omitempty"`
	IPAddressType string            `json:"ipAddressType,omitempty"`
	Tags          map[string]string `json:"tags,omitempty"`
}

// IngressInput is everything an Ingress group's model may read. Services and Secrets may hold more objects
// than the group uses; the builder reports the ones it read in Inputs.
type IngressInput struct {
	ClusterName   string
	Group         IngressGroup
	Services      []corev1.Service
	Secrets       []corev1.Secret
	ClassDefaults *ClassDefaults
}

// BuildIngress builds the ALB stack of an Ingress group and returns it with the inputs it read (for Checkpoint).
func BuildIngress(in IngressInput) (Stack, Inputs, error) {
	if len(in.Group.Members) == 0 {
		return Stack{}, Inputs{}, fmt.Errorf("ingress group %q has no member", in.Group.ID.Name)
	}
	members := append([]networkingv1.Ingress(nil), in.Group.Members...)
	if err := sortMembers(members); err != nil {
		return Stack{}, Inputs{}, err
	}
	b := newIngressBuilder(in)
	for i := range members {
		b.read.addIngress(&members[i])
	}
	if err := b.loadBalancer(members); err != nil {
		return Stack{}, Inputs{}, err
	}
	for i := range members {
		if err := b.member(&members[i]); err != nil {
			return Stack{}, Inputs{}, fmt.Errorf("ingress %s/%s: %w", members[i].Namespace, members[i].Name, err)
		}
	}
	b.finish()
	return b.stack, b.read, nil
}

type ingressBuilder struct {
	in        IngressInput
	stack     Stack
	read      Inputs
	services  map[string]*corev1.Service
	secrets   map[string]*corev1.Secret
	listeners map[int32]*Listener
	tgs       map[string]TargetGroup
	userTags  map[string]string
}

func newIngressBuilder(in IngressInput) *ingressBuilder {
	b := &ingressBuilder{
		in: in, stack: Stack{ID: in.Group.ID},
		services:  map[string]*corev1.Service{},
		secrets:   map[string]*corev1.Secret{},
		listeners: map[int32]*Listener{},
		tgs:       map[string]TargetGroup{},
	}
	for i := range in.Services {
		b.services[in.Services[i].Namespace+"/"+in.Services[i].Name] = &in.Services[i]
	}
	for i := range in.Secrets {
		b.secrets[in.Secrets[i].Namespace+"/"+in.Secrets[i].Name] = &in.Secrets[i]
	}
	b.read.ClassDefaults = in.ClassDefaults
	return b
}

// groupSetting returns the one value the members agree on (empty ones ignored), or def.
func groupSetting(members []networkingv1.Ingress, key, def string) (string, error) {
	v, from := "", ""
	for _, m := range members {
		mv := m.Annotations[key]
		if mv == "" {
			continue
		}
		if v != "" && mv != v {
			return "", fmt.Errorf("%s conflicts in ingress group: %q (%s) and %q (%s/%s)", key, v, from, mv, m.Namespace, m.Name)
		}
		v, from = mv, m.Namespace+"/"+m.Name
	}
	if v == "" {
		return def, nil
	}
	return v, nil
}

func (b *ingressBuilder) loadBalancer(members []networkingv1.Ingress) error {
	scheme, err := groupSetting(members, AnnotationScheme, SchemeInternal)
	if err != nil {
		return err
	}
	ipType, err := groupSetting(members, AnnotationIPAddressType, "ipv4")
	if err != nil {
		return err
	}
	if d := b.in.ClassDefaults; d != nil {
		scheme, ipType = firstSet(d.Scheme, scheme), firstSet(d.IPAddressType, ipType)
	}
	if err := oneOf(AnnotationScheme, scheme, SchemeInternal, SchemeInternetFacing); err != nil {
		return err
	}
	if err := oneOf(AnnotationIPAddressType, ipType, "ipv4", "dualstack"); err != nil {
		return err
	}
	lb := LoadBalancer{Type: TypeApplication, Scheme: scheme, IPAddressType: ipType}
	if lb.Tags, err = b.mergedKeyValues(members, AnnotationTags); err != nil {
		return err
	}
	if b.in.ClassDefaults != nil {
		for k, v := range b.in.ClassDefaults.Tags {
			lb.Tags[k] = v
		}
	}
	b.userTags = copyMap(lb.Tags)
	if lb.Attributes, err = b.mergedKeyValues(members, AnnotationLBAttributes); err != nil {
		return err
	}
	if len(lb.Attributes) == 0 {
		lb.Attributes = nil
	}
	subnets, _ := groupSetting(members, AnnotationSubnets, "")
	sgs, _ := groupSetting(members, AnnotationSecurityGroups, "")
	lb.Subnets = SubnetSelector{IDs: parseList(subnets)}
	if len(lb.Subnets.IDs) == 0 {
		lb.Subnets.Tags = subnetDiscoveryTags(scheme)
	}
	lb.SecurityGroups = parseList(sgs)
	// An Ingress of its own is named after its namespace and name, an explicit group after the group. The
	// scheme is in the hash because a scheme change replaces the load balancer: the new one gets its own name.
	if first := members[0]; b.stack.ID.Name == first.Namespace+"/"+first.Name {
		lb.Name = resourceName(first.Namespace, first.Name, b.in.ClusterName, b.stack.ID.Name, scheme)
	} else {
		lb.Name = resourceName(b.stack.ID.Name, "", b.in.ClusterName, b.stack.ID.Name, scheme)
	}
	lb.Tags = b.tags(lb.Tags, TagLoadBalancerResource)
	b.stack.LoadBalancer = lb
	return nil
}

// mergedKeyValues merges a key=value annotation over the members, a later member's value winning.
func (b *ingressBuilder) mergedKeyValues(members []networkingv1.Ingress, key string) (map[string]string, error) {
	out := map[string]string{}
	for _, m := range members {
		kv, err := parseKeyValues(key, m.Annotations[key])
		if err != nil {
			return nil, fmt.Errorf("ingress %s/%s: %w", m.Namespace, m.Name, err)
		}
		for k, v := range kv {
			out[k] = v
		}
	}
	return out, nil
}

// tags adds the stack's discovery tags to user tags (a copy).
func (b *ingressBuilder) tags(user map[string]string, resource string) map[string]string {
	return stackTags(user, b.in.ClusterName, b.stack.ID, resource)
}

func stackTags(user map[string]string, cluster string, id StackID, resource string) map[string]string {
	out := copyMap(user)
	out[TagCluster] = cluster
	out[id.StackTagKey()] = id.Name
	out[id.ResourceTagKey()] = resource
	return out
}

func copyMap(m map[string]string) map[string]string {
	out := make(map[string]string, len(m)+3)
	for k, v := range m {
		out[k] = v
	}
	return out
}

func firstSet(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// finish puts listeners and target groups in a stable order and gives each listener a default action.
func (b *ingressBuilder) finish() {
	ports := make([]int32, 0, len(b.listeners))
	for p := range b.listeners {
		ports = append(ports, p)
	}
	sort.Slice(ports, func(i, j int) bool { return ports[i] < ports[j] })
	for _, p := range ports {
		l := b.listeners[p]
		if l.DefaultAction.Type == "" {
			l.DefaultAction = Action{Type: ActionFixedResponse, FixedResponse: &FixedResponse{StatusCode: "404", ContentType: "text/plain"}}
		}
		sort.Strings(l.Certificates)
		b.stack.Listeners = append(b.stack.Listeners, *l)
	}
	ids := make([]string, 0, len(b.tgs))
	for id := range b.tgs {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		b.stack.TargetGroups = append(b.stack.TargetGroups, b.tgs[id])
	}
	sort.Slice(b.stack.Bindings, func(i, j int) bool { return b.stack.Bindings[i].Name < b.stack.Bindings[j].Name })
	sort.SliceStable(b.stack.Rules, func(i, j int) bool {
		ri, rj := b.stack.Rules[i], b.stack.Rules[j]
		return ri.ListenerPort < rj.ListenerPort || (ri.ListenerPort == rj.ListenerPort && ri.Priority < rj.Priority)
	})
}
