package mpi

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// SharedMemory is how Open MPI's shared-memory transport (the vader BTL)
// moves a message between two ranks of a host: a message larger than
// EagerLimit bytes (the limit includes the PML's header) is copied by the
// receiver's kernel straight from the sender's memory unless SingleCopy is
// "none". The buffer checker needs it: a page it keeps closed must be
// opened before a peer's kernel reads it.
type SharedMemory struct {
	SingleCopy string // "cma", "xpmem", "knem", "emulated" or "none"
	EagerLimit int64
}

// ConfValue is the value of layer.conf's vader key (api.ConfVader,
// written by the driver), which hands the transport's settings to the
// ranks, which otherwise ask the MPI through MPI_T: Open MPI's
// MPI_T_init_thread costs each rank about 0.2 s, loading every component's
// parameters.
func (s SharedMemory) ConfValue() string {
	return fmt.Sprintf("%s:%d", s.SingleCopy, s.EagerLimit)
}

// SharedMemory reads the vader BTL's settings as the program's ranks will
// see them (defaults, the mca-params files, OMPI_MCA_ variables in mpivet's
// environment, which the ranks inherit), with ompi_info. The answer is kept
// in cacheDir under a key made of what it depends on, since ompi_info
// takes a quarter of a second. ok is false for MPICH, without ompi_info, or
// when vader is not built in.
func (inst *Install) SharedMemory(cacheDir string) (s SharedMemory, ok bool) {
	if inst.Impl != OpenMPI {
		return s, false
	}
	info := inst.ompiInfo()
	if info == "" {
		return s, false
	}
	key := sharedMemoryKey(info)
	cache := filepath.Join(cacheDir, "vader-"+key)
	if data, err := os.ReadFile(cache); err == nil {
		return parseSharedMemory(data)
	}
	out, err := exec.Command(info, "--parsable", "--param", "btl", "vader", "--level", "9").Output()
	if err != nil {
		return s, false
	}
	s, ok = parseSharedMemory(out)
	if ok && os.MkdirAll(cacheDir, 0o755) == nil {
		tmp := fmt.Sprintf("%s.%d", cache, os.Getpid())
		if os.WriteFile(tmp, []byte(s.params()), 0o644) == nil {
			os.Rename(tmp, cache)
		}
	}
	return s, ok
}

// ompiInfo is the ompi_info of the installation: next to its launcher or
// its compiler wrapper, else on PATH.
func (inst *Install) ompiInfo() string {
	for _, d := range []string{filepath.Dir(inst.Launcher), filepath.Dir(inst.CC)} {
		p := filepath.Join(d, "ompi_info")
		if st, err := os.Stat(p); err == nil && !st.IsDir() {
			return p
		}
	}
	p, _ := exec.LookPath("ompi_info")
	return p
}

// sharedMemoryKey names what ompi_info's answer depends on: the binary
// itself, Open MPI's variables in the environment, and the parameter files
// it reads (system-wide next to the installation, the user's, and those
// OMPI_MCA_mca_param_files names).
func sharedMemoryKey(info string) string {
	h := sha256.New()
	stat := func(p string) {
		if st, err := os.Stat(p); err == nil {
			fmt.Fprintf(h, "%s %d %d\n", p, st.Size(), st.ModTime().UnixNano())
		}
	}
	stat(info)
	var env []string
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "OMPI_MCA_") || strings.HasPrefix(kv, "OPAL_") || strings.HasPrefix(kv, "HOME=") {
			env = append(env, kv)
		}
	}
	sort.Strings(env)
	fmt.Fprintln(h, strings.Join(env, "\x00"))
	home, _ := os.UserHomeDir()
	files := []string{
		filepath.Join(home, ".openmpi", "mca-params.conf"),
		"/etc/openmpi/openmpi-mca-params.conf",
		filepath.Join(filepath.Dir(filepath.Dir(info)), "etc", "openmpi-mca-params.conf"),
	}
	files = append(files, strings.Split(os.Getenv("OMPI_MCA_mca_param_files"), ":")...)
	for _, f := range files {
		stat(f)
	}
	return fmt.Sprintf("%x", h.Sum(nil)[:12])
}

// params is the cached form, the lines of ompi_info --parsable it read.
func (s SharedMemory) params() string {
	return fmt.Sprintf("mca:btl:vader:param:btl_vader_single_copy_mechanism:value:%s\nmca:btl:vader:param:btl_vader_eager_limit:value:%d\n",
		s.SingleCopy, s.EagerLimit)
}

// parseSharedMemory reads the two parameters from ompi_info --parsable
// output; both must be there.
func parseSharedMemory(out []byte) (s SharedMemory, ok bool) {
	const p = "mca:btl:vader:param:"
	haveEager := false
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		line := sc.Text()
		if v, found := strings.CutPrefix(line, p+"btl_vader_single_copy_mechanism:value:"); found {
			s.SingleCopy = v
		} else if v, found := strings.CutPrefix(line, p+"btl_vader_eager_limit:value:"); found {
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil || n < 0 {
				return s, false
			}
			s.EagerLimit, haveEager = n, true
		}
	}
	return s, s.SingleCopy != "" && !strings.ContainsAny(s.SingleCopy, ": \n") && haveEager
}
