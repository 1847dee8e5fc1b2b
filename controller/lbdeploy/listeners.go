package lbdeploy

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	elbv2 "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"
	elbtypes "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2/types"
	"github.com/go-logr/logr"

	"github.com/restartsim/restartsim/controller/lbmodel"
)

// syncListeners makes the load balancer's listeners (keyed by port) and their rules match the stack.
func (d *Deployer) syncListeners(ctx context.Context, log logr.Logger, stack lbmodel.Stack, lbARN string, tgARNs map[string]string) error {
	have := map[int32]elbtypes.Listener{}
	p := elbv2.NewDescribeListenersPaginator(d.cfg.ELB, &elbv2.DescribeListenersInput{LoadBalancerArn: aws.String(lbARN)})
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			return fmt.Errorf("DescribeListeners %s: %w", lbARN, err)
		}
		for _, l := range page.Listeners {
			have[aws.ToInt32(l.Port)] = l
		}
	}
	wanted := map[int32]bool{}
	for _, want := range stack.Listeners {
		wanted[want.Port] = true
		arn, err := d.syncListener(ctx, log, lbARN, have, want, tgARNs)
		if err != nil {
			return err
		}
		if err := d.syncCertificates(ctx, log, arn, want); err != nil {
			return err
		}
		if err := d.syncRules(ctx, log, arn, rulesOf(stack, want.Port), tgARNs); err != nil {
			return err
		}
	}
	for _, port := range sortedPorts(have) {
		if wanted[port] {
			continue
		}
		arn := aws.ToString(have[port].ListenerArn)
		if _, err := d.cfg.ELB.DeleteListener(ctx, &elbv2.DeleteListenerInput{ListenerArn: aws.String(arn)}); err != nil {
			return fmt.Errorf("DeleteListener %s: %w", arn, err)
		}
		log.V(1).Info("deleted listener", "port", port, "arn", arn)
	}
	return nil
}

// syncListener creates or modifies the listener on want.Port and returns its ARN.
func (d *Deployer) syncListener(ctx context.Context, log logr.Logger, lbARN string, have map[int32]elbtypes.Listener, want lbmodel.Listener, tgARNs map[string]string) (string, error) {
	actions, err := sdkActions([]lbmodel.Action{want.DefaultAction}, tgARNs)
	if err != nil {
		return "", fmt.Errorf("listener %d: %w", want.Port, err)
	}
	var certs []elbtypes.Certificate
	if len(want.Certificates) > 0 { // the default certificate; the others are listener certificates
		certs = []elbtypes.Certificate{{CertificateArn: aws.String(want.Certificates[0])}}
	}
	cur, ok := have[want.Port]
	if !ok {
		out, err := d.cfg.ELB.CreateListener(ctx, &elbv2.CreateListenerInput{
			LoadBalancerArn: aws.String(lbARN), Port: aws.Int32(want.Port), Protocol: elbtypes.ProtocolEnum(want.Protocol),
			Certificates: certs, SslPolicy: optional(want.SslPolicy), DefaultActions: actions,
		})
		if err != nil {
			return "", fmt.Errorf("CreateListener %d: %w", want.Port, err)
		}
		arn := aws.ToString(out.Listeners[0].ListenerArn)
		log.V(1).Info("created listener", "port", want.Port, "arn", arn)
		return arn, nil
	}
	arn := aws.ToString(cur.ListenerArn)
	if listenerMatches(cur, want, actions) {
		return arn, nil
	}
	_, err = d.cfg.ELB.ModifyListener(ctx, &elbv2.ModifyListenerInput{
		ListenerArn: aws.String(arn), Protocol: elbtypes.ProtocolEnum(want.Protocol), Certificates: certs,
		SslPolicy: optional(want.SslPolicy), DefaultActions: actions,
	})
	if err != nil {
		return "", fmt.Errorf("ModifyListener %s: %w", arn, err)
	}
	log.V(1).Info("modified listener", "port", want.Port, "arn", arn)
	return arn, nil
}

func listenerMatches(cur elbtypes.Listener, want lbmodel.Listener, actions []elbtypes.Action) bool {
	if string(cur.Protocol) != want.Protocol || authenticates(actions) || !sameActions(cur.DefaultActions, actions) {
		return false
	}
	if want.SslPolicy != "" && aws.ToString(cur.SslPolicy) != want.SslPolicy {
		return false
	}
	var defaultCert string
	for _, c := range cur.Certificates {
		if c.IsDefault == nil || aws.ToBool(c.IsDefault) {
			defaultCert = aws.ToString(c.CertificateArn)
			break
		}
	}
	return len(want.Certificates) == 0 || defaultCert == want.Certificates[0]
}

// syncCertificates keeps the listener's non-default certificates equal to want.Certificates[1:]. Only secure
// listeners have any, so a plain HTTP or TCP listener costs no call.
func (d *Deployer) syncCertificates(ctx context.Context, log logr.Logger, arn string, want lbmodel.Listener) error {
	if want.Protocol != "HTTPS" && want.Protocol != "TLS" {
		return nil
	}
	out, err := d.cfg.ELB.DescribeListenerCertificates(ctx, &elbv2.DescribeListenerCertificatesInput{ListenerArn: aws.String(arn)})
	if err != nil {
		return fmt.Errorf("DescribeListenerCertificates %s: %w", arn, err)
	}
	wantExtra := map[string]bool{}
	for i, c := range want.Certificates {
		if i == 0 {
			continue // the default certificate, set on the listener itself
		}
		wantExtra[c] = true
	}
	var remove []elbtypes.Certificate
	for _, c := range out.Certificates {
		a := aws.ToString(c.CertificateArn)
		if aws.ToBool(c.IsDefault) {
			continue
		}
		if wantExtra[a] {
			delete(wantExtra, a)
		} else {
			remove = append(remove, elbtypes.Certificate{CertificateArn: aws.String(a)})
		}
	}
	var add []elbtypes.Certificate
	for _, c := range sortedKeys(wantExtra) {
		add = append(add, elbtypes.Certificate{CertificateArn: aws.String(c)})
	}
	if len(add) > 0 {
		if _, err := d.cfg.ELB.AddListenerCertificates(ctx, &elbv2.AddListenerCertificatesInput{ListenerArn: aws.String(arn), Certificates: add}); err != nil {
			return fmt.Errorf("AddListenerCertificates %s: %w", arn, err)
		}
		log.V(1).Info("added listener certificates", "arn", arn, "count", len(add))
	}
	if len(remove) > 0 {
		if _, err := d.cfg.ELB.RemoveListenerCertificates(ctx, &elbv2.RemoveListenerCertificatesInput{ListenerArn: aws.String(arn), Certificates: remove}); err != nil {
			return fmt.Errorf("RemoveListenerCertificates %s: %w", arn, err)
		}
		log.V(1).Info("removed listener certificates", "arn", arn, "count", len(remove))
	}
	return nil
}

func rulesOf(stack lbmodel.Stack, port int32) []lbmodel.Rule {
	var out []lbmodel.Rule
	for _, r := range stack.Rules {
		if r.ListenerPort == port {
			out = append(out, r)
		}
	}
	return out
}
