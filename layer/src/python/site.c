/*
 * python/: the call sites of a Python interpreter. Above the recorder only
 * (it gives the recorder mpivet_site_hook); nothing calls it by name.
 *
 * A Python program (mpi4py) makes its MPI calls from the interpreter's C
 * code: the return address of a wrapper is in mpi4py's extension module,
 * the same for every line of the script that sends. When the process is a
 * CPython interpreter (it defines the C API: Py_IsInitialized found with
 * dlsym), each call site the wrappers take (MPIVET_PC) is replaced by a
 * site of the Python line that made the call, read from the interpreter's
 * own frame state: the innermost Python frame that is not the import
 * machinery's, its code object's file and qualified name, and its line.
 *
 * A site is an address in a range reserved for them (PROT_NONE, never
 * touched), so it goes through every record, the state page and the
 * checks like a return address; each new one is described once by a
 * MPIVET_META_PYSITE record (its line, file, function, and the C return
 * address of its first call, which stays in the JSON report as the
 * location's module and offset), which the Go side turns into a mapping of
 * its own (trace.PySite). A site's offset in its page is a hash of its
 * line, file and function, so the divergence check of a replay, which
 * compares call sites modulo the page size, compares Python lines.
 *
 * Cost: a call from an instruction seen before is found from the frame
 * the thread is executing, read at CPython 3.11's offsets without the GIL
 * (fast_site: a few loads and a probe; polls pay only this). Otherwise,
 * and on other versions, the hook takes the GIL (mpi4py releases it
 * around blocking MPI calls) for the few C API calls it makes and gives it
 * back before the MPI call; sites are cached by code object and
 * instruction offset (the code objects are kept alive, so an address is
 * never reused for another), and only a new one reads its line and names. No
 * analysis here.
 *
 * Accesses: the buffer checker catches a write to a pending buffer in a
 * signal handler, in the C code that made it (NumPy's), where the C API
 * must not be called (it may allocate, collect garbage). There, in
 * CPython 3.11 only, the frame the thread is executing is read from the
 * thread state's fields (offsets checked against PyEval_GetFrame the first
 * time a site is taken); the innermost frame that has its frame object
 * gives the line (a function the layer has not seen has none yet: the line
 * that called it is given), and its line and code object need no
 * allocation. A line not seen before gets a
 * site at once, described at the next MPI call (pending[]).
 */
#define _GNU_SOURCE
#include "../record/record.h"

#include <dlfcn.h>
#include <link.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>

typedef struct py_object py_object;

static struct {
	int (*initialized)(void);
	int (*finalizing)(void);
	void *(*this_tstate)(void);
	int (*gil_check)(void);
	int (*gil_ensure)(void);
	void (*gil_release)(int);
	py_object *(*get_frame)(void);
	py_object *(*frame_back)(py_object *);
	py_object *(*frame_code)(py_object *);
	int (*frame_lasti)(py_object *);
	int (*frame_line)(py_object *);
	py_object *(*getattr)(py_object *, const char *);
	const char *(*utf8)(py_object *);
	void (*incref)(py_object *);
	void (*decref)(py_object *);
	void (*err_fetch)(py_object **, py_object **, py_object **);
	void (*err_restore)(py_object *, py_object *, py_object *);
} py;

/* The sites: SLOTS pages of address space, reserved, one site in each. */
#define SLOTS 65536
#define PAGE 4096
static uintptr_t sites;
static uint32_t nsites;

/* Memory of the tables: pages of their own, never the program's heap,
 * where a page could hold a pending buffer the checker protects. */
static void *alloc(size_t n)
{
	void *p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	return p == MAP_FAILED ? NULL : p;
}

/* A table from a 64-bit key to a site (open addressing; 0: empty). Keys of
 * the frame table hash a code object and an instruction offset; keys of
 * the line table hash a line, file and function. SKIP marks a frame of
 * the import machinery, to look through on every call. */
struct table {
	uint64_t *keys, *vals;
	uint64_t cap, n;
};
#define SKIP 1

static uint64_t *find(struct table *t, uint64_t key)
{
	if (!t->cap)
		return NULL;
	for (uint64_t i = key & (t->cap - 1);; i = (i + 1) & (t->cap - 1)) {
		if (t->keys[i] == key)
			return &t->vals[i];
		if (!t->keys[i])
			return NULL;
	}
}

static void put(struct table *t, uint64_t key, uint64_t val)
{
	if (2 * (t->n + 1) > t->cap) {
		struct table g = {alloc(16 * (t->cap ? 2 * t->cap : 256)), NULL, t->cap ? 2 * t->cap : 256, 0};
		if (!g.keys)
			return;
		g.vals = g.keys + g.cap;
		for (uint64_t i = 0; i < t->cap; i++)
			if (t->keys[i])
				put(&g, t->keys[i], t->vals[i]);
		if (t->cap)
			munmap(t->keys, 16 * t->cap);
		*t = g;
	}
	uint64_t i = key & (t->cap - 1);
	while (t->keys[i] && t->keys[i] != key)
		i = (i + 1) & (t->cap - 1);
	t->n += !t->keys[i];
	t->keys[i] = key, t->vals[i] = val;
}

static struct table frames, lines;

/* CPython 3.11's thread state and frames (Include/cpython/pystate.h,
 * Include/internal/pycore_frame.h): cframe, then its current_frame, then
 * its frame object. offsets: 0 unchecked, 1 checked, -1 not these. */
#define TS_CFRAME 56
#define CFRAME_CURRENT 8
#define FRAME_CODE 32
#define FRAME_OBJ 40
#define FRAME_PREVIOUS 48
#define FRAME_INSTR 56

/* The fast path (3.11, offsets checked): a call whose instruction was seen
 * before is found from the frame the thread is executing, read at the
 * offsets, without the GIL or any call into the interpreter: a few loads
 * and a probe, what a polling loop pays per poll. Its table is written
 * under the GIL only and read by any thread: entries are published key
 * last, a grown table by its pointer, and an old table is never unmapped
 * (a reader may be in it; the tables grow by doubling, so this is less
 * than the live one). */
struct fast {
	uint64_t *keys, *vals, cap, n;
};
static struct fast *fastp;

/* code_lines: the site of a line of a code object, for the fault handler,
 * which may run without the GIL (NumPy releases it) while another thread
 * adds to the tables: a shared table like the fast one. Its writers (and
 * the sites' and pending lines' counters) take wlock, a spin lock: a thread
 * in the hook never takes it from a handler too (faults in the layer are
 * not the program's accesses). */
static struct fast *code_lines;
static char wlock;

static void lock(void)
{
	while (__atomic_test_and_set(&wlock, __ATOMIC_ACQUIRE))
		;
}

static void unlock(void) { __atomic_clear(&wlock, __ATOMIC_RELEASE); }

/* shared_find looks key up in a shared table; 0 if absent. No lock. */
static uint64_t shared_find(struct fast **tp, uint64_t key)
{
	struct fast *t = __atomic_load_n(tp, __ATOMIC_ACQUIRE);
	if (!t)
		return 0;
	for (uint64_t i = key & (t->cap - 1);; i = (i + 1) & (t->cap - 1)) {
		uint64_t k = __atomic_load_n(&t->keys[i], __ATOMIC_ACQUIRE);
		if (k == key)
			return t->vals[i];
		if (!k)
			return 0;
	}
}

static void *alloc(size_t n);

/* shared_put adds key to a shared table (the writer serialised: the GIL or
 * wlock). A grown table replaces the old one by its pointer; the old one is
 * never unmapped, since a reader may be in it. */
static void shared_put(struct fast **tp, uint64_t key, uint64_t val)
{
	struct fast *t = *tp;
	if (!t || 2 * (t->n + 1) > t->cap) {
		uint64_t cap = t ? 2 * t->cap : 256;
		struct fast *g = alloc(sizeof *g + 16 * cap);
		if (!g)
			return;
		g->keys = (uint64_t *)(g + 1), g->vals = g->keys + cap, g->cap = cap, g->n = 0;
		for (uint64_t i = 0; t && i < t->cap; i++)
			if (t->keys[i]) {
				uint64_t j = t->keys[i] & (cap - 1);
				while (g->keys[j])
					j = (j + 1) & (cap - 1);
				g->keys[j] = t->keys[i], g->vals[j] = t->vals[i], g->n++;
			}
		__atomic_store_n(tp, g, __ATOMIC_RELEASE);
		t = g;
	}
	uint64_t i = key & (t->cap - 1);
	while (t->keys[i] && t->keys[i] != key)
		i = (i + 1) & (t->cap - 1);
	if (t->keys[i])
		return;
	t->vals[i] = val;
	__atomic_store_n(&t->keys[i], key, __ATOMIC_RELEASE);
	t->n++;
}

/* current reads the frame the thread is executing: its code object and
 * instruction; 0 if there is none. */
static int current(py_object **code, char **instr)
{
	char *ts = py.this_tstate();
	char *cframe = ts ? *(char **)(ts + TS_CFRAME) : NULL;
	char *f = cframe ? *(char **)(cframe + CFRAME_CURRENT) : NULL;
	if (!f)
		return 0;
	*code = *(py_object **)(f + FRAME_CODE);
	*instr = *(char **)(f + FRAME_INSTR);
	/* the instruction is in the code object (3.11: co_code_adaptive) */
	return *code && *instr > (char *)*code && *instr < (char *)*code + (1 << 24);
}

static uint64_t mix(uint64_t h, uint64_t x);
static uint64_t fast_key(py_object *code, char *instr) { return mix((uint64_t)(uintptr_t)code, (uint64_t)(uintptr_t)instr); }
static const unsigned long *py_version;
static int offsets;

/* Lines met in a signal handler, described at the next MPI call. */
#define PENDING 64
static struct {
	uint64_t site, pc;
	py_object *code;
	int line;
} pending[PENDING];
static volatile int npending;

static uint64_t mix(uint64_t h, uint64_t x)
{
	h ^= x + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
	h *= 0xff51afd7ed558ccdULL;
	return h ^ (h >> 33) ? h ^ (h >> 33) : 1;
}

static uint64_t hash_str(uint64_t h, const char *s)
{
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ULL;
	return mix(h, 0);
}

/* str returns attribute name of o as UTF-8 (NULL if it has none); *ref
 * is the reference to drop once the string is used. */
static const char *str(py_object *o, const char *name, py_object **ref)
{
	*ref = py.getattr(o, name);
	const char *s = *ref ? py.utf8(*ref) : NULL;
	return s;
}

/* loads counts the objects loaded so far; maps_at, when the maps were last
 * written (by us). */
static unsigned long long maps_at;

static int count_loads(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)size;
	*(unsigned long long *)data = info->dlpi_adds;
	return 1;
}

/* refresh_maps writes the mappings again if modules were loaded since: a
 * script imports extension modules (NumPy) after MPI_Init, and a buffer
 * access found in their code must be placed. Checked at new sites only. */
static void refresh_maps(void)
{
	unsigned long long adds = 0;
	dl_iterate_phdr(count_loads, &adds);
	if (adds != maps_at) {
		maps_at = adds;
		mpivet_write_maps();
	}
}

/* log_site describes a site: MPIVET_META_PYSITE. */
static void log_site(uint64_t site, uint64_t pc, int line, const char *file, const char *fn)
{
	size_t nf = strnlen(file, 1024), nn = strnlen(fn, 256);
	uint64_t w[4 + 128 + 1 + 32] = {site, pc, (uint64_t)line, nf};
	uint64_t k = 4;
	memcpy(&w[k], file, nf);
	k += (nf + 7) / 8;
	w[k++] = nn;
	memcpy(&w[k], fn, nn);
	k += (nn + 7) / 8;
	mpivet_meta(MPIVET_META_PYSITE, w, k);
	refresh_maps();
}

/* names gives a code object's file and function; drop the references
 * *a and *b once they are used. */
static void names(py_object *code, const char **file, const char **fn, py_object **a, py_object **b)
{
	*file = str(code, "co_filename", a);
	*fn = str(code, "co_qualname", b);
	if (!*fn) {
		if (*b)
			py.decref(*b);
		*fn = str(code, "co_name", b);
	}
}

/* flush_pending describes the sites given in signal handlers (the GIL
 * held, outside any handler). */
static void flush_pending(void)
{
	static __typeof__(pending) mine; /* under the GIL: one flush at a time */
	lock();
	int n = npending;
	memcpy(mine, pending, n * sizeof pending[0]);
	npending = 0;
	unlock();
	for (int i = 0; i < n; i++) {
		py_object *a, *b;
		const char *file, *fn;
		names(mine[i].code, &file, &fn, &a, &b);
		py.incref(mine[i].code); /* kept, as the frame table's */
		if (file && fn)
			log_site(mine[i].site, mine[i].pc, mine[i].line, file, fn);
		if (a)
			py.decref(a);
		if (b)
			py.decref(b);
	}
}

/* fault_site is the recorder's mpivet_fault_site_hook: the site of the
 * line the thread is executing, read without allocating (in a signal
 * handler), or 0. The GIL may be released (NumPy's loops over large
 * arrays release it): nothing is written to the interpreter's objects then;
 * this thread's frames are its own. */
static uint64_t fault_site(void)
{
	if (offsets != 1 || !py.initialized())
		return 0;
	char *ts = py.this_tstate();
	char *cframe = ts ? *(char **)(ts + TS_CFRAME) : NULL;
	char *frame = cframe ? *(char **)(cframe + CFRAME_CURRENT) : NULL;
	py_object *fo = NULL;
	/* the innermost frame that has its frame object (making one allocates):
	 * else the line of the call that led to the access */
	for (int depth = 0; frame && depth < 16; depth++) {
		if ((fo = *(py_object **)(frame + FRAME_OBJ)))
			break;
		frame = *(char **)(frame + FRAME_PREVIOUS);
	}
	if (!fo)
		return 0;
	py_object *code = *(py_object **)(frame + FRAME_CODE); /* borrowed: the frame holds it */
	int line = py.frame_line(fo);
	uint64_t key = mix((uint64_t)(uintptr_t)code, (uint64_t)line << 1 | 1);
	uint64_t site = shared_find(&code_lines, key);
	if (site)
		return site;
	lock();
	if (!(site = shared_find(&code_lines, key)) && nsites < SLOTS && npending < PENDING) {
		site = sites + (uint64_t)nsites++ * PAGE + 8 + key % (PAGE - 16);
		/* described, and its code object kept, at the next MPI call */
		pending[npending].site = site, pending[npending].code = code, pending[npending].line = line;
		pending[npending].pc = 0;
		npending++;
		shared_put(&code_lines, key, site);
	}
	unlock();
	return site;
}

/* check_offsets compares the frame object and code found at the thread
 * state's offsets with the interpreter's answers, once (the GIL held). */
static void check_offsets(py_object *frame)
{
	offsets = -1;
	if (!py_version || (*py_version >> 16) != 0x030b)
		return;
	char *ts = py.this_tstate();
	char *cframe = ts ? *(char **)(ts + TS_CFRAME) : NULL;
	char *f = cframe ? *(char **)(cframe + CFRAME_CURRENT) : NULL;
	if (!f || *(py_object **)(f + FRAME_OBJ) != frame)
		return;
	py_object *code = py.frame_code(frame);
	if (code && *(py_object **)(f + FRAME_CODE) == code) {
		offsets = 1;
		mpivet_fault_site_hook = fault_site;
	}
	if (code)
		py.decref(code);
}

/* fast_site finds the site of the thread's current instruction in the
 * fast table, or 0. No GIL needed. */
static uint64_t fast_site(void)
{
	py_object *code;
	char *instr;
	if (!current(&code, &instr))
		return 0;
	return shared_find(&fastp, fast_key(code, instr));
}

/* fast_put adds the site of the thread's current instruction (the GIL
 * held, frame the innermost frame object). */
static void fast_put(py_object *frame, uint64_t site)
{
	py_object *code;
	char *instr;
	char *ts = py.this_tstate();
	char *cframe = ts ? *(char **)(ts + TS_CFRAME) : NULL;
	char *f = cframe ? *(char **)(cframe + CFRAME_CURRENT) : NULL;
	if (f && *(py_object **)(f + FRAME_OBJ) == frame && current(&code, &instr))
		shared_put(&fastp, fast_key(code, instr), site);
}

/* describe makes the site of a Python line: the same site for the same
 * line, file and function, logged once. */
static uint64_t describe(py_object *frame, py_object *code, uint64_t pc)
{
	py_object *fref, *nref;
	const char *file, *fn;
	names(code, &file, &fn, &fref, &nref);
	int line = py.frame_line(frame);
	uint64_t site = pc;
	if (file && fn) {
		uint64_t key = mix(hash_str(hash_str(0xcbf29ce484222325ULL, file), fn), (uint64_t)line);
		uint64_t *v = find(&lines, key);
		if (v)
			site = *v;
		else if (nsites < SLOTS) {
			lock();
			site = sites + (uint64_t)nsites++ * PAGE + 8 + key % (PAGE - 16);
			unlock();
			put(&lines, key, site);
			log_site(site, pc, line, file, fn);
		}
		lock();
		shared_put(&code_lines, mix((uint64_t)(uintptr_t)code, (uint64_t)line << 1 | 1), site);
		unlock();
	}
	if (fref)
		py.decref(fref);
	if (nref)
		py.decref(nref);
	return site;
}

/* is_import tells a frame of the import machinery (frozen importlib), which
 * runs an extension module's initialisation (mpi4py's MPI_Init): the line
 * that matters is the import statement below it. */
static int is_import(py_object *code)
{
	py_object *ref;
	const char *file = str(code, "co_filename", &ref);
	int r = file && strncmp(file, "<frozen importlib", 17) == 0;
	if (ref)
		py.decref(ref);
	return r;
}

/* site_of finds the site of the innermost Python frame outside the import
 * machinery (the GIL held). */
static uint64_t site_of(uint64_t pc)
{
	py_object *frame = py.get_frame(); /* borrowed */
	if (!frame)
		return pc;
	if (!offsets)
		check_offsets(frame);
	if (npending)
		flush_pending();
	py.incref(frame);
	uint64_t site = pc;
	for (int depth = 0; frame && depth < 64; depth++) {
		py_object *code = py.frame_code(frame);
		if (!code)
			break;
		int at = py.frame_lasti ? py.frame_lasti(frame) : py.frame_line(frame);
		uint64_t key = mix((uint64_t)(uintptr_t)code, (uint64_t)(int64_t)at);
		uint64_t *v = find(&frames, key);
		if (!v) {
			if (is_import(code))
				put(&frames, key, SKIP);
			else {
				py.incref(code); /* kept: the key's address is never another code's */
				put(&frames, key, describe(frame, code, pc));
			}
			v = find(&frames, key);
		}
		py.decref(code);
		if (v && *v != SKIP) {
			site = *v;
			if (depth == 0 && offsets == 1)
				fast_put(frame, site);
			break;
		}
		py_object *back = py.frame_back(frame);
		py.decref(frame);
		frame = back;
	}
	if (frame)
		py.decref(frame);
	return site;
}

/* python_site is the recorder's mpivet_site_hook in a Python interpreter. */
static uint64_t python_site(uint64_t pc)
{
	if (!py.initialized() || (py.finalizing && py.finalizing()) || !py.this_tstate())
		return pc; /* before or after the interpreter, or a thread it does not know */
	if (offsets == 1 && !npending) {
		uint64_t s = fast_site();
		if (s)
			return s;
	}
	int held = py.gil_check();
	int state = held ? 0 : py.gil_ensure();
	py_object *t, *v, *tb;
	py.err_fetch(&t, &v, &tb); /* the caller's exception, if any, is not ours */
	uint64_t site = site_of(pc);
	py.err_restore(t, v, tb);
	if (!held)
		py.gil_release(state);
	return site;
}

#define LOOK(field, name) (*(void **)&py.field = dlsym(RTLD_DEFAULT, name))

static void py_log_opened(void)
{
	if (!LOOK(initialized, "Py_IsInitialized"))
		return; /* not a Python interpreter */
	if (!LOOK(finalizing, "_Py_IsFinalizing"))
		LOOK(finalizing, "Py_IsFinalizing"); /* 3.13 */
	LOOK(frame_lasti, "PyFrame_GetLasti"); /* 3.11 */
	py_version = dlsym(RTLD_DEFAULT, "Py_Version");
	int ok = LOOK(this_tstate, "PyGILState_GetThisThreadState") && LOOK(gil_check, "PyGILState_Check") &&
		 LOOK(gil_ensure, "PyGILState_Ensure") && LOOK(gil_release, "PyGILState_Release") &&
		 LOOK(get_frame, "PyEval_GetFrame") && LOOK(frame_back, "PyFrame_GetBack") &&
		 LOOK(frame_code, "PyFrame_GetCode") && LOOK(frame_line, "PyFrame_GetLineNumber") &&
		 LOOK(getattr, "PyObject_GetAttrString") && LOOK(utf8, "PyUnicode_AsUTF8") && LOOK(incref, "Py_IncRef") &&
		 LOOK(decref, "Py_DecRef") && LOOK(err_fetch, "PyErr_Fetch") && LOOK(err_restore, "PyErr_Restore");
	if (!ok)
		return; /* an interpreter older than 3.9 (no PyFrame_GetBack): C call sites */
	void *r = mmap(NULL, (size_t)SLOTS * PAGE, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (r == MAP_FAILED)
		return;
	sites = (uintptr_t)r;
	mpivet_site_hook = python_site;
}

static const struct mpivet_service service = {.log_opened = py_log_opened};

__attribute__((constructor(MPIVET_SERVICE_PRIORITY))) static void py_register(void) { mpivet_register(&service); }
