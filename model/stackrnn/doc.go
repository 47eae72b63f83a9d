// Package stackrnn implements the memory-augmented recurrent networks of
// Joulin and Mikolov (2015) as nn.Models: the stack RNN ("Stack RNN 40+10",
// with or without "+ rounding") and the list RNN ("List RNN 40+5").
//
// A network has m sigmoid hidden units h and p continuous memories (stacks or
// doubly-linked lists) of real cells; an empty cell holds −1. One step of the
// original (baselines.md 2.1, checked against the authors' StackRNN.h) reads,
// for input x_t:
//
//	h_t = σ(U x_t + [R h_{t−1}] + Σ_q P_q s^q_{t−1}[0:k])            k = 2 cells read
//	a^q_t = softmax(A_q h_t)                                          per memory q
//	s^q_t = Σ_c a^q_t[c] · move_c(s^q_{t−1}, σ(D_q h_t))              the memory update
//
// The moves of a stack are PUSH (shift down, σ(D_q h) on top), POP (shift up,
// −1 into the bottom cell) and NO-OP (baselines.md 2.1); those of a list are
// INSERT, LEFT, RIGHT and NO-OP around a fixed HEAD (baselines.md 2.4). We
// use the NO-OP variant (the authors' -noop flag) for both; the counting
// results in the paper's Table 2 were obtained without it. The list RNN's
// code was never released; as baselines.md 2.4 [INFER] proposes, a list is
// read like a stack, through its k = 2 cells HEAD and HEAD+1 (P_q L^q[HEAD:HEAD+k]),
// starts with every cell Empty, and lives in a finite buffer centred on HEAD.
//
// What this package adds to fit the NSPDA protocol:
//
//   - Readout (baselines.md 2.6 [INFER]): every iteration predicts
//     σ(o), o = Wo·h + Bo, trained with BCE; there is no next-symbol softmax.
//   - Discrete-memory rule: a symbol may be presented several times in a row
//     (iterative refinement). The hidden state is updated at every iteration,
//     but the memories move only at the last iteration of a symbol, so a
//     symbol pushes at most once, as in the NSPDA; at the other iterations
//     they are carried unchanged. They never move at the end marker $ (its
//     update could not influence any prediction).
//   - Recurrence: Config.Recurrent adds R h_{t−1} (the authors' -mod 2, used
//     for Penn Treebank). The default is false, recurrence through the memories
//     only (-mod 1), which is what the authors used on every toy task
//     (aⁿbⁿ and the like, the tasks closest to ours) and what the NSPDA
//     paper's "other metaparameters as in the original" points to. With it,
//     repeated iterations of a symbol compute the same h.
//   - Rounding ("+ rounding", baselines.md 2.3): with Config.Rounding, in
//     evaluation mode (Start with a nil rng) each softmax is replaced by the
//     one-hot of its argmax (ties to the lowest action). Training is always
//     soft. The derivative of a hard action is zero.
//   - The memories are part of the recurrent state s, which they are in the
//     original too (they are continuous and back-propagated through). Their
//     size is set by Reserve (nn.Reserver) for the longest string: a stack
//     gets maxLen+2 cells, a list maxLen+2 cells on either side of HEAD.
//     Since a memory moves at most once per symbol, content never travels
//     further than that, so the truncation is exact: a deeper memory would
//     compute the same values. Reading a longer string drops what falls off
//     the end, as the authors' fixed capacity does.
//
// Everything else follows the authors' code: sigmoid hidden units, no biases
// except the readout's Bo, weights initialized as the sum of three U(−0.1,0.1)
// draws (Bo = 0). The clamp of the push pre-activation to [−50,50] in the code
// is omitted: σ saturates there anyway, and a clamp would add kinks.
//
// Cost per iteration, forward or backward: O(m·p·(k + n_a + 1)) for the
// controller (the input is one-hot, so U costs O(m); Recurrent adds O(m²)),
// and O(p·n_a·depth) for the memory update, where n_a is the number of
// actions (3 or 4) and depth the cells per memory: the memories cost
// O(p·depth) per step, like the authors' fixed-capacity stacks. A record keeps
// a copy of the memories (p·depth values) for iterations that move them.
//
// A Model remembers whether the string it is reading is in evaluation mode
// (set by Start), so one Model reads one string at a time.
package stackrnn
