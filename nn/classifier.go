package nn

import "io"

// Classifier is anything that reads a string of symbol indices and accepts or
// rejects it, with its prediction y ∈ (0, 1): a NetClassifier over any Net,
// the NSPDA's fast Runner, a PDA. Evaluation (package evaluate) scores one.
type Classifier interface {
	Classify(syms []int) (accept bool, y float64)
}

// ClassifierMaker is implemented by models that build their own
// evaluation-mode classifier (the NSPDA's Runner, which skips the records a
// NetClassifier keeps). The registry uses it in place of NewClassifier. The
// classifier uses the model's current weights with refine ≥ 1 iterations per
// symbol. Classifiers it returns share nothing mutable with each other or
// with the model, so that several may classify at once (the trainer's
// per-epoch checks do, train.Env.EvalWorkers).
type ClassifierMaker interface {
	Classifier(refine int) Classifier
}

// Encoder is implemented by models that write a file format of their own
// rather than the registry's envelope of Config and Params (the NSPDA). Their
// Spec's Decode reads it back. evalRefine ≥ 1 is recorded in the file.
type Encoder interface {
	Encode(w io.Writer, evalRefine int) error
}
