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

	"mpivet/internal/probecache"
)

// SharedMemory is how Open MPI's shared-memory transport (the vader BTL,
// Open MPI 5's sm BTL) moves a message between two ranks of a host: a message larger than
// EagerLimit bytes (the limit includes the PML's header) is copied by the
// receiver's kernel straight from the sender's memory unless SingleCopy is
// "none". The buffer checker needs it: a page it keeps closed must be
// opened before a peer's kernel reads it.
type SharedMemory struct {
	SingleCopy string // "cma", "xpmem", "knem", "emulated" (Open MPI 4 only) or "none"
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
		probecache.MarkUsed(cache)
		return parseSharedMemory(data)
	}
	out, err := exec.Command(info, "--parsable", "--param", "btl", "vader", "--level", "9").Output()
	if err != nil {
		return s, false
	}
	s, ok = parseSharedMemory(out)
	if !ok { // Open MPI 5: the sm BTL, and its single copy in the smsc framework
		sm, err1 := exec.Command(info, "--parsable", "--param", "btl", "sm", "--level", "9").Output()
		smsc, err2 := exec.Command(info, "--parsable", "--param", "smsc", "all", "--level", "9").Output()
		if err1 != nil || err2 != nil {
			return s, false
		}
		s, ok = parseSharedMemory5(sm, smsc)
	}
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

// parseSharedMemory5 reads Open MPI 5's settings: the sm BTL's eager limit,
// and the single-copy component the smsc framework will choose, from
// ompi_info --parsable of "--param btl sm" and "--param smsc all". The
// framework keeps the components its smsc parameter allows (all, a list, or
// ^a list of those excluded) and chooses the one of highest priority whose
// query succeeds in MPI_Init (cma needs ptrace rights, knem and xpmem their
// devices): the one of highest priority is taken here, as Open MPI 4's
// single_copy_mechanism named its default. With xpmem, which maps the
// sender's pages, the sm BTL raises its eager limit to 32 KiB.
func parseSharedMemory5(sm, smsc []byte) (s SharedMemory, ok bool) {
	haveEager := false
	var allow string
	prio := map[string]int64{}
	for _, line := range strings.Split(string(sm)+"\n"+string(smsc), "\n") {
		if v, found := strings.CutPrefix(line, "mca:btl:sm:param:btl_sm_eager_limit:value:"); found {
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil || n < 0 {
				return s, false
			}
			s.EagerLimit, haveEager = n, true
		} else if v, found := strings.CutPrefix(line, "mca:smsc:base:param:smsc:value:"); found {
			allow = v
		} else if f := strings.Split(line, ":"); len(f) == 7 && f[0] == "mca" && f[1] == "smsc" && f[3] == "param" &&
			f[4] == "smsc_"+f[2]+"_priority" && f[5] == "value" {
			if n, err := strconv.ParseInt(f[6], 10, 64); err == nil {
				prio[f[2]] = n
			}
		}
	}
	if !haveEager {
		return s, false
	}
	s.SingleCopy = "none"
	best := int64(-1)
	for name, p := range prio {
		if smscAllowed(allow, name) && (p > best || p == best && name < s.SingleCopy) {
			s.SingleCopy, best = name, p
		}
	}
	if s.SingleCopy == "xpmem" {
		s.EagerLimit = 32 * 1024
	}
	return s, !strings.ContainsAny(s.SingleCopy, ": \n")
}

// smscAllowed says whether Open MPI's smsc parameter (a component list:
// empty for all, "a,b" for those, "^a,b" for all but those) allows name.
func smscAllowed(list, name string) bool {
	list = strings.TrimSpace(list)
	if list == "" {
		return true
	}
	exclude := strings.HasPrefix(list, "^")
	for _, n := range strings.Split(strings.TrimPrefix(list, "^"), ",") {
		if strings.TrimSpace(n) == name {
			return !exclude
		}
	}
	return exclude
}
