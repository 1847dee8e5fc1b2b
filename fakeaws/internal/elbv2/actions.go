package elbv2

import (
	"regexp"
	"slices"
	"strings"

	"github.com/restartsim/restartsim/fakeaws/internal/query"
	"github.com/restartsim/restartsim/fakeaws/internal/state"
)

var (
	actionTypes       = []string{state.ActionForward, state.ActionAuthenticateOIDC, "authenticate-cognito", state.ActionRedirect, state.ActionFixedResponse, "jwt-validation"}
	fixedStatus       = regexp.MustCompile(`^[245]\d\d$`)
	fixedContentTypes = []string{"text/plain", "text/css", "text/html", "application/javascript", "application/json"}
)

func validationf(format string, args ...any) error {
	return query.Errorf("ValidationError", format, args...)
}

// actions parses an action list (prefix "DefaultActions.member" or "Actions.member"), checks what ELBv2 checks
// before looking at the account and returns the actions sorted by Order.
func actions(f *query.Form, prefix string) ([]state.Action, error) {
	members := f.Members(prefix)
	if len(members) == 0 {
		return nil, validationf("1 validation error detected: Value null at '%s' failed to satisfy constraint: Member must not be null", lowerFirst(strings.TrimSuffix(prefix, ".member")))
	}
	out := make([]state.Action, 0, len(members))
	for i, p := range members {
		a, err := action(f, p)
		if err != nil {
			return nil, err
		}
		if a.Order == 0 {
			a.Order = int32(i + 1) // ELBv2 numbers unordered actions by position
		}
		out = append(out, a)
	}
	slices.SortStableFunc(out, func(a, b state.Action) int { return int(a.Order) - int(b.Order) })
	for i, a := range out {
		terminal := a.Type != state.ActionAuthenticateOIDC
		if terminal != (i == len(out)-1) {
			return nil, query.Errorf("InvalidLoadBalancerAction", "Exactly one of the actions must be forward, redirect or fixed-response, and it must be the last one")
		}
		if i > 0 && out[i-1].Order == a.Order {
			return nil, query.Errorf("InvalidLoadBalancerAction", "The order '%d' is used by more than one action", a.Order)
		}
	}
	return out, nil
}

func action(f *query.Form, p string) (state.Action, error) {
	a := state.Action{Type: f.Get(p + ".Type")}
	if !slices.Contains(actionTypes, a.Type) {
		return a, validationf("1 validation error detected: Value '%s' at 'actions.type' failed to satisfy constraint: Member must satisfy enum value set: [%s]", a.Type, strings.Join(actionTypes, ", "))
	}
	order, ok, err := intParam(f, p+".Order", 1, 50000)
	if err != nil {
		return a, err
	}
	if ok {
		a.Order = int32(order)
	}
	switch a.Type {
	case state.ActionForward:
		err = forward(f, p, &a)
	case state.ActionFixedResponse:
		a.FixedResponse, err = fixedResponse(f, p+".FixedResponseConfig")
	case state.ActionRedirect:
		a.Redirect, err = redirect(f, p+".RedirectConfig")
	case state.ActionAuthenticateOIDC:
		a.OIDC, err = oidc(f, p+".AuthenticateOidcConfig")
	default:
		err = query.Errorf("InvalidLoadBalancerAction", "Action type '%s' is not supported by this endpoint", a.Type)
	}
	return a, err
}

func forward(f *query.Form, p string, a *state.Action) error {
	a.TargetGroupARN = f.Get(p + ".TargetGroupArn")
	tgs := f.Members(p + ".ForwardConfig.TargetGroups.member")
	if a.TargetGroupARN == "" && len(tgs) == 0 {
		return query.Errorf("InvalidLoadBalancerAction", "A target group ARN must be specified for a forward action")
	}
	if len(tgs) == 0 {
		return nil
	}
	fc := &state.ForwardConfig{}
	for _, t := range tgs {
		wt := state.WeightedTargetGroup{ARN: f.Get(t + ".TargetGroupArn")}
		if w, ok, err := intParam(f, t+".Weight", 0, 999); err != nil {
			return err
		} else if ok {
			w32 := int32(w)
			wt.Weight = &w32
		}
		fc.TargetGroups = append(fc.TargetGroups, wt)
	}
	if len(tgs) == 1 && a.TargetGroupARN != "" && a.TargetGroupARN != fc.TargetGroups[0].ARN {
		return query.Errorf("InvalidLoadBalancerAction", "The target group ARN and the forward config's target group must be the same")
	}
	if len(tgs) > 1 && a.TargetGroupARN != "" {
		return query.Errorf("InvalidLoadBalancerAction", "You cannot specify a target group ARN together with multiple forward target groups")
	}
	sp := p + ".ForwardConfig.TargetGroupStickinessConfig"
	if f.Has(sp + ".Enabled") {
		on, err := f.Bool(sp+".Enabled", false)
		if err != nil {
			return validationf("Invalid value '%s' for stickiness enabled", f.Get(sp+".Enabled"))
		}
		fc.StickinessEnabled = &on
	}
	if d, ok, err := intParam(f, sp+".DurationSeconds", 1, 604800); err != nil {
		return err
	} else if ok {
		d32 := int32(d)
		fc.StickinessDuration = &d32
	}
	if len(tgs) == 1 {
		a.TargetGroupARN = fc.TargetGroups[0].ARN
	}
	a.Forward = fc
	return nil
}

func fixedResponse(f *query.Form, p string) (*state.FixedResponse, error) {
	fr := &state.FixedResponse{StatusCode: f.Get(p + ".StatusCode"), ContentType: f.Get(p + ".ContentType"), MessageBody: f.Get(p + ".MessageBody")}
	if !fixedStatus.MatchString(fr.StatusCode) {
		return nil, validationf("1 validation error detected: Value '%s' at 'fixedResponseConfig.statusCode' failed to satisfy constraint: Member must satisfy regular expression pattern: ^(2|4|5)\\d\\d$", fr.StatusCode)
	}
	if fr.ContentType != "" && !slices.Contains(fixedContentTypes, fr.ContentType) {
		return nil, validationf("Content type '%s' must be one of %v", fr.ContentType, fixedContentTypes)
	}
	if len(fr.MessageBody) > 1024 {
		return nil, validationf("The message body must be at most 1024 characters")
	}
	return fr, nil
}

func redirect(f *query.Form, p string) (*state.Redirect, error) {
	r := &state.Redirect{Protocol: f.Get(p + ".Protocol"), Port: f.Get(p + ".Port"), Host: f.Get(p + ".Host"),
		Path: f.Get(p + ".Path"), Query: f.Get(p + ".Query"), StatusCode: f.Get(p + ".StatusCode")}
	if r.StatusCode != "HTTP_301" && r.StatusCode != "HTTP_302" {
		return nil, validationf("1 validation error detected: Value '%s' at 'redirectConfig.statusCode' failed to satisfy constraint: Member must satisfy enum value set: [HTTP_301, HTTP_302]", r.StatusCode)
	}
	if r.Protocol != "" && r.Protocol != "HTTP" && r.Protocol != "HTTPS" && r.Protocol != "#{protocol}" {
		return nil, validationf("Redirect protocol '%s' must be HTTP, HTTPS or #{protocol}", r.Protocol)
	}
	if r.Path != "" && !strings.HasPrefix(r.Path, "/") {
		return nil, validationf("Redirect path '%s' must start with '/'", r.Path)
	}
	// Omitted parts keep the request's, and AWS describes them as these placeholders.
	for _, d := range []struct {
		v   *string
		def string
	}{
		{&r.Protocol, "#{protocol}"}, {&r.Port, "#{port}"}, {&r.Host, "#{host}"}, {&r.Path, "/#{path}"}, {&r.Query, "#{query}"},
	} {
		if *d.v == "" {
			*d.v = d.def
		}
	}
	return r, nil
}

func oidc(f *query.Form, p string) (*state.OIDCConfig, error) {
	o := &state.OIDCConfig{
		Issuer: f.Get(p + ".Issuer"), AuthorizationEndpoint: f.Get(p + ".AuthorizationEndpoint"), TokenEndpoint: f.Get(p + ".TokenEndpoint"),
		UserInfoEndpoint: f.Get(p + ".UserInfoEndpoint"), ClientID: f.Get(p + ".ClientId"), ClientSecret: f.Get(p + ".ClientSecret"),
		SessionCookieName: f.Get(p + ".SessionCookieName"), Scope: f.Get(p + ".Scope"), OnUnauthenticatedRequest: f.Get(p + ".OnUnauthenticatedRequest"),
	}
	for _, k := range []string{"Issuer", "AuthorizationEndpoint", "TokenEndpoint", "UserInfoEndpoint", "ClientId"} {
		if f.Get(p+"."+k) == "" {
			return nil, validationf("1 validation error detected: Value null at 'authenticateOidcConfig.%s' failed to satisfy constraint: Member must not be null", lowerFirst(k))
		}
	}
	existing, err := f.Bool(p+".UseExistingClientSecret", false)
	if err != nil {
		return nil, validationf("Invalid value '%s' for useExistingClientSecret", f.Get(p+".UseExistingClientSecret"))
	}
	if existing && o.ClientSecret != "" {
		return nil, query.Errorf("InvalidLoadBalancerAction", "You cannot both specify a client secret and set UseExistingClientSecret to true")
	}
	o.UseExistingClientSecret = existing
	timeout, ok, err := intParam(f, p+".SessionTimeout", 1, 604800)
	if err != nil {
		return nil, err
	}
	// ELBv2's documented defaults, which Describe reports when the request left them out.
	o.SessionTimeout = 604800
	if ok {
		o.SessionTimeout = timeout
	}
	if o.SessionCookieName == "" {
		o.SessionCookieName = "AWSELBAuthSessionCookie"
	}
	if o.Scope == "" {
		o.Scope = "openid"
	}
	switch o.OnUnauthenticatedRequest {
	case "":
		o.OnUnauthenticatedRequest = "authenticate"
	case "deny", "allow", "authenticate":
	default:
		return nil, validationf("1 validation error detected: Value '%s' at 'onUnauthenticatedRequest' failed to satisfy constraint: Member must satisfy enum value set: [deny, allow, authenticate]", o.OnUnauthenticatedRequest)
	}
	for _, e := range f.Members(p + ".AuthenticationRequestExtraParams.entry") {
		if o.ExtraParams == nil {
			o.ExtraParams = map[string]string{}
		}
		o.ExtraParams[f.Get(e+".key")] = f.Get(e + ".value")
	}
	if len(o.ExtraParams) > 10 {
		return nil, validationf("At most 10 authentication request extra parameters may be specified")
	}
	return o, nil
}
