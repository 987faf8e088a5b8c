package arguments

import (
	"strings"
	"testing"

	"mpivet/api"
	"mpivet/check"
	reports "mpivet/report"
	"mpivet/trace"
	"mpivet/trace/tracetest"
)

func findings(t *testing.T, procs ...*trace.Process) []check.Finding {
	t.Helper()
	fs, err := check.Run([]*check.Check{Check}, &check.Input{Run: &trace.Run{Procs: procs}, NP: len(procs)})
	if err != nil {
		t.Fatal(err)
	}
	return reports.Merge(fs)
}

// arg logs what the layer logs for a broken rule.
func arg(l *tracetest.Log, call string, param string, rule int, value, limit int64, other string, ovalue int64, pc uint64) {
	c := api.MPI.ByName[call]
	o := int64(-1)
	if other != "" {
		o = int64(c.Param(other))
	}
	l.Meta(api.MetaArgument, uint64(c.ID), uint64(c.Param(param)), uint64(rule), uint64(value), uint64(limit), uint64(o), uint64(ovalue), pc)
}

// A rule broken at one line on two ranks is one finding naming the
// parameter, its value and the rule; another rule is another finding;
// torn or unknown records are dropped.
func TestFindings(t *testing.T) {
	var ps []*trace.Process
	for r := 0; r < 2; r++ {
		l := tracetest.New(r, 2)
		arg(l, "MPI_Send", "dest", api.ArgRank, 2, 2, "", 0, 0x100)
		if r == 1 {
			arg(l, "MPI_Recv", "tag", api.ArgTag, -3, 32767, "", 0, 0x200)
			arg(l, "MPI_Allreduce", "op", api.ArgOpType, int64(tracetest.Consts["MPI_BAND"]), int64(tracetest.Consts["MPI_DOUBLE"]),
				"datatype", int64(tracetest.Consts["MPI_DOUBLE"]), 0x300)
			arg(l, "MPI_Reduce", "op", api.ArgOpType, int64(tracetest.Consts["MPI_SUM"]), 0x5000, "datatype", 0x5000, 0x400)
			l.Meta(api.MetaArgument, 9999, 0, 1, 0, 0, 0, 0, 0) // no such call
			l.Meta(api.MetaArgument, 5, 0)                      // torn
		}
		ps = append(ps, l.Process())
	}
	fs := findings(t, ps...)
	if len(fs) != 4 {
		t.Fatalf("%d findings, want 4: %v", len(fs), fs)
	}
	want := map[string]bool{
		"MPI_Send: dest=2 is not a rank of the communicator (2 ranks: 0..1) nor MPI_PROC_NULL":                                                                                                             false,
		"MPI_Recv: tag=-3 is not a valid tag: tags go from 0 to MPI_TAG_UB (32767 here), or MPI_ANY_TAG":                                                                                                   false,
		"MPI_Allreduce: op=MPI_BAND is not defined for the datatype datatype=MPI_DOUBLE (MPI 4.0 §6.9.2)":                                                                                                  false,
		"MPI_Reduce: op=MPI_SUM is not defined for the derived datatype datatype=0x5000: predefined operations apply to predefined datatypes (MPI 4.0 §6.9.2; a user operation, MPI_Op_create, takes any)": false,
	}
	for _, f := range fs {
		if f.Kind != "invalid-argument" {
			t.Errorf("kind %q", f.Kind)
		}
		if _, ok := want[f.Message]; !ok {
			t.Errorf("unexpected message %q", f.Message)
		}
		want[f.Message] = true
		if strings.HasPrefix(f.Message, "MPI_Send") && len(f.Locations) != 2 {
			t.Errorf("MPI_Send on both ranks: %d locations", len(f.Locations))
		}
	}
	for m, seen := range want {
		if !seen {
			t.Errorf("no finding %q", m)
		}
	}
}

// TestWindowArguments: a window's NULL base and assertion bits a call does
// not define, named by their constants.
func TestWindowArguments(t *testing.T) {
	l := tracetest.New(0, 1)
	arg(l, "MPI_Win_create", "base", api.ArgWinBase, 0, 0, "size", 64, 0x100)
	arg(l, "MPI_Win_fence", "assertion", api.ArgAssert, 1|16, 2|4|8|16, "", 0, 0x200)
	arg(l, "MPI_Win_start", "assertion", api.ArgAssert, 4|64, 1, "", 0, 0x300)
	p := l.Process()
	for i, name := range []string{"MPI_MODE_NOCHECK", "MPI_MODE_NOSTORE", "MPI_MODE_NOPUT", "MPI_MODE_NOPRECEDE", "MPI_MODE_NOSUCCEED"} {
		p.ConstVal[name] = 1 << i
		p.Consts[1<<i] = append(p.Consts[1<<i], name)
	}
	want := map[string]bool{
		"MPI_Win_create: base=NULL for a window of size=64 bytes: the window's memory must be there to hold them":                                                                        false,
		"MPI_Win_fence: assertion=MPI_MODE_NOCHECK|MPI_MODE_NOSUCCEED: MPI_Win_fence takes only MPI_MODE_NOSTORE|MPI_MODE_NOPUT|MPI_MODE_NOPRECEDE|MPI_MODE_NOSUCCEED (MPI 4.0 §12.5.5)": false,
		"MPI_Win_start: assertion=MPI_MODE_NOPUT|0x40: MPI_Win_start takes only MPI_MODE_NOCHECK (MPI 4.0 §12.5.5)":                                                                      false,
	}
	for _, f := range findings(t, p) {
		if _, ok := want[f.Message]; !ok || f.Kind != "invalid-argument" {
			t.Errorf("unexpected finding %s %q", f.Kind, f.Message)
		}
		want[f.Message] = true
	}
	for m, seen := range want {
		if !seen {
			t.Errorf("no finding %q", m)
		}
	}
}
