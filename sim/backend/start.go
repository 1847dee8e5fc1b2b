package backend

import (
	"errors"
	"fmt"
	"os"

	"github.com/go-logr/logr"

	"github.com/restartsim/restartsim/fakeaws"
	"github.com/restartsim/restartsim/sim/runerr"
	"github.com/restartsim/restartsim/sim/scenario"
)

// Config says which AWS a run talks to and how it starts.
type Config struct {
	// Endpoint is a standalone fakeaws (its admin API); empty starts one in-process.
	Endpoint string
	Creds    Creds
	AWS      *scenario.AWS
	// Clock and Seed are the scenario's.
	Clock scenario.Clock
	Seed  int64
	// TargetGroups and LoadBalancers size the in-process quotas: the most the fleet needs.
	TargetGroups, LoadBalancers int
	// CallLog is where an in-process fakeaws streams its calls (JSON lines).
	CallLog string
	// From seeds an in-process fakeaws with a copy of a snapshot's resources.
	From   *fakeaws.Snapshot
	Logger logr.Logger
}

// Start starts the run's AWS: the remote endpoint, or an in-process fakeaws, both in the warm-up profile.
// A bad endpoint or fakeaws option is bad input (runerr.BadInput).
func Start(c Config) (Backend, error) {
	if c.Endpoint != "" {
		return startRemote(c)
	}
	srv, err := fakeaws.New(fakeaws.Options{Region: c.AWS.Region, AccessKeyID: c.Creds.AccessKey, SecretAccessKey: c.Creds.SecretKey,
		Profile: c.AWS.WarmupProfile, HealthyAfter: c.AWS.HealthyAfter.Duration, DeregistrationDelay: c.AWS.DeregistrationDelay.Duration,
		TimeScale: c.Clock.Scale(), Seed: uint64(c.Seed), Logger: c.Logger, From: c.From,
		// AWS's default quotas are 3,000 target groups and 50 load balancers per region; a bigger
		// fleet assumes raised ones.
		MaxTargetGroups:  max(3000, 2*c.TargetGroups),
		MaxLoadBalancers: max(50, 2*c.LoadBalancers),
		MaxRecordedCalls: -1}) // the measurement reads every call
	if err != nil {
		return nil, runerr.BadInput(fmt.Errorf("fakeaws: %w", err))
	}
	if _, err := srv.Start(""); err != nil {
		return nil, err
	}
	f, err := os.Create(c.CallLog)
	if err != nil {
		srv.Close()
		return nil, err
	}
	cancel := srv.Recorder().StreamTo(f)
	return &localWithLog{Local{srv}, func() { cancel(); f.Close() }}, nil
}

func startRemote(c Config) (Backend, error) {
	if c.From != nil {
		return nil, errors.New("a fleet snapshot needs the in-process fakeaws")
	}
	r, err := NewRemote(c.Endpoint, c.Creds)
	if err != nil {
		return nil, runerr.BadInput(err)
	}
	if err := r.SetProfile(c.AWS.WarmupProfile); err != nil {
		return nil, err
	}
	if err := r.SetHealthTiming(c.AWS.HealthyAfter.Duration, c.AWS.DeregistrationDelay.Duration); err != nil {
		return nil, err
	}
	return r, nil
}

type localWithLog struct {
	Local
	closeLog func()
}

func (l *localWithLog) Close() error { err := l.Local.Close(); l.closeLog(); return err }
