package report

import "mpivet/check"

// Trail is what the ranks did just before a finding, in one interleaving:
// the last calls of each rank (at most a bound per rank, so that a report
// of a long run stays small), the messages between the calls shown, and
// where each rank stopped. The HTML report draws it as a space-time
// diagram and the SARIF printer as one thread flow per rank. The driver
// builds it from the interleaving's records (package spacetime).
type Trail struct {
	Interleaving int       `json:"interleaving"`
	Lanes        []Lane    `json:"lanes"`
	Messages     []Message `json:"messages,omitempty"`
}

// Lane is one rank's calls, oldest first.
type Lane struct {
	Rank    int    `json:"rank"`
	Skipped int    `json:"skipped,omitempty"` // earlier calls not shown
	Calls   []Call `json:"calls"`
	// End says how the rank ended or where it stopped: "finalized",
	// "blocked in MPI_Recv", "killed by SIGSEGV", ...
	End string `json:"end,omitempty"`
}

// Call is one MPI call of a lane.
type Call struct {
	Seq  int            `json:"seq"` // the rank's call number
	Name string         `json:"name"`
	Peer string         `json:"peer,omitempty"` // "to 1", "from any: 2", "comm of 4", ...
	Loc  check.Location `json:"loc"`
	// Forced: a wildcard event whose match the replay forced (one of the
	// decisions that make this interleaving); Wildcard: a wildcard event.
	Forced   bool `json:"forced,omitempty"`
	Wildcard bool `json:"wildcard,omitempty"`
	// Stopped: the call the rank was in when it stopped (blocked, crashed,
	// killed), or never returned from.
	Stopped bool `json:"stopped,omitempty"`
}

// Message is a point-to-point message between two calls shown: the lanes'
// ranks and the calls' Seq.
type Message struct {
	From    int `json:"from"`
	FromSeq int `json:"from_seq"`
	To      int `json:"to"`
	ToSeq   int `json:"to_seq"`
}

// TrailOf returns the trail of the interleaving finding f comes from, or nil.
func (r *Report) TrailOf(f check.Finding) *Trail {
	for i := range r.Trails {
		if r.Trails[i].Interleaving == f.Interleaving {
			return &r.Trails[i]
		}
	}
	return nil
}
