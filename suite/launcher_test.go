package suite

import (
	"reflect"
	"strings"
	"testing"
)

// The launchers' command lines of both MPIs, as suites write them.
func TestParse(t *testing.T) {
	for _, c := range []struct {
		launcher, line string
		want           Spec
		unsupported    string // a word of the reason, when the launch cannot be run as written
	}{
		{"mpirun", "-n 4 ./app a b", Spec{NP: 4, Program: "./app", Args: []string{"a", "b"}}, ""},
		{"mpirun", "-np 2 --oversubscribe --bind-to none --map-by slot:PE=1 ./app -n 3", Spec{NP: 2, Program: "./app", Args: []string{"-n", "3"}}, ""},
		{"mpirun", "-c 3 -x A=1 -x PATH --mca btl self,vader -wdir /tmp -- ./app", Spec{NP: 3, Program: "./app", Args: []string{},
			Env: []string{"A=1", "OMPI_MCA_btl=self,vader"}, WorkDir: "/tmp"}, ""},
		{"mpiexec.mpich", "-genv A 1 -envall -env B two -n 2 -wdir=/w python3 t.py", Spec{NP: 2, Program: "python3", Args: []string{"t.py"},
			Env: []string{"A=1", "B=two"}, WorkDir: "/w"}, ""},
		{"mpiexec", "--n=2 --host a,b -f hosts ./app", Spec{NP: 2, Program: "./app", Args: []string{}, Hosts: []string{"-host", "a,b", "-f", "hosts"}}, ""},
		{"srun", "--ntasks=4 --mpi=pmix -N 1 ./app", Spec{NP: 4, Program: "./app", Args: []string{}}, ""},
		{"mpirun", "-n 1 ./a : -n 1 ./b", Spec{}, "MPMD"},
		{"mpirun", "-n 2 --tag-output ./app", Spec{}, "--tag-output"},
		{"mpirun", "./app", Spec{}, "-n"},
		{"mpirun", "-n two ./app", Spec{}, "number"},
		{"mpirun", "-n 2", Spec{}, "no program"},
		{"mpirun", "-n", Spec{}, "value missing"},
	} {
		got := Parse(c.launcher, strings.Fields(c.line))
		if c.unsupported != "" {
			if !strings.Contains(got.Unsupported, c.unsupported) {
				t.Errorf("%s %s: unsupported %q, want it to say %q", c.launcher, c.line, got.Unsupported, c.unsupported)
			}
			continue
		}
		if !reflect.DeepEqual(*got, c.want) {
			t.Errorf("%s %s:\n got %+v\nwant %+v", c.launcher, c.line, *got, c.want)
		}
	}
	if got := Parse("mpirun", []string{"-n", "2", "--host", "a b", "./app"}); !strings.Contains(got.Unsupported, "spaces") {
		t.Errorf("a host list with spaces: %q", got.Unsupported)
	}
}

func TestImpliedMPI(t *testing.T) {
	for name, want := range map[string]string{"mpiexec.mpich": "mpich", "mpiexec.hydra": "mpich", "mpirun.openmpi": "openmpi",
		"orterun": "openmpi", "mpirun": "", "mpiexec": "", "srun": ""} {
		if got := ImpliedMPI(name); got != want {
			t.Errorf("%s: %q, want %q", name, got, want)
		}
	}
}

func TestQuery(t *testing.T) {
	for line, want := range map[string]bool{"--version": true, "-info": true, "--help -v": true, "": true,
		"-n 2 ./app": false, "--tag-output -n 1 hostname": false} {
		if got := Query(strings.Fields(line)); got != want {
			t.Errorf("%q: %v, want %v", line, got, want)
		}
	}
}
