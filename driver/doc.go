// Package driver owns "verify a program": it runs an MPI program under
// mpivet, explores the other outcomes of its nondeterminism by replay
// (package explore decides which), looks for deadlocks its MPI's
// buffering hides (offline from the records, or by running it again with
// zero buffering), checks every run with the registered checks (checks/all),
// and returns the report (package report), which the caller prints.
//
//	o := driver.Defaults()
//	o.Program, o.NP = "./app", 4
//	rep, err := driver.Verify(ctx, o)     // err: mpivet could not do its job
//	os.Exit(rep.ExitCode())
//
// Replay runs one interleaving of an earlier run again, exactly, from its
// run directory. The command line (cmd/mpivet) is flags -> Options ->
// Verify or Replay -> printers -> exit status; a context cancelled with a
// cause (context.WithCancelCause) stops the run in progress and gives the
// report of what was found, incomplete, saying the cause.
//
// # Options, in one place
//
// Options is every setting of a verification. Its flags (mpivet run and
// replay), the command record a run directory keeps so that replay can run
// it again (command.json), and the ranks' settings (RUNDIR/layer.conf, read
// by layer/src/record/conf.c) are all derived from one table, options in
// options.go. To add an option:
//
//  1. add a field to Options;
//  2. add its line to the table: the field, its --flag with its default and
//     usage, its key in command.json if a replay must run with the same value,
//     its key in layer.conf if the ranks must know it (an api.Conf* constant:
//     a new one goes in api/api.go and in internal/gen/format.go's confKeys,
//     then go generate ./layer gives the layer its MPIVET_CONF_* name), and
//     the values it takes.
//
// Nothing else changes: cmd/mpivet registers the table's flags, Validate
// checks the choices, saveCommand/loadCommand write and read the record, and
// WriteLayerConf, the one writer of layer.conf, writes the setting.
// TestEveryOptionDeclared fails for a field left out of the table. Where the
// report goes (--json, --no-color, other formats) is not an option of the
// verification: those flags belong to the command line's printers.
//
// # Suppressions, trails, witnesses
//
// Options.Suppressions names a suppression file (report.ReadSuppressions;
// by default report.DefaultSuppressions in the working directory, if there
// is one): the report marks the findings it matches, and an error it
// silences does not stop FirstError. With IO.Trails the report keeps the
// trail of each interleaving with a new finding (package spacetime), which
// the HTML and SARIF printers show. Export writes one interleaving as a
// witness, a run directory of its own that Replay runs elsewhere with the
// same binary (checked by its SHA-256).
//
// # Run directory
//
// Interleaving 1 keeps its records in the run directory, replay n in
// interleaving-n/ below it, with the files the driver writes for it: the
// decisions to force and what to repeat of the parent run, passed to the
// ranks by path in layer.conf (RunFiles), decisions.complete, and
// buffering for the zero-buffering run. Replays without a new finding lose
// their ranks' records once the search below them is over. With --jobs
// above 1, a replay run ahead of its turn starts in ahead-K/ and becomes
// interleaving-n/ when the search, still sequential, numbers it
// (parallel.go); those it never reaches are removed.
//
// # Checks
//
// The driver runs every check of checks/all through one check.Unit per
// interleaving and names no check, except where it acts on results: it asks
// checks/stall whether a stalled run can resume (to stop it as deadlocked)
// and whether a replay's deadlock comes only from its forced match (an
// infeasible replay, not the program's); it asks checks/zerobuf for the
// offline zero-buffering replay of interleaving 1 and, for the
// buffering-aware exploration (slack.go), for the sends a match needs
// buffered and those an unsafe-buffering deadlock waits for; it looks for
// the kinds timeout and program-failure (a first run that did not end by
// itself is not run again), deadlock and unsafe-buffering (no
// zero-buffering run when one is known), and keeps only unsafe-buffering
// of the zero-buffering run, with checks/unreceived telling it apart from
// messages never received, and none when interleaving 1 found
// collective-missing (a collective some members never call deadlocks the
// zero-buffering run by itself, whose collectives synchronise).
// A new check needs none of this: its package and a line in checks/all.
package driver
