// Package nnpda implements the neural network pushdown automaton of Sun,
// Giles, Chen and Lee (1998; Das, Giles and Sun 1993) as an nn.Model: a
// higher-order recurrent controller of sigmoid state neurons whose single
// analog action neuron drives a continuous stack of (symbol, length)
// segments, read through a window of depth 1.
//
// One iteration on input x_l from state z with read r (baselines.md 1.2, 1.3;
// shared notation there):
//
//	z2_i = σ( Σ_{j,k} Ws[l,i,j,k] z_j r_k + Bs_i )               third order (default)
//	a    = 2σ( Σ_{j,k} Wa[l,j,k] z_j r_k + Ba ) − 1 ∈ (−1,1)     the action neuron
//	o    = Wo·z2 + Bo                                              readout, prediction σ(o)
//
// With Config.Order = 2 the controller is second order over v = [r; x]:
// z2_i = σ(Σ_{j,m} Ws[i,j,m] z_j v_m + Bs_i), and likewise a.
//
// The stack (baselines.md 1.3). a > ε pushes the current input symbol as a
// segment of length a; a < −ε pops a total length |a| from the top, removing
// whole segments and shortening one; otherwise nothing happens. ε =
// Config.Epsilon, 0.01 by default (S1 does not give its value). Popping more
// than the stack holds empties it and the rest of the pop does nothing (the
// design's "pop on an empty stack is a no-op"; S1's pop-empty-stack training
// rules are not used). The read r has one neuron per stack symbol, holding the
// length of that symbol inside the top unit depth of the stack, plus an
// empty-stack neuron r_⊥ = 1 − Σ_k r_k = max(0, 1 − ℓ) ([INFER] of
// baselines.md 1.3), ℓ the total length. The action is computed from the
// state before the iteration (S1's timing) and applied with the current
// symbol; the next iteration reads the changed stack.
//
// The NSPDA protocol (baselines.md 1.9, option (b)): every iteration predicts
// σ(Wo·z2 + Bo) and is trained with BCE, instead of S1's end-of-string error
// on z_out and ℓ. The stack moves only at the last iteration of a symbol, and
// never at the end marker $ (which is not a stack symbol); earlier iterations
// of a symbol refine z against the unchanged stack. z starts at (1,0,…,0) and
// the stack empty.
//
// Derivatives are exact, not S1's approximation ∂r ≈ (δ_top − δ_bot)∂a: the
// recurrent state is s = [z; len], len the length of every segment slot
// (bottom first), so that r is a differentiable function of s, and the
// symbols of the segments, their number and the action taken are the
// discrete memory, kept in the Model and recorded. Derivatives are those of
// the forward pass with its discrete decisions held fixed: whether the
// action pushed, popped or did nothing; which segments a pop removed; which
// segment straddles the bottom of the read window. Consequences:
//
//   - The loss is piecewise smooth in the parameters. It is continuous but
//     kinked where a segment boundary crosses the window's bottom or a pop
//     ends exactly at a boundary, and it jumps by a segment of length ε where
//     a = ±ε; the gradient does not see the jumps (as S1's does not).
//   - Gradients flow through the stack lengths across the whole string: r
//     depends on every earlier action that left a segment in the window, and
//     ℓ = Σ len carries S1's ∂ℓ_{t+1} = ∂ℓ_t + ∂a_{t+1}.
//   - The state is larger: J + maxLen + 2 (Reserve), so RTRL costs grow
//     with the longest string; UORO is unaffected but for |s|. A push past the
//     reserved slots is dropped.
//   - A Model holds the discrete memory of the string being read, so one
//     Model reads one string at a time.
//
// Not implemented: S1's full-order (2^J) action neuron, S1's unified error
// and pop-empty-stack training rules, and the dead-state hint of Das et al.
// (a designated neuron trained to turn on where a negative string becomes
// irrecoverably illegal, with processing stopped there): it needs the
// training driver to supply per-position targets and to stop strings early.
//
// Cost per iteration, forward or backward: O(J²·C) for the controller, C = R
// (third order) or R + X (second order), plus O(window + J + depth) for the
// stack; inputs are one-hot, so a third-order step touches only input l's
// block of Ws and Wa.
package nnpda
