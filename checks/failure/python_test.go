package failure

import (
	"testing"

	"mpivet/trace"
)

func TestRaisedAt(t *testing.T) {
	p := &trace.Process{Rank: 2, Stderr: `some output
Traceback (most recent call last):
  File "/tmp/race.py", line 24, in <module>
    worker(MPI.COMM_WORLD)
  File "/tmp/race.py", line 18, in worker
    raise RuntimeError("expected rank 1 first")
RuntimeError: expected rank 1 first
  File "/tmp/other.py", line 99, in later
`}
	l := raisedAt(p)
	if len(l) != 1 || l[0].File != "/tmp/race.py" || l[0].Line != 18 || l[0].Function != "worker" || l[0].Rank != 2 || l[0].Path != "/tmp/race.py" {
		t.Errorf("raisedAt = %+v, want /tmp/race.py:18 in worker", l)
	}
	if l := raisedAt(&trace.Process{Stderr: "Segmentation fault\n"}); l != nil {
		t.Errorf("no traceback gave %+v", l)
	}
}
