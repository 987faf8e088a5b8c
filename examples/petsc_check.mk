# PETSc tutorials (Debian's petsc-dev, libpetsc3.18-dev-examples) as a
# make check target, each on 2 ranks:
#   make -f examples/petsc_check.mk check                  # natively
#   mpivet exec --budget 60s -- make -f examples/petsc_check.mk check
PETSC_DIR = /usr/lib/petscdir/petsc-real
EX = /usr/share/petsc/3.18/share/petsc/examples/src
CC = mpicc.openmpi
CFLAGS = -g -I$(PETSC_DIR)/include
LDLIBS = -L$(PETSC_DIR)/lib -lpetsc_real -lm

ksp_ex2: $(EX)/ksp/ksp/tutorials/ex2.c
	$(CC) $(CFLAGS) -o $@ $< $(LDLIBS)
ksp_ex23: $(EX)/ksp/ksp/tutorials/ex23.c
	$(CC) $(CFLAGS) -o $@ $< $(LDLIBS)
snes_ex5: $(EX)/snes/tutorials/ex5.c
	$(CC) $(CFLAGS) -o $@ $< $(LDLIBS)
snes_ex19: $(EX)/snes/tutorials/ex19.c
	$(CC) $(CFLAGS) -o $@ $< $(LDLIBS)

check: ksp_ex2 ksp_ex23 snes_ex5 snes_ex19
	mpiexec -n 2 ./ksp_ex2 -ksp_monitor
	mpiexec -n 2 ./ksp_ex23 -ksp_monitor
	mpiexec -n 2 ./snes_ex5 -snes_monitor
	mpiexec -n 2 ./snes_ex19 -snes_monitor
