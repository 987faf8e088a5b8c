/*
 * files/: what the program's files held before the run, kept so that every
 * replay starts from the file state the first run started from. Above the
 * recorder (its settings) and the buffer checker (which code is the MPI's,
 * buffers/mpicode.c); nothing calls it: it interposes the C library's calls
 * that create, change or remove a file (files.c) and keeps a file's
 * original state (keep.c) the first time any rank of any run of the
 * verification touches it.
 *
 * Why here, and not a private overlay of the working directory per replay
 * (user and mount namespaces with overlayfs): the layer is preloaded into
 * every rank on every host whatever the launcher (mpirun, srun across
 * nodes, where namespaces are per node and per launcher), so it sees
 * files anywhere (an output directory given as an absolute path, /tmp/out,
 * a parallel file system), needs no privileges nor kernel features, and
 * MPI-IO reaches it too: ROMIO and OMPIO open and delete files through
 * the C library from the MPI's own objects, which are told apart from the
 * MPI's private files (session directories, shared-memory segments) by
 * the MPI_File_ call on the stack. What it does not see: files written
 * by the program's child processes (the layer leaves their environment),
 * by direct system calls, or through a name that aliases another
 * (symbolic links to directories, hard links): the report says a replay
 * diverged, and --replay-hook stays for such state.
 *
 * The store is a directory of the run (layer.conf's files= key), shared
 * by every rank and every run of the verification:
 *
 *   ID.claim   taken (O_EXCL) by the one rank that keeps the file's state
 *   ID         the original content (a regular file) or link target
 *   ID.done    the state is kept; other ranks wait for it before they go on
 *   manifest   one line per file: KIND ID MODE SIZE MTIME HOST PATH
 *
 * KIND is absent (the file did not exist), file, dir, link, or untracked
 * (a directory renamed whole, or a file whose content could not be
 * copied: the driver leaves it alone and says so). ID is a hash of the
 * absolute path (and of HOST, the rank's host, when the file is not on
 * the run directory's file system: a node's own /tmp is not another's),
 * MTIME seconds.nanoseconds. The driver (driver/files.go) restores every
 * entry between runs: on its own host, and on the file system it shares
 * with the ranks (the run directory's); files on other hosts' own file
 * systems it leaves alone, and says so.
 */
#ifndef MPIVET_FILES_H
#define MPIVET_FILES_H

#include <stdint.h>

#pragma GCC visibility push(hidden)

/* fs_keep keeps the state of the file at the absolute path abs before a
 * rank changes it (follow: through a symbolic link; untracked: leave it
 * alone when restoring), once per file for the whole verification. */
void fs_keep(const char *abs, uint64_t id, int follow, int untracked);

/* fs_store is the store's directory, "" when files are not kept; fs_host
 * the rank's host. */
extern char fs_store[4096];
extern char fs_host[256];

/* The C library's own functions, found with dlsym(RTLD_NEXT). */
extern int (*fs_real_open)(const char *, int, ...);

#pragma GCC visibility pop

#endif
