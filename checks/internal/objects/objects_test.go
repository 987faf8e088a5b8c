package objects

import (
	"testing"

	"mpivet/trace/tracetest"
)

const null = 0x2000 // tracetest's MPI_REQUEST_NULL

func TestSharedHandles(t *testing.T) {
	// Two sends that completed at once get the same handle; only the one
	// kept at 0x108 is waited for.
	l := tracetest.New(0, 2)
	l.Call("MPI_Init", 1, nil, map[string]any{})
	l.Call("MPI_Isend", 2, map[string]any{"request_at": uint64(0x100)}, map[string]any{"request": uint64(0x77)})
	l.Call("MPI_Isend", 3, map[string]any{"request_at": uint64(0x108)}, map[string]any{"request": uint64(0x77)})
	l.Call("MPI_Wait", 4, map[string]any{"request": uint64(0x77), "request_at": uint64(0x108)},
		map[string]any{"request_out": uint64(null)})
	l.Call("MPI_Finalize", 5, nil, map[string]any{})
	st := Follow(l.Process())
	if len(st.Live) != 1 || st.Live[0].Created.PC != 2 {
		t.Fatalf("live: %+v", st.Live)
	}
}

func TestCompletionByExitValues(t *testing.T) {
	// Testany reports index 0 (a binding bug), but the request the MPI set
	// to MPI_REQUEST_NULL is the second one: that one completed.
	l := tracetest.New(0, 2)
	l.Call("MPI_Irecv", 2, map[string]any{"request_at": uint64(0x100)}, map[string]any{"request": uint64(0x50)})
	l.Call("MPI_Isend", 3, map[string]any{"request_at": uint64(0x108)}, map[string]any{"request": uint64(0x60)})
	l.Call("MPI_Testany", 4, map[string]any{"count": 2, "array_of_requests": []uint64{0x50, 0x60},
		"array_of_requests_at": uint64(0x100), "array_of_requests_stride": 8},
		map[string]any{"array_of_requests_out": []uint64{0x50, null}, "index": 0, "flag": 1})
	l.Call("MPI_Finalize", 5, nil, map[string]any{})
	st := Follow(l.Process())
	if len(st.Live) != 1 || st.Live[0].Handle != 0x50 {
		t.Fatalf("live: %+v", st.Live)
	}
}

func TestPersistent(t *testing.T) {
	l := tracetest.New(0, 2)
	l.Call("MPI_Send_init", 2, map[string]any{"request_at": uint64(0x100)}, map[string]any{"request": uint64(0x50)})
	l.Call("MPI_Start", 3, map[string]any{"request": uint64(0x50), "request_at": uint64(0x100)}, map[string]any{"request_out": uint64(0x50)})
	// Open MPI hands back a new request when started while active.
	l.Call("MPI_Start", 4, map[string]any{"request": uint64(0x50), "request_at": uint64(0x100)}, map[string]any{"request_out": uint64(0x51)})
	l.Call("MPI_Wait", 5, map[string]any{"request": uint64(0x51), "request_at": uint64(0x100)}, map[string]any{"request_out": uint64(0x51)})
	l.Call("MPI_Request_free", 6, map[string]any{"request": uint64(0x51), "request_at": uint64(0x100)}, map[string]any{})
	l.Call("MPI_Finalize", 7, nil, map[string]any{})
	st := Follow(l.Process())
	if len(st.Events) != 1 || st.Events[0].What != StartedActive || st.Events[0].Call.PC != 4 {
		t.Fatalf("events: %+v", st.Events)
	}
	if len(st.Live) != 0 {
		t.Fatalf("live: %+v", st.Live)
	}
}

func TestHandlesAndFlags(t *testing.T) {
	l := tracetest.New(0, 2)
	l.Call("MPI_Comm_dup", 2, map[string]any{"comm": uint64(0x1000)}, map[string]any{"newcomm": uint64(0x500)})
	l.Call("MPI_Comm_split", 3, map[string]any{"comm": uint64(0x1000)}, map[string]any{"newcomm": uint64(0x1008)}) // MPI_COMM_NULL
	l.Call("MPI_Improbe", 4, nil, map[string]any{"flag": 0, "message": uint64(0xdead)})                            // no message
	l.Call("MPI_Type_contiguous", 5, nil, map[string]any{"newtype": uint64(0x600)})
	l.Call("MPI_Type_free", 6, map[string]any{"datatype": uint64(0x600)}, map[string]any{})
	l.Call("MPI_Irecv", 7, nil, map[string]any{"request": uint64(0x70)})
	l.Call("MPI_Request_free", 8, map[string]any{"request": uint64(0x70)}, map[string]any{})
	l.Call("MPI_Finalize", 9, nil, map[string]any{})
	st := Follow(l.Process())
	if len(st.Live) != 1 || st.Live[0].Kind != "comm" || st.Live[0].Handle != 0x500 {
		t.Fatalf("live: %+v", st.Live)
	}
	if len(st.Events) != 1 || st.Events[0].What != FreedActive {
		t.Fatalf("events: %+v", st.Events)
	}
}

func TestLegalFrees(t *testing.T) {
	l := tracetest.New(0, 2)
	// completion seen by MPI_Request_get_status, then freed
	l.Call("MPI_Isend", 2, nil, map[string]any{"request": uint64(0x70)})
	l.Call("MPI_Request_get_status", 3, map[string]any{"request": uint64(0x70)}, map[string]any{"flag": 1})
	l.Call("MPI_Request_free", 4, map[string]any{"request": uint64(0x70)}, map[string]any{})
	// cancelled, then freed
	l.Call("MPI_Irecv", 5, nil, map[string]any{"request": uint64(0x71)})
	l.Call("MPI_Cancel", 6, map[string]any{"request": uint64(0x71)}, map[string]any{"request_out": uint64(0x71)})
	l.Call("MPI_Request_free", 7, map[string]any{"request": uint64(0x71)}, map[string]any{})
	// not known complete: a warning
	l.Call("MPI_Irecv", 8, nil, map[string]any{"request": uint64(0x72)})
	l.Call("MPI_Request_get_status", 9, map[string]any{"request": uint64(0x72)}, map[string]any{"flag": 0})
	l.Call("MPI_Request_free", 10, map[string]any{"request": uint64(0x72)}, map[string]any{})
	l.Call("MPI_Finalize", 11, nil, map[string]any{})
	st := Follow(l.Process())
	if len(st.Live) != 0 || len(st.Events) != 1 || st.Events[0].Call.PC != 10 {
		t.Fatalf("live %+v events %+v", st.Live, st.Events)
	}
}

func TestQueryHandles(t *testing.T) {
	// MPI_Type_get_contents gives two derived members (one of them the
	// program's own handle again, as MPICH does) and a predefined one
	// (recorded as unknown): two new references; the program frees the
	// member kept at 0x208 and its own vector, not the one at 0x200.
	l := tracetest.New(0, 2)
	l.Call("MPI_Type_vector", 2, map[string]any{"newtype_at": uint64(0x300)}, map[string]any{"newtype": uint64(0x90)})
	l.Call("MPI_Type_get_contents", 3, map[string]any{"array_of_datatypes_at": uint64(0x200), "array_of_datatypes_stride": 8},
		map[string]any{"array_of_datatypes": []uint64{0x90, 0x91, ^uint64(0)}})
	l.Call("MPI_Type_free", 4, map[string]any{"datatype": uint64(0x91), "datatype_at": uint64(0x208)}, map[string]any{})
	l.Call("MPI_Type_free", 5, map[string]any{"datatype": uint64(0x90), "datatype_at": uint64(0x300)}, map[string]any{})
	l.Call("MPI_Finalize", 6, nil, map[string]any{})
	st := Follow(l.Process())
	if len(st.Live) != 1 || st.Live[0].Handle != 0x90 || st.Live[0].At != 0x200 || st.Live[0].Created.PC != 3 {
		t.Fatalf("live: %+v", st.Live)
	}
}

func TestFreedInsideFinalize(t *testing.T) {
	// A delete callback of an attribute on MPI_COMM_SELF frees a
	// communicator inside MPI_Finalize: it is not left at MPI_Finalize.
	l := tracetest.New(0, 2)
	l.Call("MPI_Comm_dup", 2, map[string]any{"newcomm_at": uint64(0x100)}, map[string]any{"newcomm": uint64(0x70)})
	l.Call("MPI_Comm_dup", 3, map[string]any{"newcomm_at": uint64(0x108)}, map[string]any{"newcomm": uint64(0x71)})
	l.Call("MPI_Finalize", 4, nil, map[string]any{})
	l.Call("MPI_Comm_free", 5, map[string]any{"comm": uint64(0x70), "comm_at": uint64(0x100)}, map[string]any{})
	st := Follow(l.Process())
	if len(st.Live) != 1 || st.Live[0].Handle != 0x71 || st.Finalize == nil || st.Finalize.PC != 4 {
		t.Fatalf("live: %+v", st.Live)
	}
}

func TestUsedBeforeIdupCompleted(t *testing.T) {
	l := tracetest.New(0, 2)
	l.Call("MPI_Comm_idup", 2, map[string]any{"newcomm_at": uint64(0x100), "request_at": uint64(0x108)},
		map[string]any{"newcomm": uint64(0x70), "request": uint64(0x50)})
	l.Call("MPI_Barrier", 3, map[string]any{"comm": uint64(0x70)}, map[string]any{})
	l.Call("MPI_Wait", 4, map[string]any{"request": uint64(0x50), "request_at": uint64(0x108)}, map[string]any{"request_out": uint64(null)})
	l.Call("MPI_Barrier", 5, map[string]any{"comm": uint64(0x70)}, map[string]any{})
	l.Call("MPI_Comm_idup", 6, map[string]any{"newcomm_at": uint64(0x110), "request_at": uint64(0x118)},
		map[string]any{"newcomm": uint64(0x71), "request": uint64(0x51)})
	l.Call("MPI_Wait", 7, map[string]any{"request": uint64(0x51), "request_at": uint64(0x118)}, map[string]any{"request_out": uint64(null)})
	l.Call("MPI_Barrier", 8, map[string]any{"comm": uint64(0x71)}, map[string]any{})
	st := Follow(l.Process())
	if len(st.Events) != 1 || st.Events[0].What != UsedPending || st.Events[0].Call.PC != 3 || st.Events[0].Object.Created.PC != 2 {
		t.Fatalf("events: %+v", st.Events)
	}
}
