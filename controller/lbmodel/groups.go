package lbmodel

import (
	"fmt"
	"sort"

	networkingv1 "k8s.io/api/networking/v1"
)

// IngressGroup is the Ingresses sharing one load balancer, in LBC's order: group.order, then namespace/name.
type IngressGroup struct {
	ID      StackID
	Members []networkingv1.Ingress
}

// GroupID is the stack of an Ingress: its group.name, or its own namespace/name when it has none.
func GroupID(ing *networkingv1.Ingress) StackID {
	if g := ing.Annotations[AnnotationGroupName]; g != "" {
		return StackID{Kind: KindIngress, Name: g}
	}
	return StackID{Kind: KindIngress, Name: ing.Namespace + "/" + ing.Name}
}

// GroupIngresses splits ingresses into their groups, each ordered as LBC merges them; groups come sorted by ID.
func GroupIngresses(ingresses []networkingv1.Ingress) ([]IngressGroup, error) {
	byID := map[StackID][]networkingv1.Ingress{}
	for _, ing := range ingresses {
		id := GroupID(&ing)
		byID[id] = append(byID[id], ing)
	}
	out := make([]IngressGroup, 0, len(byID))
	for id, members := range byID {
		if err := sortMembers(members); err != nil {
			return nil, err
		}
		out = append(out, IngressGroup{ID: id, Members: members})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID.Name < out[j].ID.Name })
	return out, nil
}

// sortMembers orders a group's Ingresses by group.order, then namespace, then name; the first Ingress's rules
// get the lowest priorities.
func sortMembers(members []networkingv1.Ingress) error {
	orders := make(map[string]int64, len(members))
	for _, m := range members {
		n, err := parseGroupOrder(m.Annotations[AnnotationGroupOrder])
		if err != nil {
			return fmt.Errorf("ingress %s/%s: %w", m.Namespace, m.Name, err)
		}
		orders[m.Namespace+"/"+m.Name] = n
	}
	sort.SliceStable(members, func(i, j int) bool {
		a, b := members[i], members[j]
		oa, ob := orders[a.Namespace+"/"+a.Name], orders[b.Namespace+"/"+b.Name]
		if oa != ob {
			return oa < ob
		}
		if a.Namespace != b.Namespace {
			return a.Namespace < b.Namespace
		}
		return a.Name < b.Name
	})
	return nil
}

// BelongsToClass reports whether an Ingress is of the IngressClass className: by spec.ingressClassName, or,
// when that is unset, by the legacy kubernetes.io/ingress.class annotation, as LBC accepts both.
func BelongsToClass(ing *networkingv1.Ingress, className string) bool {
	if ing.Spec.IngressClassName != nil {
		return *ing.Spec.IngressClassName == className
	}
	return ing.Annotations[IngressClassAnnotation] == className
}
