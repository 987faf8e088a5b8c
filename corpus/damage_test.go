package corpus

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"mpivet/explore"
	"mpivet/trace"
)

// refusesDamage damages copies of the run in dir (fig1_1_crooked_barrier:
// its interleaving 2 forces rank 1's two wildcard receives) in the ways a
// file system, a copy or a person can: mpivet replay and mpivet dump exit
// 2 naming the damaged file and what is wrong with it, and never start a
// replay, which would force another interleaving than the one asked for.
func refusesDamage(t *testing.T, dir string) {
	run, err := trace.ReadRun(filepath.Join(dir, "interleaving-2"))
	if err != nil || run.Rank(1) == nil || len(run.Rank(1).Wild) != 2 {
		t.Fatalf("interleaving 2: %v", err)
	}
	log := filepath.Join("interleaving-2", filepath.Base(run.Rank(1).File))
	exit := strings.TrimSuffix(log, ".log") + ".exit"
	complete := filepath.Join("interleaving-2", "decisions.complete")
	change := func(name string, f func([]byte) []byte) func(string) {
		return func(c string) {
			b, err := os.ReadFile(filepath.Join(c, name))
			if err != nil {
				t.Fatal(err)
			}
			os.WriteFile(filepath.Join(c, name), f(b), 0o644)
		}
	}
	flip := func(b []byte) []byte { b[len(b)/16*8+4] ^= 0x40; return b }
	// rank 1's first receive forced to rank 0, which it matched in interleaving 1
	otherSource := func(b []byte) []byte { return []byte(strings.Replace(string(b), "1 0 2 1", "1 0 0 1", 1)) }
	w := filepath.Join(t.TempDir(), "witness")
	if out, code := mpivet(t, "replay", dir, "--interleaving", "2", "--export", w); code != 0 {
		t.Fatalf("export: exit %d\n%s", code, out)
	}
	for _, c := range []struct {
		name, file, says string
		damage           func(string)
		witness          bool // the damage is to the witness
	}{
		{"rank 1's log cut short", log, "its records end at byte", change(log, func(b []byte) []byte { return b[:len(b)/2] }), false},
		{"a byte of rank 1's log changed", log, "", change(log, flip), false},
		{"rank 1's exit record garbled", exit, "not an exit record", change(exit, func(b []byte) []byte { return b[:len(b)/2] }), false},
		{"decisions changed", complete, "CRC32C", change(complete, otherSource), false},
		{"decisions that the records contradict", complete, "does not match the interleaving's records", func(c string) {
			explore.WriteDecisions(filepath.Join(c, complete), []explore.Decision{{Rank: 1, Event: 0, Source: 0, Kind: trace.WildRecv}})
		}, false},
		{"decisions cut short, records deleted", complete, "closing line", func(c string) {
			ls, _ := filepath.Glob(filepath.Join(c, "interleaving-2", "p.*"))
			for _, l := range ls {
				os.Remove(l)
			}
			change(complete, func(b []byte) []byte { return b[:len(b)-10] })(c)
		}, false},
		{"witness.json cut short", "witness.json", "not a witness", change("witness.json", func(b []byte) []byte { return b[:len(b)-20] }), true},
		{"the witness's count of decisions changed", "witness.json", "says 3 decisions", change("witness.json", func(b []byte) []byte {
			return []byte(strings.Replace(string(b), `"decisions": 2`, `"decisions": 3`, 1))
		}), true},
		{"the witness's decisions changed", "decisions.complete", "CRC32C", change("decisions.complete", otherSource), true},
	} {
		from, args := dir, []string{"replay", "--interleaving", "2"}
		if c.witness {
			from, args = w, []string{"replay"}
		}
		copied := filepath.Join(t.TempDir(), "run")
		if err := os.CopyFS(copied, os.DirFS(from)); err != nil {
			t.Fatal(err)
		}
		c.damage(copied)
		out, code := mpivet(t, append(args, copied)...)
		if code != 2 || !strings.Contains(out, c.file+" is damaged") || !strings.Contains(out, c.says) || strings.Contains(out, "replaying interleaving") {
			t.Errorf("%s: exit %d, want 2 and %s damaged (%s):\n%s", c.name, code, c.file, c.says, out)
		}
		if !c.witness && strings.HasPrefix(c.file, "interleaving-2/p.") {
			out, code := mpivet(t, "dump", filepath.Join(copied, "interleaving-2"))
			if code != 2 || !strings.Contains(out, filepath.Base(c.file)+" is damaged") {
				t.Errorf("%s: dump: exit %d:\n%s", c.name, code, out)
			}
		}
	}
}
