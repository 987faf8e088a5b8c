/*
 * The MPI's code and the program's stack: which code is the MPI library's
 * and its transports' (an access from there is the library's, never the
 * program's), and the call stack of an access the program made. Below the
 * fault handlers (faults.c, exposure.c), which both use it.
 */
#define _GNU_SOURCE
#include "checker.h"

#include <execinfo.h>
#include <link.h>
#include <string.h>

/* Code of the MPI library and its transports: an access from there is the
 * library's, never the program's. */
#define MAX_LIB 64
static struct {
	uintptr_t lo, hi;
} libs[MAX_LIB];
static int nlibs;

int bc_is_mpi_object(const char *name)
{
	static const char *const pats[] = {"libmpi", "libopen-", "libpmix", "libucp", "libucs", "libuct", "libucm",
					   "/ucx/", "mca_", "libfabric", "libhwloc", "libevent", "libmpich",
					   "libpsm", "libibverbs", "libxpmem", "libknem", "libhcoll", "mpivet", NULL};
	for (int i = 0; pats[i]; i++)
		if (strstr(name, pats[i]))
			return 1;
	return 0;
}

static int add_lib(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)size, (void)data;
	if (!info->dlpi_name || !bc_is_mpi_object(info->dlpi_name))
		return 0;
	for (int i = 0; i < info->dlpi_phnum && nlibs < MAX_LIB; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X)) {
			libs[nlibs].lo = info->dlpi_addr + ph->p_vaddr;
			libs[nlibs].hi = libs[nlibs].lo + ph->p_memsz;
			nlibs++;
		}
	}
	return 0;
}

/* bc_find_mpi_code finds the code of the MPI and its transports, loaded
 * now (again after MPI_Init, which loads the transports). */
void bc_find_mpi_code(void)
{
	nlibs = 0;
	dl_iterate_phdr(add_lib, NULL);
}

int bc_in_mpi_code(uintptr_t pc)
{
	for (int i = 0; i < nlibs; i++)
		if (pc >= libs[i].lo && pc < libs[i].hi)
			return 1;
	return 0;
}

/* bc_fault_stack gives the call stack of the access at pc in pcs
 * (MAX_PCS): the faulting instruction, then its callers; -1 if it was
 * called from within MPI (a callback, a user op): the MPI's access. */
int bc_fault_stack(uintptr_t pc, uint64_t *pcs)
{
	/* the call stack: handler frames first, then the faulting frame */
	void *frames[MAX_PCS + 8];
	int n = backtrace(frames, MAX_PCS + 8), first = -1;
	for (int k = 0; k < n; k++)
		if ((uintptr_t)frames[k] == pc) {
			first = k;
			break;
		}
	int npcs = 0;
	pcs[npcs++] = pc;
	if (first >= 0)
		for (int k = first + 1; k < n && npcs < MAX_PCS; k++) {
			if (bc_in_mpi_code((uintptr_t)frames[k]))
				return -1;
			pcs[npcs++] = (uintptr_t)frames[k];
		}
	/* a Python program's line, as its outermost frame */
	uint64_t site = mpivet_fault_site_hook ? mpivet_fault_site_hook() : 0;
	if (site)
		pcs[npcs < MAX_PCS ? npcs++ : MAX_PCS - 1] = site;
	return npcs;
}

