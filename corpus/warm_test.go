package corpus

import (
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
)

// warmLayers builds mpivet's layer for every MPI the corpus runs under,
// all the builds at once, before the tests start, when the whole package
// runs (no -run). A build is one compiler process, half a minute or more
// of one core; left to the tests, the MPIs' builds came one after the
// other as the first tests reached each MPI, while the tests started held
// go test's parallel slots waiting for them. Each build is made by an
// mpivet run of a one-rank program, as a user's first run makes it, into
// the cache the tests then use. A build that fails here is left to the
// tests, which report it.
func warmLayers(dir string) {
	if f := flag.Lookup("test.run"); f == nil || f.Value.String() != "" {
		return
	}
	var wg sync.WaitGroup
	for _, m := range impls {
		if _, err := exec.LookPath(m.cc); err == nil {
			wg.Go(func() { warmLayer(dir, m) })
		}
	}
	wg.Go(func() {
		if m, err := unpackOpenMPI5(); err == "" {
			warmLayer(dir, m)
		}
	})
	wg.Wait()
}

// warmLayer builds the layer for m (a run of a one-rank program under it).
func warmLayer(dir string, m mpiImpl) {
	d := filepath.Join(dir, "warm-"+m.name)
	if os.MkdirAll(d, 0o700) != nil {
		return
	}
	src, bin := filepath.Join(d, "hello.c"), filepath.Join(d, "hello")
	if os.WriteFile(src, []byte(cacheHello), 0o644) != nil {
		return
	}
	env := append(os.Environ(), m.env...)
	cc := exec.Command(m.cc, "-o", bin, src)
	cc.Env = env
	if cc.Run() != nil {
		return
	}
	run := exec.Command(mpivetBin, "run", "-n", "1", "--timeout", "60s", "--dir", filepath.Join(d, "run"), bin)
	run.Env = env
	run.Run()
}
