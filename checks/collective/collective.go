// Package collective defines the collective-mismatch check.
package collective

import (
	"fmt"
	"sort"
	"strings"

	"mpivet/check"
	"mpivet/checks/internal/comms"
	"mpivet/trace"
)

// Check reports collectives that the members of a communicator call
// differently.
var Check = &check.Check{
	Name: "collective-mismatch",
	Doc: `collectives called differently by the members of a communicator

Every member of a communicator must call the same collectives on it in the
same order, with the same root and the same reduction operation. A rank
that calls MPI_Bcast while another calls MPI_Barrier (seed 000, Fig. 2.6)
works with some MPIs and deadlocks with others; different roots or
operations give wrong results. mpivet compares the sequence of collectives
every rank made on each communicator, from each rank's own records (no
central process), and reports the first place where they differ, with the
call on each rank. Predefined reduction operations are compared by name;
user-defined operations and type signatures are not compared yet.`,
	Run: run,
}

// call is one collective of one rank, described the same way on every rank.
type call struct {
	proc  *trace.Process
	comms *comms.Index
	c     *trace.Call
	what  string // name, root, op
}

func describe(p *trace.Process, c *trace.Call, inter bool) string {
	parts := []string{c.Name()}
	if c.HasField("root") && !inter {
		parts = append(parts, fmt.Sprintf("root=%d", c.Int("root")))
	}
	if c.HasField("op") {
		if names := p.Consts[c.Word("op")]; len(names) > 0 {
			parts = append(parts, "op="+names[0])
		} else {
			parts = append(parts, "op=user-defined")
		}
	}
	return strings.Join(parts, " ")
}

func run(pass *check.Pass) error {
	// comm key -> rank -> that rank's collectives on it, in order
	seqs := map[string]map[int][]call{}
	for _, p := range pass.In.Run.Procs {
		if p.Rank < 0 {
			continue
		}
		ix := comms.NewIndex(p)
		for _, c := range p.Calls {
			if !c.Def.Has("coll") || c.Def.Has("finalize") || !c.HasField("comm") {
				continue
			}
			key := ix.KeyOf(c)
			if seqs[key] == nil {
				seqs[key] = map[int][]call{}
			}
			seqs[key][p.Rank] = append(seqs[key][p.Rank], call{p, ix, c, describe(p, c, ix.IsInter(c.Word("comm")))})
		}
	}
	keys := make([]string, 0, len(seqs))
	for k := range seqs {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, key := range keys {
		byRank := seqs[key]
		ranks := make([]int, 0, len(byRank))
		for r := range byRank {
			ranks = append(ranks, r)
		}
		sort.Ints(ranks)
		if len(ranks) < 2 {
			continue
		}
		for k := 0; ; k++ {
			variants := map[string][]int{}
			var at []call
			for _, r := range ranks {
				if k < len(byRank[r]) {
					cl := byRank[r][k]
					variants[cl.what] = append(variants[cl.what], r)
					at = append(at, cl)
				}
			}
			if len(at) == 0 {
				break
			}
			if len(variants) < 2 {
				continue
			}
			report(pass, k, at, variants)
			break // what follows a mismatch is no longer comparable
		}
	}
	return nil
}

func report(pass *check.Pass, k int, at []call, variants map[string][]int) {
	var kinds []string
	for what, rs := range variants {
		kinds = append(kinds, fmt.Sprintf("%s on %s %s", what, check.Plural(len(rs), "rank", "ranks"), check.RankList(rs)))
	}
	sort.Strings(kinds)
	var locs []check.Location
	var ranks []int
	for _, cl := range at {
		l := pass.At(cl.proc, cl.c)
		l.Note = cl.what
		locs = append(locs, l)
		ranks = append(ranks, cl.proc.Rank)
	}
	first := at[0]
	pass.Report(check.Finding{
		Ranks: ranks,
		Message: fmt.Sprintf("collective number %d on %s differs between ranks: %s",
			k+1, first.comms.Name(first.c.Word("comm")), strings.Join(kinds, "; ")),
		Locations: locs,
	})
}
