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

// startStream is the second PCG seed of stream name in start index of a
// portfolio (RunPortfolio): StreamSeed(name) for start 0, so that a run's
// first start draws what Run's does, and for the others that seed mixed
// with the index by the golden-ratio constant, which spreads consecutive
// indices over the 64 bits.
func startStream(name string, index int) uint64 {
	return StreamSeed(name) ^ uint64(index)*0x9e3779b97f4a7c15
}
