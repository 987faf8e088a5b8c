package main

import (
	"os"
	"runtime"
	"runtime/pprof"
	"sync"
	"time"
)

// heapProfileEnv names the file where mpivet writes a heap profile of
// itself at its peak (go tool pprof FILE): the heap is sampled every
// heapProfileEvery, and the profile rewritten whenever the heap in use is
// the largest seen. It is for finding what mpivet's memory grows with.
const heapProfileEnv = "MPIVET_HEAPPROFILE"

const heapProfileEvery = time.Second

// cpuProfileEnv names the file where mpivet writes a CPU profile of
// itself (go tool pprof FILE).
const cpuProfileEnv = "MPIVET_CPUPROFILE"

// profile starts the profiles the environment asks for; the function
// returned ends them.
func profile() func() {
	stopHeap := profileHeap(os.Getenv(heapProfileEnv))
	path := os.Getenv(cpuProfileEnv)
	if path == "" {
		return stopHeap
	}
	f, err := os.Create(path)
	if err != nil || pprof.StartCPUProfile(f) != nil {
		return stopHeap
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
		stopHeap()
	}
}

// profileHeap starts the sampler if path is set; the function returned
// writes a last sample.
func profileHeap(path string) func() {
	if path == "" {
		return func() {}
	}
	var peak uint64
	var mu sync.Mutex
	sample := func() {
		mu.Lock()
		defer mu.Unlock()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		if ms.HeapInuse <= peak {
			return
		}
		peak = ms.HeapInuse
		if f, err := os.Create(path); err == nil {
			_ = pprof.Lookup("heap").WriteTo(f, 0)
			f.Close()
		}
	}
	done := make(chan struct{})
	go func() {
		t := time.NewTicker(heapProfileEvery)
		defer t.Stop()
		for {
			select {
			case <-t.C:
				sample()
			case <-done:
				return
			}
		}
	}()
	return func() { close(done); sample() }
}
