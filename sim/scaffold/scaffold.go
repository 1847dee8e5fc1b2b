package scaffold

import (
	"context"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"
)

// Options say what to scaffold.
type Options struct {
	// CRDs are CRD files or directories, as cluster.crds names them. Required.
	CRDs []string
	// Kinds are the kinds to make groups of (Kind, plural or plural.group, any case). Default: every
	// kind of the CRDs.
	Kinds []string
	// Binary is the controller; its --help gives the strategy's flags. Default: none, and the
	// command is a placeholder.
	Binary string
	// BinaryArgs come before the flags (a subcommand, e.g. restartsim's "controller").
	BinaryArgs []string
	// Count is the number of objects per group (bindings for the TargetGroupBinding kind). Default 50.
	Count int
	// HelpTimeout bounds the binary's --help. Default 10s.
	HelpTimeout time.Duration

	// help runs the binary's --help (RunHelp; tests swap it).
	help func(ctx context.Context, binary string, args []string, timeout time.Duration) (string, error)
}

// Defaults.
const (
	DefaultCount       = 50
	DefaultHelpTimeout = 10 * time.Second
)

func (o *Options) setDefaults() {
	if o.Count == 0 {
		o.Count = DefaultCount
	}
	if o.HelpTimeout == 0 {
		o.HelpTimeout = DefaultHelpTimeout
	}
	if o.help == nil {
		o.help = RunHelp
	}
}

// Result is a written scenario.
type Result struct {
	YAML []byte
	// Placeholders are the field paths still holding a placeholder.
	Placeholders []string
	// BinaryEnv is the environment variable the command's binary is read from (ACK_BINARY), "" without a binary.
	BinaryEnv string
}

// UnknownKindError is a --kind the CRDs do not define.
type UnknownKindError struct {
	Kind  string
	Known []string
}

func (e *UnknownKindError) Error() string {
	return fmt.Sprintf("kind %q is not in the CRDs given; they define: %s", e.Kind, strings.Join(e.Known, ", "))
}

// Generate writes the scenario.
func Generate(ctx context.Context, o Options) (*Result, error) {
	o.setDefaults()
	if len(o.CRDs) == 0 {
		return nil, fmt.Errorf("no CRDs given")
	}
	if o.Count < 1 {
		return nil, fmt.Errorf("count must be at least 1, got %d", o.Count)
	}
	all, err := ReadCRDs(o.CRDs)
	if err != nil {
		return nil, err
	}
	chosen, err := choose(all, o.Kinds)
	if err != nil {
		return nil, err
	}
	var help string
	if o.Binary != "" {
		if help, err = o.help(ctx, o.Binary, o.BinaryArgs, o.HelpTimeout); err != nil {
			return nil, err
		}
	}
	w := newWriter(o, chosen, help)
	data, err := w.document()
	if err != nil {
		return nil, err
	}
	return &Result{YAML: data, Placeholders: w.todo.paths, BinaryEnv: w.binaryEnv}, nil
}

// choose picks the CRDs of kinds, in the order given; all of them for none.
func choose(all []*CRD, kinds []string) ([]*CRD, error) {
	if len(kinds) == 0 {
		return dedupe(all), nil
	}
	var out []*CRD
	for _, k := range kinds {
		i := slices.IndexFunc(all, func(c *CRD) bool {
			return strings.EqualFold(k, c.Kind) || strings.EqualFold(k, c.Plural) || strings.EqualFold(k, c.Plural+"."+c.Group)
		})
		if i < 0 {
			var known []string
			for _, c := range dedupe(all) {
				known = append(known, c.Kind+" ("+c.Group+")")
			}
			return nil, &UnknownKindError{Kind: k, Known: known}
		}
		if !slices.Contains(out, all[i]) {
			out = append(out, all[i])
		}
	}
	return out, nil
}

// dedupe keeps the last CRD of each group and kind, as a cluster does.
func dedupe(all []*CRD) []*CRD {
	last := map[string]int{}
	for i, c := range all {
		last[c.Group+"/"+c.Kind] = i
	}
	var out []*CRD
	for i, c := range all {
		if last[c.Group+"/"+c.Kind] == i {
			out = append(out, c)
		}
	}
	return out
}

var notLabel = regexp.MustCompile(`[^a-z0-9-]+`)

// label makes a DNS label of s.
func label(s string) string {
	s = strings.Trim(notLabel.ReplaceAllString(strings.ToLower(s), "-"), "-")
	if len(s) > 40 {
		s = strings.TrimRight(s[:40], "-")
	}
	return s
}

// strategyName names the strategy: ack for an ACK controller, else the binary's name.
func strategyName(binary string, crds []*CRD) string {
	for _, c := range crds {
		if isACK(c.Group) {
			return "ack"
		}
	}
	if binary != "" {
		if l := label(filepath.Base(binary)); l != "" {
			return l
		}
	}
	return "controller"
}

// order puts every group after the groups it references (stable otherwise); a cycle keeps its order.
func order(names []string, after map[string][]string) []string {
	var out []string
	done := map[string]bool{}
	var visit func(n string, depth int)
	visit = func(n string, depth int) {
		if done[n] || depth > len(names) {
			return
		}
		deps := slices.Clone(after[n])
		sort.Strings(deps)
		for _, d := range deps {
			visit(d, depth+1)
		}
		if !done[n] {
			done[n] = true
			out = append(out, n)
		}
	}
	for _, n := range names {
		visit(n, 0)
	}
	return out
}
