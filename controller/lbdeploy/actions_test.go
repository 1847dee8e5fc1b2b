package lbdeploy

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	elbtypes "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2/types"

	"github.com/restartsim/restartsim/controller/lbmodel"
)

func TestOIDCActionCarriesTheSecretButComparesWithout(t *testing.T) {
	oidc := func(secret string) []lbmodel.Action {
		return []lbmodel.Action{
			{Type: lbmodel.ActionAuthenticateOIDC, AuthenticateOIDC: &lbmodel.AuthenticateOIDC{Issuer: "https://idp", ClientID: "c", ClientSecret: secret}},
			{Type: lbmodel.ActionForward, TargetGroupID: "tg"},
		}
	}
	arns := map[string]string{"tg": "arn:tg"}
	a, err := sdkActions(oidc("one"), arns)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := sdkActions(oidc("two"), arns)
	if aws.ToString(b[0].AuthenticateOidcConfig.ClientSecret) != "two" || aws.ToInt32(b[1].Order) != 2 {
		t.Fatalf("actions = %+v, want the secret and orders 1, 2", b)
	}
	if !sameActions(a, b) || !authenticates(b) {
		t.Fatal("a describe never shows the secret, so the comparison must ignore it and the rule be rewritten")
	}
}

func TestDescribedActionsCompareWithTheirAWSSpelling(t *testing.T) {
	want, err := sdkActions([]lbmodel.Action{{Type: lbmodel.ActionRedirect, Redirect: &lbmodel.Redirect{StatusCode: "HTTP_301", Protocol: "HTTPS", Port: "443"}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	described := []elbtypes.Action{{Type: elbtypes.ActionTypeEnumRedirect, Order: aws.Int32(1), RedirectConfig: &elbtypes.RedirectActionConfig{
		StatusCode: elbtypes.RedirectActionStatusCodeEnumHttp301, Protocol: aws.String("HTTPS"), Port: aws.String("443"),
		Host: aws.String("#{host}"), Path: aws.String("/#{path}"), Query: aws.String("#{query}")}}}
	if !sameActions(described, want) {
		t.Fatalf("a redirect described with AWS's defaults differs from the model's: %+v vs %+v", keysOf(described), keysOf(want))
	}
	fwd, _ := sdkActions([]lbmodel.Action{{Type: lbmodel.ActionForward, TargetGroupID: "tg"}}, map[string]string{"tg": "arn:tg"})
	viaConfig := []elbtypes.Action{{Type: elbtypes.ActionTypeEnumForward, Order: aws.Int32(1), ForwardConfig: &elbtypes.ForwardActionConfig{
		TargetGroups: []elbtypes.TargetGroupTuple{{TargetGroupArn: aws.String("arn:tg"), Weight: aws.Int32(1)}}}}}
	if !sameActions(viaConfig, fwd) {
		t.Fatal("a forward described through ForwardConfig differs from the same forward by TargetGroupArn")
	}
	if _, err := sdkActions([]lbmodel.Action{{Type: lbmodel.ActionForward, TargetGroupID: "missing"}}, nil); err == nil {
		t.Fatal("want an error for a forward to a target group the stack lacks")
	}
}
