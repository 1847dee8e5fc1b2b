// Package schema generates the JSON Schema of the scenario file from the scenario package's Go
// types, with the field doc comments as descriptions: for editors (yaml-language-server) and for
// checks outside Go. The comments are read at generation time into comments_gen.go (go generate),
// so that an installed binary, which has no source, prints the same schema.
package schema

//go:generate go run ./internal/gencomments
