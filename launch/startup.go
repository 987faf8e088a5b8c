package launch

import (
	"bufio"
	"debug/elf"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"mpivet/internal/probecache"
	"mpivet/layer"
	"mpivet/mpi"
)

// Start-up settings for mpivet's own runs. A replay is the whole program
// started again, and on one host most of its time is the MPI's start-up,
// not the program (docs/design/parallel-replays.md, "Where a replay's time goes"). Two parts of
// that start-up are work that gives the same answer every time, and the
// settings below skip them without changing what the program's MPI does:
//
//   - hwloc's topology discovery, which every rank and the launcher do
//     from /sys (30-50 ms of CPU per rank): the topology is discovered
//     with hwloc's own lstopo, once while what it depends on is unchanged
//     (topologyKey), and given to every hwloc in
//     the run as XML (HWLOC_XMLFILE, with HWLOC_THISSYSTEM=1: it is this
//     machine, so binding works as before). Both MPIs use hwloc. hwloc
//     reads it with its own parser (HWLOC_LIBXML=0), so that it does not
//     load libxml2 into every rank.
//   - Open MPI's PSM and PSM2 matching transports (mtl psm, psm2), for
//     Intel True Scale and Omni-Path adapters: probing them took 0.2 s of
//     waiting in every MPI_Init here. They are left out only when their
//     devices (/dev/ipath*, /dev/hfi1*) do not exist, so they could not
//     have been chosen; an exclusion the MPI's parameter files already
//     make (Debian's: ofi) is kept, since the variable replaces theirs.
//
// Only for runs on this host (no --launcher, not a Slurm step: the
// topology is this host's), never overriding a setting of the user's
// environment, and off with MPIVET_STARTUP=plain.

// startupEnv returns the settings for the session's runs on this host,
// writing the topology file next to the built layer.
func startupEnv(inst *mpi.Install) []string {
	if os.Getenv("MPIVET_STARTUP") == "plain" {
		return nil
	}
	var env []string
	if os.Getenv("HWLOC_XMLFILE") == "" {
		if f := topologyFile(); f != "" {
			env = append(env, "HWLOC_XMLFILE="+f, "HWLOC_THISSYSTEM=1")
			if os.Getenv("HWLOC_LIBXML") == "" {
				env = append(env, "HWLOC_LIBXML=0")
			}
		}
	}
	if inst.Impl == mpi.OpenMPI && os.Getenv("OMPI_MCA_mtl") == "" {
		if v := mtlExclusion(inst); v != "" {
			env = append(env, "OMPI_MCA_mtl="+v)
		}
	}
	return env
}

// topologyFile returns the path of this machine's topology as hwloc XML,
// "" if hwloc's lstopo is not installed or fails. lstopo runs (about 50 ms)
// only when the topology it would find may differ from the one a file of
// the cache holds: the file is named by a key of everything the topology
// depends on (topologyKey), so it cannot describe another machine or an
// older state of this one. Written atomically, since several mpivet
// processes may share the cache, and never rewritten in place.
func topologyFile() string {
	lstopo, err := exec.LookPath("lstopo-no-graphics")
	if err != nil {
		return ""
	}
	dir, err := layer.CacheDir()
	if err != nil {
		return ""
	}
	f := filepath.Join(dir, "topology-"+topologyKey(lstopo).Name()+".xml")
	if fi, err := os.Stat(f); err == nil && fi.Size() > 0 {
		probecache.MarkUsed(f)
		return f
	}
	tmp, err := os.CreateTemp(dir, "topology-*.tmp")
	if err != nil {
		return ""
	}
	tmp.Close()
	defer os.Remove(tmp.Name())
	cmd := exec.Command(lstopo, "--of", "xml", "-f", tmp.Name())
	cmd.WaitDelay = time.Second
	if err := cmd.Run(); err != nil {
		return ""
	}
	if fi, err := os.Stat(tmp.Name()); err != nil || fi.Size() == 0 {
		return ""
	}
	if os.Rename(tmp.Name(), f) != nil {
		return ""
	}
	return f
}

// topologyKey is what lstopo's answer depends on: the machine and its
// boot (the host's name and boot id: hardware changes with a reboot), the
// processors and memory nodes online and this process's share of them
// (its allowed CPUs and memory nodes, its cgroup), the processors'
// description (/proc/cpuinfo less the clock rates, which change all the
// time), the memory and huge pages, hwloc itself (lstopo and its library)
// and hwloc's variables.
func topologyKey(lstopo string) *probecache.Key {
	k := probecache.New("hwloc")
	host, _ := os.Hostname()
	k.Text(host)
	for _, f := range []string{"/proc/sys/kernel/random/boot_id", "/proc/self/cgroup",
		"/sys/devices/system/cpu/online", "/sys/devices/system/node/online"} {
		k.ReadFile(f)
	}
	k.Text(procLines("/proc/self/status", "Cpus_allowed_list:", "Mems_allowed_list:")...)
	k.Text(procLines("/proc/meminfo", "MemTotal:", "HugePages_Total:", "Hugepagesize:")...)
	cpu, _ := os.ReadFile("/proc/cpuinfo")
	for _, l := range strings.Split(string(cpu), "\n") {
		if !strings.HasPrefix(l, "cpu MHz") {
			k.Text(l)
		}
	}
	k.File(lstopo)
	hwlocLibs(k, lstopo)
	k.Env(nil, []string{"HWLOC_"})
	return k
}

// hwlocLibs adds to k the hwloc library lstopo loads: its name (lstopo's
// DT_NEEDED), where the dynamic linker may find it (the files of that name
// in LD_LIBRARY_PATH, beside lstopo's prefix and in the system's library
// directories) and the linker's cache, which ldconfig rewrites when a
// library is installed or upgraded.
func hwlocLibs(k *probecache.Key, lstopo string) {
	var names []string
	if f, err := elf.Open(lstopo); err == nil {
		libs, _ := f.ImportedLibraries()
		f.Close()
		for _, l := range libs {
			if strings.Contains(l, "hwloc") {
				names = append(names, l)
			}
		}
	}
	k.Text(names...)
	prefix := filepath.Dir(filepath.Dir(lstopo))
	dirs := append(filepath.SplitList(os.Getenv("LD_LIBRARY_PATH")), filepath.Join(prefix, "lib"), filepath.Join(prefix, "lib64"),
		"/usr/local/lib", "/usr/lib", "/lib", "/usr/lib64", "/lib64")
	if t := multiarch[runtime.GOARCH]; t != "" {
		dirs = append(dirs, filepath.Join(prefix, "lib", t), "/usr/lib/"+t, "/lib/"+t)
	}
	for _, d := range dirs {
		for _, n := range names {
			k.File(filepath.Join(d, n))
		}
	}
	k.File("/etc/ld.so.cache")
}

// multiarch are Debian's library directory names of the architectures.
var multiarch = map[string]string{"amd64": "x86_64-linux-gnu", "arm64": "aarch64-linux-gnu", "ppc64le": "powerpc64le-linux-gnu",
	"riscv64": "riscv64-linux-gnu", "s390x": "s390x-linux-gnu"}

// procLines returns the lines of a /proc file that start with one of
// prefixes.
func procLines(path string, prefixes ...string) []string {
	b, _ := os.ReadFile(path)
	var out []string
	for _, l := range strings.Split(string(b), "\n") {
		for _, p := range prefixes {
			if strings.HasPrefix(l, p) {
				out = append(out, l)
			}
		}
	}
	return out
}

// mtlExclusion returns the value of Open MPI's mtl parameter that leaves
// out the PSM transports whose devices this host lacks, keeping the
// exclusions of the MPI's parameter files; "" when there is nothing to
// leave out, or the files choose the transports to use (an include list).
func mtlExclusion(inst *mpi.Install) string {
	var absent []string
	for _, m := range []struct{ name, dev string }{{"psm", "/dev/ipath*"}, {"psm2", "/dev/hfi1*"}} {
		if devs, _ := filepath.Glob(m.dev); len(devs) == 0 {
			absent = append(absent, m.name)
		}
	}
	return excludeMore(mcaFileParam(inst, "mtl"), absent)
}

// excludeMore returns a component selection that leaves out the
// components absent besides those the selection files already leaves out
// (a list after "^"); "" if it cannot: none to leave out, or the files'
// is an include list.
func excludeMore(files string, absent []string) string {
	if len(absent) == 0 || (files != "" && !strings.HasPrefix(files, "^")) {
		return ""
	}
	out := append([]string(nil), absent...)
	for _, c := range strings.Split(strings.TrimPrefix(files, "^"), ",") {
		if c = strings.TrimSpace(c); c != "" && !slices.Contains(out, c) {
			out = append(out, c)
		}
	}
	return "^" + strings.Join(out, ",")
}

// mcaFileParam returns the value Open MPI's parameter files give name:
// the user's ($HOME/.openmpi/mca-params.conf) over the installation's
// (openmpi-mca-params.conf in /etc/openmpi, Debian's, or the prefix's etc).
func mcaFileParam(inst *mpi.Install, name string) string {
	files := []string{"/etc/openmpi/openmpi-mca-params.conf"}
	if l, err := exec.LookPath(inst.Launcher); err == nil {
		if r, err := filepath.EvalSymlinks(l); err == nil {
			files = append(files, filepath.Join(filepath.Dir(filepath.Dir(r)), "etc", "openmpi-mca-params.conf"))
		}
	}
	if home, err := os.UserHomeDir(); err == nil {
		files = append(files, filepath.Join(home, ".openmpi", "mca-params.conf"))
	}
	v := ""
	for _, f := range files {
		if x, ok := readParam(f, name); ok {
			v = x
		}
	}
	return v
}

// readParam reads "name = value" from an MCA parameter file.
func readParam(path, name string) (string, bool) {
	f, err := os.Open(path)
	if err != nil {
		return "", false
	}
	defer f.Close()
	v, found := "", false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || line[0] == '#' {
			continue
		}
		k, val, ok := strings.Cut(line, "=")
		if ok && strings.TrimSpace(k) == name {
			v, found = strings.TrimSpace(val), true
		}
	}
	return v, found
}
