package lbexpect

import (
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"

	"github.com/restartsim/restartsim/controller/api/v1beta1"
)

// Objects are the Kubernetes objects the load balancers follow.
type Objects struct {
	ClusterName string
	// IngressClass is the class whose Ingresses get load balancers.
	IngressClass string
	Ingresses    []networkingv1.Ingress
	Services     []corev1.Service
	Secrets      []corev1.Secret
	// IngressClasses and ClassParams hold the IngressClass and the IngressClassParams it names.
	IngressClasses []networkingv1.IngressClass
	ClassParams    []v1beta1.IngressClassParams
}

// Invalid is a stack LBC cannot deploy from the objects (it reports an error and leaves AWS as it is).
type Invalid struct {
	Stack Stack
	Err   error
}

// LoadBalancers are the load balancers the objects ask for, one per Ingress group of the class and
// one per Service LBC serves, in that order; the ones LBC cannot build are listed in invalid instead.
func LoadBalancers(o Objects) (lbs []LoadBalancer, invalid []Invalid) {
	groups, bad := ingressGroups(o)
	invalid = append(invalid, bad...)
	scheme, paramsErr := o.classScheme()
	idx := newObjectIndex(o)
	for _, g := range groups {
		if paramsErr != nil {
			invalid = append(invalid, Invalid{Stack: g.stack, Err: paramsErr})
			continue
		}
		lb, err := idx.ingressGroup(g, scheme)
		if err != nil {
			invalid = append(invalid, Invalid{Stack: g.stack, Err: err})
			continue
		}
		lbs = append(lbs, lb)
	}
	for i := range o.Services {
		svc := &o.Services[i]
		if !servedService(svc) {
			continue
		}
		lb, err := serviceLoadBalancer(o.ClusterName, svc)
		if err != nil {
			invalid = append(invalid, Invalid{Stack: serviceStack(svc), Err: err})
			continue
		}
		lbs = append(lbs, lb)
	}
	return lbs, invalid
}

// classScheme is the scheme the IngressClassParams of the class set for every member ("" for none);
// parameters the class names but that do not exist are an error, as LBC does not build the group.
func (o Objects) classScheme() (string, error) {
	i := slices.IndexFunc(o.IngressClasses, func(c networkingv1.IngressClass) bool { return c.Name == o.IngressClass })
	if i < 0 {
		return "", nil
	}
	p := o.IngressClasses[i].Spec.Parameters
	if p == nil || p.APIGroup == nil || *p.APIGroup != v1beta1.GroupVersion.Group || p.Kind != v1beta1.IngressClassParamsKind {
		return "", nil
	}
	j := slices.IndexFunc(o.ClassParams, func(cp v1beta1.IngressClassParams) bool { return cp.Name == p.Name })
	if j < 0 {
		return "", fmt.Errorf("IngressClassParams %s of IngressClass %s not found", p.Name, o.IngressClass)
	}
	if s := o.ClassParams[j].Spec.Scheme; s != nil {
		return *s, nil
	}
	return "", nil
}

// ingressGroup is the Ingresses sharing one load balancer.
type ingressGroup struct {
	stack   Stack
	members []*networkingv1.Ingress // LBC's order: group.order, then namespace/name
}

// ingressGroups splits the class's Ingresses that are not being deleted into their groups, sorted
// by stack name; a group with an unreadable group.order is invalid.
func ingressGroups(o Objects) ([]ingressGroup, []Invalid) {
	if !o.classIsLBCs() {
		return nil, nil
	}
	byStack := map[Stack][]*networkingv1.Ingress{}
	for i := range o.Ingresses {
		ing := &o.Ingresses[i]
		if ing.DeletionTimestamp == nil && inClass(ing, o.IngressClass) {
			s := ingressStack(ing)
			byStack[s] = append(byStack[s], ing)
		}
	}
	var groups []ingressGroup
	var invalid []Invalid
	for s, members := range byStack {
		if err := sortMembers(members); err != nil {
			invalid = append(invalid, Invalid{Stack: s, Err: err})
			continue
		}
		groups = append(groups, ingressGroup{stack: s, members: members})
	}
	slices.SortFunc(groups, func(a, b ingressGroup) int { return strings.Compare(a.stack.Name, b.stack.Name) })
	slices.SortFunc(invalid, func(a, b Invalid) int { return strings.Compare(a.Stack.Name, b.Stack.Name) })
	return groups, invalid
}

// classIsLBCs reports whether LBC serves the class: unless its IngressClass names another controller.
func (o Objects) classIsLBCs() bool {
	i := slices.IndexFunc(o.IngressClasses, func(c networkingv1.IngressClass) bool { return c.Name == o.IngressClass })
	return i < 0 || o.IngressClasses[i].Spec.Controller == ingressClassController
}

// inClass reports whether an Ingress is of the class: by spec.ingressClassName, or by the legacy
// annotation when that is unset.
func inClass(ing *networkingv1.Ingress, class string) bool {
	if ing.Spec.IngressClassName != nil {
		return *ing.Spec.IngressClassName == class
	}
	return ing.Annotations[legacyClassAnnotation] == class
}

// ingressStack is an Ingress's stack: its explicit group, or the Ingress alone.
func ingressStack(ing *networkingv1.Ingress) Stack {
	if g := ing.Annotations[annGroupName]; g != "" {
		return Stack{Kind: IngressStack, Name: g}
	}
	return Stack{Kind: IngressStack, Name: ing.Namespace + "/" + ing.Name}
}

func serviceStack(svc *corev1.Service) Stack {
	return Stack{Kind: ServiceStack, Name: svc.Namespace + "/" + svc.Name}
}

// sortMembers orders a group as LBC merges it: by group.order, then by the text namespace/name.
func sortMembers(members []*networkingv1.Ingress) error {
	order := map[*networkingv1.Ingress]int32{}
	for _, m := range members {
		n, err := groupOrder(m.Annotations)
		if err != nil {
			return fmt.Errorf("ingress %s/%s: %w", m.Namespace, m.Name, err)
		}
		order[m] = n
	}
	slices.SortFunc(members, func(a, b *networkingv1.Ingress) int {
		if order[a] != order[b] {
			return int(order[a] - order[b])
		}
		return strings.Compare(a.Namespace+"/"+a.Name, b.Namespace+"/"+b.Name)
	})
	return nil
}

// objectIndex finds Services and Secrets by namespace/name.
type objectIndex struct {
	cluster  string
	services map[string]*corev1.Service
	secrets  map[string]*corev1.Secret
}

func newObjectIndex(o Objects) *objectIndex {
	idx := &objectIndex{cluster: o.ClusterName, services: map[string]*corev1.Service{}, secrets: map[string]*corev1.Secret{}}
	for i := range o.Services {
		idx.services[o.Services[i].Namespace+"/"+o.Services[i].Name] = &o.Services[i]
	}
	for i := range o.Secrets {
		idx.secrets[o.Secrets[i].Namespace+"/"+o.Secrets[i].Name] = &o.Secrets[i]
	}
	return idx
}

func sortListeners(ls []Listener) {
	slices.SortFunc(ls, func(a, b Listener) int { return int(a.Port - b.Port) })
}
