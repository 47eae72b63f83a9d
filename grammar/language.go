package grammar

import (
	"math/rand/v2"
)

// Language is a language to learn: a deterministic PDA that accepts it, an
// exact recognizer, and a sampler of its members.
//
// For the built-in languages the recognizer is written independently of the
// PDA (tests check that the two agree); for a language read from a spec file
// the recognizer is the PDA itself.
type Language struct {
	Name        string
	Description string
	PDA         *PDA

	// Recognize reports exactly whether s is in the language.
	Recognize func(s string) bool

	// Sample returns a random member of length n drawn with rng, and false
	// if the sampler found none (none exists, or for a spec-file language,
	// none was found within its search budget). It must be deterministic
	// given the state of rng.
	Sample func(rng *rand.Rand, n int) (string, bool)

	// SampleLimit, if set, says why Sample cannot sample strings of
	// length n (an error naming the bound), or nil if it can: a spec-file
	// language's sampler gives up beyond MaxSampleBits, which is not the
	// same as having no member.
	SampleLimit func(n int) error
}
