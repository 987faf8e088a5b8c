/*
 * Setting the buffer checker up, through the recorder (struct
 * mpivet_service): on or off (layer.conf), when every rank is on this host,
 * which messages a peer's kernel copies, what the MPI's code is.
 */
#define _GNU_SOURCE
#include "../heap/heap.h"
#include "checker.h"
#include "../record/conf.h"

#include <dlfcn.h>
#include <execinfo.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* single_host reports whether the launcher says every rank runs on this
 * host (see lazy_host); when it does not say, they may not.
 * MPIVET_BUFFERS_EAGER=1 opens every page in every call regardless. */
static int single_host(void)
{
	static const char *const pairs[][2] = {
		{"OMPI_COMM_WORLD_LOCAL_SIZE", "OMPI_COMM_WORLD_SIZE"}, /* Open MPI */
		{"MPI_LOCALNRANKS", "PMI_SIZE"},                         /* MPICH's Hydra */
	};
	const char *eager = getenv("MPIVET_BUFFERS_EAGER");
	if (eager && strcmp(eager, "1") == 0)
		return 0;
	for (size_t i = 0; i < sizeof pairs / sizeof *pairs; i++) {
		const char *local = getenv(pairs[i][0]), *all = getenv(pairs[i][1]);
		if (local && all && *local)
			return strcmp(local, all) == 0;
	}
	const char *nodes = getenv("SLURM_NNODES");
	return nodes && strcmp(nodes, "1") == 0;
}

/* cvar reads the MPI_T control variable name: its value as an integer, or,
 * for an enumeration, its item's name in item. Returns 0 if there is no such
 * variable (an MCA parameter exists only while its component is loaded). */
static int cvar(const char *name, long long *v, char *item, int itemsz)
{
	int idx, verb, bind, scope, count, nl = 0, dl = 0, ni;
	MPI_Datatype dt;
	MPI_T_enum et;
	MPI_T_cvar_handle h;
	if (PMPI_T_cvar_get_index(name, &idx) != MPI_SUCCESS ||
	    PMPI_T_cvar_get_info(idx, NULL, &nl, &verb, &dt, &et, NULL, &dl, &bind, &scope) != MPI_SUCCESS ||
	    bind != MPI_T_BIND_NO_OBJECT || PMPI_T_cvar_handle_alloc(idx, NULL, &h, &count) != MPI_SUCCESS)
		return 0;
	int ok = count == 1;
	union { int i; unsigned u; long l; unsigned long ul; long long ll; unsigned long long ull; double d; char c[64]; } x;
	memset(&x, 0, sizeof x);
	if (ok)
		ok = PMPI_T_cvar_read(h, &x) == MPI_SUCCESS;
	PMPI_T_cvar_handle_free(&h);
	if (!ok)
		return 0;
	if (dt == MPI_INT)
		*v = x.i;
	else if (dt == MPI_UNSIGNED)
		*v = x.u;
	else if (dt == MPI_LONG)
		*v = x.l;
	else if (dt == MPI_UNSIGNED_LONG)
		*v = (long long)x.ul;
	else if (dt == MPI_LONG_LONG || dt == MPI_UNSIGNED_LONG_LONG)
		*v = x.ll;
	else
		return 0;
	int el = 0;
	if (item && et != MPI_T_ENUM_NULL && PMPI_T_enum_get_info(et, &ni, NULL, &el) == MPI_SUCCESS)
		for (int k = 0; k < ni; k++) {
			int val, il = itemsz;
			if (PMPI_T_enum_get_item(et, k, &val, item, &il) == MPI_SUCCESS && val == *v)
				return 1;
		}
	if (item)
		item[0] = 0;
	return 1;
}

/* min_size lowers *min to the smallest size in s ("8192", "16k", "auto",
 * "intra:8k,inter:32k"; UCX's units). */
static void min_size(const char *s, int64_t div, int64_t *min)
{
	while (s && *s) {
		if (*s < '0' || *s > '9') {
			s++;
			continue;
		}
		char *e;
		int64_t n = strtoll(s, &e, 10);
		switch (*e) {
		case 'k': case 'K': n <<= 10; break;
		case 'm': case 'M': n <<= 20; break;
		case 'g': case 'G': n <<= 30; break;
		}
		if (n / div < *min)
			*min = n / div;
		s = e;
	}
}


/* ---- Copies made by a peer ----
 *
 * Shared-memory transports move a large message with one copy, from the
 * sender's buffer straight into the receiver's: the kernel's cross-memory
 * attach (process_vm_readv: Open MPI's vader BTL, UCX's cma transport, which
 * Debian's MPICH uses) or a mapping of the sender's pages (XPMEM, KNEM). The
 * receiver makes that copy inside its own MPI calls, so at any time between
 * the send's start and its completion, while the sender computes with its
 * pages closed. The kernel fails a copy from a page the sender cannot read
 * (EFAULT: vader prints "Read -1, expected N, errno = 14" and falls back, UCX
 * aborts the job), and no fault handler sees it. So the pages of a pending
 * send that a peer may copy are never closed against reads, even where a
 * pending receive shares them: the program's reads of that receive buffer on
 * those pages go unseen (its writes, and every access to the rest of the
 * receive buffer, are still caught). Which sends: contiguous ones (both
 * transports pack other datatypes inside the sender's own calls) of at least
 * peer_copy_min bytes, the size where the transport switches to its
 * rendezvous, and every buffer of a nonblocking collective of that size (its
 * schedule sends pieces of it, and of its receive buffer once they have
 * arrived). The receiver's kernel writes into its own receive buffer during
 * its MPI calls, so such receives are never lazy. Both transports here copy
 * by reading; where the sender writes instead (UCX_RNDV_SCHEME=put_zcopy),
 * receives of that size are not watched. detect_peer_copies sets these when
 * MPI is initialised; until then, and for a transport it does not know, every
 * send may be copied by a peer. */
/* vader_from_conf sets *min from layer.conf's vader=MECHANISM:EAGER_LIMIT
 * (Open MPI 4's vader BTL, or Open MPI 5's sm BTL with its smsc component),
 * which mpivet read with ompi_info (mpi.SharedMemory), and says whether it
 * did: Open MPI's MPI_T_init_thread, the other way to learn them, costs each
 * rank about 0.2 s. The line holds what mpivet's environment gives; MCA
 * settings that reach the rank another way (mpirun --mca, -x, a launcher's
 * environment) may change them, so the rank asks MPI_T when it sees any. */
static int vader_from_conf(int64_t *min)
{
	const char *v = mpivet_conf(MPIVET_CONF_VADER);
	if (!v)
		return 0;
	for (char **e = environ; *e; e++)
		if (strncmp(*e, "OMPI_MCA_", 9) == 0 &&
		    (strncmp(*e + 9, "btl_", 4) == 0 || strncmp(*e + 9, "smsc", 4) == 0 || strstr(*e, "param_files") ||
		     strncmp(*e + 9, "mca_base_", 9) == 0) &&
		    strncmp(*e + 9, "btl_vader_backing_directory=", 28) != 0 &&
		    strncmp(*e + 9, "btl_sm_backing_directory=", 25) != 0) /* where segments go (launch/scratch.go) */
			return 0;
	char mech[32];
	long long eager;
	if (sscanf(v, "%31[^:]:%lld", mech, &eager) != 2)
		return 0;
	if (strcmp(mech, "none") != 0)
		*min = eager > 64 ? eager - 64 : 0;
	return 1;
}

/* sm_from_mpi_t sets *min from Open MPI's shared-memory transport as MPI_T
 * and the library tell it, and says whether it could. Open MPI 4's vader BTL:
 * messages above its eager limit (the limit includes the PML's header) go by
 * single copy unless its single_copy_mechanism is none. Open MPI 5's sm BTL:
 * the same, with the single copy of the smsc framework, whose component
 * (cma, xpmem, knem) is chosen in MPI_Init; the library's mca_smsc is the
 * chosen one's module, NULL for none (no component, or none that works
 * here, or no sm BTL). */
static int sm_from_mpi_t(int64_t *min)
{
	long long mech, eager;
	char name[64];
	if (cvar("btl_vader_single_copy_mechanism", &mech, name, sizeof name)) {
		if (strcmp(name, "none") != 0)
			*min = cvar("btl_vader_eager_limit", &eager, NULL, 0) && eager > 64 ? eager - 64 : 0;
		return 1;
	}
	void *const *smsc = dlsym(RTLD_DEFAULT, "mca_smsc");
	if (!smsc || !cvar("btl_sm_eager_limit", &eager, NULL, 0))
		return 0;
	if (*smsc)
		*min = eager > 64 ? eager - 64 : 0;
	return 1;
}

/* detect_peer_copies finds which messages the MPI's transports copy with a
 * peer's kernel (see peer_copy_min), once MPI is initialised. */
static void detect_peer_copies(void)
{
	int64_t min = INT64_MAX;
	int known = 0, prov;
	if (vader_from_conf(&min)) {
		known = 1;
		peer_copy_from = "conf";
	} else if (PMPI_T_init_thread(MPI_THREAD_SINGLE, &prov) == MPI_SUCCESS) {
		peer_copy_from = "mpi_t";
		known = sm_from_mpi_t(&min);
		PMPI_T_finalize();
	}
	/* UCX (MPICH's ch4:ucx, Open MPI's pml ucx): the rendezvous protocol
	 * reads with cma, above UCX_RNDV_THRESH. Its "auto" value is computed
	 * from the transports' performance; measured here with UCX 1.13, it is
	 * the shared-memory transport's largest eager copy (8 KiB, from
	 * UCX_MM_SEG_SIZE: 8 KiB messages are copied, 8.6 KiB ones use cma).
	 * Half of that leaves a margin. */
	if (dlopen("libucp.so.0", RTLD_LAZY | RTLD_NOLOAD)) {
		known = 1;
		int64_t u = 4096;
		min_size(getenv("UCX_RNDV_THRESH"), 1, &u);
		min_size(getenv("UCX_MM_SEG_SIZE"), 2, &u);
		if (u < min)
			min = u;
		const char *scheme = getenv("UCX_RNDV_SCHEME");
		peer_writes = scheme && strstr(scheme, "put");
	}
	/* XPMEM maps the sender's pages into the receiver: its thresholds are
	 * the MPI's (MPICH's CVARs when built with it); not known here. */
	if (dlopen("libxpmem.so.0", RTLD_LAZY | RTLD_NOLOAD))
		known = 0;
	peer_copy_min = known ? min : 0;
}

/* bc_init runs when the layer loads and again after MPI_Init (when
 * the MPI's transports are loaded). */
static void bc_init(void)
{
#if !defined(__x86_64__)
	mpivet_bc_on = 0;
#endif
	if (!mpivet_bc_on)
		return;
	static int once;
	if (!once) {
		once = 1;
		pagesz = (uintptr_t)sysconf(_SC_PAGESIZE);
		t_start = bc_now_ns(), cpu_start = bc_cpu_ns();
		void *f[2];
		backtrace(f, 2); /* loads the unwinder now, not in a signal handler */
		bc_thread();
	}
	req_null = MPIVET_H(MPI_REQUEST_NULL);
	lock();
	bc_find_mpi_code();
	lazy_host = single_host();
	unlock();
	const char *st = getenv("MPIVET_BUFFERS_STATS");
	static int registered;
	if (st && strcmp(st, "1") == 0 && !registered++)
		atexit(bc_print_stats);
	if (mpivet_inited) {
		detect_peer_copies();
		bc_choose_lock();
		bc_calibrate(); /* MPI is initialised: its threads run */
	}
}

/* ---- Set-up, through the recorder ---- */

/* bc_opened runs when the log is open: the checker is on unless the run
 * turned it off. */
static void bc_opened(void)
{
	const char *how = mpivet_conf(MPIVET_CONF_BUFFERS); /* off, precise */
	mpivet_bc_on = !(how && strncmp(how, "off", 3) == 0);
	if (how && strncmp(how, "precise", 7) == 0)
		mpivet_bc_precise = 1;
	if (mpivet_bc_on) /* heap/ asks whether a block freed holds a pending buffer */
		mpivet_heap_pending = bc_pending_in, mpivet_heap_window = bc_window_in;
	bc_init();
}

static void bc_initialized(int rank)
{
	(void)rank;
	bc_init();
}

static const struct mpivet_service service = {
	.log_opened = bc_opened, .initialized = bc_initialized, .thread = bc_thread, .fault = bc_fault,
};

__attribute__((constructor(MPIVET_SERVICE_PRIORITY))) static void bc_register(void) { mpivet_register(&service); }
