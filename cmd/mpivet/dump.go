package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"mpivet/api"
	"mpivet/check"
	"mpivet/symbolize"
	"mpivet/trace"
)

func dumpCmd() *cobra.Command {
	var rank int
	cmd := &cobra.Command{
		Use:   "dump RUN_DIR",
		Short: "print the records of a run, call by call",
		Long: `Print the records of a run, call by call: RUN_DIR is a run directory
(its first interleaving) or the directory of one of its interleavings
(RUN_DIR/interleaving-N). A directory without records, or --rank of a rank
that is not in them, is an error (exit status 2).`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return dump(os.Stdout, args[0], rank)
		},
	}
	cmd.Flags().IntVar(&rank, "rank", -1, "only this rank (-1: all)")
	return cmd
}

// dump prints the records in dir, of one rank or of all (rank -1).
func dump(w io.Writer, dir string, rank int) error {
	run, err := readRecords(dir, rank)
	if err != nil {
		return err
	}
	sym := symbolize.New()
	for _, p := range run.Procs {
		defer func(p *trace.Process) {
			if c := p.Current; c != nil && c.Seq < 0 && (rank < 0 || p.Rank == rank) {
				state := "returned"
				if !c.Returned {
					state = "in it"
				}
				fmt.Fprintf(w, "rank %d: last call %s (%s; %d calls completed)  [%s]\n", p.Rank, check.Describe(p, c), state, p.Progress, sym.Lookup(p.Maps, c.PC))
			}
		}(p)
		if rank >= 0 && p.Rank != rank {
			continue
		}
		fmt.Fprintf(w, "== rank %d (pid %d on %s, %d calls", p.Rank, p.Pid, p.Host, p.NumCalls)
		if p.Polls > 0 {
			fmt.Fprintf(w, ", and %d polls that found nothing, not recorded", p.Polls)
		}
		fmt.Fprintf(w, ")")
		if p.Exit != nil {
			fmt.Fprintf(w, " exit: code %d signal %d", p.Exit.Code, p.Exit.Signal)
		}
		fmt.Fprintln(w)
		for c := range p.Calls() {
			fmt.Fprintf(w, "  %4d %s %s  [%s]\n", c.Seq, check.Describe(p, c), returned(p, c), sym.Lookup(p.Maps, c.PC))
		}
	}
	return nil
}

// readRecords reads the records in dir, and says clearly when there are
// none to print: no such directory, not a directory, no records, no such
// rank.
func readRecords(dir string, rank int) (*trace.Run, error) {
	if rank < -1 {
		return nil, fmt.Errorf("--rank %d: a rank is 0 or more (-1: all)", rank)
	}
	st, err := os.Stat(dir)
	if err != nil {
		return nil, fmt.Errorf("dump %s: %v", dir, errors.Unwrap(err))
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("dump %s: not a directory (mpivet dump takes a run directory, or one of its interleaving-N directories)", dir)
	}
	run, err := trace.ReadRun(dir)
	if err != nil {
		return nil, fmt.Errorf("dump %s: %v", dir, err)
	}
	var ranks []int
	for _, p := range run.Procs {
		if p.Rank >= 0 {
			ranks = append(ranks, p.Rank)
		}
	}
	if len(run.Procs) == 0 {
		return nil, fmt.Errorf("dump %s: no records of ranks there (a run directory, or one of its interleaving-N directories, has them; a replay without new findings has its records deleted unless --keep-records)", dir)
	}
	if rank >= 0 && !slices.Contains(ranks, rank) {
		return nil, fmt.Errorf("dump %s: no rank %d in these records (ranks: %s)", dir, rank, check.RankList(ranks))
	}
	return run, nil
}

// returned says what call c returned (its return code and out
// arguments), or that it did not.
func returned(p *trace.Process, c *trace.Call) string {
	if !c.Returned {
		return "(did not return)"
	}
	var o []string
	for i, f := range c.Def.Out {
		switch f.Kind {
		case api.FHandle:
			o = append(o, f.Name+"="+check.HandleName(p, c.Out(i)))
		case api.FInts, api.FStatus:
			o = append(o, fmt.Sprintf("%s=%v", f.Name, toInts(c.OutWords(i))))
		default:
			o = append(o, fmt.Sprintf("%s=%d", f.Name, int64(c.Out(i))))
		}
	}
	return fmt.Sprintf("-> rc=%d %s", c.RC, strings.Join(o, " "))
}

func toInts(ws []uint64) []int64 {
	out := make([]int64, len(ws))
	for i, w := range ws {
		out[i] = int64(w)
	}
	return out
}
