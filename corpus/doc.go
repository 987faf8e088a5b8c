// Package corpus is the end-to-end test of mpivet: it runs every program in
// testdata/programs under each MPI installed and compares mpivet's verdict
// and findings with what the program's header comment and its want lines
// expect (the format is in the comment at the top of corpus_test.go). The
// package has no code of its own; its tests, by what they run:
// corpus_test.go the programs and their expectations; clean_test.go the
// clean twins; reports_test.go and outputs_test.go the reports and the
// program's own output; explore_test.go, parallel_test.go,
// repeats_test.go, slack_test.go, determinism_test.go and wait_test.go
// the exploration and its settings; files_test.go the program's files
// across replays, scratch_test.go the MPI's own; cli_test.go the command
// line; limits_test.go, longrun_test.go and polls_test.go costs that must
// stay bounded; comm_test.go communicators' members and ranks on other
// hosts; peercopy_test.go the size from which the MPI copies a send
// buffer between ranks; python_test.go, hdf5_test.go, petsc_test.go and
// slurm_test.go Python, HDF5, PETSc and Slurm.
package corpus
