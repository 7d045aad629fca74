// SPDX-License-Identifier: GPL-2.0
/*
 * kstats-ufunc: user-space functions for kstats' uprobe targets ("trace
 * PATH:SYMBOL", tests/guest/94-uprobe.sh), called in known numbers and
 * timed from both sides. Built static by mkinitramfs.sh; every traced
 * function is global, in .symtab, never inlined, cloned or folded.
 *
 *   kstats-ufunc calls N NS
 *	N calls of kstats_ufunc_work(NS), each timed by the caller (outer)
 *	and by the function itself (inner, from its first clock read to its
 *	last): prints "calls N inner_median I outer_median O inner_sum S1
 *	outer_sum S2" (ns; the medians are the lower ones, rank (N + 1) / 2).
 *	A probe's time of each call lies between the two.
 *   kstats-ufunc sleep SEC
 *	prints "sleeping", calls kstats_ufunc_sleep(SEC), prints "returned";
 *	SIGUSR1 ends the sleep early (the call returns normally).
 *   kstats-ufunc rate R SEC
 *	about R calls of kstats_ufunc_work(0) a second for SEC seconds (as
 *	many as it can where it cannot keep up), or until SIGTERM; prints
 *	"calls N".
 *   kstats-ufunc fork N NS
 *	N calls in the parent and N in a child: "child calls N", then
 *	"parent calls N" once the child has exited.
 *   kstats-ufunc exec N NS
 *	N calls, then exec of /proc/self/exe "calls N NS": N more.
 *   kstats-ufunc rec DEPTH NS
 *	one call of kstats_ufunc_rec(DEPTH, NS): DEPTH nested calls, the
 *	innermost spinning NS; prints "rec DEPTH".
 *   kstats-ufunc exit CODE
 *	kstats_ufunc_exit(CODE), which never returns.
 *   kstats-ufunc offset SYMBOL
 *	the file offset of SYMBOL in /proc/self/exe, as uprobes take it
 *	(its value less its PT_LOAD's p_vaddr, plus that p_offset): "0x..."
 *
 * kstats_ufunc_data is an object, not a function: no target kstats can
 * trace. (A static link leaves no undefined symbol in the program, not
 * even a weak reference that nothing defines; the script takes an
 * undefined import from a dynamic program of the guest.)
 */
#define _GNU_SOURCE
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/*
 * noinline and noclone: a call with a constant argument could otherwise
 * go to a ".constprop" copy that the probe on the symbol never sees;
 * used and the empty asm: kept, and not folded with another body.
 */
#define UFUNC	__attribute__((noinline, noclone, used))

int kstats_ufunc_data[16] __attribute__((used)) = { 1, 2, 3, 4 };

/* The last call's own first and last clock reads (ns). */
long long kstats_ufunc_t0, kstats_ufunc_t1;

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* Reads the clock until @ns passed since @t0; the loops, the last read. */
static inline long spin(long long t0, long ns, long long *t1)
{
	long loops = 0;

	do {
		*t1 = now_ns();
		loops++;
	} while (*t1 - t0 < ns);
	return loops;
}

UFUNC long kstats_ufunc_work(long ns)
{
	long long t0 = now_ns(), t1;
	long loops = spin(t0, ns, &t1);

	kstats_ufunc_t0 = t0;
	kstats_ufunc_t1 = t1;
	asm volatile("" ::: "memory");
	return loops;
}

/* Set by SIGUSR1: the sleep inside kstats_ufunc_sleep() ends early. */
static volatile sig_atomic_t sleep_wake;

static void on_usr1(int sig)
{
	(void)sig;
	sleep_wake = 1;
}

UFUNC int kstats_ufunc_sleep(int sec)
{
	unsigned int left = sec > 0 ? sec : 0;

	asm volatile("" ::: "memory");
	while (left && !sleep_wake)
		left = sleep(left);
	return 0;
}

/*
 * Not a tail call (the asm takes the result), so that each level is a
 * call of its own and returns through its caller.
 */
UFUNC long kstats_ufunc_rec(int depth, long ns)
{
	long long t1;
	long r;

	if (depth <= 1)
		return spin(now_ns(), ns, &t1);
	r = kstats_ufunc_rec(depth - 1, ns);
	asm volatile("" : "+r" (r) : : "memory");
	return r + 1;
}

UFUNC void kstats_ufunc_exit(int code)
{
	asm volatile("" ::: "memory");
	_exit(code);
}

static long arg(const char *s)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 0);
	if (errno || end == s || *end) {
		fprintf(stderr, "kstats-ufunc: bad number '%s'\n", s);
		exit(2);
	}
	return v;
}

static int cmp_ll(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;

	return (x > y) - (x < y);
}

/* The lower median of @v's @n values: rank (n + 1) / 2, from 1. */
static long long lower_median(long long *v, long n)
{
	qsort(v, n, sizeof(*v), cmp_ll);
	return v[(n + 1) / 2 - 1];
}

static int do_calls(long n, long ns)
{
	long long *in = calloc(n, sizeof(*in)), *out = calloc(n, sizeof(*out));
	long long s_in = 0, s_out = 0, o0, o1;
	long i;

	if (n <= 0 || !in || !out) {
		fprintf(stderr, "kstats-ufunc: calls %ld: nothing to do\n", n);
		return 2;
	}
	for (i = 0; i < n; i++) {
		o0 = now_ns();
		kstats_ufunc_work(ns);
		o1 = now_ns();
		in[i] = kstats_ufunc_t1 - kstats_ufunc_t0;
		out[i] = o1 - o0;
		s_in += in[i];
		s_out += out[i];
	}
	printf("calls %ld inner_median %lld outer_median %lld inner_sum %lld outer_sum %lld\n",
	       n, lower_median(in, n), lower_median(out, n), s_in, s_out);
	free(in);
	free(out);
	return 0;
}

static void work_n(long n, long ns)
{
	long i;

	for (i = 0; i < n; i++)
		kstats_ufunc_work(ns);
}

static volatile sig_atomic_t rate_stop;

static void on_term(int sig)
{
	(void)sig;
	rate_stop = 1;
}

static int do_rate(long r, long sec)
{
	long long t0 = now_ns(), t, due, end = t0 + sec * 1000000000LL;
	long n = 0;
	struct timespec ts;

	if (r <= 0) {
		fprintf(stderr, "kstats-ufunc: rate %ld\n", r);
		return 2;
	}
	signal(SIGTERM, on_term);
	while (!rate_stop && (t = now_ns()) < end) {
		/* Call n (from 0) is due n / r s after the start. */
		due = t0 + n * 1000000000LL / r;
		if (t < due) {
			if (due > end)
				due = end;
			ts.tv_sec = (due - t) / 1000000000LL;
			ts.tv_nsec = (due - t) % 1000000000LL;
			nanosleep(&ts, NULL);
			continue;
		}
		kstats_ufunc_work(0);
		n++;
	}
	printf("calls %ld\n", n);
	return 0;
}

static int do_fork(long n, long ns)
{
	int status;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		perror("fork");
		return 1;
	}
	work_n(n, ns);
	if (!pid) {
		printf("child calls %ld\n", n);
		fflush(stdout);
		_exit(0);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status)) {
		fprintf(stderr, "kstats-ufunc: child failed (status %d)\n", status);
		return 1;
	}
	printf("parent calls %ld\n", n);
	return 0;
}

static int do_exec(long n, long ns, char *sn, char *sns)
{
	char *argv[] = { "kstats-ufunc", "calls", sn, sns, NULL };

	work_n(n, ns);
	fflush(stdout);
	execv("/proc/self/exe", argv);
	perror("/proc/self/exe");
	return 1;
}

/* The whole of file @path, its size in *@len; NULL if it cannot be read. */
static unsigned char *slurp(const char *path, size_t *len)
{
	unsigned char *buf = NULL;
	struct stat st;
	ssize_t r;
	size_t got = 0;
	int fd = open(path, O_RDONLY);

	if (fd < 0 || fstat(fd, &st))
		goto fail;
	buf = malloc(st.st_size + 1);
	if (!buf)
		goto fail;
	while (got < (size_t)st.st_size) {
		r = read(fd, buf + got, st.st_size - got);
		if (r <= 0)
			goto fail;
		got += r;
	}
	close(fd);
	*len = got;
	return buf;
fail:
	perror(path);
	free(buf);
	if (fd >= 0)
		close(fd);
	return NULL;
}

/* Does [@off, @off + @size) lie within a file of @len bytes? */
static int within(size_t len, unsigned long long off, unsigned long long size)
{
	return off <= len && size <= len - off;
}

/*
 * SYMBOL's file offset in /proc/self/exe, from its ELF headers alone: the
 * symbol's value in .symtab (or .dynsym), less the p_vaddr of the PT_LOAD
 * segment that holds it, plus that segment's p_offset.
 */
static int do_offset(const char *name)
{
	const char *path = "/proc/self/exe";
	unsigned char *f;
	const Elf64_Ehdr *eh;
	const Elf64_Shdr *sh;
	const Elf64_Phdr *ph;
	const Elf64_Sym *sym;
	const char *str;
	size_t len, i, j, nsym;
	int found = 0;
	unsigned long long value = 0;

	f = slurp(path, &len);
	if (!f)
		return 1;
	eh = (const Elf64_Ehdr *)f;
	if (len < sizeof(*eh) || memcmp(eh->e_ident, ELFMAG, SELFMAG) ||
	    eh->e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh->e_shentsize != sizeof(*sh) || eh->e_phentsize != sizeof(*ph) ||
	    !within(len, eh->e_shoff, (unsigned long long)eh->e_shnum * sizeof(*sh)) ||
	    !within(len, eh->e_phoff, (unsigned long long)eh->e_phnum * sizeof(*ph))) {
		fprintf(stderr, "kstats-ufunc: %s: not a 64-bit ELF file\n", path);
		return 1;
	}
	sh = (const Elf64_Shdr *)(f + eh->e_shoff);
	ph = (const Elf64_Phdr *)(f + eh->e_phoff);
	for (i = 0; i < eh->e_shnum && !found; i++) {
		if ((sh[i].sh_type != SHT_SYMTAB && sh[i].sh_type != SHT_DYNSYM) ||
		    sh[i].sh_link >= eh->e_shnum ||
		    !within(len, sh[i].sh_offset, sh[i].sh_size) ||
		    !within(len, sh[sh[i].sh_link].sh_offset, sh[sh[i].sh_link].sh_size))
			continue;
		sym = (const Elf64_Sym *)(f + sh[i].sh_offset);
		nsym = sh[i].sh_size / sizeof(*sym);
		str = (const char *)f + sh[sh[i].sh_link].sh_offset;
		for (j = 0; j < nsym; j++) {
			if (sym[j].st_shndx == SHN_UNDEF ||
			    sym[j].st_name >= sh[sh[i].sh_link].sh_size ||
			    strncmp(str + sym[j].st_name, name,
				    sh[sh[i].sh_link].sh_size - sym[j].st_name))
				continue;
			value = sym[j].st_value;
			found = 1;
			break;
		}
	}
	if (!found) {
		fprintf(stderr, "kstats-ufunc: %s: no symbol %s\n", path, name);
		return 1;
	}
	for (i = 0; i < eh->e_phnum; i++) {
		if (ph[i].p_type != PT_LOAD || value < ph[i].p_vaddr ||
		    value - ph[i].p_vaddr >= ph[i].p_filesz)
			continue;
		printf("0x%llx\n", (unsigned long long)(value - ph[i].p_vaddr + ph[i].p_offset));
		free(f);
		return 0;
	}
	fprintf(stderr, "kstats-ufunc: %s: %s (0x%llx) in no PT_LOAD's file bytes\n",
		path, name, value);
	return 1;
}

static int usage(void)
{
	fprintf(stderr,
		"usage: kstats-ufunc calls N NS | sleep SEC | rate R SEC | fork N NS |\n"
		"       exec N NS | rec DEPTH NS | exit CODE | offset SYMBOL\n");
	return 2;
}

int main(int argc, char **argv)
{
	const char *cmd = argc > 1 ? argv[1] : "";

	if (!strcmp(cmd, "calls") && argc == 4)
		return do_calls(arg(argv[2]), arg(argv[3]));
	if (!strcmp(cmd, "sleep") && argc == 3) {
		printf("sleeping\n");
		fflush(stdout);
		signal(SIGUSR1, on_usr1);
		kstats_ufunc_sleep(arg(argv[2]));
		printf("returned\n");
		return 0;
	}
	if (!strcmp(cmd, "rate") && argc == 4)
		return do_rate(arg(argv[2]), arg(argv[3]));
	if (!strcmp(cmd, "fork") && argc == 4)
		return do_fork(arg(argv[2]), arg(argv[3]));
	if (!strcmp(cmd, "exec") && argc == 4)
		return do_exec(arg(argv[2]), arg(argv[3]), argv[2], argv[3]);
	if (!strcmp(cmd, "rec") && argc == 4) {
		kstats_ufunc_rec(arg(argv[2]), arg(argv[3]));
		printf("rec %ld\n", arg(argv[2]));
		return 0;
	}
	if (!strcmp(cmd, "exit") && argc == 3) {
		kstats_ufunc_exit(arg(argv[2]));
		return 1;
	}
	if (!strcmp(cmd, "offset") && argc == 3)
		return do_offset(argv[2]);
	return usage();
}
