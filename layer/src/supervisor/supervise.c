/*
 * mpivet rank supervisor: the launcher (mpirun, mpiexec, srun) starts this in
 * place of the program, once per rank:
 *
 *   mpivet-supervise RUNDIR LAYER.so PROGRAM ARGS...
 *
 * It starts PROGRAM with the interposition layer preloaded, passes on the
 * signals the launcher sends, and writes RUNDIR/p.HOST.PID.exit saying how
 * the program ended: only a parent can know that a rank was killed by a
 * signal or returned non-zero from main. It then ends the same way, so the
 * launcher sees what it would have seen without mpivet.
 *
 * It also passes the program's standard error on to the launcher and keeps a
 * copy in RUNDIR/p.HOST.PID.err (its first MiB and its last 64 KiB): an MPI
 * that ends a job prints why there, a program says why it gives up, and
 * launchers may kill their forwarders before passing it on.
 *
 * No stray processes: the program dies with its supervisor (PDEATHSIG), and
 * the supervisor with its launcher daemon.
 *
 * On a host other than mpivet's (RUNDIR/layer.conf says which host that is),
 * the rank's state page and log reach mpivet through the shared file system,
 * whose clients cache what they read. So every SYNC_MS the supervisor writes
 * them back (fsync: the pages the rank wrote through its mapping are in this
 * host's page cache) and then counts the sync in RUNDIR/p.HOST.PID.sync.
 * mpivet decides a deadlock only from state read after every remote rank's
 * count moved on twice since the run stopped progressing: that state is at
 * most one period old, and newer than the stall. With the count goes what
 * /proc says about the rank (sched), which mpivet cannot read from its
 * host: a stopped or unscheduled rank is no evidence of a deadlock.
 *
 * Plain C without MPI (with record/conf.c, the reader of layer.conf); built
 * once per machine next to the layer.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdint.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../generated/format.h" /* MPIVET_CONF_* */
#include "../record/conf.h"
#include "../record/create.h"
#include "logsum.h"

static volatile sig_atomic_t child, forwarded;

static void forward(int sig)
{
	forwarded = sig;
	if (child > 0)
		kill(child, sig);
}

/* cannot_write says on standard error (the launcher passes it on to mpivet,
 * whatever room the run directory has) that the supervisor could not write
 * its record path, in the layer's form (record/log.c, mpivet_cannot_write). */
static void cannot_write(const char *path, int err)
{
	fprintf(stderr, "mpivet: cannot write its records: %s: %s\n", path, strerror(err));
}

/* write_all writes n bytes of buf to fd: 0, or the error (a short write
 * on a full file system is ENOSPC). */
static int write_all(int fd, const char *buf, size_t n)
{
	while (n > 0) {
		ssize_t w = write(fd, buf, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return w < 0 ? errno : ENOSPC;
		buf += w, n -= (size_t)w;
	}
	return 0;
}

static void write_exit(const char *dir, const char *host, int pid, int status, const char *exec_error)
{
	char path[4096], tmp[4200], buf[8192];
	snprintf(path, sizeof path, "%s/p.%s.%d.exit", dir, host, pid);
	snprintf(tmp, sizeof tmp, "%s.tmp", path);
	int exited = exec_error ? 1 : WIFEXITED(status);
	int code = exec_error ? 127 : (WIFEXITED(status) ? WEXITSTATUS(status) : 0);
	int sig = (!exec_error && WIFSIGNALED(status)) ? WTERMSIG(status) : 0;
	int core = (!exec_error && WIFSIGNALED(status)) ? WCOREDUMP(status) != 0 : 0;
	char esc[1024] = "";
	if (exec_error) {
		size_t k = 0;
		for (const char *s = exec_error; *s && k < sizeof esc - 2; s++) {
			if (*s == '"' || *s == '\\')
				esc[k++] = '\\';
			esc[k++] = *s;
		}
		esc[k] = 0;
	}
	struct timespec now;
	clock_gettime(CLOCK_REALTIME, &now);
	int n = snprintf(buf, sizeof buf,
			 "{\"host\":\"%s\",\"pid\":%d,\"exited\":%s,\"code\":%d,\"signal\":%d,\"core\":%s,"
			 "\"forwarded\":%d,\"exec_error\":\"%s\",\"time_ns\":%lld",
			 host, pid, exited ? "true" : "false", code, sig, core ? "true" : "false", (int)forwarded, esc,
			 (long long)now.tv_sec * 1000000000LL + now.tv_nsec);
	/* the rank's records as they are now that it has ended (logsum.c) */
	char log[4200];
	uint64_t end;
	uint32_t crc;
	snprintf(log, sizeof log, "%s/p.%s.%d.log", dir, host, pid);
	if (!exec_error && mpivet_log_sum(log, &end, &crc))
		n += snprintf(buf + n, sizeof buf - n, ",\"log_end\":%llu,\"log_crc32c\":%u", (unsigned long long)end, crc);
	n += snprintf(buf + n, sizeof buf - n, "}\n");
	int fd = mpivet_create(tmp, O_WRONLY); /* then renamed over path: a link there is replaced, not followed */
	int e = fd < 0 ? errno : write_all(fd, buf, (size_t)n);
	if (fd >= 0 && close(fd) != 0 && !e)
		e = errno;
	if (!e && rename(tmp, path) != 0)
		e = errno;
	if (e) {
		unlink(tmp);
		cannot_write(path, e);
	}
}

#define SYNC_MS 250

/* remote reports whether mpivet runs on another host than this one. */
static int remote(const char *dir, const char *host)
{
	if (!mpivet_conf_load(dir))
		return 0;
	const char *h = mpivet_conf(MPIVET_CONF_HOST);
	return (h && strcmp(h, host) != 0) || mpivet_conf_is(MPIVET_CONF_SYNC, "always"); /* sync=always: tests, as if remote */
}

/* sched samples what the kernel says about the rank (trace.Sched): its
 * state letter and a number that grows whenever it has had a CPU (main
 * thread's run time from schedstat plus all threads' user and system time,
 * in ns). mpivet decides a deadlock only on ranks shown to wait: not
 * stopped, and sleeping or having run since the stall began. */
static void sched(int pid, uint64_t *state, uint64_t *ran)
{
	char path[64], buf[1024];
	*state = 0;
	*ran = 0;
	snprintf(path, sizeof path, "/proc/%d/stat", pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	ssize_t n = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (n <= 0)
		return;
	buf[n] = 0;
	char *p = strrchr(buf, ')'); /* the command name may hold anything */
	unsigned long long ut = 0, st = 0;
	char c;
	if (!p || sscanf(p + 1, " %c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &c, &ut, &st) != 3)
		return;
	*ran = (ut + st) * 10000000ULL; /* USER_HZ is 100 */
	snprintf(path, sizeof path, "/proc/%d/schedstat", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		unsigned long long ns = 0;
		n = read(fd, buf, sizeof buf - 1);
		close(fd);
		if (n > 0) {
			buf[n] = 0;
			if (sscanf(buf, "%llu", &ns) == 1)
				*ran += ns;
		}
	}
	*state = (unsigned char)c;
}

/* sync writes the rank's state page and log back to the shared file system
 * and counts it, with a sample of the rank's scheduling state: the file
 * holds three words, the count, the state letter and the run time. */
static void sync_files(const char *dir, const char *host, int pid, uint64_t *count)
{
	static const char *const exts[] = {"state", "log"};
	char path[4400];
	for (int i = 0; i < 2; i++) {
		snprintf(path, sizeof path, "%s/p.%s.%d.%s", dir, host, pid, exts[i]);
		int fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd >= 0) {
			fsync(fd);
			close(fd);
		}
	}
	++*count;
	uint64_t w[3] = {*count};
	sched(pid, &w[1], &w[2]);
	snprintf(path, sizeof path, "%s/p.%s.%d.sync", dir, host, pid);
	int fd = open(path, O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0) {
		cannot_write(path, errno);
		return;
	}
	ssize_t n = pwrite(fd, w, sizeof w, 0);
	if (n == sizeof w)
		fsync(fd);
	else
		cannot_write(path, n < 0 ? errno : ENOSPC);
	close(fd);
}

/* The rank's standard error is kept in p.HOST.PID.err: its first
 * HEAD_BYTES (how it started) and, past that, its last TAIL_BYTES (how it
 * ended: the message before a crash, an assert's text). */
#define HEAD_BYTES (1L << 20)
#define TAIL_BYTES (64L << 10)
static char tail_buf[TAIL_BYTES];
static long long tail_total; /* bytes seen past the head */

static void keep_tail(const char *b, ssize_t n)
{
	for (ssize_t i = 0; i < n; i++)
		tail_buf[(tail_total + i) % TAIL_BYTES] = b[i];
	tail_total += n;
}

static int write_tail(int fd)
{
	if (tail_total == 0)
		return 0;
	long long n = tail_total < TAIL_BYTES ? tail_total : TAIL_BYTES;
	char note[128];
	int k = snprintf(note, sizeof note, "\n[mpivet: %lld bytes of standard error not kept]\n", tail_total - n);
	int e = tail_total > n ? write_all(fd, note, (size_t)k) : 0;
	long long start = tail_total - n;
	for (long long i = 0; i < n && !e;) { /* at most two pieces of the ring */
		long long at = (start + i) % TAIL_BYTES, len = TAIL_BYTES - at < n - i ? TAIL_BYTES - at : n - i;
		e = write_all(fd, tail_buf + at, (size_t)len);
		i += len;
	}
	return e;
}

static long long now_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (long long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

static const int forwarded_signals[] = {SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGCONT, SIGALRM};

/* launch starts the program (argv) with the layer preloaded, its standard
 * error going to efd[0], and the launcher's signals forwarded to it. It
 * returns the program's pid (with *exec_error set if it could not be
 * executed), or -1 if it could not be started. */
static pid_t launch(const char *dir, const char *layer, char **argv, int efd[2], int *exec_error)
{
	/* Preload the layer into the program only. */
	const char *old = getenv("LD_PRELOAD");
	char *pre = malloc(strlen(layer) + (old ? strlen(old) : 0) + 2);
	sprintf(pre, "%s%s%s", layer, old && *old ? ":" : "", old && *old ? old : "");
	setenv("LD_PRELOAD", pre, 1);
	setenv("MPIVET_DIR", dir, 1);

	/* Exec failures reach the parent through a close-on-exec pipe. */
	int pfd[2];
	if (pipe2(pfd, O_CLOEXEC) != 0 || pipe(efd) != 0)
		return -1;
	size_t nsigs = sizeof forwarded_signals / sizeof forwarded_signals[0];
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = forward;
	sa.sa_flags = SA_RESTART;
	for (size_t i = 0; i < nsigs; i++)
		sigaction(forwarded_signals[i], &sa, NULL);

	pid_t parent = getpid();
	pid_t pid = fork();
	if (pid < 0) {
		perror("mpivet: fork");
		return -1;
	}
	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent)
			_exit(127);
		signal(SIGTERM, SIG_DFL);
		for (size_t i = 0; i < nsigs; i++)
			signal(forwarded_signals[i], SIG_DFL);
		dup2(efd[1], 2);
		close(efd[0]);
		close(efd[1]);
		execvp(argv[0], argv);
		int e = errno;
		if (write(pfd[1], &e, sizeof e) < 0)
			_exit(127);
		_exit(127);
	}
	child = pid;
	close(pfd[1]);
	close(efd[1]);
	int e = 0;
	ssize_t r;
	do
		r = read(pfd[0], &e, sizeof e);
	while (r < 0 && errno == EINTR);
	*exec_error = r == sizeof e ? e : 0;
	return pid;
}

/* pass_stderr passes the program's standard error (fd) on to the
 * launcher and keeps its head and tail in RUNDIR/p.HOST.PID.err, until the
 * program closes it; meanwhile, when syncing, it writes the rank's records
 * back every SYNC_MS. */
static void pass_stderr(const char *dir, const char *host, pid_t pid, int fd, int syncing, uint64_t *syncs)
{
	char epath[4400];
	snprintf(epath, sizeof epath, "%s/p.%s.%d.err", dir, host, pid);
	int efile = mpivet_create(epath, O_WRONLY), err = efile < 0 ? errno : 0;
	long kept = 0;
	char buf[8192];
	long long next = now_ms() + SYNC_MS;
	for (;;) {
		if (syncing) {
			long long wait = next - now_ms();
			struct pollfd pf = {fd, POLLIN, 0};
			int k = poll(&pf, 1, wait > 0 ? (int)wait : 0);
			if (k < 0 && errno != EINTR)
				break;
			if (now_ms() >= next) {
				sync_files(dir, host, pid, syncs);
				next = now_ms() + SYNC_MS;
			}
			if (k <= 0)
				continue;
		}
		ssize_t n = read(fd, buf, sizeof buf);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		/* the record first: when the launcher ends the job (an abort),
		 * it may kill this process while the pass-through waits on a
		 * full pipe, and what the rank said last is what explains it */
		if (efile >= 0 && kept < HEAD_BYTES) {
			if ((err = write_all(efile, buf, (size_t)n)) != 0) {
				close(efile);
				efile = -1;
			}
			kept += n;
		} else {
			keep_tail(buf, n);
		}
		for (ssize_t o = 0; o < n;) {
			ssize_t w = write(2, buf + o, n - o);
			if (w < 0 && errno == EINTR)
				continue;
			if (w <= 0)
				break;
			o += w;
		}
	}
	if (efile >= 0) {
		err = write_tail(efile);
		if (close(efile) != 0 && !err)
			err = errno;
	}
	if (err)
		cannot_write(epath, err);
	close(fd);
}

/* wait_program waits for the program to end and returns its status; when
 * syncing, it writes the rank's records back meanwhile. */
static int wait_program(const char *dir, const char *host, pid_t pid, int syncing, uint64_t *syncs)
{
	int status = 0;
	for (;;) {
		pid_t w = waitpid(pid, &status, syncing ? WNOHANG : 0);
		if (w == pid || (w < 0 && errno != EINTR))
			break;
		if (w == 0) { /* the program closed its error stream but still runs */
			sync_files(dir, host, pid, syncs);
			struct timespec t = {0, SYNC_MS * 1000000L};
			nanosleep(&t, NULL);
		}
	}
	return status;
}

int main(int argc, char **argv)
{
	if (argc < 4) {
		fprintf(stderr, "usage: mpivet-supervise RUNDIR LAYER PROGRAM [ARGS...]\n");
		return 2;
	}
	const char *dir = argv[1], *layer = argv[2];
	char host[256] = "";
	gethostname(host, sizeof host - 1);
	prctl(PR_SET_PDEATHSIG, SIGKILL);

	int efd[2], e = 0;
	pid_t pid = launch(dir, layer, argv + 3, efd, &e);
	if (pid < 0)
		return 2;
	if (e) {
		char msg[1024];
		snprintf(msg, sizeof msg, "cannot execute %s: %s", argv[3], strerror(e));
		fprintf(stderr, "mpivet: %s\n", msg);
		waitpid(pid, NULL, 0);
		write_exit(dir, host, pid, 0, msg);
		return 127;
	}
	int syncing = remote(dir, host);
	uint64_t syncs = 0;
	pass_stderr(dir, host, pid, efd[0], syncing, &syncs);
	int status = wait_program(dir, host, pid, syncing, &syncs);
	if (syncing) /* the records as the rank left them, before their sum */
		sync_files(dir, host, pid, &syncs);
	write_exit(dir, host, pid, status, NULL);
	if (WIFSIGNALED(status)) {
		/* End the same way, without a second core dump. */
		struct rlimit no = {0, 0};
		setrlimit(RLIMIT_CORE, &no);
		signal(WTERMSIG(status), SIG_DFL);
		raise(WTERMSIG(status));
		return 128 + WTERMSIG(status);
	}
	return WEXITSTATUS(status);
}
