package driver

import (
	"runtime"

	"mpivet/launch"
)

// waitMode resolves --wait=auto for a run beside runs-1 others on this
// host: sleep when their ranks together outnumber the cores, spin
// otherwise. A waiting rank of either MPI polls (Open MPI yields the
// core between polls when oversubscribed, MPICH does not): with more
// ranks than cores, the waiting ones take the time of those with work
// and of the other replays. Under sleep the layer makes each blocking
// call its nonblocking form and a test loop that backs off into sleeps
// (layer/src/wait), which costs a message that comes after the spin up
// to the cap of the sleep (docs/performance.md, "Waiting in
// oversubscribed replays"); with a core per rank, spinning is the faster wait. Ranks
// elsewhere (a --launcher, a Slurm step) are on cores mpivet does not
// count: spin.
func waitMode(o Options, sess *launch.Session, runs int) string {
	if o.Wait != "auto" && o.Wait != "" {
		return o.Wait
	}
	if o.Launcher != "" || (sess != nil && sess.MPI != nil && launch.SlurmStep(sess.MPI.Impl) != "") {
		return "spin"
	}
	if o.NP*max(1, runs) > runtime.NumCPU() {
		return "sleep"
	}
	return "spin"
}
