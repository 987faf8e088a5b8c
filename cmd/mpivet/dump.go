package main

import (
	"fmt"
	"os"
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
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			run, err := trace.ReadRun(args[0])
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
						fmt.Printf("rank %d: last call %s (%s; %d calls completed)  [%s]\n", p.Rank, check.Describe(p, c), state, p.Progress, sym.Lookup(p.Maps, c.PC))
					}
				}(p)
				if rank >= 0 && p.Rank != rank {
					continue
				}
				fmt.Printf("== rank %d (pid %d on %s, %d calls", p.Rank, p.Pid, p.Host, p.NumCalls)
				if p.Polls > 0 {
					fmt.Printf(", and %d polls that found nothing, not recorded", p.Polls)
				}
				fmt.Printf(")")
				if p.Exit != nil {
					fmt.Printf(" exit: code %d signal %d", p.Exit.Code, p.Exit.Signal)
				}
				fmt.Println()
				for c := range p.Calls() {
					out := "(did not return)"
					if c.Returned {
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
						out = fmt.Sprintf("-> rc=%d %s", c.RC, strings.Join(o, " "))
					}
					loc := sym.Lookup(p.Maps, c.PC)
					fmt.Fprintf(os.Stdout, "  %4d %s %s  [%s]\n", c.Seq, check.Describe(p, c), out, loc)
				}
			}
			return nil
		},
	}
	cmd.Flags().IntVar(&rank, "rank", -1, "only this rank")
	return cmd
}

func toInts(ws []uint64) []int64 {
	out := make([]int64, len(ws))
	for i, w := range ws {
		out[i] = int64(w)
	}
	return out
}
