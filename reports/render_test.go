package reports_test

import (
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/restartsim/restartsim/internal/outfile"
	"github.com/restartsim/restartsim/internal/outfile/outfiletest"
	"github.com/restartsim/restartsim/reports"
	"github.com/restartsim/restartsim/results"
)

var keepOutput = os.Getenv("REPORTS_KEEP_OUTPUT") // set to a directory to look at the figures

func outDir(t *testing.T) string {
	if keepOutput != "" {
		return filepath.Join(keepOutput, t.Name())
	}
	return t.TempDir()
}

func TestRenderWritesEveryFigure(t *testing.T) {
	r, ts := loadGolden(t)
	files, err := reports.Render(r, ts, outDir(t))
	if err != nil {
		t.Fatal(err)
	}
	// Sizes in pixels: the calls figure has one 340 px panel per strategy under a 40 px title.
	want := map[string][2]int{
		// Two panels of 110 px plus 20 px per lane: the controller and 24 of the 30 changes.
		reports.FigureTimeline:    {1400, 40 + 2*(110+20*25)},
		reports.FigureAWSCalls:    {1400, 40 + 2*340},
		reports.FigureLatencyCDF:  {1400, 620},
		reports.FigureQueueDepths: {1400, 720},
		reports.FigureMemory:      {1400, 40 + 2*340},
		reports.FigureRestartCost: {1400, 560},
		reports.FigureSweep:       {1400, 620},
	}
	if len(files.Figures) != len(want) || len(files.Skipped) != 0 {
		t.Fatalf("figures %d, skipped %v; want %d figures", len(files.Figures), files.Skipped, len(want))
	}
	html, err := os.ReadFile(files.HTML)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files.Figures {
		data, err := os.ReadFile(f.Path)
		if err != nil {
			t.Fatal(err)
		}
		cfg, err := png.DecodeConfig(bytes.NewReader(data))
		if err != nil {
			t.Fatalf("%s: %v", f.Path, err)
		}
		size, ok := want[f.ID]
		if !ok {
			t.Errorf("unexpected figure %q", f.ID)
			continue
		}
		if cfg.Width != size[0] || cfg.Height != size[1] || f.Width != size[0] || f.Height != size[1] {
			t.Errorf("%s: decoded %dx%d, reported %dx%d, want %dx%d", f.ID, cfg.Width, cfg.Height, f.Width, f.Height, size[0], size[1])
		}
		if filepath.Base(f.Path) != f.ID+".png" {
			t.Errorf("%s written to %s", f.ID, f.Path)
		}
		if _, err := png.Decode(bytes.NewReader(data)); err != nil {
			t.Errorf("%s: full decode: %v", f.ID, err)
		}
		// The HTML embeds exactly this file, so the report is self-contained.
		for _, ref := range []string{`id="fig-` + f.ID + `"`, "data:image/png;base64," + base64.StdEncoding.EncodeToString(data)} {
			if !bytes.Contains(html, []byte(ref)) {
				t.Errorf("report.html lacks %.60s…", ref)
			}
		}
	}
	for _, banned := range []string{"<script", "<link", "http://", "https://", "@import", "url("} {
		if bytes.Contains(html, []byte(banned)) {
			t.Errorf("report.html is not self-contained: contains %q", banned)
		}
	}
	for _, want := range []string{"golden", "no-checkpoint", "checkpoint", "FAILED", "missing-target", "ttfmr_seconds", "linux/amd64, 2 CPUs", "v1.37.2"} {
		if !bytes.Contains(html, []byte(want)) {
			t.Errorf("report.html lacks %q", want)
		}
	}
}

func TestRenderWithoutTimeseries(t *testing.T) {
	r, _ := loadGolden(t)
	r.Sweep = nil
	files, err := reports.Render(r, nil, outDir(t))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range files.Figures {
		got = append(got, f.ID)
	}
	wantDrawn := []string{reports.FigureTimeline, reports.FigureLatencyCDF, reports.FigureRestartCost}
	if strings.Join(got, ",") != strings.Join(wantDrawn, ",") {
		t.Errorf("drawn %v, want %v", got, wantDrawn)
	}
	html, err := os.ReadFile(files.HTML)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range files.Skipped {
		if !bytes.Contains(html, []byte(`id="fig-`+s.ID+`-skipped"`)) {
			t.Errorf("report.html does not say why %s is missing", s.ID)
		}
	}
	if len(files.Skipped) != 4 {
		t.Errorf("skipped %v, want the three time-series figures and the sweep", files.Skipped)
	}
}

func TestRenderRejectsEmptyResults(t *testing.T) {
	if _, err := reports.Render(&results.Results{}, nil, t.TempDir()); err == nil {
		t.Fatal("want an error for results without strategies")
	}
}

// A figure or the page that cannot be written, at a write or only at its close, is an
// *outfile.Error naming the file, and no partial or empty file is left.
func TestRenderOnFullDisk(t *testing.T) {
	r, ts := loadGolden(t)
	for _, tt := range []struct {
		file    string
		onClose bool
	}{{reports.FigureAWSCalls + ".png", false}, {reports.HTMLFile, true}} {
		dir := t.TempDir()
		full := outfiletest.FullDisk{Full: func(name string) bool { return filepath.Base(name) == tt.file+".partial" }, OnClose: tt.onClose}
		_, err := reports.RenderTo(full, r, ts, dir)
		if !outfile.IsError(err) || !errors.Is(err, syscall.ENOSPC) || !strings.Contains(err.Error(), filepath.Join(dir, tt.file)) {
			t.Errorf("%s: error %v, want ENOSPC naming it", tt.file, err)
		}
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			if e.Name() == tt.file || strings.HasSuffix(e.Name(), ".partial") {
				t.Errorf("%s left behind", e.Name())
			}
		}
	}
}

// The figures draw the first MaxDrawnStrategies strategies and say so; the tables list all.
func TestRenderCapsDrawnStrategies(t *testing.T) {
	r, ts := loadGolden(t)
	for len(r.Strategies) < 40 {
		s := r.Strategies[0]
		s.Name = fmt.Sprint("extra-", len(r.Strategies))
		r.Strategies = append(r.Strategies, s)
	}
	files, err := reports.RenderTo(outfiletest.Discard{}, r, ts, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files.Figures {
		if !strings.Contains(f.Caption, "Only the first 12 of the 40 strategies are drawn") {
			t.Errorf("%s: caption does not say strategies are left out: %q", f.ID, f.Caption)
		}
		if f.ID == reports.FigureTimeline && f.Height != 40+12*(110+20*25) {
			t.Errorf("%s: %d pixels high, want 12 panels", f.ID, f.Height)
		}
	}
}

// Time series of other strategies only (renamed, or beyond those drawn) skip the time-series
// figures rather than failing the report.
func TestRenderTimeseriesOfOtherStrategies(t *testing.T) {
	r, ts := loadGolden(t)
	for i := range r.Strategies {
		r.Strategies[i].Name += "-renamed"
	}
	files, err := reports.RenderTo(outfiletest.Discard{}, r, ts, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	var skipped []string
	for _, s := range files.Skipped {
		skipped = append(skipped, s.ID+": "+s.Reason)
	}
	want := []string{reports.FigureAWSCalls + ": no timeseries.csv samples of the strategies drawn", reports.FigureQueueDepths + ": no timeseries.csv samples of the strategies drawn",
		reports.FigureMemory + ": no timeseries.csv samples of the strategies drawn"}
	if strings.Join(skipped, "; ") != strings.Join(want, "; ") {
		t.Errorf("skipped %v, want %v", skipped, want)
	}
}
