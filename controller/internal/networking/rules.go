package networking

import (
	"fmt"
	"sort"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/restartsim/restartsim/controller/api/v1beta1"
)

// RuleDescription marks the ingress rules the controller owns (as upstream does).
const RuleDescription = "elbv2.k8s.aws/targetGroupBinding=shared"

// Rule is one ingress rule: a protocol and port range from one CIDR or security group.
type Rule struct {
	Protocol string // tcp or udp
	FromPort int32
	ToPort   int32
	CIDR     string // IPv4 or IPv6 CIDR, or
	SourceSG string // a security group ID
}

// Key identifies a rule.
func (r Rule) Key() string {
	return fmt.Sprintf("%s/%d-%d/%s%s", r.Protocol, r.FromPort, r.ToPort, r.CIDR, r.SourceSG)
}

// DesiredRules expands the TargetGroupBinding's networking into rules. A nil port means every port;
// a named port resolves to the targets' ports.
func DesiredRules(n *v1beta1.TargetGroupBindingNetworking, targetPorts []int32) []Rule {
	if n == nil {
		return nil
	}
	seen := map[string]Rule{}
	for _, ing := range n.Ingress {
		for _, port := range ing.Ports {
			proto := "tcp"
			if port.Protocol != nil && *port.Protocol == v1beta1.NetworkingProtocolUDP {
				proto = "udp"
			}
			var ranges [][2]int32
			switch {
			case port.Port == nil:
				ranges = [][2]int32{{0, 65535}}
			case port.Port.Type == intstr.Int:
				ranges = [][2]int32{{port.Port.IntVal, port.Port.IntVal}}
			default:
				for _, p := range targetPorts {
					ranges = append(ranges, [2]int32{p, p})
				}
			}
			for _, from := range ing.From {
				for _, rg := range ranges {
					r := Rule{Protocol: proto, FromPort: rg[0], ToPort: rg[1]}
					switch {
					case from.IPBlock != nil:
						r.CIDR = from.IPBlock.CIDR
					case from.SecurityGroup != nil:
						r.SourceSG = from.SecurityGroup.GroupID
					default:
						continue
					}
					seen[r.Key()] = r
				}
			}
		}
	}
	return sortedRules(seen)
}

// OwnedRules flattens a group's ingress permissions into the rules carrying RuleDescription.
func OwnedRules(perms []ec2types.IpPermission) []Rule {
	seen := map[string]Rule{}
	for _, p := range perms {
		base := Rule{Protocol: aws.ToString(p.IpProtocol), FromPort: aws.ToInt32(p.FromPort), ToPort: aws.ToInt32(p.ToPort)}
		for _, r := range p.IpRanges {
			if aws.ToString(r.Description) == RuleDescription {
				x := base
				x.CIDR = aws.ToString(r.CidrIp)
				seen[x.Key()] = x
			}
		}
		for _, r := range p.Ipv6Ranges {
			if aws.ToString(r.Description) == RuleDescription {
				x := base
				x.CIDR = aws.ToString(r.CidrIpv6)
				seen[x.Key()] = x
			}
		}
		for _, g := range p.UserIdGroupPairs {
			if aws.ToString(g.Description) == RuleDescription {
				x := base
				x.SourceSG = aws.ToString(g.GroupId)
				seen[x.Key()] = x
			}
		}
	}
	return sortedRules(seen)
}

// Permissions converts rules to EC2 permissions carrying RuleDescription.
func Permissions(rules []Rule) []ec2types.IpPermission {
	out := make([]ec2types.IpPermission, 0, len(rules))
	for _, r := range rules {
		p := ec2types.IpPermission{IpProtocol: aws.String(r.Protocol), FromPort: aws.Int32(r.FromPort), ToPort: aws.Int32(r.ToPort)}
		switch {
		case r.SourceSG != "":
			p.UserIdGroupPairs = []ec2types.UserIdGroupPair{{GroupId: aws.String(r.SourceSG), Description: aws.String(RuleDescription)}}
		case strings.Contains(r.CIDR, ":"):
			p.Ipv6Ranges = []ec2types.Ipv6Range{{CidrIpv6: aws.String(r.CIDR), Description: aws.String(RuleDescription)}}
		default:
			p.IpRanges = []ec2types.IpRange{{CidrIp: aws.String(r.CIDR), Description: aws.String(RuleDescription)}}
		}
		out = append(out, p)
	}
	return out
}

func sortedRules(m map[string]Rule) []Rule {
	out := make([]Rule, 0, len(m))
	for _, r := range m {
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Key() < out[j].Key() })
	return out
}

// diff returns the rules in want but not have, and in have but not want.
func diff(want, have []Rule) (add, remove []Rule) {
	h := map[string]bool{}
	for _, r := range have {
		h[r.Key()] = true
	}
	w := map[string]bool{}
	for _, r := range want {
		w[r.Key()] = true
		if !h[r.Key()] {
			add = append(add, r)
		}
	}
	for _, r := range have {
		if !w[r.Key()] {
			remove = append(remove, r)
		}
	}
	return add, remove
}
