package program

import (
	"math"

	"github.com/nspda/nspda/grammar"
	"github.com/nspda/nspda/model/nspda"
	"github.com/nspda/nspda/stack"
)

// third programs a third-order network. Neuron 0 is the start state, then
// the other PDA states in order, then the accept neuron, entered on the end
// marker from an accepting configuration: Ws[accept, q, k, $] = +H for every
// top k (⊥ included) with which q accepts (PDA.AcceptsAt). For every transition
// δ(q_j, a_l, top_k) = (q_i, op) (paper Sec. 4.1):
//
//	Ws[i,j,k,l] = +H,   Ws[j,j,k,l] = −H if i ≠ j,   bs = −H/2
//	Wa[l,j,k,l] = +HA for a push (the component of the pushed symbol)
//	Wa[k,j,k,l] = −HA for a pop (the component of the popped symbol)
func (c *compiler) third() {
	p, H, HA := c.p, c.opt.H, c.opt.HA
	L := p.L()
	order := append([]int{p.Start}, others(p.M(), p.Start)...)
	idx := make([]int, p.M())
	for n, q := range order {
		idx[q] = n
		c.prog.Neurons = append(c.prog.Neurons, p.States[q])
	}
	acc := len(c.prog.Neurons)
	c.prog.Neurons = append(c.prog.Neurons, "accept")
	for _, q := range order {
		j := idx[q]
		for l := 0; l < L; l++ {
			for k := 0; k <= L; k++ {
				t, ok := p.Lookup(q, l, k)
				if !ok {
					continue
				}
				r, dead, w := rule(p, q, l, k, t), t.To == c.dead, &Where{q, l, k}
				i := idx[t.To]
				c.set(Set{Kind: StateRule, Tensor: nspda.TWs, I: i, J: j, K: k, L: l, Value: H, IntoDead: dead, Rule: r, From: w})
				if i != j {
					c.set(Set{Kind: StateRule, Tensor: nspda.TWs, I: j, J: j, K: k, L: l, Value: -H, IntoDead: dead, Rule: r, From: w})
				}
				switch {
				case t.Op == grammar.Push:
					c.set(Set{Kind: ActionRule, Tensor: nspda.TWa, I: l, J: j, K: k, L: l, Value: HA, Rule: r, From: w})
				case t.Op == grammar.Pop && k < L:
					c.set(Set{Kind: ActionRule, Tensor: nspda.TWa, I: k, J: j, K: k, L: l, Value: -HA, Rule: r, From: w})
				}
			}
		}
		for _, k := range acceptTops(p, q) {
			r := p.States[q] + " accepts at $ with top " + readName(p, k)
			c.set(Set{Kind: AcceptRule, Tensor: nspda.TWs, I: acc, J: j, K: k, L: L, Value: H, Rule: r})
			c.set(Set{Kind: AcceptRule, Tensor: nspda.TWs, I: j, J: j, K: k, L: L, Value: -H, Rule: r})
		}
	}
	c.biases(-H / 2)
	c.actions = L
}

// biases sets every state neuron's bias and the output weights: the output
// is σ(H·z_accept − H/2), above 0.5 exactly when the accept neuron is on.
func (c *compiler) biases(b float64) {
	H := c.opt.H
	acc := -1
	for i, name := range c.prog.Neurons {
		c.set(Set{Kind: BiasRule, Tensor: nspda.TBs, I: i, Value: b})
		if name == "accept" {
			acc = i
		}
	}
	c.set(Set{Kind: AcceptRule, Tensor: nspda.TWo, I: acc, Value: H, Rule: "output on when accept is on"})
	c.set(Set{Kind: AcceptRule, Tensor: nspda.TBo, Value: -H / 2})
}

// others lists 0..n-1 without skip.
func others(n, skip int) []int {
	out := make([]int, 0, n)
	for i := 0; i < n; i++ {
		if i != skip {
			out = append(out, i)
		}
	}
	return out
}

// FeasibleHA returns the open interval of third-order action strengths HA for
// which every programmed action decodes correctly for an alphabet of L
// symbols, whatever the read neurons' values within the paper's training
// intervals (and so also at evaluation's midpoints).
//
// An action neuron's pre-activation is HA·Σ_k s_k r_k with s_k in {−1,0,1}.
// The neuron that should fire sees at least HA·(top_min − noise), where
// noise = popped_max + (R−2)·other_max bounds what the other read neurons
// carry; it must pass the push threshold (≈0.26) and, negated, the pop
// threshold (≈−0.18). A neuron that should stay silent sees at most
// HA·noise, which must stay inside the no-op band. The interval is empty
// (lo ≥ hi) when no strength works: in particular when the noise reaches
// the top's value, so that no HA > 0 lifts the neuron that should fire
// above the silent ones.
func FeasibleHA(L int) (lo, hi float64) {
	noise := stack.PoppedRange[1] + float64(L-1)*stack.OtherRange[1]
	on := stack.TopRange[0] - noise
	if on <= 0 {
		return math.Inf(1), 0
	}
	lo = max(nspda.PushThreshold, -nspda.PopThreshold) / on
	hi = min(nspda.PushThreshold, -nspda.PopThreshold) / noise
	return lo, hi
}
