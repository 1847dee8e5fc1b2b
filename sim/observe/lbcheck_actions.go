package observe

import (
	"fmt"
	"slices"

	"github.com/restartsim/restartsim/fakeaws"
	"github.com/restartsim/restartsim/sim/oracle/lbexpect"
)

// actionsDiffer names the first difference between the expected actions and AWS's, in order.
func (c *stackCheck) actionsDiffer(want []lbexpect.Action, have []fakeaws.Action) string {
	have = slices.Clone(have)
	slices.SortStableFunc(have, func(a, b fakeaws.Action) int { return int(a.Order) - int(b.Order) })
	if len(want) != len(have) {
		return fmt.Sprintf("%d actions, want %d", len(have), len(want))
	}
	for i, w := range want {
		h := have[i]
		if h.Type != w.Type {
			return fmt.Sprintf("action %d is %s, want %s", i+1, h.Type, w.Type)
		}
		var d string
		switch w.Type {
		case lbexpect.ActionForward:
			d = c.forwardDiffers(h, w.Forward)
		case lbexpect.ActionAuthenticateOIDC:
			d = oidcDiffers(w.OIDC, h.OIDC)
		case lbexpect.ActionFixedResponse:
			if f := h.FixedResponse; f == nil || *w.FixedResponse != (lbexpect.FixedResponse{StatusCode: f.StatusCode, ContentType: f.ContentType, MessageBody: f.MessageBody}) {
				d = fmt.Sprintf("fixed response %+v, want %+v", f, *w.FixedResponse)
			}
		case lbexpect.ActionRedirect:
			if r := h.Redirect; r == nil || *w.Redirect != (lbexpect.Redirect{Protocol: r.Protocol, Port: r.Port, Host: r.Host,
				Path: r.Path, Query: r.Query, StatusCode: r.StatusCode}) {
				d = fmt.Sprintf("redirect %+v, want %+v", r, *w.Redirect)
			}
		}
		if d != "" {
			return d
		}
	}
	return ""
}

// forwardDiffers names how a forward action's target groups differ from the expected ones: other
// resources, or ones of another protocol, target type or health check path.
func (c *stackCheck) forwardDiffers(a fakeaws.Action, want []lbexpect.TargetGroup) string {
	var arns []string
	if a.Forward != nil {
		for _, tg := range a.Forward.TargetGroups {
			arns = append(arns, tg.ARN)
		}
	}
	if len(arns) == 0 && a.TargetGroupARN != "" {
		arns = []string{a.TargetGroupARN}
	}
	if len(arns) != len(want) {
		return fmt.Sprintf("forwards to %d target groups, want %d", len(arns), len(want))
	}
	for _, w := range want {
		i := slices.IndexFunc(arns, func(arn string) bool { return c.isTargetGroup(arn, w) })
		if i < 0 {
			return fmt.Sprintf("forwards to %v, not to the target group %s", c.targetGroupNames(arns), describe(w))
		}
		have := c.tgs[arns[i]]
		arns = slices.Delete(arns, i, i+1)
		if w.Resource == "" {
			continue
		}
		// Not the port: a target group's port is only the default of targets registered without one,
		// and LBC keeps a group whose port moved (its targets carry their own ports).
		if have.Protocol != w.Protocol || have.TargetType != w.TargetType || have.HealthCheck.Path != w.HealthCheckPath {
			return fmt.Sprintf("forwards to %s (%s, %s, health check %q), want %s, %s, health check %q", have.Name,
				have.Protocol, have.TargetType, have.HealthCheck.Path, w.Protocol, w.TargetType, w.HealthCheckPath)
		}
	}
	return ""
}

// isTargetGroup reports whether the target group of arn is w: the stack's group w names by its
// resource tag, or the group w names by ARN or by name.
func (c *stackCheck) isTargetGroup(arn string, w lbexpect.TargetGroup) bool {
	tg, ok := c.tgs[arn]
	switch {
	case w.ARN != "":
		return arn == w.ARN
	case !ok:
		return false
	case w.Name != "":
		return tg.Name == w.Name
	}
	return c.ownedBy(tg.Tags, w.Resource)
}

func (c *stackCheck) targetGroupNames(arns []string) []string {
	var out []string
	for _, arn := range arns {
		if tg, ok := c.tgs[arn]; ok {
			out = append(out, tg.Name)
		} else {
			out = append(out, arn)
		}
	}
	return out
}

func describe(w lbexpect.TargetGroup) string {
	switch {
	case w.ARN != "":
		return w.ARN
	case w.Name != "":
		return "named " + w.Name
	}
	return w.Resource
}

func oidcDiffers(want *lbexpect.OIDC, have *fakeaws.OIDCConfig) string {
	if want == nil || have == nil {
		return "authenticate-oidc configuration missing"
	}
	// Neither secret goes into a violation: results are written to disk.
	got := lbexpect.OIDC{Issuer: have.Issuer, AuthorizationEndpoint: have.AuthorizationEndpoint, TokenEndpoint: have.TokenEndpoint,
		UserInfoEndpoint: have.UserInfoEndpoint, ClientID: have.ClientID, Scope: have.Scope,
		SessionCookieName: have.SessionCookieName, SessionTimeout: have.SessionTimeout, OnUnauthenticatedRequest: have.OnUnauthenticatedRequest}
	w := *want
	w.ClientSecret = ""
	switch {
	case got != w:
		return fmt.Sprintf("authenticate-oidc %+v, want %+v", got, w)
	case have.ClientSecret != want.ClientSecret:
		return "authenticate-oidc client secret is not the Secret's current one"
	}
	return ""
}
