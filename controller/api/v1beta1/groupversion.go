package v1beta1

import (
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/scheme"
)

var (
	// GroupVersion is the group and version of the TargetGroupBinding and IngressClassParams APIs.
	GroupVersion = schema.GroupVersion{Group: "elbv2.k8s.aws", Version: "v1beta1"}

	// SchemeBuilder registers the API's types with a runtime.Scheme.
	SchemeBuilder = &scheme.Builder{GroupVersion: GroupVersion}

	// AddToScheme adds the API's types to a runtime.Scheme.
	AddToScheme = SchemeBuilder.AddToScheme
)

func init() {
	SchemeBuilder.Register(&TargetGroupBinding{}, &TargetGroupBindingList{}, &IngressClassParams{}, &IngressClassParamsList{})
}
