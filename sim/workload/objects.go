package workload

import (
	"maps"
	"strings"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	"github.com/restartsim/restartsim/controller/api/v1beta1"
	"github.com/restartsim/restartsim/sim/kubesim"
	"github.com/restartsim/restartsim/sim/oracle/tgbexpect"
)

// Labels and annotations the workload puts on objects.
const (
	// SimulatedNodeLabel and SimulatedNodeTaint (NoSchedule) mark the fleet's Nodes, which no kubelet
	// runs: on a real cluster, nothing else is scheduled onto them. Fleet pods tolerate the taint.
	SimulatedNodeLabel = "restartsim.io/simulated-node"
	SimulatedNodeTaint = SimulatedNodeLabel
	// PortName names the Service port, the container port and the EndpointSlice port.
	PortName = "http"
	// MetricsPortName and MetricsPort are the second Service, container and EndpointSlice port of a
	// TGB with NamedPort, which no TGB refers to.
	MetricsPortName       = "metrics"
	MetricsPort     int32 = 9090
	// TargetGroupProtocol is the protocol of the fleet's target groups, which a TGB's spec may name.
	TargetGroupProtocol v1beta1.TargetGroupProtocol = "HTTP"
	// AssumeRoleName is the IAM role a TGB with AssumeRole names, in its target group's account.
	AssumeRoleName = "restartsim-target-groups"
	containerName  = "app"
	image          = "registry.k8s.io/pause:3.10"
)

func withLabels(run map[string]string, extra map[string]string) map[string]string {
	out := make(map[string]string, len(run)+len(extra))
	maps.Copy(out, run)
	maps.Copy(out, extra)
	return out
}

func (f *FleetPlan) namespaceObject(name string, run map[string]string) *corev1.Namespace {
	return &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: withLabels(run, nil)}}
}

func (f *FleetPlan) nodeObject(n NodePlan, sgID string, run map[string]string, now metav1.Time) *corev1.Node {
	return &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{
			Name: n.Name,
			Labels: withLabels(run, map[string]string{
				corev1.LabelHostname:           n.Name,
				corev1.LabelTopologyZone:       n.Zone,
				corev1.LabelTopologyRegion:     region(n.Zone),
				corev1.LabelInstanceTypeStable: "m5.large",
				corev1.LabelOSStable:           "linux",
				SimulatedNodeLabel:             "true",
			}),
			Annotations: map[string]string{tgbexpect.SecurityGroupsAnnotation: sgID},
		},
		Spec: corev1.NodeSpec{ProviderID: n.ProviderID(), Taints: []corev1.Taint{simulatedNodeTaint}},
		Status: corev1.NodeStatus{
			Conditions: []corev1.NodeCondition{{
				Type: corev1.NodeReady, Status: corev1.ConditionTrue, Reason: "KubeletReady",
				Message: "kubelet is posting ready status (simulated)", LastHeartbeatTime: now, LastTransitionTime: now,
			}},
			Addresses: []corev1.NodeAddress{
				{Type: corev1.NodeInternalIP, Address: n.PrivateIP},
				{Type: corev1.NodeHostName, Address: n.Name},
			},
		},
	}
}

var simulatedNodeTaint = corev1.Taint{Key: SimulatedNodeTaint, Value: "true", Effect: corev1.TaintEffectNoSchedule}

func (f *FleetPlan) serviceObject(t *TGBPlan, run map[string]string) *corev1.Service {
	svc := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: t.Name, Namespace: t.Namespace, Labels: withLabels(run, nil)},
		Spec: corev1.ServiceSpec{
			Ports: []corev1.ServicePort{{
				Name: PortName, Protocol: corev1.ProtocolTCP, Port: f.Spec.ServicePort,
				TargetPort: intstr.FromInt32(f.Spec.Port), NodePort: t.NodePort,
			}},
		},
	}
	if t.NamedPort {
		svc.Spec.Ports = append(svc.Spec.Ports, corev1.ServicePort{Name: MetricsPortName, Protocol: corev1.ProtocolTCP,
			Port: MetricsPort, TargetPort: intstr.FromInt32(MetricsPort)})
	}
	if f.Spec.ClusterEndpointSlices {
		svc.Spec.Selector = map[string]string{kubesim.ServiceLabel: t.Name}
	}
	if t.TargetType == v1beta1.TargetTypeInstance {
		svc.Spec.Type = corev1.ServiceTypeNodePort
		svc.Spec.ExternalTrafficPolicy = corev1.ServiceExternalTrafficPolicyCluster
	} else {
		svc.Spec.Type = corev1.ServiceTypeClusterIP
		svc.Spec.ClusterIP = corev1.ClusterIPNone
	}
	return svc
}

func (f *FleetPlan) podObject(t *TGBPlan, p PodPlan, sgID string, run map[string]string) *corev1.Pod {
	pod := f.servicePodObject(t.Namespace, t.Name, p, sgID, run)
	if t.ReadinessGate {
		pod.Spec.ReadinessGates = []corev1.PodReadinessGate{{ConditionType: corev1.PodConditionType(t.GateType())}}
	}
	if t.NamedPort {
		ctr := &pod.Spec.Containers[0]
		ctr.Ports = append(ctr.Ports, corev1.ContainerPort{Name: MetricsPortName, ContainerPort: MetricsPort, Protocol: corev1.ProtocolTCP})
	}
	return pod
}

// servicePodObject is a pod of the Service namespace/service, without readiness gates.
func (f *FleetPlan) servicePodObject(namespace, service string, p PodPlan, sgID string, run map[string]string) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Name: p.Name, Namespace: namespace,
			Labels:      withLabels(run, map[string]string{kubesim.ServiceLabel: service}),
			Annotations: map[string]string{tgbexpect.SecurityGroupsAnnotation: sgID, PodENIAnnotation: f.podENIAnnotation(p)},
		},
		Spec: corev1.PodSpec{
			NodeName:                      f.node(p.Node).Name,
			TerminationGracePeriodSeconds: ptr.To[int64](0),
			Tolerations: []corev1.Toleration{{Key: SimulatedNodeTaint, Operator: corev1.TolerationOpEqual,
				Value: simulatedNodeTaint.Value, Effect: simulatedNodeTaint.Effect}},
			Containers: []corev1.Container{{
				Name: containerName, Image: image,
				Ports: []corev1.ContainerPort{{Name: PortName, ContainerPort: f.Spec.Port, Protocol: corev1.ProtocolTCP}},
			}},
		},
	}
}

// runningStatus is the status a kubelet reports for a started pod: Running, containers ready, Ready
// according to the readiness gates (none are set yet, so a gated pod is not Ready).
func (f *FleetPlan) runningStatus(pod *corev1.Pod, p PodPlan, now metav1.Time) corev1.PodStatus {
	return kubesim.RunningStatus(pod, f.node(p.Node).PrivateIP, p.IP, corev1.PodQOSBestEffort, []corev1.ContainerStatus{{
		Name: containerName, Image: image, ImageID: image, Ready: true, Started: ptr.To(true),
		State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: now}},
	}}, now)
}

// duplicateSliceName names the second EndpointSlice of a Service with DuplicateEndpoint.
func duplicateSliceName(service string) string { return service + "-sim-dup" }

func (f *FleetPlan) sliceObject(t *TGBPlan, pods []*corev1.Pod, run map[string]string) *discoveryv1.EndpointSlice {
	s := serviceSliceObject(t.Namespace, t.Name, f.Spec.Port, pods, run)
	if t.DuplicateEndpoint {
		s.Annotations = map[string]string{kubesim.DuplicateSliceAnnotation: duplicateSliceName(t.Name)}
	}
	if t.NamedPort {
		s.Ports = append(s.Ports, discoveryv1.EndpointPort{Name: ptr.To(MetricsPortName), Port: ptr.To(MetricsPort),
			Protocol: ptr.To(corev1.ProtocolTCP)})
	}
	return s
}

// duplicateSliceObject is the second EndpointSlice of a TGB with DuplicateEndpoint: slice's ports
// and the first of its endpoints.
func duplicateSliceObject(slice *discoveryv1.EndpointSlice) *discoveryv1.EndpointSlice {
	cp := slice.DeepCopy() // slice may be the created object, with its server-set metadata
	return &discoveryv1.EndpointSlice{
		ObjectMeta:  metav1.ObjectMeta{Namespace: cp.Namespace, Name: slice.Annotations[kubesim.DuplicateSliceAnnotation], Labels: cp.Labels},
		AddressType: cp.AddressType, Ports: cp.Ports, Endpoints: kubesim.DuplicateEndpoints(cp.Endpoints),
	}
}

// serviceSliceObject is the EndpointSlice of the Service namespace/service, its pods on port.
func serviceSliceObject(namespace, service string, port int32, pods []*corev1.Pod, run map[string]string) *discoveryv1.EndpointSlice {
	return &discoveryv1.EndpointSlice{
		ObjectMeta: metav1.ObjectMeta{
			Name: kubesim.SliceName(service), Namespace: namespace,
			Labels: withLabels(run, map[string]string{
				discoveryv1.LabelServiceName: service,
				discoveryv1.LabelManagedBy:   kubesim.ManagedBy,
			}),
		},
		AddressType: discoveryv1.AddressTypeIPv4,
		Ports: []discoveryv1.EndpointPort{{
			Name: ptr.To(PortName), Port: ptr.To(port), Protocol: ptr.To(corev1.ProtocolTCP),
		}},
		Endpoints: kubesim.Endpoints(pods),
	}
}

func (f *FleetPlan) tgbObject(t *TGBPlan, run map[string]string) *v1beta1.TargetGroupBinding {
	tt := t.TargetType
	tgb := &v1beta1.TargetGroupBinding{
		ObjectMeta: metav1.ObjectMeta{Name: t.Name, Namespace: t.Namespace, Labels: withLabels(run, nil)},
		Spec: v1beta1.TargetGroupBindingSpec{
			TargetGroupARN: t.TargetGroupARN,
			TargetType:     &tt,
			ServiceRef:     v1beta1.ServiceReference{Name: t.Name, Port: intstr.FromInt32(f.Spec.ServicePort)},
			VpcID:          f.Spec.VpcID,
		},
	}
	if t.NamedPort {
		tgb.Spec.ServiceRef.Port = intstr.FromString(PortName)
	}
	if t.TargetGroupProtocol != "" {
		tgb.Spec.TargetGroupProtocol = ptr.To(t.TargetGroupProtocol)
	}
	if t.AssumeRole {
		tgb.Spec.IamRoleArnToAssume = AssumeRoleARN(t.TargetGroupARN)
		tgb.Spec.AssumeRoleExternalId = t.AssumeRoleExternalID
	}
	if t.Networking != NetworkingNone {
		port := intstr.FromInt32(f.Spec.Port)
		if t.TargetType == v1beta1.TargetTypeInstance {
			port = intstr.FromInt32(t.NodePort)
		}
		peer := v1beta1.NetworkingPeer{IPBlock: &v1beta1.IPBlock{CIDR: f.Spec.VPCCIDR}}
		if t.Networking == NetworkingSecurityGroup {
			peer = v1beta1.NetworkingPeer{SecurityGroup: &v1beta1.SecurityGroup{GroupID: f.live.lbSG}}
		}
		tgb.Spec.Networking = &v1beta1.TargetGroupBindingNetworking{Ingress: []v1beta1.NetworkingIngressRule{{
			From:  []v1beta1.NetworkingPeer{peer},
			Ports: []v1beta1.NetworkingPort{{Protocol: ptr.To(v1beta1.NetworkingProtocolTCP), Port: &port}},
		}}}
	}
	return tgb
}

// AssumeRoleARN is the ARN of the role AssumeRoleName in the partition and account of the target
// group targetGroupARN (arn:<partition>:elasticloadbalancing:<region>:<account>:targetgroup/...).
func AssumeRoleARN(targetGroupARN string) string {
	partition, account := "aws", ""
	if parts := strings.SplitN(targetGroupARN, ":", 6); len(parts) == 6 {
		partition, account = parts[1], parts[4]
	}
	return "arn:" + partition + ":iam::" + account + ":role/" + AssumeRoleName
}
