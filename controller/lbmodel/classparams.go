package lbmodel

import (
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/utils/ptr"

	"github.com/restartsim/restartsim/controller/api/v1beta1"
)

// ClassParamsName is the IngressClassParams the class names in spec.parameters, if it names one.
func ClassParamsName(class *networkingv1.IngressClass) (string, bool) {
	p := class.Spec.Parameters
	if p == nil || p.APIGroup == nil || *p.APIGroup != v1beta1.GroupVersion.Group || p.Kind != v1beta1.IngressClassParamsKind {
		return "", false
	}
	return p.Name, true
}

// ClassDefaultsOf is what the parameters set for every group of the class.
func ClassDefaultsOf(p *v1beta1.IngressClassParams) *ClassDefaults {
	d := &ClassDefaults{Scheme: ptr.Deref(p.Spec.Scheme, ""), IPAddressType: ptr.Deref(p.Spec.IPAddressType, "")}
	for _, t := range p.Spec.Tags {
		if d.Tags == nil {
			d.Tags = map[string]string{}
		}
		d.Tags[t.Key] = t.Value
	}
	return d
}
