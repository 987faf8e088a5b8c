/*
 * sessions/: the MPI 4.0 sessions model (MPI 4.0 §11.3), at the top of the
 * layer beside the generated wrappers, whose MPI_Init_thread and
 * MPI_Finalize it calls. A program that starts MPI with MPI_Session_init
 * and never calls MPI_Init is checked as one that does: at its first
 * MPI_Session_init the layer initialises MPI's world model itself, through
 * its own MPI_Init_thread wrapper (all that the layer does when a rank
 * starts: its records, the clock protocol, the checks' services), and at
 * its last MPI_Session_finalize it ends it through its MPI_Finalize
 * wrapper (messages never received, objects never freed), before the
 * program's session ends. Both are recorded at the program's own calls.
 * MPI 4.0 lets the world model and sessions live side by side; the
 * program's MPI_Initialized then says true. The groups and communicators
 * the program makes from process sets are wrapped (mpi.api's "Sessions"),
 * and followed as any others.
 *
 * Open MPI 4.1 has no sessions (MPI 3.1): nothing here is compiled.
 */
#define _GNU_SOURCE
#include "../record/record.h"

#include <mpi.h>
#include <string.h>

#if MPI_VERSION >= 4

static int sessions; /* the program's sessions alive */
static int started;  /* the layer initialised the world model for them */
static uint64_t site, (*saved)(uint64_t);

static uint64_t program_site(uint64_t pc)
{
	(void)pc;
	return site;
}

/* as_program makes the layer's next calls of its wrappers be recorded at
 * the program's call site pc; as_layer ends that. */
static void as_program(uint64_t pc)
{
	site = pc;
	saved = mpivet_site_hook;
	mpivet_site_hook = program_site;
}

static void as_layer(void)
{
	mpivet_site_hook = saved;
}

/* thread_level is the thread support the session asked for in its info
 * ("thread_level"), MPI_THREAD_SINGLE without. */
static int thread_level(MPI_Info info)
{
	static const char *const names[] = {"MPI_THREAD_SINGLE", "MPI_THREAD_FUNNELED", "MPI_THREAD_SERIALIZED",
					    "MPI_THREAD_MULTIPLE"};
	static const int levels[] = {MPI_THREAD_SINGLE, MPI_THREAD_FUNNELED, MPI_THREAD_SERIALIZED, MPI_THREAD_MULTIPLE};
	char v[64];
	int len = sizeof v, flag = 0;
	if (info == MPI_INFO_NULL || PMPI_Info_get_string(info, "thread_level", &len, v, &flag) != MPI_SUCCESS || !flag)
		return MPI_THREAD_SINGLE;
	for (int i = 0; i < 4; i++)
		if (strcmp(v, names[i]) == 0)
			return levels[i];
	return MPI_THREAD_SINGLE;
}

int MPI_Session_init(MPI_Info info, MPI_Errhandler errhandler, MPI_Session *session)
{
	uint64_t pc = MPIVET_PC();
	int rc = PMPI_Session_init(info, errhandler, session), flag = 0, provided;
	if (rc != MPI_SUCCESS || __atomic_fetch_add(&sessions, 1, __ATOMIC_ACQ_REL) > 0 || !mpivet_should_record())
		return rc;
	PMPI_Initialized(&flag);
	if (flag) /* the program initialised the world model itself */
		return rc;
	started = 1;
	as_program(pc);
	MPI_Init_thread(NULL, NULL, thread_level(info), &provided);
	as_layer();
	return rc;
}

int MPI_Session_finalize(MPI_Session *session)
{
	uint64_t pc = MPIVET_PC();
	if (session && *session != MPI_SESSION_NULL && __atomic_sub_fetch(&sessions, 1, __ATOMIC_ACQ_REL) == 0 && started) {
		started = 0;
		as_program(pc);
		MPI_Finalize();
		as_layer();
	}
	return PMPI_Session_finalize(session);
}

#endif
