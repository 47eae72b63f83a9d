// Package modzip holds no code: its test checks the module as `go install`
// downloads it (the zip of the tracked files outside nested modules) for its
// size, and that the command builds from that file set alone.
package modzip
