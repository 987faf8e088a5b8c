package driver

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/sys/unix"

	"mpivet/launch"
)

// Where a replay's wall time goes. With MPIVET_TIMING=FILE in mpivet's
// environment, the ranks stamp their start-up and end
// (layer/src/record/timing.c: start and end of the layer's constructor,
// MPI_Init returned, the layer's work after it done, exit) and the driver
// appends one JSON line per interleaving to FILE, with those stamps
// (earliest and latest over the ranks), the supervisors' exit records, and
// its own: the launcher started and seen to exit, the records read, the
// checks done. scripts/replay-timeline turns the lines into the breakdown
// docs/performance.md gives ("Where a replay's time goes"). Off, it costs nothing: no stamp, no file.

// timingLine is one interleaving's timestamps, in ns since the epoch (0:
// no rank reached that phase).
type timingLine struct {
	N int `json:"n"` // interleaving
	// mpivet's start (its process's, from /proc) and the end of its
	// start-up (the MPI found, the layer built or found, the settings
	// probed); on the first interleaving's line only
	Began    int64    `json:"began,omitempty"`
	Prepared int64    `json:"prepared,omitempty"`
	Launch   int64    `json:"launch"`  // launcher started
	Start    [2]int64 `json:"start"`   // ranks' constructors entered (first, last)
	Opened   [2]int64 `json:"opened"`  // layer started up
	Inited   [2]int64 `json:"inited"`  // MPI_Init returned
	Ready    [2]int64 `json:"ready"`   // layer's work after MPI_Init done
	Exit     [2]int64 `json:"exit"`    // ranks' exit (destructors)
	Reaped   [2]int64 `json:"reaped"`  // supervisors saw their rank end
	Exited   int64    `json:"exited"`  // launcher seen to exit
	Read     int64    `json:"read"`    // records read
	Checked  int64    `json:"checked"` // checks done, findings kept
	// The longest any rank spent in the layer's constructor, and in its
	// work after MPI_Init, in ns.
	LayerOpen int64 `json:"layer_open"`
	LayerInit int64 `json:"layer_init"`
	// CPU time the ranks spent, added up over them, in ns: before the
	// layer's constructor (exec, loading libraries), in it, in MPI_Init,
	// after it in the layer, and from then to exit (program, Finalize).
	CPU [5]int64 `json:"cpu"`
	// How often the ranks slept waiting in blocking calls, added up over
	// them (wait=sleep, layer/src/wait).
	Sleeps int64 `json:"sleeps"`
}

var timingMu sync.Mutex

// writeTiming appends interleaving n's line to $MPIVET_TIMING, if set.
func writeTiming(n int, res *launch.Result, checked, prepared time.Time) {
	path := os.Getenv("MPIVET_TIMING")
	if path == "" || res == nil {
		return
	}
	l := timingLine{N: n, Launch: ns(res.Started), Exited: ns(res.Exited), Read: ns(res.Read), Checked: ns(checked)}
	if n == 1 {
		l.Began, l.Prepared = processStart(), ns(prepared)
	}
	stamps, _ := filepath.Glob(filepath.Join(res.Dir, "p.*.time"))
	for _, f := range stamps {
		readStamps(f, &l)
	}
	if res.Run != nil {
		for _, p := range res.Run.Procs {
			if p.Exit != nil && p.Exit.TimeNs > 0 {
				span(&l.Reaped, p.Exit.TimeNs)
			}
		}
	}
	b, err := json.Marshal(l)
	if err != nil {
		return
	}
	timingMu.Lock()
	defer timingMu.Unlock()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return
	}
	f.Write(append(b, '\n'))
	f.Close()
}

// readStamps adds a rank's stamps ("PHASE NS CPU" lines) to l.
func readStamps(path string, l *timingLine) {
	f, err := os.Open(path)
	if err != nil {
		return
	}
	defer f.Close()
	at, cpu := map[string]int64{}, map[string]int64{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		f := strings.Fields(sc.Text()) // phase, wall clock, CPU time
		if len(f) < 2 {
			continue
		}
		phase := f[0]
		t, err := strconv.ParseInt(f[1], 10, 64)
		if err != nil {
			continue
		}
		at[phase] = t
		if len(f) > 2 {
			if c, err := strconv.ParseInt(f[2], 10, 64); err == nil {
				cpu[phase] = c
			}
		}
		switch phase {
		case "start":
			span(&l.Start, t)
		case "opened":
			span(&l.Opened, t)
		case "inited":
			span(&l.Inited, t)
		case "ready":
			span(&l.Ready, t)
		case "exit":
			span(&l.Exit, t)
		case "sleeps": // a count, not a time
			l.Sleeps += t
		}
	}
	prev := int64(0)
	for i, phase := range []string{"start", "opened", "inited", "ready", "exit"} {
		if c, ok := cpu[phase]; ok {
			l.CPU[i] += c - prev
			prev = c
		}
	}
	if at["opened"] > 0 {
		l.LayerOpen = max(l.LayerOpen, at["opened"]-at["start"])
	}
	if at["ready"] > 0 {
		l.LayerInit = max(l.LayerInit, at["ready"]-at["inited"])
	}
}

// processStart is when this process started, in ns since the epoch (0:
// unknown): its start in clock ticks after boot (/proc/self/stat's 22nd
// field, 10 ms a tick) added to the boot time (the realtime clock less the
// boottime clock).
func processStart() int64 {
	b, err := os.ReadFile("/proc/self/stat")
	if err != nil {
		return 0
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+2:]) // fields from the 3rd on
	if len(f) < 20 {
		return 0
	}
	ticks, err := strconv.ParseInt(f[19], 10, 64)
	if err != nil {
		return 0
	}
	var up, now unix.Timespec
	if unix.ClockGettime(unix.CLOCK_BOOTTIME, &up) != nil || unix.ClockGettime(unix.CLOCK_REALTIME, &now) != nil {
		return 0
	}
	boot := now.Nano() - up.Nano()
	return boot + ticks*int64(time.Second)/100 // USER_HZ: 100 on Linux
}

// span widens [first, last] to hold t.
func span(s *[2]int64, t int64) {
	if s[0] == 0 || t < s[0] {
		s[0] = t
	}
	if t > s[1] {
		s[1] = t
	}
}

func ns(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixNano()
}
