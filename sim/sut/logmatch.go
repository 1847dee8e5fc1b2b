package sut

import (
	"regexp"
	"sync"
	"time"

	"github.com/go-logr/logr"
)

// logMatch is a logr.LogSink that passes every line on to the wrapped sink and notes when a
// message matching its pattern was first logged: how an in-process controller tells, through its
// manager's logger, when its caches synced (controller-runtime's "Starting workers").
type logMatch struct {
	next logr.LogSink // nil: lines are dropped once matched
	re   *regexp.Regexp
	seen *firstSeen // shared by every logger derived with WithValues or WithName
}

type firstSeen struct {
	mu sync.Mutex
	at time.Time
}

func (f *firstSeen) note(t time.Time) {
	f.mu.Lock()
	if f.at.IsZero() {
		f.at = t
	}
	f.mu.Unlock()
}

// When returns when the pattern was first logged (zero: not yet).
func (f *firstSeen) When() time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.at
}

// withLogMatch wraps log so that the returned firstSeen records the first message matching re.
func withLogMatch(log logr.Logger, re *regexp.Regexp) (logr.Logger, *firstSeen) {
	seen := &firstSeen{}
	return logr.New(logMatch{next: log.GetSink(), re: re, seen: seen}), seen
}

func (l logMatch) Init(info logr.RuntimeInfo) {
	if l.next != nil {
		l.next.Init(info)
	}
}

// Enabled is true at level 0 whatever the wrapped sink says, so the match sees info lines.
func (l logMatch) Enabled(level int) bool {
	return level == 0 || (l.next != nil && l.next.Enabled(level))
}

func (l logMatch) Info(level int, msg string, kv ...any) {
	if l.re.MatchString(msg) {
		l.seen.note(time.Now())
	}
	if l.next != nil && l.next.Enabled(level) {
		l.next.Info(level, msg, kv...)
	}
}

func (l logMatch) Error(err error, msg string, kv ...any) {
	if l.next != nil {
		l.next.Error(err, msg, kv...)
	}
}

func (l logMatch) WithValues(kv ...any) logr.LogSink {
	if l.next != nil {
		l.next = l.next.WithValues(kv...)
	}
	return l
}

func (l logMatch) WithName(name string) logr.LogSink {
	if l.next != nil {
		l.next = l.next.WithName(name)
	}
	return l
}
