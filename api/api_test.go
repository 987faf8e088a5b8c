package api

import (
	"strings"
	"testing"
)

func TestBuiltinDescription(t *testing.T) {
	if len(MPI.Calls) < 130 {
		t.Fatalf("only %d calls described", len(MPI.Calls))
	}
	for i, c := range MPI.Calls {
		if c.ID != i {
			t.Errorf("%s: ID %d at position %d", c.Name, c.ID, i)
		}
		if !strings.HasPrefix(c.Name, "MPI_") {
			t.Errorf("%s: not an MPI call", c.Name)
		}
	}
	// The core point-to-point, collective and object calls must be covered.
	for _, name := range []string{"MPI_Send", "MPI_Bsend", "MPI_Ssend", "MPI_Rsend", "MPI_Isend", "MPI_Ibsend",
		"MPI_Issend", "MPI_Irsend", "MPI_Recv", "MPI_Irecv", "MPI_Send_init", "MPI_Recv_init", "MPI_Sendrecv",
		"MPI_Sendrecv_replace", "MPI_Probe", "MPI_Iprobe", "MPI_Mprobe", "MPI_Improbe", "MPI_Mrecv", "MPI_Imrecv",
		"MPI_Wait", "MPI_Test", "MPI_Waitany", "MPI_Testany", "MPI_Waitall", "MPI_Testall", "MPI_Waitsome",
		"MPI_Testsome", "MPI_Request_free", "MPI_Cancel", "MPI_Request_get_status", "MPI_Start", "MPI_Startall",
		"MPI_Barrier", "MPI_Ibarrier", "MPI_Alltoallw", "MPI_Ialltoallw", "MPI_Ineighbor_alltoallw", "MPI_Comm_split",
		"MPI_Comm_free", "MPI_Group_incl", "MPI_Type_create_struct", "MPI_Type_free", "MPI_Op_create", "MPI_Pcontrol",
		"MPI_Init", "MPI_Init_thread", "MPI_Finalize", "MPI_Abort"} {
		if MPI.ByName[name] == nil {
			t.Errorf("%s is not described", name)
		}
	}
}

func TestLayouts(t *testing.T) {
	isend := MPI.ByName["MPI_Isend"]
	var in, out []string
	for _, f := range isend.In {
		in = append(in, f.Name)
	}
	for _, f := range isend.Out {
		out = append(out, f.Name)
	}
	if got := strings.Join(in, ","); got != "buf,count,datatype,dest,tag,comm,request_at" {
		t.Errorf("MPI_Isend entry fields: %s", got)
	}
	if got := strings.Join(out, ","); got != "request" {
		t.Errorf("MPI_Isend exit fields: %s", got)
	}
	wa := MPI.ByName["MPI_Waitall"]
	if wa.In[len(wa.In)-1].Kind != FHandles || wa.Out[0].Name != "array_of_requests_out" {
		t.Errorf("MPI_Waitall: requests must be read on entry and exit: %+v %+v", wa.In, wa.Out)
	}
	if !MPI.ByName["MPI_Isend"].Logged() || MPI.ByName["MPI_Send"].Logged() || !MPI.ByName["MPI_Comm_dup"].Logged() {
		t.Error("wrong choice of logged calls")
	}
	var polls []string
	for _, c := range MPI.Calls {
		if c.Poll() {
			polls = append(polls, c.Name)
		}
	}
	if got := strings.Join(polls, ","); got != "MPI_Iprobe,MPI_Improbe,MPI_Test,MPI_Testany,MPI_Testall,MPI_Testsome,MPI_Request_get_status,MPI_Win_test" {
		t.Errorf("polls: %s", got)
	}
}

func TestParseErrors(t *testing.T) {
	for _, bad := range []string{
		"MPI_X(int a",                           // no closing parenthesis
		"MPI_X(int *a:new)",                     // new needs a handle
		"MPI_X(MPI_Request r[]:reqs)",           // reqs needs a length
		"MPI_X(int n, MPI_Comm c[]:reqs(n))",    // reqs needs requests
		"MPI_X(int n, MPI_Request r[]:reqs(m))", // unknown length
		"MPI_X(int a:bogus)",                    // unknown role
		"MPI_X(int a)\nMPI_X(int a)",            // twice
	} {
		if _, err := Parse(bad); err == nil {
			t.Errorf("Parse(%q) succeeded", bad)
		}
	}
	a, err := Parse("# c\nMPI_Y(MPI_Comm comm, MPI_Comm *newcomm:new)  comm coll\nconst MPI_COMM_WORLD\n")
	if err != nil {
		t.Fatal(err)
	}
	c := a.ByName["MPI_Y"]
	if c == nil || !c.Has("coll") || c.Params[1].Handle != "comm" || c.Params[1].Role != New || a.Consts[0] != "MPI_COMM_WORLD" {
		t.Errorf("parsed %+v", c)
	}
}

// TestLargeTwins: a "large" line names a described call and scalar
// parameters of it; the twin is NAME_c with the parameter widened.
func TestLargeTwins(t *testing.T) {
	const call = "MPI_Send(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)  p2p send blocking\n"
	a, err := Parse(call + "large MPI_Send count\n")
	if err != nil {
		t.Fatal(err)
	}
	c := a.ByName["MPI_Send"]
	if c.LargeName() != "MPI_Send_c" || c.LargeType(c.Params[1]) != "MPI_Count" || c.LargeType(c.Params[3]) != "" {
		t.Errorf("twin %q, count %q, dest %q", c.LargeName(), c.LargeType(c.Params[1]), c.LargeType(c.Params[3]))
	}
	const v = "MPI_V(const int counts[], int n, MPI_Comm comm)  coll\n"
	if a, err := Parse(v + "large MPI_V counts[n]\n"); err != nil || a.Calls[0].Large[0].Len != "n" {
		t.Errorf("an array of n counts: %v", err)
	}
	if _, err := Parse(v + "large MPI_V counts[m]\n"); err == nil {
		t.Errorf("an array of a length no parameter gives: no error")
	}
	for _, bad := range []string{"large MPI_Send buf\n", "large MPI_Send count[dest]\n", "large MPI_Recv count\n", "large MPI_Send nosuch\n", "large MPI_Send\n", "large MPI_Send count\nlarge MPI_Send count\n"} {
		if _, err := Parse(call + bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

// TestFortranNames: a "fortran-name" line gives a described call with
// Fortran bindings other names; a described name, an unknown call or a
// call without Fortran bindings is an error.
func TestFortranNames(t *testing.T) {
	const calls = "MPI_Win_allocate(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, void *baseptr, MPI_Win *win:new)  rma blocking\n" +
		"MPI_Z(MPI_Comm comm)  nofortran\n"
	a, err := Parse(calls + "fortran-name MPI_Win_allocate MPI_Win_allocate_cptr\n")
	if err != nil {
		t.Fatal(err)
	}
	if got := a.ByName["MPI_Win_allocate"].FortranNames; len(got) != 1 || got[0] != "MPI_Win_allocate_cptr" {
		t.Errorf("FortranNames %q", got)
	}
	for _, bad := range []string{"fortran-name MPI_Win_allocate\n", "fortran-name MPI_Nosuch MPI_X\n", "fortran-name MPI_Z MPI_Z_cptr\n",
		"fortran-name MPI_Win_allocate MPI_Z\n", "fortran-name MPI_Win_allocate win_cptr\n"} {
		if _, err := Parse(calls + bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}
