// SPDX-License-Identifier: GPL-2.0
/*
 * kstats-thread-exec [--leader] HELPER: a thread other than the leader
 * writes "start" to HELPER (the kstats_helper command file) and then
 * calls exec; the new program, which now runs with the leader's pid,
 * writes "end". A key task pair on the helper's start and end tracepoints
 * must pair the two across the exec. With --leader the leader writes
 * "start" first, and dies in the exec with its start pending: that start
 * must go with it.
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static const char *helper;
static char self[4096];

static int say(const char *what)
{
	int fd = open(helper, O_WRONLY);
	ssize_t n;

	if (fd < 0) {
		perror(helper);
		return -1;
	}
	n = write(fd, what, strlen(what));
	close(fd);
	if (n != (ssize_t)strlen(what)) {
		perror(what);
		return -1;
	}
	return 0;
}

static void *thread(void *arg)
{
	char *argv[] = { self, "--after-exec", (char *)helper, NULL };
	char *envp[] = { NULL };

	(void)arg;
	if (say("start"))
		_exit(2);
	execve(self, argv, envp);
	perror("execve");
	_exit(3);
}

int main(int argc, char **argv)
{
	pthread_t t;
	int leader = 0;
	ssize_t n;

	if (argc == 3 && !strcmp(argv[1], "--after-exec")) {
		helper = argv[2];
		return say("end") ? 4 : 0;
	}
	if (argc == 3 && !strcmp(argv[1], "--leader")) {
		argv++;
		argc--;
		leader = 1;
	}
	if (argc != 2) {
		fprintf(stderr, "usage: %s [--leader] HELPER\n", argv[0]);
		return 1;
	}
	helper = argv[1];
	if (leader && say("start"))
		return 6;
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n <= 0) {
		perror("/proc/self/exe");
		return 1;
	}
	self[n] = 0;
	if (pthread_create(&t, NULL, thread, NULL))
		return 1;
	/* The exec in the thread ends this thread too. */
	pthread_join(t, NULL);
	return 5;
}
