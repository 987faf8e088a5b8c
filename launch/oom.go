package launch

import (
	"bufio"
	"os"
	"strconv"
	"strings"
)

// oomKills is how many processes the kernel's OOM killer has ended since
// the machine started (the oom_kill line of /proc/vmstat, which counts the
// kills of a cgroup's memory limit too): -1 if the kernel does not say.
// Readable by anyone, unlike the kernel's log.
func oomKills() int64 {
	f, err := os.Open("/proc/vmstat")
	if err != nil {
		return -1
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "oom_kill "); ok {
			if n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64); err == nil {
				return n
			}
		}
	}
	return -1
}
