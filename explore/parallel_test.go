package explore

import (
	"context"
	"fmt"
	"math/rand"
	"reflect"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// A parallel search runs the same replays, numbers them alike and stops
// at the same place as a sequential one, whatever order the replays run
// ahead finish in; each replay launched is either finished or discarded.
func TestParallelSameAsSequential(t *testing.T) {
	bad := func(outs []int64) (bool, bool) { return outs[0] == 2 && outs[2] == 2, outs[1] == 2 && outs[3] == 2 }
	for _, o := range []Options{
		{MixingBound: -1, OrderBound: -1},
		{MixingBound: 1, OrderBound: -1},
		{MixingBound: -1, OrderBound: -1, MaxInterleavings: 7},
		{MixingBound: -1, OrderBound: -1, FirstError: true},
	} {
		var seq []string
		m := &model{n: 5, kind: 0, bad: bad}
		first, _ := m.run(1, nil, nil)
		trace := func(run Runner, log *[]string) Runner {
			return func(n int, ds []Decision, b *Branch) (*Interleaving, error) {
				*log = append(*log, fmt.Sprint(n, ds))
				return run(n, ds, b)
			}
		}
		want := Explore(first, trace(m.run, &seq), o)
		for _, jobs := range []int{2, 3, 8} {
			var par []string
			var launched, finished, discarded atomic.Int64
			var mu sync.Mutex
			var inflight, most atomic.Int64
			pm := &model{n: 5, kind: 0, bad: bad}
			first, _ := pm.run(1, nil, nil)
			po := o
			po.Parallel = &Parallel{Jobs: jobs, Context: context.Background(),
				Launch: func(ctx context.Context, ds []Decision, b *Branch) any {
					launched.Add(1)
					now := inflight.Add(1)
					defer inflight.Add(-1)
					mu.Lock()
					most.Store(max(most.Load(), now))
					mu.Unlock()
					time.Sleep(time.Duration(1+rand.Intn(3)) * time.Millisecond)
					return ds
				},
				Finish: func(n int, ds []Decision, b *Branch, launched any) (*Interleaving, error) {
					finished.Add(1)
					if !reflect.DeepEqual(launched.([]Decision), ds) {
						t.Errorf("interleaving %d: finished with another replay's launch", n)
					}
					mu.Lock()
					defer mu.Unlock()
					par = append(par, fmt.Sprint(n, ds))
					return pm.run(n, ds, b)
				},
				Discard: func(any) { discarded.Add(1) },
			}
			got := Explore(first, nil, po)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%+v, %d jobs: stats %+v, sequential %+v", o, jobs, got, want)
			}
			if !reflect.DeepEqual(par, seq) {
				t.Errorf("%+v, %d jobs: replays\n%v\nsequential\n%v", o, jobs, par, seq)
			}
			if m := most.Load(); m > int64(jobs) || (o.MaxInterleavings == 0 && !o.FirstError && m < 2) {
				t.Errorf("%+v, %d jobs: at most %d replays ran at once", o, jobs, m)
			}
			if launched.Load() != finished.Load()+discarded.Load() {
				t.Errorf("%+v, %d jobs: %d launched, %d finished, %d discarded", o, jobs, launched.Load(), finished.Load(), discarded.Load())
			}
		}
	}
}
