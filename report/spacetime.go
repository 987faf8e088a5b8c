package report

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"mpivet/check"
)

// collapseAbove is the number of lanes above which lanes that made the
// same calls at the same lines and ended the same way are drawn as one
// (a 64-rank ring is one lane, "ranks 0-63"), so that a diagram of many
// ranks stays readable; below it every rank keeps its lane, since the
// messages between two similar ranks are what a small diagram shows.
const collapseAbove = 8

// laneGroup is the lanes drawn as one: the first one's calls, every rank.
type laneGroup struct {
	lane  *Lane
	ranks []int
}

// groups collapses t's lanes (see collapseAbove).
func (t *Trail) groups() []laneGroup {
	var gs []laneGroup
	index := map[string]int{}
	for i := range t.Lanes {
		l := &t.Lanes[i]
		key := fmt.Sprint(l.Rank)
		if len(t.Lanes) > collapseAbove {
			var b strings.Builder
			fmt.Fprintf(&b, "%s\x00%d", l.End, l.Skipped)
			for _, c := range l.Calls {
				fmt.Fprintf(&b, "\x00%s %s:%d %s %v %v", c.Name, c.Loc.File, c.Loc.Line, c.Loc.Offset, c.Forced, c.Stopped)
			}
			key = b.String()
		}
		if j, ok := index[key]; ok {
			gs[j].ranks = append(gs[j].ranks, l.Rank)
			continue
		}
		index[key] = len(gs)
		gs = append(gs, laneGroup{lane: l, ranks: []int{l.Rank}})
	}
	return gs
}

// SpaceTimeDOT draws the trail as a space-time diagram in Graphviz's
// language, left to right: one lane per rank (or per group of identical
// ranks), its calls as boxes in order, messages as blue arrows from the
// send to the receive that took it (they also push a receive to the right
// of its send, so the drawing respects causality), forced wildcard matches
// orange, the call where each rank stopped red, and how each ended at the
// end of its lane. Graphviz does the layout: lanes are chains of heavy
// edges, their heads stacked in rank order.
func SpaceTimeDOT(t *Trail) string {
	var b strings.Builder
	b.WriteString("digraph spacetime {\n  rankdir=LR; newrank=true; nodesep=0.12; ranksep=0.18;\n")
	b.WriteString("  node [shape=box, style=\"rounded,filled\", fillcolor=white, fontname=\"Helvetica\", fontsize=9, height=0.3, margin=\"0.05,0.02\"];\n")
	b.WriteString("  edge [arrowsize=0.6];\n")
	gs := t.groups()
	repOf := map[int]int{} // rank -> the rank whose lane draws it
	shown := map[[2]int]bool{}
	for _, g := range gs {
		for _, r := range g.ranks {
			repOf[r] = g.lane.Rank
		}
		for _, c := range g.lane.Calls {
			shown[[2]int{g.lane.Rank, c.Seq}] = true
		}
	}
	b.WriteString("  { rank=same;")
	for _, g := range gs {
		fmt.Fprintf(&b, " h%d;", g.lane.Rank)
	}
	b.WriteString(" }\n")
	for i, g := range gs {
		prev := ""
		if i > 0 {
			prev = fmt.Sprintf("h%d", gs[i-1].lane.Rank)
		}
		writeLane(&b, g, prev)
	}
	writeMessages(&b, t, gs, repOf, shown)
	b.WriteString("}\n")
	return b.String()
}

// writeLane draws the lane of group g: its head (below the head prev, if
// any), its calls and its end.
func writeLane(b *strings.Builder, g laneGroup, prev string) {
	l := g.lane
	label := check.Plural(len(g.ranks), "rank ", "ranks ") + check.RankList(g.ranks)
	if l.Skipped > 0 {
		label += fmt.Sprintf("\n(%d earlier calls)", l.Skipped)
	}
	fmt.Fprintf(b, "  h%d [label=%q, shape=plaintext, style=\"\", fontsize=10];\n", l.Rank, label)
	if prev != "" {
		fmt.Fprintf(b, "  %s -> h%d [style=invis];\n", prev, l.Rank)
	}
	prev = fmt.Sprintf("h%d", l.Rank)
	for _, c := range l.Calls {
		id := fmt.Sprintf("c%d_%d", l.Rank, c.Seq)
		text := c.Name
		if c.Peer != "" {
			text += "\n" + c.Peer
		}
		if c.Loc.File != "" {
			text += fmt.Sprintf("\n%s:%d", filepath.Base(c.Loc.File), c.Loc.Line)
		}
		attrs := ""
		tip := c.Loc.String()
		switch {
		case c.Stopped:
			attrs = `, fillcolor="#f8c6c6", color="#b00000", penwidth=2`
			tip += " (the rank stopped here)"
		case c.Forced:
			attrs = `, fillcolor="#ffd28a", color="#c06000", penwidth=2`
			tip += " (forced wildcard match)"
		case c.Wildcard:
			attrs = `, fillcolor="#fff1d6"`
			tip += " (wildcard)"
		}
		fmt.Fprintf(b, "  %s [label=%q, tooltip=%q%s];\n", id, text, tip, attrs)
		fmt.Fprintf(b, "  %s -> %s [weight=100, arrowhead=none, color=\"#888888\"];\n", prev, id)
		prev = id
	}
	if l.End != "" {
		fmt.Fprintf(b, "  e%d [label=%q, shape=plaintext, style=\"\", fontcolor=\"#b00000\"];\n", l.Rank, l.End)
		fmt.Fprintf(b, "  %s -> e%d [weight=100, arrowhead=none, style=dotted, color=\"#888888\"];\n", prev, l.Rank)
	}
}

// writeMessages draws the messages between the calls shown, once per pair
// of calls drawn (a collapsed lane draws its ranks' messages as its own).
func writeMessages(b *strings.Builder, t *Trail, gs []laneGroup, repOf map[int]int, shown map[[2]int]bool) {
	type arc struct{ from, fseq, to, tseq int }
	var arcs []arc
	seen := map[arc]bool{}
	for _, m := range t.Messages {
		a := arc{repOf[m.From], m.FromSeq, repOf[m.To], m.ToSeq}
		if !shown[[2]int{a.from, a.fseq}] || !shown[[2]int{a.to, a.tseq}] || a.from == a.to && len(gs) < len(t.Lanes) {
			continue
		}
		if !seen[a] {
			seen[a] = true
			arcs = append(arcs, a)
		}
	}
	sort.Slice(arcs, func(i, j int) bool {
		x, y := arcs[i], arcs[j]
		if x.from != y.from {
			return x.from < y.from
		}
		return x.fseq < y.fseq
	})
	for _, a := range arcs {
		fmt.Fprintf(b, "  c%d_%d -> c%d_%d [color=\"#1f5fbf\"];\n", a.from, a.fseq, a.to, a.tseq)
	}
}
