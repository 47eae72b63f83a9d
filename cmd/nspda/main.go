// Command nspda generates the NSPDA paper's datasets, programs pushdown
// automata into neural state pushdown automata, and evaluates them.
// Run "nspda help" for the commands.
package main

import (
	"context"
	"os"
	"os/signal"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
