/*
 * mpiio/: what MPI-IO calls need beyond their parameters, for the Go side
 * (checks/collective, checks/mpierror) and the reports:
 *   - the name and access mode of an MPI_File_open (MetaFile), logged
 *     before the call, so that an open that fails is named too: once per
 *     open, the file calls themselves carry only the handle;
 *   - the etype (its signature and size) and the data representation of
 *     an MPI_File_set_view (MetaView), which every member of the file's
 *     communicator must give alike (MPI 4.0 §14.3);
 *   - the name of the file a call that returned an error was on
 *     (MetaFileError, after the call's MetaError): the layer keeps the
 *     name of every open file by handle, from its open to its close.
 * Nothing here runs on the data calls of a file unless they fail, except
 * that, with the buffer checker on, an independent nonblocking read is
 * completed before its call returns (mpivet_file_settle: buffers/hooks.c
 * says why); the program's Wait or Test then finds it complete.
 */
#include "mpiio.h"
#include "../record/record.h"
#include "../signatures/signature.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* meta_string appends meta record id: the fixed words w[0..n), then the
 * string s (its length, then its bytes). */
static void meta_string(unsigned id, const uint64_t *w, uint64_t n, const char *s)
{
	size_t len = s ? strlen(s) : 0;
	if (len > 4096)
		len = 4096;
	uint64_t sw = (len + 7) / 8, off, *p = mpivet_begin(n + 1 + sw, &off);
	if (!p)
		return;
	for (uint64_t i = 0; i < n; i++)
		p[i] = w[i];
	p[n] = len;
	for (uint64_t i = 0; i < sw; i++)
		p[n + 1 + i] = 0;
	if (len)
		memcpy(p + n + 1, s, len);
	mpivet_commit(off, n + 1 + sw, id, MPIVET_KIND_META);
}

void mpivet_file_open(uint64_t logref, const char *name, int amode)
{
	uint64_t w[2] = {logref, (uint64_t)(int64_t)amode};
	meta_string(MPIVET_META_FILE, w, 2, name);
}

void mpivet_file_view(uint64_t logref, MPI_Datatype etype, const char *datarep, int bad)
{
	uint64_t w[3] = {logref, 0, 0};
	int size = 0;
	if (!bad && etype != MPI_DATATYPE_NULL && PMPI_Type_size(etype, &size) == MPI_SUCCESS) {
		w[1] = mpivet_sig(etype);
		w[2] = (uint64_t)(int64_t)size;
	}
	meta_string(MPIVET_META_VIEW, w, 3, datarep);
}

/* The open files' names, by handle: few, looked up only when a call fails. */
struct file {
	MPI_File fh;
	char *name;
};
static struct file *files;
static int nfiles, capfiles;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;

void mpivet_file_opened(MPI_File fh, const char *name)
{
	char *keep = strdup(name ? name : "");
	pthread_mutex_lock(&mu);
	if (nfiles == capfiles) {
		int cap = capfiles ? 2 * capfiles : 16;
		struct file *f = realloc(files, (size_t)cap * sizeof *f);
		if (!f) {
			pthread_mutex_unlock(&mu);
			free(keep);
			return;
		}
		files = f, capfiles = cap;
	}
	files[nfiles++] = (struct file){fh, keep};
	pthread_mutex_unlock(&mu);
}

void mpivet_file_closed(MPI_File fh)
{
	pthread_mutex_lock(&mu);
	for (int i = nfiles - 1; i >= 0; i--)
		if (files[i].fh == fh) {
			free(files[i].name);
			files[i] = files[--nfiles];
			break;
		}
	pthread_mutex_unlock(&mu);
}

void mpivet_file_error(MPI_File fh)
{
	char name[4097] = "";
	pthread_mutex_lock(&mu);
	for (int i = nfiles - 1; i >= 0; i--)
		if (files[i].fh == fh) {
			strncpy(name, files[i].name, sizeof name - 1);
			break;
		}
	pthread_mutex_unlock(&mu);
	mpivet_file_error_named(name);
}

void mpivet_file_error_named(const char *name) { meta_string(MPIVET_META_FILE_ERROR, NULL, 0, name); }

/* A settled operation: what its Wait gave, for the program's. */
struct settled {
	MPI_Status st;
	int rc;
};

static int settled_query(void *extra, MPI_Status *st)
{
	const struct settled *s = extra;
	*st = s->st;
	return s->rc;
}

static int settled_free(void *extra)
{
	free(extra);
	return MPI_SUCCESS;
}

static int settled_cancel(void *extra, int complete)
{
	(void)extra, (void)complete;
	return MPI_SUCCESS;
}

/* mpivet_file_settle completes the operation of the program's request *r,
 * an independent file operation that needs no other rank, and gives the
 * program in its place a generalized request already complete, whose
 * Wait or Test returns the operation's status and error: MPICH's
 * MPI_Request_get_status does not progress ROMIO's aio requests, so the
 * operation cannot be completed without freeing its request. */
void mpivet_file_settle(MPI_Request *r)
{
	struct settled *s = malloc(sizeof *s);
	MPI_Request g;
	if (!s || !r || *r == MPI_REQUEST_NULL) {
		free(s);
		return;
	}
	memset(&s->st, 0, sizeof s->st);
	s->rc = PMPI_Wait(r, &s->st);
	s->st.MPI_ERROR = s->rc; /* a Wait leaves it as it was; the MPI reads it from the query */
	if (PMPI_Grequest_start(settled_query, settled_free, settled_cancel, s, &g) != MPI_SUCCESS) {
		free(s);
		return;
	}
	PMPI_Grequest_complete(g);
	*r = g;
}
