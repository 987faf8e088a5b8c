// Package checks holds no code: below it is one package per check
// (checks/<name>, each defining a check.Check and embedding a KIND.md for
// each kind of finding it reports: what it means, an example, its report,
// the fix; mpivet explain prints it), the registry of them
// (checks/all), the shared result-only analyses they require
// (checks/internal: objects, comms, waitstate, waitfor), and the analyses
// package driver asks for results (checks/stall, checks/zerobuf). Its test
// runs the registered checks together on records written by
// trace/tracetest.
package checks
