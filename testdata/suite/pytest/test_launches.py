# A pytest suite whose tests launch mpi4py scripts with mpiexec, as Python
# projects test their MPI code; mpivet exec verifies each launch
# (corpus/suite_test.go). Each test checks what the launch gives natively.
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
PROGRAMS = os.path.join(HERE, "..", "..", "programs")


def launch(n, *args):
    return subprocess.run(["mpiexec", "-n", str(n), sys.executable, *args],
                          capture_output=True, text=True, timeout=300)


def test_allreduce():
    r = launch(3, os.path.join(HERE, "allreduce.py"))
    assert r.returncode == 0
    assert "total 6" in r.stdout


def test_leaked_request():  # passes natively: the leak shows only under mpivet
    r = launch(2, os.path.join(PROGRAMS, "py_leaked_request.py"))
    assert r.returncode == 0


def test_not_mpi():
    r = launch(1, "-c", "print('no MPI here')")
    assert r.returncode == 0
    assert "no MPI here" in r.stdout
