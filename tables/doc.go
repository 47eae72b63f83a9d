// Package tables reproduces the paper's tables (and ours) from runs in an
// experiment.Store: each table's grid of configurations (Grid), the
// paper's numbers beside ours, the Markdown and CSV reports and the
// figures (learning curves, error bars, error against string length).
package tables
