package v1beta1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

var (
	// GroupVersion is the group and version of the TargetGroupBinding and IngressClassParams APIs.
	GroupVersion = schema.GroupVersion{Group: "elbv2.k8s.aws", Version: "v1beta1"}

	// SchemeBuilder registers the API's types with a runtime.Scheme.
	SchemeBuilder = runtime.NewSchemeBuilder(addKnownTypes)

	// AddToScheme adds the API's types to a runtime.Scheme.
	AddToScheme = SchemeBuilder.AddToScheme
)

func addKnownTypes(s *runtime.Scheme) error {
	s.AddKnownTypes(GroupVersion, &TargetGroupBinding{}, &TargetGroupBindingList{}, &IngressClassParams{}, &IngressClassParamsList{})
	metav1.AddToGroupVersion(s, GroupVersion)
	return nil
}
