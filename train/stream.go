package train

import "hash/fnv"

// StreamSeed is the second PCG seed of the random stream called name: a
// 64-bit FNV-1a hash of the name. Run draws its streams ("order", "reads",
// "noise", "schedule", "uoro") from rand.NewPCG(Settings.Seed,
// StreamSeed(name)); callers that need a stream of their own beside them (an
// experiment's "init") use the same rule with another name.
func StreamSeed(name string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(name))
	return h.Sum64()
}
