// Package probecache keeps the answers of mpivet's start-up probes (hwloc's
// lstopo, the MPI's compiler wrapper and launcher) in the per-user cache
// (layer.CacheDir), so that a verification does not run them again when
// nothing they depend on has changed.
//
// An answer is stored under a key made of everything it depends on that
// is known before the probe runs (Key: texts, environment variables, the
// identity of files), and beside it the identity of the files the probe
// itself found it depends on (the headers a preprocessor read): Get
// returns it only while every one of those files is still what it was.
// A file's identity is its path, the path its links resolve to, and the
// device, inode, size, modification and status-change times of what it
// resolves to (the status-change time cannot be set back: a file copied
// or extracted with its old modification time still differs). A missing
// file has an identity too ("absent"), so one that appears changes the key.
//
// An answer found is marked used (MarkUsed): the cache's trim
// (layer.Trim) removes the answers and builds unused for long.
package probecache

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"
)

// UseInterval is how stale the mark of a use (a cache entry's
// modification time) may be: an entry is marked at its use only when its
// mark is older, so that most uses only read (as Go's build cache does).
const UseInterval = time.Hour

// MarkUsed records a use of the cache entry at path (a file or a build's
// directory; a link is not followed): its modification time is set to
// now if it is older than UseInterval. A failure is not an error: the
// entry may only be trimmed sooner.
func MarkUsed(path string) {
	fi, err := os.Lstat(path)
	if err != nil || fi.Mode()&os.ModeSymlink != 0 {
		return
	}
	if now := time.Now(); now.Sub(fi.ModTime()) >= UseInterval {
		os.Chtimes(path, now, now)
	}
}

// Key is what a probe's answer depends on, known before it runs.
type Key struct {
	kind  string
	parts []string
}

// New starts the key of a probe of one kind (part of the cache file's name).
func New(kind string) *Key { return &Key{kind: kind} }

// Text adds strings the answer depends on.
func (k *Key) Text(s ...string) {
	for _, x := range s {
		k.parts = append(k.parts, "t "+x)
	}
}

// File adds the identity of files the answer depends on.
func (k *Key) File(paths ...string) {
	for _, p := range paths {
		k.parts = append(k.parts, "f "+Identity(p))
	}
}

// Glob adds the identity of every file that matches pattern, and the
// pattern itself (so that a file that appears or goes changes the key).
func (k *Key) Glob(pattern string) {
	m, _ := filepath.Glob(pattern)
	k.parts = append(k.parts, "g "+pattern)
	k.File(m...)
}

// ReadFile adds the contents of a file (a small one: /proc, /sys), or
// "absent".
func (k *Key) ReadFile(path string) {
	b, err := os.ReadFile(path)
	if err != nil {
		k.parts = append(k.parts, "r "+path+" absent")
		return
	}
	k.parts = append(k.parts, "r "+path+" "+string(b))
}

// Env adds the environment variables named, and those whose names start
// with one of prefixes, in a fixed order: set or not, each is part of it.
func (k *Key) Env(names, prefixes []string) {
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if slices.Contains(names, name) || slices.ContainsFunc(prefixes, func(p string) bool { return strings.HasPrefix(name, p) }) {
			env = append(env, kv)
		}
	}
	slices.Sort(env)
	k.parts = append(k.parts, "e "+strings.Join(env, "\x00"))
}

// Name is the key's cache file name: its kind and a hash of its parts.
func (k *Key) Name() string {
	h := sha256.New()
	for _, p := range k.parts {
		fmt.Fprintf(h, "%d:%s\n", len(p), p)
	}
	return "probe-" + k.kind + "-" + hex.EncodeToString(h.Sum(nil))[:20]
}

// Identity is a file's identity as the key records it (see the package
// comment).
func Identity(path string) string {
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return path + " absent"
	}
	var st syscall.Stat_t
	if err := syscall.Stat(real, &st); err != nil {
		return path + " absent"
	}
	return fmt.Sprintf("%s -> %s dev=%d ino=%d size=%d mtime=%d.%09d ctime=%d.%09d mode=%o", path, real,
		st.Dev, st.Ino, st.Size, st.Mtim.Sec, st.Mtim.Nsec, st.Ctim.Sec, st.Ctim.Nsec, st.Mode)
}

// entry is a cache file: the answer, and the identity of the files the
// probe found it depends on.
type entry struct {
	Deps   map[string]string `json:"deps"` // path -> Identity
	Answer json.RawMessage   `json:"answer"`
}

// Get reads the answer stored under k in dir into v (JSON), if there is
// one and every file its probe depended on is unchanged, and marks it
// used.
func Get(dir string, k *Key, v any) bool {
	p := filepath.Join(dir, k.Name())
	b, err := os.ReadFile(p)
	if err != nil {
		return false
	}
	var e entry
	if json.Unmarshal(b, &e) != nil || len(e.Answer) == 0 {
		return false
	}
	for p, id := range e.Deps {
		if Identity(p) != id {
			return false
		}
	}
	if json.Unmarshal(e.Answer, v) != nil {
		return false
	}
	MarkUsed(p)
	return true
}

// Put stores the answer v under k in dir, with the files its probe found
// it depends on (deps), written whole or not at all: several mpivet
// processes may share the cache. A failure to store is not an error: the
// next verification probes again.
func Put(dir string, k *Key, v any, deps []string) {
	a, err := json.Marshal(v)
	if err != nil {
		return
	}
	e := entry{Deps: map[string]string{}, Answer: a}
	for _, p := range deps {
		e.Deps[p] = Identity(p)
	}
	b, err := json.Marshal(e)
	if err != nil {
		return
	}
	f, err := os.CreateTemp(dir, k.Name()+".tmp-*")
	if err != nil {
		return
	}
	_, err = f.Write(b)
	if cerr := f.Close(); err == nil && cerr == nil {
		if os.Rename(f.Name(), filepath.Join(dir, k.Name())) == nil {
			return
		}
	}
	os.Remove(f.Name())
}
