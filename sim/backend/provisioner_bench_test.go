package backend

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/restartsim/restartsim/controller/api/v1beta1"
	"github.com/restartsim/restartsim/fakeaws"
	"github.com/restartsim/restartsim/sim/workload"
)

// BenchmarkProvisionTargetGroups is the AWS side of a 1,000-TGB fleet's setup: 1,000 target groups made
// through the Provisioner against an in-process fakeaws with the warm-up's unlimited profile, as many at once
// as the fleet's default concurrency.
func BenchmarkProvisionTargetGroups(b *testing.B) {
	const groups = 1000
	for range b.N {
		b.StopTimer()
		srv, err := fakeaws.New(fakeaws.Options{AccessKeyID: "k", SecretAccessKey: "s", Profile: fakeaws.ProfileUnlimited})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := srv.Start(""); err != nil {
			b.Fatal(err)
		}
		p := NewProvisioner(Local{srv}, Creds{Region: "us-west-2", AccessKey: "k", SecretKey: "s"})
		var next atomic.Int64
		var wg sync.WaitGroup
		errs := make(chan error, workload.DefaultConcurrency)
		b.StartTimer()
		for range workload.DefaultConcurrency {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := next.Add(1); i <= groups; i = next.Add(1) {
					if _, err := p.CreateTargetGroup(context.Background(), fmt.Sprintf("tg-%d", i), v1beta1.TargetTypeIP, 80, ""); err != nil {
						errs <- err
						return
					}
				}
			}()
		}
		wg.Wait()
		b.StopTimer()
		srv.Close()
		close(errs)
		if err := <-errs; err != nil {
			b.Fatal(err)
		}
	}
}
