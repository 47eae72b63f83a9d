// Package dataset implements the paper's data protocol: it draws labelled
// strings of a grammar.Language into the train, valid and length-generalisation
// test splits, reads and writes them as JSONL, checks every label against the
// language's exact recognizer, and summarises a split.
//
// # Splits
//
//	split    positives  negatives  lengths    strings
//	train    1987       2021       1..21      drawn with replacement
//	valid    200        200        1..21      drawn with replacement
//	test60   500        500        22..60     all distinct
//	test480  500        500        61..480    all distinct
//	test960  500        500        481..960   all distinct
//	select   200        200        22..40     drawn with replacement
//	edit60   500        500        22..60     all distinct, one-edit negatives
//	edit960  500        500        481..960   all distinct, one-edit negatives
//
// The last three are not the paper's. Select is the default recipe's
// selection set (docs/training.md). Edit60 and edit960 (Spec.Edits) make each
// negative one insertion into or one deletion from one of their positives, so
// they hold the lengths at which the language has no member (odd lengths for
// a^n b^n), which no split of the paper's protocol ever shows: a net can pass
// every paper split and still accept a^n b^(n+1) (docs/results.md).
//
// Train follows Sec. 5 of the paper (1987 + 2021 strings, T ~ U(1,21)).
// Positives of train and valid are drawn with replacement: a^n b^n has only
// ten members of length at most 21. A test split (Spec.Distinct) holds
// distinct strings. No split holds a string of the exclude set given to
// Generate; GenerateSplit excludes from a test split the train split made
// with the same seed. When fewer usable positives exist than asked for
// (a^n b^n has 20 members of length 22..60), a split takes every one it finds
// and at most as many negatives, so it stays balanced.
//
// # Positives
//
// The length T of a positive is drawn uniformly from the lengths of the range
// still live. A length at which Sample reports no member is dropped for good.
// A length whose draws are rejected maxMisses (50) times in a row, because the
// strings are already taken (distinct splits) or excluded, is exhausted and
// dropped too. Drawing stops when the target is met or no length is live. A
// language with no member in the range is an error. Every sampled string is
// checked: it must have length T and be accepted by Recognize.
//
// # Negatives
//
// Length must give nothing away: negative i takes the length of positive i,
// and each extra negative the length of a uniformly chosen positive, so the
// two length histograms match and a classifier that sees only the length does
// no better than about 50% (Stats.LengthOnlyAccuracy). Negatives should also
// be hard, so most are near-misses of members. A negative of length T is made
// by one of these methods, chosen with the weights shown:
//
//	35%  substitute 1 or 2 symbols (even odds) of a fresh positive of length T
//	20%  swap two differing symbols of a fresh positive of length T
//	15%  truncate: the length-T prefix of a positive of length T+1..T+6
//	10%  one insertion into a positive of length T-1, or one deletion
//	     from a positive of length T+1 (even odds, the other as fallback)
//	20%  a uniformly random string of length T over the alphabet
//
// A method that cannot make a candidate (no positive of the length it needs,
// a one-symbol alphabet) falls through to the next one in this list; random
// strings always can. A candidate is kept only if Recognize rejects it and it
// is not excluded (nor, in a distinct split, taken already); otherwise a new
// method is drawn, at most maxNegativeTries (1000) times before Generate
// fails. The alphabet is the PDA's, or if the language has no PDA, the
// symbols seen in its positives.
//
// # Randomness
//
// Each (language, split) pair has its own stream,
// rand.New(rand.NewPCG(seed, h)) with h the FNV-1a hash of the language name,
// a zero byte and the split name. Positives, then negatives, are drawn from
// it, and the examples are finally shuffled with it, so the same language,
// split and seed give the same file byte for byte, and train and test60 with
// one seed are unrelated.
//
// # Files
//
// A split is stored as JSONL, one example a line in encoding/json's compact
// form, {"string":"aabb","label":1}, label 1 for a member and 0 otherwise.
// WriteFile replaces a file atomically; ReadJSONL rejects anything else with
// a one-line "NAME:LINE: what is wrong" error, and Check verifies every label
// against the language's recognizer.
package dataset
