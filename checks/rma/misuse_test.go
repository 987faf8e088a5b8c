package rma

import (
	"strings"
	"testing"

	"mpivet/api"
)

// Epochs opened twice, closing calls without their epoch, and a window
// freed with operations pending: each reported at its call (misuse.go).
func TestMisuse(t *testing.T) {
	lock := func(k *rank, typ int) { k.w("MPI_Win_lock", map[string]any{"lock_type": typ, "rank": 0}) }
	group := func(k *rank, name string, peer int) {
		off := k.call(name, map[string]any{"win": win, "assertion": 0})
		k.l.Meta(api.MetaRMA, off, 1, uint64(peer))
	}
	for _, c := range []struct {
		name  string
		steps func(r int, k *rank)
		want  string // in the message
	}{
		{"shared lock twice", func(r int, k *rank) {
			if r == 1 {
				lock(k, 2)
				lock(k, 2)
				k.w("MPI_Win_unlock", map[string]any{"rank": 0})
			}
		}, "already holds a lock"},
		{"exclusive, then shared", func(r int, k *rank) {
			if r == 1 {
				lock(k, 1)
				lock(k, 2)
				k.w("MPI_Win_unlock", map[string]any{"rank": 0})
			}
		}, "already holds a lock"},
		{"lock_all twice", func(r int, k *rank) {
			if r == 1 {
				k.w("MPI_Win_lock_all", nil)
				k.w("MPI_Win_lock_all", nil)
				k.w("MPI_Win_unlock_all", nil)
			}
		}, "MPI_Win_lock_all while this rank's MPI_Win_lock_all epoch is still open"},
		{"start twice", func(r int, k *rank) {
			if r == 1 {
				group(k, "MPI_Win_start", 0)
				group(k, "MPI_Win_start", 0)
				k.w("MPI_Win_complete", nil)
			} else {
				group(k, "MPI_Win_post", 1)
				k.w("MPI_Win_wait", nil)
			}
		}, "earlier MPI_Win_start is still open"},
		{"post twice", func(r int, k *rank) {
			if r == 1 {
				group(k, "MPI_Win_start", 0)
				k.w("MPI_Win_complete", nil)
			} else {
				group(k, "MPI_Win_post", 1)
				group(k, "MPI_Win_post", 1)
				k.w("MPI_Win_wait", nil)
			}
		}, "earlier MPI_Win_post is still open"},
		{"a lock in an active fence epoch", func(r int, k *rank) {
			k.w("MPI_Win_fence", nil)
			if r == 1 {
				k.ints("MPI_Put", 0, 0, 1, nil)
				lock(k, 2)
				k.w("MPI_Win_unlock", map[string]any{"rank": 0})
			}
			k.w("MPI_Win_fence", nil)
		}, "inside an active fence epoch"},
		{"flush_local outside an epoch", func(r int, k *rank) {
			if r == 1 {
				k.w("MPI_Win_flush_local", map[string]any{"rank": 0})
			}
		}, "MPI_Win_flush_local outside a passive-target epoch"},
		{"freed with a Put no fence completed", func(r int, k *rank) {
			k.w("MPI_Win_fence", nil)
			if r == 1 {
				k.ints("MPI_Put", 0, 0, 1, nil)
			}
		}, "no MPI_Win_fence completed it"},
	} {
		fs := pair(t, c.steps)
		if len(fs) != 1 || fs[0].Kind != "rma-epoch" || !strings.Contains(fs[0].Message, c.want) {
			t.Errorf("%s: findings %q, want one rma-epoch saying %q", c.name, kinds(fs), c.want)
			for _, f := range fs {
				t.Log(f.Message)
			}
		}
	}
}
