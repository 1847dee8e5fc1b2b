package ec2

import (
	"slices"
	"strings"
	"time"

	"github.com/restartsim/restartsim/fakeaws/internal/query"
	"github.com/restartsim/restartsim/fakeaws/internal/state"
)

func vpcAttrs(v state.VPC) attrs {
	return func(name string) ([]string, bool) {
		switch name {
		case "vpc-id":
			return []string{v.ID}, true
		case "cidr", "cidr-block-association.cidr-block":
			if name == "cidr" {
				return v.CIDRs[:1], true
			}
			return v.CIDRs, true
		case "is-default":
			if v.IsDefault {
				return []string{"true"}, true
			}
			return []string{"false"}, true
		case "state":
			return []string{"available"}, true
		}
		return tagAttrs(v.Tags, name)
	}
}

func (s *Service) describeVpcs(_ time.Time, f *query.Form) (any, error) {
	fs, err := filters(f)
	if err != nil {
		return nil, err
	}
	ids := f.Strings("VpcId")
	all := s.st.VPCs()
	sel := all
	if len(ids) > 0 {
		sel = nil
		for _, id := range ids {
			i := slices.IndexFunc(all, func(v state.VPC) bool { return v.ID == id })
			if i < 0 {
				return nil, query.Errorf("InvalidVpcID.NotFound", "The vpc ID '%s' does not exist", id)
			}
			sel = append(sel, all[i])
		}
	}
	var matched []state.VPC
	for _, v := range sel {
		ok, err := match(fs, vpcAttrs(v))
		if err != nil {
			return nil, err
		}
		if ok {
			matched = append(matched, v)
		}
	}
	start, end, next, err := page(f, len(matched), len(ids) > 0)
	if err != nil {
		return nil, err
	}
	res := &describeVpcsResponse{NextToken: next, VpcSet: make([]xVpc, 0, end-start)}
	for _, v := range matched[start:end] {
		x := xVpc{VpcID: v.ID, OwnerID: s.st.AccountID(), State: "available", CidrBlock: v.CIDRs[0],
			DhcpOptionsID: "dopt-" + strings.TrimPrefix(v.ID, "vpc-"), InstanceTenancy: "default", IsDefault: v.IsDefault, TagSet: wireTags(v.Tags)}
		for i, c := range v.CIDRs {
			x.CidrBlockAssociationSet = append(x.CidrBlockAssociationSet, xCidrAssociation{
				AssociationID: "vpc-cidr-assoc-" + strings.TrimPrefix(v.ID, "vpc-") + string(rune('a'+i%26)), CidrBlock: c, State: "associated"})
		}
		res.VpcSet = append(res.VpcSet, x)
	}
	return res, nil
}
