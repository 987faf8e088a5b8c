package driver

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"mpivet/api"
	"mpivet/launch"
	"mpivet/layer"
	"mpivet/rundir"
	"mpivet/trace"
)

// confFile holds the ranks' settings in the run directory, which the
// layer reads (layer/src/record/conf.c) when a rank starts.
const confFile = "layer.conf"

// RunFiles are the files of one guided replay that its ranks read,
// passed to them by path in layer.conf.
type RunFiles struct {
	Decisions string // the matches to force (explore.WriteDecisions); "": none
	Expect    string // the calls to repeat of the run replayed (divergence); "": none
	Store     string // where the ranks keep the state of files before they touch them (files.go); "": nowhere
}

// WriteLayerConf writes dir/layer.conf, the settings of one run for its
// ranks: o's settings for the layer (the options with a conf key), what
// the session knows of the MPI and the host, and the run's files. It is
// the one writer of layer.conf; keys are api.Conf*.
func WriteLayerConf(dir string, sess *launch.Session, o Options, files RunFiles) error {
	o.Wait = waitMode(o, sess, 1) // auto, unless the caller resolved it for runs at once
	lines := o.confLines()
	// Deterministic mode is on with a seed (0 is a seed): one key for two
	// options, so not a conf key of the table.
	if o.Deterministic {
		lines = append(lines, api.ConfDeterministic+"="+strconv.FormatUint(o.Seed, 10))
	}
	// The buffer checker must know which messages a peer's kernel copies
	// (Open MPI's vader: ompi_info answers once, cached, for every rank).
	if o.Buffers != "off" {
		if cache, err := layer.CacheDir(); err == nil {
			if sm, ok := sess.MPI.SharedMemory(cache); ok {
				lines = append(lines, api.ConfVader+"="+sm.ConfValue())
			}
		}
	}
	// Supervisors on other hosts write their ranks' pages back to the
	// shared run directory periodically (supervise.c).
	if host, err := os.Hostname(); err == nil {
		lines = append(lines, api.ConfHost+"="+host)
	}
	if trace.TestRemote() {
		lines = append(lines, api.ConfSync+"=always")
	}
	if files.Decisions != "" {
		lines = append(lines, api.ConfDecisions+"="+files.Decisions)
	}
	if files.Expect != "" {
		lines = append(lines, api.ConfExpect+"="+files.Expect)
	}
	if files.Store != "" {
		lines = append(lines, api.ConfFiles+"="+files.Store)
	}
	conf := strings.Join(lines, "\n") + "\n"
	if err := rundir.WriteFile(filepath.Join(dir, confFile), []byte(conf)); err != nil {
		return launch.AsWriteError(filepath.Join(dir, confFile), err)
	}
	return nil
}
