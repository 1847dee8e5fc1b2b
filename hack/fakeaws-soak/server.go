package main

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/restartsim/restartsim/internal/poll"
)

// server is the soaked `restartsim fakeaws` process.
type server struct {
	cmd      *exec.Cmd
	addr     string
	url      string
	creds    credentials
	quietFor time.Duration
}

type credentials struct{ key, secret string }

func startServer(binary string) (*server, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	addr := ln.Addr().String()
	ln.Close()
	secret := make([]byte, 24)
	if _, err := rand.Read(secret); err != nil {
		return nil, err
	}
	s := &server{addr: addr, url: "http://" + addr, creds: credentials{key: "AKIDSOAK", secret: hex.EncodeToString(secret)},
		quietFor: 35 * time.Second}
	s.cmd = exec.Command(binary, "fakeaws", "--listen", addr, "--limits", "unlimited",
		"--aws-access-key-id", s.creds.key, "--aws-secret-access-key", s.creds.secret)
	s.cmd.Stdout, s.cmd.Stderr = io.Discard, io.Discard
	s.cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := s.cmd.Start(); err != nil {
		return nil, err
	}
	err = poll.Until(context.Background(), 20*time.Second, poll.Every(100*time.Millisecond), func() (bool, error) {
		resp, getErr := http.Get(s.url + "/healthz")
		if getErr == nil {
			resp.Body.Close()
		}
		return getErr == nil, nil // refused until the server listens
	})
	if err != nil {
		s.stop()
		return nil, fmt.Errorf("%s fakeaws did not answer /healthz within 20s", binary)
	}
	return s, nil
}

func (s *server) stop() {
	_ = s.cmd.Process.Signal(os.Interrupt)
	done := make(chan struct{})
	go func() { _ = s.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		_ = s.cmd.Process.Kill()
	}
}

// sample is one scrape of the server's metrics.
type sample struct {
	goroutines, rssBytes, anonBytes, cpuSeconds, requests, dropped float64
	bodyBytes, bodyRefusals                                        float64 // fakeaws_inflight_body_bytes, fakeaws_body_limit_refusals_total
}

func (s *server) scrape() (sample, error) {
	req, _ := http.NewRequest(http.MethodGet, s.url+"/_restartsim/metrics", nil)
	req.Header.Set("X-Restartsim-Access-Key-Id", s.creds.key)
	req.Header.Set("X-Restartsim-Secret-Access-Key", s.creds.secret)
	resp, err := (&http.Client{Timeout: 10 * time.Second}).Do(req)
	if err != nil {
		return sample{}, err
	}
	defer resp.Body.Close()
	var out sample
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") {
			continue
		}
		name, val, ok := cutMetric(line)
		if !ok {
			continue
		}
		switch {
		case name == "go_goroutines":
			out.goroutines = val
		case name == "process_resident_memory_bytes":
			out.rssBytes = val
		case name == "process_cpu_seconds_total":
			out.cpuSeconds = val
		case name == "fakeaws_recorder_dropped_calls_total":
			out.dropped = val
		case name == "fakeaws_inflight_body_bytes":
			out.bodyBytes = val
		case name == "fakeaws_body_limit_refusals_total":
			out.bodyRefusals = val
		case strings.HasPrefix(name, "fakeaws_requests_total"):
			out.requests += val
		}
	}
	out.anonBytes = anonRSS(s.cmd.Process.Pid)
	return out, sc.Err()
}

// anonRSS is the process's anonymous resident memory (RssAnon in /proc/<pid>/status): its heap and
// stacks, without the pages of its 150 MB executable that the page cache shares (0 without /proc).
func anonRSS(pid int) float64 { return procStatus(pid, "RssAnon:") }

// procStatus is one kB field of /proc/<pid>/status, in bytes (0 without /proc).
func procStatus(pid int, field string) float64 {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, field); ok {
			kb, _ := strconv.ParseFloat(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 64)
			return kb * 1024
		}
	}
	return 0
}

// cutMetric splits a text-format sample line into its name (labels included) and value.
func cutMetric(line string) (string, float64, bool) {
	i := strings.LastIndexByte(line, ' ')
	if i < 0 {
		return "", 0, false
	}
	v, err := strconv.ParseFloat(line[i+1:], 64)
	return line[:i], v, err == nil
}

// peaks are the highest figures seen while watching.
type peaks struct{ anon, bodyBytes float64 }

// watchPeak samples the server every second, its anonymous RSS from /proc and the bytes its request bodies
// hold from its metrics, until the returned function is called, which returns the highest of each.
func (s *server) watchPeak() func() peaks {
	var p peaks
	stop := repeat(time.Second, func() {
		p.anon = max(p.anon, anonRSS(s.cmd.Process.Pid))
		if smp, err := s.scrape(); err == nil {
			p.bodyBytes = max(p.bodyBytes, smp.bodyBytes)
		}
	})
	return func() peaks {
		stop()
		return p
	}
}
