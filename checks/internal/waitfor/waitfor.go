// Package waitfor decides whether blocked MPI processes are deadlocked, from
// their wait-for conditions, and explains the deadlock as an AND⊕OR
// wait-for graph (seed 003, MUST: §3.2 the model, §4 the generalisation,
// §4.3 the OR-knot criterion).
//
// A blocked process waits for an AND–OR condition over processes: an
// MPI_Recv from rank 2 waits for 2; a wildcard receive for any rank of its
// communicator; a barrier for all ranks of its communicator that have not
// arrived; MPI_Waitall over two wildcard receives on two communicators for
// (any of A) and (any of B). Processes that are not blocked can still act;
// processes that have finished (or died) never will.
//
// Deadlock is decided on the conditions directly: a process can proceed if
// it is running, or if its condition holds when every process that can
// proceed is taken to act eventually; the fixpoint leaves exactly the
// deadlocked processes. This is equivalent to the OR-knot criterion of the
// AND⊕OR graph, which is built only to show the deadlock: one node per
// process, one intermediate node per nested sub-condition (a parallelogram
// in MUST's pictures), AND arcs solid and OR arcs dashed. Its cores are
// OR-knots: sets of deadlocked nodes that all reach each other and have no
// OR arc leaving them; the other deadlocked processes only wait on a core.
package waitfor

import (
	"fmt"
	"sort"
	"strings"
)

// Kind is the kind of a condition.
type Kind int

const (
	Proc Kind = iota // a single process
	All              // every sub-condition (AND)
	Any              // one of the sub-conditions (OR)
)

// Cond is an AND–OR wait-for condition.
type Cond struct {
	Kind  Kind
	Proc  int
	Sub   []*Cond
	Label string // what the sub-condition is in the program, e.g. "MPI_Irecv request[1]"
}

// P is a condition on one process.
func P(p int) *Cond { return &Cond{Kind: Proc, Proc: p} }

// AllOf waits for every sub-condition.
func AllOf(label string, c ...*Cond) *Cond { return &Cond{Kind: All, Sub: c, Label: label} }

// AnyOf waits for one of the sub-conditions.
func AnyOf(label string, c ...*Cond) *Cond { return &Cond{Kind: Any, Sub: c, Label: label} }

// AnyProc waits for one of the processes ps (a wildcard receive).
func AnyProc(label string, ps ...int) *Cond {
	c := &Cond{Kind: Any, Label: label}
	for _, p := range ps {
		c.Sub = append(c.Sub, P(p))
	}
	return c
}

// AllProcs waits for every process of ps (a collective).
func AllProcs(label string, ps ...int) *Cond {
	c := AnyProc(label, ps...)
	c.Kind = All
	return c
}

// simplify removes operators with a single operand (MUST's removal of
// intermediate nodes with one incoming and one outgoing arc, Fig. 6(c)).
func simplify(c *Cond) *Cond {
	if c == nil || c.Kind == Proc {
		return c
	}
	out := &Cond{Kind: c.Kind, Label: c.Label}
	for _, s := range c.Sub {
		if s = simplify(s); s != nil {
			out.Sub = append(out.Sub, s)
		}
	}
	if len(out.Sub) == 1 {
		return out.Sub[0]
	}
	return out
}

// State says what a process is doing.
type State int

const (
	Running  State = iota // not blocked in MPI: it will act
	Blocked               // waiting for its condition
	Finished              // finalized, exited or dead: it will never act
)

// Process is one node of the analysis.
type Process struct {
	ID    int
	State State
	Label string // e.g. "rank 1: MPI_Recv(source=2) at a.c:12"
	Wait  *Cond  // for Blocked
}

// Node is a node of the AND⊕OR wait-for graph.
type Node struct {
	ID      int    // index in Graph.Nodes
	Proc    int    // the process, or the process whose condition this node is part of
	Label   string // process label, or the sub-condition's label
	IsProc  bool   // a process, not an intermediate node
	Kind    Kind   // semantics of the outgoing arcs: All (AND) or Any (OR)
	Out     []int  // successors
	Blocked bool   // can never be satisfied
	Core    bool   // member of an OR-knot
	Sink    bool   // a process that will never act: finished, or waiting for nothing possible
}

// Graph is an AND⊕OR wait-for graph.
type Graph struct {
	Nodes []*Node
	procs map[int]int // process ID -> node
	reach []bool      // nodes a blocked process waits on, directly or not
}

// Result is the outcome of an analysis.
type Result struct {
	Deadlocked []int   // processes that can never proceed
	Cores      [][]int // processes of each OR-knot (a core of the deadlock)
	Waiting    []int   // deadlocked processes outside every core: they wait on one
	Graph      *Graph
}

// Analyze decides which processes are deadlocked and why.
func Analyze(ps []Process) *Result {
	g := build(ps)
	g.solve()
	r := &Result{Graph: g}
	inCore := map[int]bool{}
	for _, core := range g.cores() {
		var procs []int
		for _, n := range core {
			g.Nodes[n].Core = true
			if g.Nodes[n].IsProc {
				procs = append(procs, g.Nodes[n].Proc)
				inCore[g.Nodes[n].Proc] = true
			}
		}
		sort.Ints(procs)
		if len(procs) > 0 {
			r.Cores = append(r.Cores, procs)
		}
	}
	for _, p := range ps {
		if n := g.Nodes[g.procs[p.ID]]; n.Blocked && p.State == Blocked {
			r.Deadlocked = append(r.Deadlocked, p.ID)
			if !inCore[p.ID] {
				r.Waiting = append(r.Waiting, p.ID)
			}
		}
	}
	sort.Ints(r.Deadlocked)
	sort.Ints(r.Waiting)
	return r
}

// build translates the conditions into an AND⊕OR graph (Fig. 5, with
// operators of any arity).
func build(ps []Process) *Graph {
	g := &Graph{procs: map[int]int{}}
	node := func(n *Node) int {
		n.ID = len(g.Nodes)
		g.Nodes = append(g.Nodes, n)
		return n.ID
	}
	proc := func(id int) int {
		if n, ok := g.procs[id]; ok {
			return n
		}
		n := node(&Node{Proc: id, IsProc: true, Label: fmt.Sprintf("rank %d", id), Kind: All})
		g.procs[id] = n
		return n
	}
	for _, p := range ps {
		n := g.Nodes[proc(p.ID)]
		if p.Label != "" {
			n.Label = p.Label
		}
	}
	var arcs func(from int, c *Cond, owner int)
	arcs = func(from int, c *Cond, owner int) {
		g.Nodes[from].Kind = c.Kind
		for _, s := range c.Sub {
			var to int
			if s.Kind == Proc {
				to = proc(s.Proc)
			} else {
				to = node(&Node{Proc: owner, Label: s.Label})
				arcs(to, s, owner)
			}
			g.Nodes[from].Out = append(g.Nodes[from].Out, to)
		}
	}
	for _, p := range ps {
		if p.State != Blocked || p.Wait == nil {
			continue
		}
		c := simplify(p.Wait)
		from := g.procs[p.ID]
		if c.Kind == Proc {
			g.Nodes[from].Kind = All
			g.Nodes[from].Out = []int{proc(c.Proc)}
			continue
		}
		arcs(from, c, p.ID)
	}
	// Processes that only appear in conditions and are not described are
	// taken as running. Finished ones never act.
	state := map[int]State{}
	for _, p := range ps {
		state[p.ID] = p.State
	}
	for id, n := range g.procs {
		g.Nodes[n].Blocked = state[id] != Running
	}
	for _, n := range g.Nodes {
		if !n.IsProc {
			n.Blocked = true
		}
	}
	for _, p := range ps {
		n := g.Nodes[g.procs[p.ID]]
		if p.State == Finished || p.State == Blocked && p.Wait == nil {
			n.Sink = true
		}
	}
	return g
}

// solve computes the fixpoint: a node is satisfied (not Blocked) if it is a
// running process, or its AND successors are all satisfied, or one of its OR
// successors is. A finished process is never satisfied.
//
// An AND over nothing is satisfied (a collective every member has reached);
// an OR over nothing is not (a wildcard on an empty set).
func (g *Graph) solve() {
	for changed := true; changed; {
		changed = false
		for _, n := range g.Nodes {
			if !n.Blocked || n.Sink {
				continue
			}
			sat := n.Kind == All
			for _, s := range n.Out {
				ok := !g.Nodes[s].Blocked
				if n.Kind == All && !ok {
					sat = false
					break
				}
				if n.Kind == Any && ok {
					sat = true
					break
				}
			}
			if sat {
				n.Blocked, changed = false, true
			}
		}
	}
}

// cores returns the OR-knots among blocked nodes: terminal strongly
// connected sets of the blocked subgraph, each made smaller where an AND
// node can keep a single arc into the knot (an OR-knot may have AND arcs
// leaving it, never OR arcs).
func (g *Graph) cores() [][]int {
	arcs := g.blockedArcs()
	knots := terminalSCCs(g, arcs)
	for ki := range knots {
		g.shrink(knots, ki, arcs)
	}
	return knots
}

// blockedArcs returns the arcs among blocked nodes that blocked
// processes wait on, and marks those nodes in g.reach. An OR node that is
// blocked has only blocked successors; an AND node keeps its blocked ones.
func (g *Graph) blockedArcs() [][]int {
	arcs := make([][]int, len(g.Nodes))
	for _, n := range g.Nodes {
		if !n.Blocked {
			continue
		}
		for _, s := range n.Out {
			if g.Nodes[s].Blocked {
				arcs[n.ID] = append(arcs[n.ID], s)
			}
		}
	}
	// Only what blocked processes wait on counts: a finished process that
	// nobody waits for is no core.
	reach := make([]bool, len(g.Nodes))
	var mark func(v int)
	mark = func(v int) {
		if reach[v] {
			return
		}
		reach[v] = true
		for _, w := range arcs[v] {
			mark(w)
		}
	}
	for _, n := range g.Nodes {
		if n.IsProc && n.Blocked && len(n.Out) > 0 {
			mark(n.ID)
		}
	}
	for v := range arcs {
		if !reach[v] {
			arcs[v] = nil
		}
	}
	g.reach = reach
	return arcs
}

// shrink makes knot ki smaller where it can: for an AND node with several
// arcs inside the knot, it tries keeping one of them, and keeps a choice
// that yields a smaller terminal set holding the node (arcs then keeps
// that one arc for the knots after).
func (g *Graph) shrink(knots [][]int, ki int, arcs [][]int) {
	in := map[int]bool{}
	for _, n := range knots[ki] {
		in[n] = true
	}
	for _, n := range knots[ki] {
		node := g.Nodes[n]
		if node.Kind != All || len(arcs[n]) < 2 {
			continue
		}
		best := knots[ki]
		for _, keep := range arcs[n] {
			if !in[keep] {
				continue
			}
			trial := make([][]int, len(arcs))
			copy(trial, arcs)
			trial[n] = []int{keep}
			for _, t := range terminalSCCs(g, trial) {
				if contains(t, n) && len(t) < len(best) {
					best = t
				}
			}
		}
		if len(best) < len(knots[ki]) {
			knots[ki] = best
			in = map[int]bool{}
			for _, x := range best {
				in[x] = true
			}
			arcs[n] = nil
			for _, s := range g.Nodes[n].Out {
				if in[s] {
					arcs[n] = []int{s}
					break
				}
			}
		}
	}
}

func contains(xs []int, x int) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// terminalSCCs returns the strongly connected components of the blocked
// nodes that no arc leaves and that are knots: more than one node, or one
// node with an arc to itself, or a finished process (a sink nobody can
// release).
func terminalSCCs(g *Graph, arcs [][]int) [][]int {
	n := len(g.Nodes)
	index, low, comp := make([]int, n), make([]int, n), make([]int, n)
	for i := range index {
		index[i], comp[i] = -1, -1
	}
	var stack []int
	onStack := make([]bool, n)
	var comps [][]int
	next := 0
	var visit func(v int)
	visit = func(v int) {
		index[v], low[v] = next, next
		next++
		stack = append(stack, v)
		onStack[v] = true
		for _, w := range arcs[v] {
			if index[w] < 0 {
				visit(w)
				low[v] = min(low[v], low[w])
			} else if onStack[w] {
				low[v] = min(low[v], index[w])
			}
		}
		if low[v] == index[v] {
			var c []int
			for {
				w := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				onStack[w] = false
				comp[w] = len(comps)
				c = append(c, w)
				if w == v {
					break
				}
			}
			comps = append(comps, c)
		}
	}
	for v := 0; v < n; v++ {
		if g.Nodes[v].Blocked && g.reach[v] && index[v] < 0 {
			visit(v)
		}
	}
	var out [][]int
	for ci, c := range comps {
		terminal, self := true, false
		for _, v := range c {
			for _, w := range arcs[v] {
				if comp[w] != ci {
					terminal = false
				}
				if w == v {
					self = true
				}
			}
		}
		sink := len(c) == 1 && g.Nodes[c[0]].Sink
		if terminal && (len(c) > 1 || self || sink) {
			sort.Ints(c)
			out = append(out, c)
		}
	}
	return out
}

// DOT renders the blocked part of the graph in Graphviz's language, MUST's
// way: processes as boxes, sub-conditions as parallelograms, AND arcs solid,
// OR arcs dashed, the core filled grey.
func (g *Graph) DOT() string {
	var b strings.Builder
	b.WriteString("digraph Deadlock {\n  node [fontname=\"Helvetica\", fontsize=10];\n  edge [arrowsize=0.7];\n")
	for _, n := range g.Nodes {
		if !n.Blocked {
			continue
		}
		shape := "box"
		if !n.IsProc {
			shape = "parallelogram"
		}
		style := ""
		if n.Core {
			style = ", style=filled, fillcolor=\"#cccccc\""
		}
		fmt.Fprintf(&b, "  n%d [label=%q, shape=%s%s];\n", n.ID, n.Label, shape, style)
	}
	for _, n := range g.Nodes {
		if !n.Blocked {
			continue
		}
		for _, s := range n.Out {
			if !g.Nodes[s].Blocked {
				continue
			}
			style := "solid"
			if n.Kind == Any {
				style = "dashed"
			}
			fmt.Fprintf(&b, "  n%d -> n%d [style=%s];\n", n.ID, s, style)
		}
	}
	b.WriteString("}\n")
	return b.String()
}
