package layer

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"mpivet/internal/probecache"
)

// A cached build is a directory of the cache named by its key, holding
// the artifacts and manifest.json, which records the sha256 of each:
// nothing in the directory is used before its hash has been checked, so a
// truncated or changed library (a full disk, a crash, another program) is
// found and rebuilt instead of being preloaded into the ranks.

const manifestName = "manifest.json"

// artifacts are the files of a build, all recorded in its manifest.
var artifacts = []string{"libmpivet.so", "mpivet-supervise"}

type manifest struct {
	Layout  string            `json:"layout"`
	BuildID string            `json:"build_id"` // random, one per build
	Built   time.Time         `json:"built"`
	CC      string            `json:"cc"`
	MPI     string            `json:"mpi"`
	SHA256  map[string]string `json:"sha256"` // artifact name -> hash
}

// writeManifest records the hashes of the artifacts in dir. dir is not
// yet in place: renaming it into place publishes the manifest and the
// artifacts at once.
func writeManifest(dir, cc, identity string) error {
	id := make([]byte, 8)
	rand.Read(id)
	m := manifest{Layout: layout, BuildID: hex.EncodeToString(id), Built: time.Now().UTC(), CC: cc, MPI: identity,
		SHA256: map[string]string{}}
	for _, a := range artifacts {
		sum, err := hashFile(filepath.Join(dir, a))
		if err != nil {
			return fmt.Errorf("building mpivet's layer: %v", err)
		}
		m.SHA256[a] = sum
	}
	data, _ := json.MarshalIndent(m, "", "\t")
	f, err := os.OpenFile(filepath.Join(dir, manifestName), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return fmt.Errorf("building mpivet's layer: %v", err)
	}
	_, err = f.Write(append(data, '\n'))
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("building mpivet's layer: %v", err)
	}
	return nil
}

// verify returns the build in dir once its manifest and every artifact it
// records check: the user's files, not writable by others, with the
// recorded hashes. An error that wraps fs.ErrNotExist means there is no
// build in dir.
func verify(dir string) (*Built, error) {
	fi, err := os.Lstat(dir)
	if err != nil {
		return nil, err
	}
	if r := unsafeReason(fi, uint32(os.Geteuid()), true); r != "" || fi.Mode()&fs.ModeSymlink != 0 {
		return nil, fmt.Errorf("%s is not a directory of yours that only you can write to", dir)
	}
	data, err := readOwn(filepath.Join(dir, manifestName))
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("no %s", manifestName) // a damaged build, not a missing one
		}
		return nil, err
	}
	var m manifest
	if err := json.Unmarshal(data, &m); err != nil || m.Layout != layout {
		return nil, fmt.Errorf("%s cannot be read", manifestName)
	}
	checked := readChecked(dir)
	fresh := map[string]string{}
	for _, a := range artifacts {
		want, ok := m.SHA256[a]
		if !ok {
			return nil, fmt.Errorf("%s does not record %s", manifestName, a)
		}
		id := probecache.Identity(filepath.Join(dir, a))
		if checked[a] == id+" "+want { // unchanged since its hash was checked
			fresh[a] = checked[a]
			continue
		}
		sum, err := hashFile(filepath.Join(dir, a))
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil, fmt.Errorf("%s is missing", a)
			}
			return nil, err
		}
		if sum != want {
			return nil, fmt.Errorf("%s is not what was built (its sha256 differs from the manifest's)", a)
		}
		fresh[a] = id + " " + sum
	}
	if !maps.Equal(fresh, checked) {
		writeChecked(dir, fresh)
	}
	return &Built{Library: filepath.Join(dir, "libmpivet.so"), Supervisor: filepath.Join(dir, "mpivet-supervise"),
		BuildID: m.BuildID}, nil
}

// checkedName is the file in a cached build that records, for each
// artifact whose hash verify checked, the file's identity then
// (probecache.Identity: inode, size, modification and status-change
// times) and the hash. An artifact whose identity is still that one has
// not been written since, and is not hashed again (12 ms a verification).
const checkedName = "checked.json"

// readChecked reads dir's checkedName (none: nothing checked).
func readChecked(dir string) map[string]string {
	m := map[string]string{}
	if data, err := readOwn(filepath.Join(dir, checkedName)); err == nil {
		json.Unmarshal(data, &m)
	}
	return m
}

// writeChecked replaces dir's checkedName whole; a failure leaves the
// hashes to be checked again next time.
func writeChecked(dir string, m map[string]string) {
	data, _ := json.Marshal(m)
	f, err := os.CreateTemp(dir, checkedName+".tmp-*")
	if err != nil {
		return
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil && cerr == nil && os.Rename(f.Name(), filepath.Join(dir, checkedName)) == nil {
		return
	}
	os.Remove(f.Name())
}

// openOwn opens a regular file of the user's that others cannot write to,
// not following a link.
func openOwn(p string) (*os.File, error) {
	f, err := os.OpenFile(p, os.O_RDONLY|syscall.O_NOFOLLOW, 0)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err == nil {
		st, _ := fi.Sys().(*syscall.Stat_t)
		if !fi.Mode().IsRegular() || st == nil || st.Uid != uint32(os.Geteuid()) || fi.Mode().Perm()&0o022 != 0 {
			err = fmt.Errorf("%s is not a file of yours that only you can write to", p)
		}
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

func readOwn(p string) ([]byte, error) {
	f, err := openOwn(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(f)
}

// hashFile returns the sha256 of a file of the user's (openOwn), in hex.
func hashFile(p string) (string, error) {
	f, err := openOwn(p)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("reading %s: %v", p, err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
