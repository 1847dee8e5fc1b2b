package fakeaws_test

import (
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"

	"github.com/restartsim/restartsim/fakeaws"
)

func TestDescribeInstanceStatusAndSpotPrices(t *testing.T) {
	e := newEnv(t, fakeaws.Options{InstanceBootDelay: 5 * time.Second})
	lt := launchTemplate(t, e, "status")
	must[*ec2.RunInstancesOutput](t)(e.ec2.RunInstances(ctx, &ec2.RunInstancesInput{MinCount: aws.Int32(2), MaxCount: aws.Int32(2),
		InstanceType: "c7i.large", LaunchTemplate: &ec2types.LaunchTemplateSpecification{LaunchTemplateId: aws.String(lt)}}))
	statuses := func(in *ec2.DescribeInstanceStatusInput) []ec2types.InstanceStatus {
		return must[*ec2.DescribeInstanceStatusOutput](t)(e.ec2.DescribeInstanceStatus(ctx, in)).InstanceStatuses
	}
	if n := len(statuses(&ec2.DescribeInstanceStatusInput{})); n != 0 {
		t.Fatalf("%d statuses of pending instances without IncludeAllInstances", n)
	}
	if n := len(statuses(&ec2.DescribeInstanceStatusInput{IncludeAllInstances: aws.Bool(true)})); n != 2 {
		t.Fatalf("%d statuses with IncludeAllInstances, want 2", n)
	}
	e.clock.Step(5 * time.Second)
	ok := statuses(&ec2.DescribeInstanceStatusInput{})
	if len(ok) != 2 || ok[0].InstanceStatus.Status != ec2types.SummaryStatusOk || ok[0].InstanceState.Name != "running" {
		t.Fatalf("running statuses: %+v", ok)
	}
	impaired := statuses(&ec2.DescribeInstanceStatusInput{Filters: []ec2types.Filter{{Name: aws.String("instance-status.status"), Values: []string{"impaired"}}}})
	if len(impaired) != 0 {
		t.Fatalf("impaired: %+v", impaired)
	}

	p := ec2.NewDescribeSpotPriceHistoryPaginator(e.ec2, &ec2.DescribeSpotPriceHistoryInput{MaxResults: aws.Int32(100),
		ProductDescriptions: []string{"Linux/UNIX"}, StartTime: aws.Time(time.Now())})
	prices, pages := map[string]string{}, 0
	for p.HasMorePages() {
		pages++
		for _, sp := range must[*ec2.DescribeSpotPriceHistoryOutput](t)(p.NextPage(ctx)).SpotPriceHistory {
			prices[string(sp.InstanceType)+"/"+*sp.AvailabilityZone] = *sp.SpotPrice
		}
	}
	if len(prices) != 3*len(fakeaws.InstanceTypes()) || pages < 2 {
		t.Fatalf("%d prices in %d pages", len(prices), pages)
	}
	big := must[*ec2.DescribeSpotPriceHistoryOutput](t)(e.ec2.DescribeSpotPriceHistory(ctx, &ec2.DescribeSpotPriceHistoryInput{MaxResults: aws.Int32(2000)}))
	if len(big.SpotPriceHistory) != len(prices) || big.NextToken != nil {
		t.Fatalf("one page of 2,000: %d prices", len(big.SpotPriceHistory))
	}
}
