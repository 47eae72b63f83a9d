package tables

import "github.com/nspda/nspda/experiment"

// small is a quick run of the grids: the NSPDA at third order on anbn with
// the --quick budgets (3 epochs, 100 + 100 strings, test60 only).
func small() experiment.Config {
	return base(GridOptions{Seeds: 1, Quick: true}, "nspda", "anbn", 3)
}
