//go:build !mutants

package controller

// mutantsBuildTag: without -tags mutants, a mutant needs Options.AllowMutants.
const mutantsBuildTag = false
