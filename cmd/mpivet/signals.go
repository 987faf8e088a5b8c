package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"sync/atomic"
	"syscall"
	"time"

	"mpivet/launch"
)

// exitKilled is the status when a second interrupt makes mpivet quit at
// once, without a report (128 + SIGINT, as a shell reports a process
// killed by Ctrl-C).
const exitKilled = 130

// quitGrace is how long after a first interrupt a second one still keeps
// the report from being printed (see holdIfQuitting).
const quitGrace = 250 * time.Millisecond

// interrupts turns the first SIGINT or SIGTERM into a cancelled context:
// the run in progress is stopped and the report of what was found so far
// is written; the context's cause says which signal came. A second one
// ends every run at once and exits without a report.
type interrupts struct {
	ctx      context.Context
	quitting atomic.Bool  // a second signal came: mpivet is exiting without a report
	first    atomic.Int64 // when the first signal came (Unix ns), 0 before
	stop     func()
}

func catchInterrupts(parent context.Context) *interrupts {
	ctx, cancel := context.WithCancelCause(parent)
	in := &interrupts{ctx: ctx}
	ch := make(chan os.Signal, 2)
	signal.Notify(ch, syscall.SIGINT, syscall.SIGTERM)
	quit := make(chan struct{})
	in.stop = func() {
		signal.Stop(ch)
		close(quit)
		cancel(nil)
	}
	go func() {
		select {
		case s := <-ch:
			in.first.Store(time.Now().UnixNano())
			fmt.Fprintf(os.Stderr, "\nmpivet: %s: stopping the ranks and writing the report of what was found so far (interrupt again to quit at once)\n", signalName(s))
			cancel(fmt.Errorf("interrupted (%s)", signalName(s))) // why the report is incomplete
		case <-quit:
			return
		}
		select {
		case <-ch:
			in.quit()
		case <-quit:
		}
	}()
	return in
}

// quit ends mpivet at once, without a report, after a second signal.
func (in *interrupts) quit() {
	in.quitting.Store(true)
	fmt.Fprintln(os.Stderr, "\nmpivet: quitting at once: no report")
	launch.KillAll()
	os.Exit(exitKilled)
}

// holdIfQuitting keeps the caller from going on (writing a report) once
// a second signal has made mpivet quit: killing the ranks takes a moment,
// in which the run it stopped could otherwise be reported.
//
// A second signal sent right after the first (two Ctrl-C in a row, or a
// SIGINT then a SIGTERM from a script) can reach mpivet some milliseconds
// after it on a loaded machine, by which time the stopped run may be
// reported already; so a report waits until quitGrace after the first
// signal, which stopping the ranks usually takes anyway.
func (in *interrupts) holdIfQuitting() {
	if t := in.first.Load(); t != 0 {
		time.Sleep(time.Until(time.Unix(0, t).Add(quitGrace)))
	}
	if in.quitting.Load() {
		select {} // os.Exit comes from the signal goroutine
	}
}

func signalName(s os.Signal) string {
	switch s {
	case syscall.SIGINT:
		return "SIGINT"
	case syscall.SIGTERM:
		return "SIGTERM"
	}
	return s.String()
}
