// SPDX-License-Identifier: GPL-2.0
/*
 * Guest side of the instruction counts of "make bench": runs a workload
 * between two executions of the marker, a no-op on hardware ("xchg
 * %bx,%bx", 66 87 db, on x86; "hint #0x7f", 0xd5032fff, on arm64), which
 * the QEMU plugin insn-count-plugin.c turns into two lines of its output
 * file, and prints the workload's wall time:
 *
 *   bench-mark dd N           N x (1-byte read of /dev/zero, 1-byte write
 *                             to /dev/null), as dd bs=1 count=N does
 *   bench-mark pingpong N     N 1-byte round trips between two tasks over
 *                             two pipes
 *   bench-mark write FILE S   one write(2) of string S to FILE
 *   bench-mark run CMD...     fork, exec CMD and wait for it
 *   bench-mark forkexit N     N x (fork, the child exits at once, wait)
 *   bench-mark ufunc N        N calls of bench_ufunc(), a user-space
 *                             function for uprobes to time
 *
 * Output: "ns <elapsed>", the time between the markers. Static, so it runs
 * in the busybox initramfs.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static inline void marker(void)
{
#ifdef __aarch64__
	asm volatile("hint #0x7f" ::: "memory");
#else
	asm volatile("xchg %%bx, %%bx" ::: "memory");
#endif
}

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static long long t_begin, t_end;
static int markers;

/* The measured region: marker, clock ... clock, marker. */
static void begin(void)
{
	marker();
	markers++;
	t_begin = now_ns();
}

static void end(void)
{
	t_end = now_ns();
	marker();
	markers++;
}

/* Every run executes two markers, failed or not, so the host can pair them. */
static void die(const char *what)
{
	perror(what);
	while (markers++ < 2)
		marker();
	exit(1);
}

static void dd(long n)
{
	int in = open("/dev/zero", O_RDONLY), out = open("/dev/null", O_WRONLY);
	char c;

	if (in < 0 || out < 0)
		die("open");
	begin();
	while (n--) {
		if (read(in, &c, 1) != 1 || write(out, &c, 1) != 1)
			die("dd");
	}
	end();
}

static void pingpong(long n)
{
	int ab[2], ba[2];
	char c = 0;
	pid_t pid;

	if (pipe(ab) || pipe(ba))
		die("pipe");
	pid = fork();
	if (pid < 0)
		die("fork");
	if (!pid) {
		close(ab[1]);
		close(ba[0]);
		while (read(ab[0], &c, 1) == 1 && write(ba[1], &c, 1) == 1)
			;
		_exit(0);
	}
	close(ab[0]);
	close(ba[1]);
	begin();
	while (n--) {
		if (write(ab[1], &c, 1) != 1 || read(ba[0], &c, 1) != 1)
			die("pingpong");
	}
	end();
	close(ab[1]);
	waitpid(pid, NULL, 0);
}

static void write_file(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY);

	if (fd < 0)
		die(path);
	begin();
	if (write(fd, s, strlen(s)) != (ssize_t)strlen(s))
		die(path);
	end();
	close(fd);
}

static void forkexit(long n)
{
	pid_t pid;

	begin();
	while (n--) {
		pid = fork();
		if (!pid)
			_exit(0);
		if (pid < 0 || waitpid(pid, NULL, 0) != pid)
			die("forkexit");
	}
	end();
}

/*
 * The user function of "ufunc": out of line, with a symbol in .symtab
 * (PATH:bench_ufunc), and a result the loop depends on, so that no call
 * is folded away.
 */
__attribute__((noinline, used)) int bench_ufunc(int x)
{
	asm volatile("" : "+r"(x));
	return x + 1;
}

static void ufunc(long n)
{
	long i;
	int x = 0;

	begin();
	for (i = 0; i < n; i++)
		x = bench_ufunc(x);
	end();
	if (x != (int)n)
		die("ufunc");
}

static void run(char **argv)
{
	pid_t pid;
	int st;

	begin();
	pid = fork();
	if (!pid) {
		execvp(argv[0], argv);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) ||
	    WEXITSTATUS(st))
		die(argv[0]);
	end();
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "dd")) {
		dd(atol(argv[2]));
	} else if (argc == 3 && !strcmp(argv[1], "pingpong")) {
		pingpong(atol(argv[2]));
	} else if (argc == 3 && !strcmp(argv[1], "forkexit")) {
		forkexit(atol(argv[2]));
	} else if (argc == 3 && !strcmp(argv[1], "ufunc")) {
		ufunc(atol(argv[2]));
	} else if (argc == 4 && !strcmp(argv[1], "write")) {
		write_file(argv[2], argv[3]);
	} else if (argc >= 3 && !strcmp(argv[1], "run")) {
		run(argv + 2);
	} else {
		markers = 2;
		fprintf(stderr, "usage: bench-mark dd|pingpong|forkexit|ufunc N | %s\n",
			"write FILE S | run CMD...");
		return 2;
	}
	printf("ns %lld\n", t_end - t_begin);
	return 0;
}
