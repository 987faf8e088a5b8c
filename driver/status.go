package driver

import "mpivet/launch"

// NativeStatus is the exit status a run's launcher would have given
// without mpivet: the launcher's, when it ended on its own; when mpivet
// ended the run (a rank that crashed or exited non-zero, a deadlock, a
// timeout), the first failing rank's (its exit code, or 128 plus the
// signal that ended it), else 1 (a run that would not have ended by
// itself). An interrupted run is 130.
func NativeStatus(res *launch.Result) int {
	switch {
	case res.Interrupted:
		return 130
	case res.LauncherExit >= 0 && !res.Failed && !res.TimedOut && !res.Deadlocked && !res.AbortStuck:
		return res.LauncherExit
	}
	if res.Run != nil {
		for _, p := range res.Run.Procs {
			switch x := p.Exit; {
			case x == nil:
			case x.Signal != 0:
				return 128 + x.Signal
			case x.Exited && x.Code != 0:
				return x.Code
			}
		}
	}
	if res.LauncherExit > 0 {
		return res.LauncherExit
	}
	return 1
}
