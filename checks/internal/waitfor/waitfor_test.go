package waitfor

import (
	"fmt"
	"strings"
	"testing"
)

func blocked(id int, c *Cond) Process { return Process{ID: id, State: Blocked, Wait: c} }

func check(t *testing.T, r *Result, deadlocked, cores, waiting string) {
	t.Helper()
	if got := fmt.Sprint(r.Deadlocked); got != deadlocked {
		t.Errorf("deadlocked %s, want %s", got, deadlocked)
	}
	if got := fmt.Sprint(r.Cores); got != cores {
		t.Errorf("cores %s, want %s", got, cores)
	}
	if got := fmt.Sprint(r.Waiting); got != waiting {
		t.Errorf("waiting %s, want %s", got, waiting)
	}
}

// Seed 003, Fig. 1(b): both ranks receive first.
func TestRecvRecv(t *testing.T) {
	r := Analyze([]Process{blocked(0, P(1)), blocked(1, P(0))})
	check(t, r, "[0 1]", "[[0 1]]", "[]")
}

// Seed 003, Fig. 4: Waitall over wildcard receives on communicators A
// {0,1,2} and B {0,2,3}; 1 and 3 receive from 2, 2 from 0. All four are
// deadlocked; the knot of Fig. 7 is 0, 1, 2 (with request[0]), and 3 waits
// on it.
func TestFig4(t *testing.T) {
	r := Analyze([]Process{
		blocked(0, AllOf("MPI_Waitall", AnyProc("MPI_Irecv request[0]", 0, 1, 2), AnyProc("MPI_Irecv request[1]", 0, 2, 3))),
		blocked(1, P(2)), blocked(2, P(0)), blocked(3, P(2)),
	})
	check(t, r, "[0 1 2 3]", "[[0 1 2]]", "[3]")
	dot := r.Graph.DOT()
	for _, want := range []string{"parallelogram", "style=dashed", "style=solid", "fillcolor", `"MPI_Irecv request[0]"`} {
		if !strings.Contains(dot, want) {
			t.Errorf("DOT has no %s:\n%s", want, dot)
		}
	}
	// The request[0] node is in the core, request[1] is not.
	for _, n := range r.Graph.Nodes {
		if n.Label == "MPI_Irecv request[0]" && !n.Core || n.Label == "MPI_Irecv request[1]" && n.Core {
			t.Errorf("node %q core=%v", n.Label, n.Core)
		}
	}
}

// A wildcard receive with one possible sender still running is no deadlock.
func TestWildcardWithRunningSender(t *testing.T) {
	r := Analyze([]Process{blocked(0, AnyProc("MPI_Recv(ANY)", 1, 2)), blocked(1, P(0)), {ID: 2, State: Running}})
	check(t, r, "[]", "[]", "[]")
}

// A barrier that one rank has not reached because it computes: not a
// deadlock, the others wait.
func TestBarrierWhileComputing(t *testing.T) {
	r := Analyze([]Process{
		blocked(0, AllProcs("MPI_Barrier", 2)), blocked(1, AllProcs("MPI_Barrier", 2)), {ID: 2, State: Running},
	})
	check(t, r, "[]", "[]", "[]")
}

// Receiving from a rank that has finished: the finished rank is the core.
func TestWaitOnFinished(t *testing.T) {
	r := Analyze([]Process{blocked(0, P(1)), {ID: 1, State: Finished}, blocked(2, P(0))})
	check(t, r, "[0 2]", "[[1]]", "[0 2]")
}

// Seed 000, Fig. 2.7 in its deadlocking interleaving: rank 1's second
// receive waits for rank 2, which has finished; rank 0 has finished too.
// Also a rank receiving from itself (Fig. 2.4).
func TestSelfAndFinished(t *testing.T) {
	r := Analyze([]Process{blocked(0, P(0)), blocked(1, P(0))})
	check(t, r, "[0 1]", "[[0]]", "[1]")
	r = Analyze([]Process{{ID: 0, State: Finished}, blocked(1, P(2)), {ID: 2, State: Finished}})
	check(t, r, "[1]", "[[2]]", "[1]")
}

// An AND of ORs where one OR is satisfiable and the other is not.
func TestPartlySatisfiable(t *testing.T) {
	r := Analyze([]Process{
		blocked(0, AllOf("MPI_Waitall", AnyProc("a", 1, 2), AnyProc("b", 3))),
		{ID: 1, State: Running}, blocked(3, P(0)),
	})
	check(t, r, "[0 3]", "[[0 3]]", "[]")
}

// A collective every member has reached waits for nothing; a wildcard over
// nobody waits forever.
func TestEmptyConditions(t *testing.T) {
	r := Analyze([]Process{blocked(0, AllProcs("MPI_Barrier")), blocked(1, AnyProc("MPI_Recv(ANY)"))})
	check(t, r, "[1]", "[]", "[1]")
}
