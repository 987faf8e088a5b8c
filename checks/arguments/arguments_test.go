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

// TestDatatypeRules: a constructor's argument named with its array index
// and the rule, a struct's null type by index, a predefined type freed, a
// receive's overlapping type with its count, and an uncommitted type with
// the call that made it as a second location.
func TestDatatypeRules(t *testing.T) {
	l := tracetest.New(0, 1)
	sub := api.MPI.ByName["MPI_Type_create_subarray"]
	l.Meta(api.MetaArgument, uint64(sub.ID), uint64(sub.Param("array_of_subsizes")), api.ArgTypeArg, 5,
		api.TypeArgSubsize|2<<8, uint64(sub.Param("array_of_sizes")), 4, 0x100)
	arg(l, "MPI_Type_create_darray", "array_of_psizes", api.ArgTypeArg, 2, api.TypeArgPsizes, "size", 1, 0x180)
	arg(l, "MPI_Type_create_struct", "array_of_types", api.ArgTypeNull, int64(tracetest.Consts["MPI_DATATYPE_NULL"]), 3, "", 0, 0x200)
	arg(l, "MPI_Type_free", "datatype", api.ArgTypeFreePredef, int64(tracetest.Consts["MPI_DOUBLE"]), 0, "", 0, 0x300)
	arg(l, "MPI_Recv", "datatype", api.ArgTypeOverlap, 0x5000, 2, "", 4, 0x400)
	arg(l, "MPI_Put", "target_datatype", api.ArgTypeOverlap, 0x5000, 1, "", 8, 0x480)
	arg(l, "MPI_Send", "datatype", api.ArgTypeUncommitted, 0x5000, int64(api.MPI.ByName["MPI_Type_vector"].ID), "", 0x50, 0x500)
	want := map[string]bool{
		"MPI_Type_create_subarray: array_of_subsizes[1]=5: a subsize must be within 1..array_of_sizes[1]=4 (MPI 4.0 §5.1.3)":                                                                                                                                                           false,
		"MPI_Type_create_darray: the product of array_of_psizes=2: the product of the process grid's dimensions must be size=1 (MPI 4.0 §5.1.4)":                                                                                                                                       false,
		"MPI_Type_create_struct: array_of_types[2]=MPI_DATATYPE_NULL is not a datatype":                                                                                                                                                                                                false,
		"MPI_Type_free: datatype=MPI_DOUBLE is a predefined datatype: the program must not free a predefined object (MPI 4.0 §2.5.1)":                                                                                                                                                  false,
		"MPI_Recv: datatype=0x5000 has entries that overlap: with count=2 it writes byte 4 of the buffer twice, and a datatype must not write a byte twice where a call stores data (a receive, a read, a one-sided call's origin or target buffer: MPI 4.0 §5.1, §12.3)":              false,
		"MPI_Put: target_datatype=0x5000 has entries that overlap: with target_count=1 it writes byte 8 of the buffer twice, and a datatype must not write a byte twice where a call stores data (a receive, a read, a one-sided call's origin or target buffer: MPI 4.0 §5.1, §12.3)": false,
		"MPI_Send: datatype=0x5000 is a derived datatype not committed: call MPI_Type_commit before it describes data (MPI 4.0 §5.1.9)":                                                                                                                                                false,
	}
	for _, f := range findings(t, l.Process()) {
		if _, ok := want[f.Message]; !ok || f.Kind != "invalid-argument" {
			t.Errorf("unexpected finding %s %q", f.Kind, f.Message)
		}
		want[f.Message] = true
		if strings.HasPrefix(f.Message, "MPI_Send") && (len(f.Locations) != 2 || f.Locations[1].Call != "MPI_Type_vector") {
			t.Errorf("uncommitted type: want the send and the constructor, got %+v", f.Locations)
		}
	}
	for m, seen := range want {
		if !seen {
			t.Errorf("no finding %q", m)
		}
	}
}
