// Package outfile writes a command's output files whole or not at all, through a filesystem that
// tests can make fail as a full disk does.
package outfile
