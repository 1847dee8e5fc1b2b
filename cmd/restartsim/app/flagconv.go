package app

import (
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/restartsim/restartsim/sim/scenario"
)

// The flag convention of every verb: -f/--file for inputs, -o/--out for outputs, -v/--verbosity N,
// --aws-region and --aws-access-key-id / --aws-secret-access-key with the same defaults. Names a
// script may still use stay as hidden, deprecated aliases that set the same value.

// addVerbosityFlag registers -v/--verbosity N and the given old names as aliases of it.
func addVerbosityFlag(fs *pflag.FlagSet, p *int, help string, old ...string) {
	fs.IntVarP(p, "verbosity", "v", 0, help)
	for _, name := range old {
		addDeprecatedAlias(fs, name, "verbosity")
	}
}

// addDeprecatedAlias registers old as a hidden, deprecated name of the flag current.
func addDeprecatedAlias(fs *pflag.FlagSet, old, current string) {
	f := fs.Lookup(current)
	fs.AddFlag(&pflag.Flag{Name: old, Usage: f.Usage, Value: f.Value, DefValue: f.DefValue, NoOptDefVal: f.NoOptDefVal})
	_ = fs.MarkDeprecated(old, "use --"+current)
}

// addDeprecatedShorthand keeps an old one-letter name of the flag current working, deprecated.
func addDeprecatedShorthand(fs *pflag.FlagSet, old, shorthand, current string) {
	f := fs.Lookup(current)
	fs.AddFlag(&pflag.Flag{Name: old, Shorthand: shorthand, Usage: f.Usage, Value: f.Value, DefValue: f.DefValue})
	_ = fs.MarkDeprecated(old, "use --"+current)
	_ = fs.MarkShorthandDeprecated(old, "use -"+fs.Lookup(current).Shorthand)
}

// completeValues offers values for an enum flag in shell completion.
func completeValues(cmd *cobra.Command, flag string, values ...string) {
	_ = cmd.RegisterFlagCompletionFunc(flag, cobra.FixedCompletions(values, cobra.ShellCompDirectiveNoFileComp))
}

// defaultRegion is the region of every verb and of scenarios (aws.region), so a standalone
// fakeaws, the reference controller and a simulate run agree on the signing region by default.
const defaultRegion = scenario.DefaultRegion
