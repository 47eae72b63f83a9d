// The result store is a module of its own so that the nspda module, the one
// `go install github.com/nspda/nspda/cmd/nspda@VERSION` downloads, does not
// carry it: Go leaves a directory with its own go.mod out of a module's zip.
// It holds no Go code: one directory per run (config, metrics, model, summary),
// read by `nspda repro --store results --tables-only`.
module github.com/nspda/nspda/results

go 1.26.8
