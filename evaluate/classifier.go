package evaluate

import "github.com/nspda/nspda/nn"

// Classifier is nn.Classifier: anything that reads a string of symbol
// indices and accepts or rejects it (the NSPDA's Runner, a PDA, any trained
// network).
type Classifier = nn.Classifier
