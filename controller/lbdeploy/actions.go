package lbdeploy

import (
	"fmt"
	"reflect"
	"sort"

	"github.com/aws/aws-sdk-go-v2/aws"
	elbtypes "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2/types"

	"github.com/restartsim/restartsim/controller/lbmodel"
)

// actionKey is an action reduced to what both the model and a Describe answer say, so the two compare equal
// exactly when AWS already does what the model wants. The OIDC client secret is not in it: AWS never returns it.
type actionKey struct {
	Type           string
	TargetGroupARN string
	Fixed          lbmodel.FixedResponse
	Redirect       lbmodel.Redirect
	OIDC           lbmodel.AuthenticateOIDC
}

// sdkActions converts model actions to ELBv2 ones, forward targets resolved through tgARNs, in order.
func sdkActions(actions []lbmodel.Action, tgARNs map[string]string) ([]elbtypes.Action, error) {
	out := make([]elbtypes.Action, 0, len(actions))
	for i, a := range actions {
		sa := elbtypes.Action{Type: elbtypes.ActionTypeEnum(a.Type), Order: aws.Int32(int32(i + 1))}
		switch a.Type {
		case lbmodel.ActionForward:
			arn, ok := tgARNs[a.TargetGroupID]
			if !ok {
				return nil, fmt.Errorf("forward to target group %q, which the stack does not have", a.TargetGroupID)
			}
			sa.TargetGroupArn = aws.String(arn)
		case lbmodel.ActionFixedResponse:
			f := a.FixedResponse
			sa.FixedResponseConfig = &elbtypes.FixedResponseActionConfig{StatusCode: aws.String(f.StatusCode), ContentType: optional(f.ContentType), MessageBody: optional(f.MessageBody)}
		case lbmodel.ActionRedirect:
			r := withRedirectDefaults(*a.Redirect)
			sa.RedirectConfig = &elbtypes.RedirectActionConfig{StatusCode: elbtypes.RedirectActionStatusCodeEnum(r.StatusCode),
				Protocol: aws.String(r.Protocol), Port: aws.String(r.Port), Host: aws.String(r.Host), Path: aws.String(r.Path), Query: aws.String(r.Query)}
		case lbmodel.ActionAuthenticateOIDC:
			o := a.AuthenticateOIDC
			sa.AuthenticateOidcConfig = &elbtypes.AuthenticateOidcActionConfig{
				Issuer: aws.String(o.Issuer), AuthorizationEndpoint: aws.String(o.AuthorizationEndpoint), TokenEndpoint: aws.String(o.TokenEndpoint),
				UserInfoEndpoint: aws.String(o.UserInfoEndpoint), ClientId: aws.String(o.ClientID), ClientSecret: aws.String(o.ClientSecret),
				Scope: optional(o.Scope), SessionCookieName: optional(o.SessionCookieName), SessionTimeout: aws.Int64(o.SessionTimeout),
				OnUnauthenticatedRequest: elbtypes.AuthenticateOidcActionConditionalBehaviorEnum(o.OnUnauthenticatedRequest),
			}
		default:
			return nil, fmt.Errorf("action type %q is not supported", a.Type)
		}
		out = append(out, sa)
	}
	return out, nil
}

func optional(s string) *string {
	if s == "" {
		return nil
	}
	return aws.String(s)
}

// withRedirectDefaults fills the parts a redirect keeps from the request, as ELBv2 stores them.
func withRedirectDefaults(r lbmodel.Redirect) lbmodel.Redirect {
	def := func(v *string, d string) {
		if *v == "" {
			*v = d
		}
	}
	def(&r.Protocol, "#{protocol}")
	def(&r.Port, "#{port}")
	def(&r.Host, "#{host}")
	def(&r.Path, "/#{path}")
	def(&r.Query, "#{query}")
	return r
}

// keysOf reduces SDK actions (ours or described) to comparable keys, in their Order.
func keysOf(actions []elbtypes.Action) []actionKey {
	sorted := append([]elbtypes.Action(nil), actions...)
	sort.SliceStable(sorted, func(i, j int) bool { return aws.ToInt32(sorted[i].Order) < aws.ToInt32(sorted[j].Order) })
	out := make([]actionKey, 0, len(sorted))
	for _, a := range sorted {
		k := actionKey{Type: string(a.Type), TargetGroupARN: aws.ToString(a.TargetGroupArn)}
		if k.TargetGroupARN == "" && a.ForwardConfig != nil && len(a.ForwardConfig.TargetGroups) == 1 {
			k.TargetGroupARN = aws.ToString(a.ForwardConfig.TargetGroups[0].TargetGroupArn)
		}
		if f := a.FixedResponseConfig; f != nil {
			k.Fixed = lbmodel.FixedResponse{StatusCode: aws.ToString(f.StatusCode), ContentType: aws.ToString(f.ContentType), MessageBody: aws.ToString(f.MessageBody)}
		}
		if r := a.RedirectConfig; r != nil {
			k.Redirect = withRedirectDefaults(lbmodel.Redirect{StatusCode: string(r.StatusCode), Protocol: aws.ToString(r.Protocol),
				Port: aws.ToString(r.Port), Host: aws.ToString(r.Host), Path: aws.ToString(r.Path), Query: aws.ToString(r.Query)})
		}
		if o := a.AuthenticateOidcConfig; o != nil {
			k.OIDC = lbmodel.AuthenticateOIDC{Issuer: aws.ToString(o.Issuer), AuthorizationEndpoint: aws.ToString(o.AuthorizationEndpoint),
				TokenEndpoint: aws.ToString(o.TokenEndpoint), UserInfoEndpoint: aws.ToString(o.UserInfoEndpoint), ClientID: aws.ToString(o.ClientId),
				Scope: aws.ToString(o.Scope), SessionCookieName: aws.ToString(o.SessionCookieName), SessionTimeout: aws.ToInt64(o.SessionTimeout),
				OnUnauthenticatedRequest: string(o.OnUnauthenticatedRequest)}
		}
		out = append(out, k)
	}
	return out
}

// sameActions reports whether AWS's actions already are the wanted ones.
func sameActions(have, want []elbtypes.Action) bool {
	return reflect.DeepEqual(keysOf(have), keysOf(want))
}

// authenticates reports whether actions carry an OIDC client secret. AWS never describes the secret, so a
// describe cannot show whether the current one is in effect; such actions are always written (see syncRules).
func authenticates(actions []elbtypes.Action) bool {
	for _, a := range actions {
		if a.AuthenticateOidcConfig != nil {
			return true
		}
	}
	return false
}
