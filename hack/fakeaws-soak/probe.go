package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
)

// A probe is one hostile pattern run alone against a fresh server: it prints what the server paid (peak
// anonymous RSS, the slowest /healthz) and what the client got, so that two binaries can be compared.
var probes = map[string]func(ctx context.Context, s *server) string{
	"header-only":        func(ctx context.Context, s *server) string { return headerOnlyProbe(ctx, s, false) },
	"header-only-signed": func(ctx context.Context, s *server) string { return headerOnlyProbe(ctx, s, true) },
	"slow-body":          func(ctx context.Context, s *server) string { return slowBodyProbe(ctx, s, false) },
	"slow-body-signed":   func(ctx context.Context, s *server) string { return slowBodyProbe(ctx, s, true) },
	"s3-put":             s3PutProbe,
	"s3-fill":            s3FillProbe,
	"long-action":        longActionProbe,
}

func probeNames() string {
	return strings.Join(slices.Sorted(maps.Keys(probes)), ", ")
}

// runProbe starts the binary, runs the named probe and prints its figures.
func runProbe(binary, name string, w io.Writer) error {
	probe, ok := probes[name]
	if !ok {
		return fmt.Errorf("unknown probe %q (known: %s)", name, probeNames())
	}
	srv, err := startServer(binary)
	if err != nil {
		return err
	}
	defer srv.stop()
	time.Sleep(time.Second)
	idle := anonRSS(srv.cmd.Process.Pid)
	peak := watchPeaks(srv.cmd.Process.Pid)
	health := watchHealthz(srv.url)
	result := probe(context.Background(), srv)
	worst := health()
	anon, data := peak()
	fmt.Fprintf(w, "probe %s against %s\n  %s\n  anonymous RSS: idle %.1f MiB, peak %.1f MiB; peak VmData (mapped heap) %.1f MiB; slowest /healthz %v\n",
		name, binary, result, idle/mib, anon/mib, data/mib, worst.Round(time.Millisecond))
	return nil
}

// repeat calls f, then again every interval after it returns, until the returned function is called
// (which waits for a call in progress).
func repeat(interval time.Duration, f func()) (stop func()) {
	quit := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			f()
			select {
			case <-quit:
				return
			case <-time.After(interval):
			}
		}
	}()
	return func() {
		close(quit)
		<-done
	}
}

// watchPeaks reads the process's anonymous RSS and VmData from /proc every 100 ms (not through the server,
// which a probe may keep busy) until the returned function is called, which returns the highest of each.
// VmData counts heap the runtime has mapped, touched or not: a buffer allocated for a body that never
// arrives is not resident, but it is heap.
func watchPeaks(pid int) func() (anon, data float64) {
	var anonPeak, dataPeak float64
	stop := repeat(100*time.Millisecond, func() {
		anonPeak = max(anonPeak, anonRSS(pid))
		dataPeak = max(dataPeak, procStatus(pid, "VmData:"))
	})
	return func() (float64, float64) {
		stop()
		return anonPeak, dataPeak
	}
}

// watchHealthz asks /healthz every half second (30 s timeout) until the returned function is called, which
// returns the slowest answer (a timeout counts as 30 s).
func watchHealthz(url string) func() time.Duration {
	var worst time.Duration
	client := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	stop := repeat(500*time.Millisecond, func() {
		start := time.Now()
		resp, err := client.Get(url + "/healthz")
		took := time.Since(start)
		if err != nil {
			took = 30 * time.Second
		} else {
			resp.Body.Close()
		}
		worst = max(worst, took)
	})
	return func() time.Duration {
		stop()
		return worst
	}
}

// formHeaders is the head of a form POST claiming a body of length bytes; signed adds the headers of a SigV4
// signature with the server's access key ID and the current time but a signature that cannot match, which
// is what anyone who knows the (not secret) key ID can send.
func formHeaders(s *server, length int64, signed bool) string {
	h := fmt.Sprintf("POST / HTTP/1.1\r\nHost: %s\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: %d\r\n", s.addr, length)
	if signed {
		now := time.Now().UTC()
		h += fmt.Sprintf("X-Amz-Date: %s\r\nAuthorization: AWS4-HMAC-SHA256 Credential=%s/%s/us-west-2/elasticloadbalancing/aws4_request, SignedHeaders=content-type;host;x-amz-date, Signature=%s\r\n",
			now.Format("20060102T150405Z"), s.creds.key, now.Format("20060102"), strings.Repeat("0", 64))
	}
	return h + "\r\n"
}

// holdMany opens n connections at once, writes head to each, then calls trickle(conn) (which returns when
// the connection should be let go), and returns how many the server closed before that.
func holdMany(ctx context.Context, addr string, n int, head string, trickle func(net.Conn) bool) (opened, closedByServer int64) {
	var wg sync.WaitGroup
	var o, c atomic.Int64
	for range n {
		wg.Go(func() {
			conn, err := net.DialTimeout("tcp", addr, 10*time.Second)
			if err != nil {
				return
			}
			defer conn.Close()
			stop := context.AfterFunc(ctx, func() { conn.Close() })
			defer stop()
			if _, err := io.WriteString(conn, head); err != nil {
				return
			}
			o.Add(1)
			if !trickle(conn) {
				c.Add(1)
			}
		})
	}
	wg.Wait()
	return o.Load(), c.Load()
}

// headerOnlyProbe: four waves of 500 connections that send the headers of a 1 MiB form and one byte of it,
// then nothing, held 35 s (longer than the server's 30 s read timeout).
func headerOnlyProbe(ctx context.Context, s *server, signed bool) string {
	var opened, closed atomic.Int64
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			o, c := holdMany(ctx, s.addr, 500, formHeaders(s, 1<<20, signed)+"A", func(conn net.Conn) bool {
				return !closedBy(conn, 35*time.Second)
			})
			opened.Add(o)
			closed.Add(c)
		})
	}
	wg.Wait()
	return fmt.Sprintf("%d connections sent the headers of a 1 MiB body and one byte; the server closed %d of them within 35 s", opened.Load(), closed.Load())
}

// slowBodyProbe: 500 connections trickle a 1 MiB body, 16 KiB every half second, for 25 s.
func slowBodyProbe(ctx context.Context, s *server, signed bool) string {
	chunk := strings.Repeat("a", 16<<10)
	opened, closed := holdMany(ctx, s.addr, 500, formHeaders(s, 1<<20, signed), func(conn net.Conn) bool {
		for end := time.Now().Add(25 * time.Second); time.Now().Before(end); {
			if _, err := io.WriteString(conn, chunk); err != nil {
				return false
			}
			time.Sleep(500 * time.Millisecond)
		}
		return true
	})
	return fmt.Sprintf("%d connections trickled a 1 MiB body at 32 KiB/s for 25 s; the server closed %d of them", opened, closed)
}

// closedBy reports whether the server closed conn within d (what it sent is discarded).
func closedBy(conn net.Conn, d time.Duration) bool {
	_ = conn.SetReadDeadline(time.Now().Add(d))
	_, err := io.Copy(io.Discard, conn)
	var ne net.Error
	return !errors.As(err, &ne) || !ne.Timeout()
}

// zeros is an endless reader of zero bytes: a body streamed rather than held by the client.
type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}

// s3Request signs an S3 request with UNSIGNED-PAYLOAD, as a streaming upload is signed.
func s3Request(ctx context.Context, s *server, method, path string, body io.Reader, length int64) (*http.Request, error) {
	req, err := http.NewRequestWithContext(ctx, method, s.url+path, body)
	if err != nil {
		return nil, err
	}
	req.ContentLength = length
	req.Header.Set("X-Amz-Content-Sha256", "UNSIGNED-PAYLOAD")
	err = v4.NewSigner().SignHTTP(ctx, aws.Credentials{AccessKeyID: s.creds.key, SecretAccessKey: s.creds.secret}, req, "UNSIGNED-PAYLOAD", "s3", "us-west-2", time.Now())
	return req, err
}

// s3Do sends a signed S3 request and returns its status and the error code of its answer, if any.
func s3Do(ctx context.Context, s *server, method, path string, body io.Reader, length int64) (int, string) {
	req, err := s3Request(ctx, s, method, path, body, length)
	if err != nil {
		return 0, err.Error()
	}
	resp, err := (&http.Client{Timeout: 5 * time.Minute}).Do(req)
	if err != nil {
		return 0, "transport: " + err.Error()
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	return resp.StatusCode, xmlCode(string(b))
}

// xmlCode is the <Code> of an AWS error document ("" when there is none).
func xmlCode(doc string) string {
	_, rest, ok := strings.Cut(doc, "<Code>")
	if !ok {
		return ""
	}
	code, _, _ := strings.Cut(rest, "</Code>")
	return code
}

// s3PutProbe: five concurrent signed PUTs of 100 MB with UNSIGNED-PAYLOAD, each body streamed.
func s3PutProbe(ctx context.Context, s *server) string {
	if st, code := s3Do(ctx, s, http.MethodPut, "/probe", nil, 0); st != http.StatusOK {
		return fmt.Sprintf("CreateBucket: %d %s", st, code)
	}
	results := make([]string, 5)
	start := time.Now()
	var wg sync.WaitGroup
	for i := range results {
		wg.Go(func() {
			st, code := s3Do(ctx, s, http.MethodPut, fmt.Sprintf("/probe/big-%d", i), io.LimitReader(zeros{}, 100e6), 100e6)
			results[i] = fmt.Sprintf("%d %s", st, code)
		})
	}
	wg.Wait()
	return fmt.Sprintf("5 PUTs of 100 MB (UNSIGNED-PAYLOAD) answered %s in %v", strings.Join(results, ", "), time.Since(start).Round(time.Millisecond))
}

// s3FillProbe: 8 MiB objects, one after another, until one is refused or 640 MiB are stored.
func s3FillProbe(ctx context.Context, s *server) string {
	if st, code := s3Do(ctx, s, http.MethodPut, "/fill", nil, 0); st != http.StatusOK {
		return fmt.Sprintf("CreateBucket: %d %s", st, code)
	}
	const size = 8 << 20
	stored := 0
	last := ""
	for stored < 80 {
		st, code := s3Do(ctx, s, http.MethodPut, fmt.Sprintf("/fill/obj-%d", stored), io.LimitReader(zeros{}, size), size)
		if st != http.StatusOK {
			last = fmt.Sprintf("; object %d answered %d %s", stored+1, st, code)
			break
		}
		stored++
	}
	return fmt.Sprintf("%d objects of 8 MiB stored (%d MiB)%s", stored, stored*8, last)
}

// longActionProbe: a signed ELBv2 request whose Action is 100 KB long; how much of it the error echoes.
func longActionProbe(ctx context.Context, s *server) string {
	body := "Action=" + strings.Repeat("A", 100_000) + "&Version=2015-12-01"
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, s.url+"/", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	sum := sha256.Sum256([]byte(body))
	_ = v4.NewSigner().SignHTTP(ctx, aws.Credentials{AccessKeyID: s.creds.key, SecretAccessKey: s.creds.secret}, req, hex.EncodeToString(sum[:]), "elasticloadbalancing", "us-west-2", time.Now())
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err.Error()
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return fmt.Sprintf("a 100,000-byte Action: answered %d with a %d-byte error document", resp.StatusCode, len(b))
}
