package train

// StreamSeed is the second PCG seed of the random stream called name: a
// 64-bit FNV-1a hash of the name. Run draws its streams ("order", "reads",
// "noise", "schedule", "uoro") from rand.NewPCG(Settings.Seed,
// StreamSeed(name)); callers that need a stream of their own beside them (an
// experiment's "init") use the same rule with another name.
func StreamSeed(name string) uint64 { return hash64(name) }
