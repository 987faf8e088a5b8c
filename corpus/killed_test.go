package corpus

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"mpivet/check"
)

// killedWaits is a correct program whose rank 1 writes its pid to the file
// its argument names, then every rank waits in barriers for up to a minute.
const killedWaits = `/* mpivet: np=2 verdict=ok */
#include <mpi.h>
#include <stdio.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int rank;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (rank == 1) {
		char tmp[4200];
		snprintf(tmp, sizeof tmp, "%s.tmp", argv[1]);
		FILE *f = fopen(tmp, "w");
		fprintf(f, "%d\n", (int)getpid());
		fclose(f);
		rename(tmp, argv[1]);
	}
	for (int i = 0; i < 600; i++) {
		MPI_Barrier(MPI_COMM_WORLD);
		usleep(100000);
	}
	MPI_Finalize();
	return 0;
}
`

// A rank killed with SIGKILL from outside (as the OOM killer does), here
// by the test once the rank has written its pid, is named with the signal
// and that it came from outside the program: a rank-killed warning, not a
// program-failure, and the verification is incomplete (exit status 3).
func TestRankKilledFromOutside(t *testing.T) {
	parallel(t)
	for _, m := range available(t) {
		t.Run(m.name, func(t *testing.T) {
			dir := t.TempDir()
			src, bin := filepath.Join(dir, "killed_waits.c"), filepath.Join(dir, "killed_waits")
			if err := os.WriteFile(src, []byte(killedWaits), 0o644); err != nil {
				t.Fatal(err)
			}
			compile(t, m, src, bin)
			pidFile := filepath.Join(dir, "rank1.pid")
			killed := make(chan int, 1)
			go func() {
				for start := time.Now(); time.Since(start) < 50*time.Second; time.Sleep(50 * time.Millisecond) {
					if b, err := os.ReadFile(pidFile); err == nil {
						pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
						if pid > 0 && syscall.Kill(pid, syscall.SIGKILL) == nil {
							killed <- pid
							return
						}
					}
				}
				killed <- 0
			}()
			p := &Program{Path: src, NP: 2, Timeout: "60s", Args: []string{pidFile}, Dir: dir}
			r, out, code := RunMpivet(t, p, bin)
			if pid := <-killed; pid == 0 {
				t.Fatalf("rank 1 never wrote its pid:\n%s", out)
			}
			if code != 3 || r.Verdict != "incomplete" || len(r.Findings) != 1 {
				t.Fatalf("exit %d, verdict %q, %d findings; want 3, incomplete, 1 finding:\n%s", code, r.Verdict, len(r.Findings), out)
			}
			f := r.Findings[0]
			if f.Kind != "rank-killed" || f.Severity != check.Warning || len(f.Ranks) != 1 || f.Ranks[0] != 1 ||
				!strings.Contains(f.Message, "rank 1 was killed by SIGKILL") || !strings.Contains(f.Message, "from outside the program") ||
				!strings.Contains(f.Message, "ended rank 0 because of it") {
				t.Errorf("want a rank-killed warning naming rank 1, SIGKILL, from outside, and rank 0 ended because of it; got %s %s %v: %s",
					f.Severity, f.Kind, f.Ranks, f.Message)
			}
			if !strings.Contains(r.Stopped, "killed from outside") {
				t.Errorf("the verification's reason for being incomplete does not say a rank was killed: %q", r.Stopped)
			}
		})
	}
}
