package app

import (
	"github.com/spf13/cobra"

	"github.com/restartsim/restartsim/sim/scenario/schema"
)

func init() { subcommands = append(subcommands, newSchemaCommand) }

func newSchemaCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "schema",
		Short: "Print the scenario file's JSON Schema (docs/scenario.schema.json), for editors and CI",
		Long: `Print the JSON Schema of the scenario file, generated from its Go types with their doc
comments as descriptions. It checks structure and types only; restartsim validate checks everything.
Editors using yaml-language-server pick it up from a first line such as
  # yaml-language-server: $schema=../docs/scenario.schema.json`,
		Example: `  restartsim schema > scenario.schema.json`,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			out, err := schema.Generate()
			if err != nil {
				return err
			}
			_, err = cmd.OutOrStdout().Write(out)
			return err
		},
	}
}
