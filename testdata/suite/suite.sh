#!/bin/sh
# The launches of a small test suite, as a suite's script makes them with
# the launcher $L: a buggy program, a program that is not an MPI program,
# one given its environment ($ENVOPTS) and working directory by the
# launcher's options, an MPMD launch (which mpivet does not verify), and a
# program whose exit status is not 0.
$L -n 2 ./leak || echo "leak: status $?"
$L -n 1 hostname >/dev/null && echo "hostname: ok"
$L -n 2 $ENVOPTS -wdir work ../env_wdir
$L -n 1 ./env_wdir : -n 1 ./env_wdir
$L -np 2 ./env_wdir 3
echo "env_wdir 3: status $?"
