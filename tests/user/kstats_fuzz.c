// SPDX-License-Identifier: GPL-2.0
/*
 * Fuzzer of the kstats debugfs files, run inside the test guests
 * (tests/guest/80-fuzz.sh); built static on the host by mkinitramfs.sh.
 *
 *   kstats-fuzz fuzz DIR SEED WRITES ENTRY KEEP...
 *	WRITES writes, half to DIR/_control, half to entry files: mutations
 *	of valid commands, random bytes, lines up to 64 KiB, embedded NULs,
 *	several commands in one write, split commands, writes at non-zero
 *	offsets, zero-length writes and bad user pointers. ENTRY may change
 *	state; every write into a KEEP entry must fail, and each must read
 *	byte-identical afterwards, as must _control (but for ENTRY's line)
 *	once the entries that fuzzed commands created are removed again. Entry writes have an exact
 *	oracle (start, stop or reset, any case, one optional newline, and
 *	nothing else); _control writes must succeed or fail with an errno of
 *	the documented list. Prints "ok - ..." / "not ok - ..." lines.
 *   kstats-fuzz put FILE STRING
 *	writes STRING, with \0, \n and \xHH unescaped, in one write(2) and
 *	prints OK or the error text.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>
#include <unistd.h>

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define MAX_LINE	65536
#define MAX_KEEP	8
#define MAX_READ	(1 << 20)
#define MAX_CREATED	20	/* then seeds that may succeed are left out */

static uint64_t rng;
static unsigned long failures;
static char *bad_page;		/* a page followed by an unmapped one */

static uint64_t rnd(void)
{
	/* xorshift64* */
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return rng * 2685821657736338717ULL;
}

static unsigned int below(unsigned int n)
{
	return n ? rnd() % n : 0;
}

static void fail(const char *fmt, ...)
{
	va_list ap;

	if (failures++ >= 20)
		return;
	printf("# ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
}

/* Whole file contents, NUL-terminated; NULL if it cannot be read. */
static char *slurp(const char *path)
{
	char *buf = malloc(MAX_READ);
	ssize_t n, len = 0;
	int fd = open(path, O_RDONLY);

	if (fd < 0 || !buf) {
		free(buf);
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	while ((n = read(fd, buf + len, MAX_READ - 1 - len)) > 0)
		len += n;
	close(fd);
	buf[len] = '\0';
	return buf;
}

/* Printable form of @len bytes of @s, for the diagnostics. */
static const char *show(const char *s, size_t len)
{
	static char out[240];
	size_t i, o = 0;

	for (i = 0; i < len && o < 200; i++) {
		unsigned char c = s[i];

		if (isprint(c) && c != '\\')
			out[o++] = c;
		else
			o += sprintf(out + o, "\\x%02x", c);
	}
	if (i < len)
		o += sprintf(out + o, "...(%zu)", len);
	out[o] = '\0';
	return out;
}

static const char * const seeds[] = {
	"trace kstats_helper_work",
	"trace kstats_helper_work via kretprobe bits 3",
	"trace kstats_helper_work via fprobe as fz_f",
	"trace pcpu:kstats_helper_work bits 0 as fz_p",
	"trace fz_pair start kstats_helper_mark_start end __tracepoint_kstats_helper_end key task",
	"trace fz_kp start kstats_helper_mark_start+0 end kstats_helper_mark_end key cpu bits 5",
	"trace fz_tp start __tracepoint_kstats_helper_start end __tracepoint_kstats_helper_end",
	"trace kstats_helper_value value arg2 type s64 as fz_v",
	"trace kstats_helper_work cgroup / pid 1 as fz_c",
	"trace kstats_helper_work by comm keys 3 as fz_k",
	"trace fz_kt start kstats_helper_mark_start end kstats_helper_mark_end key task by tid",
	"trace fz_rq start kstats_helper_req_start end kstats_helper_req_end key arg1 type u64",
	"trace kstats_helper_value by arg2 type s64 as fz_ba",
	"trace fz_rb start __tracepoint_kstats_helper_start end __tracepoint_kstats_helper_end key arg1 by arg1 type u32",
	"trace fz_rc start kstats_helper_req_start end kstats_helper_req_end key arg1 by comm type u64",
	"trace kstats_helper_work outliers 4 as fz_o",
	"trace kstats_helper_work by stack keys 2 via kretprobe as fz_s",
	"trace fz_og gap __tracepoint_kstats_helper_start outliers 1",
	"trace fz_rt start __tracepoint_kstats_helper_start end __tracepoint_kstats_helper_end key arg1 expire 2 slots 64 type u32",
	"trace fz_rs start kstats_helper_req_start key arg2 if arg2 < 16 end __tracepoint_kstats_helper_end key arg1 type u32",
	"trace fz_if start __tracepoint_kstats_helper_start if arg1 > 9 end __tracepoint_kstats_helper_end if arg1 != 12 type u32",
	"trace fz_ms start kstats_helper_mark_start start __tracepoint_kstats_helper_start start kstats_helper_req_start end __tracepoint_kstats_helper_end key task",
	"trace fz_fp start kstats_helper_req_peek key arg1->id if arg1->id < 9 end kstats_helper_req_end key arg2",
	"trace fz_bn start kstats_helper_req_start key arg2 end kstats_helper_req_end key arg2 by arg1->name",
	"trace fz_bs start kstats_helper_req_peek key arg2 by stack end kstats_helper_req_end key arg2 keys 2",
	"trace fz_bi start kstats_helper_req_peek key arg2 by arg1->id end __tracepoint_kstats_helper_end key arg1",
	"trace fz_is start kstats_helper_req_start key arg2 end kstats_helper_req_end key arg2 if arg1->name == \"rq1\"",
	"trace /usr/bin/kstats-ufunc:kstats_ufunc_work as fz_u",
	"trace /usr/bin/kstats-ufunc:kstats_ufunc_sleep by pid keys 2 comm fz as fz_ub",
	"trace /usr/bin/kstats-ufunc:kstats_ufunc_work by arg1 type s64 outliers 2 as fz_ua",
	"trace /usr/bin/kstats-ufunc:kstats_ufunc_work value arg1 type u32 as fz_uv",
	"trace /usr/bin/kstats-ufunc:kstats_ufunc_sleep value retval type s32 by retval as fz_ur",
	"stop fz",
	"reset fz",
	"start fz",
};

/* Seeds that fail late (lookups) or that remove. */
static const char * const late_seeds[] = {
	"trace no_such_fn_kstats_fuzz",
	"trace fz_x start no_such_fn_kstats end kstats_helper_mark_end",
	"trace fz_x start __tracepoint_no_such_kstats end kstats_helper_mark_end",
	"trace /usr/bin/kstats-ufunc:no_such_fn_kstats as fz_x",
	"trace /no/such/kstats/file:f as fz_x",
	"remove fz_pair",
	"remove kstats_helper_work",
	"remove no_such_entry",
	"remove fz",
};

static const char * const words[] = {
	"trace", "remove", "start", "end", "bits", "via", "as", "key", "cpu",
	"task", "kretprobe", "fprobe", "pcpu:", "TRACE", "Remove", "stop",
	"reset", "uprobe", "node", "__tracepoint_", "+", "0x", "/", "..", ".",
	"a/b", "fz fz", "_x", "-", ":", "type", "s32", "u64", "u0", "cgroup",
	"value", "arg2", "retval", "by", "keys", "comm", "pid", "tid",
	"arg1", "arg0", "arg6", "expire", "slots", "outliers", "stack",
	"if", "==", "!=", "<", ">", "=", "->", "arg1->id", "->pid", "->a->b",
	"arg1->name", "->name", "arg1->done", "\"rq1\"", "\"\"", "\"", "\"a,b\"",
	"\"0123456789abcdef\"",
};

static const char * const numbers[] = {
	"-1", "0", "5", "6", "255", "256", "4294967295", "4294967296",
	"18446744073709551615", "18446744073709551616", "0x", "0x7fffffff",
	"+1", "010", "1e3", "99999999999999999999999999",
};

/* Append @s to @buf (of @len bytes), bounded by MAX_LINE. */
static size_t put(char *buf, size_t len, const char *s, size_t n)
{
	if (len + n > MAX_LINE)
		n = MAX_LINE - len;
	memcpy(buf + len, s, n);
	return len + n;
}

/* A token: a dictionary word, a number at an edge, a huge name. */
static size_t token(char *buf, size_t len)
{
	char name[400];
	const char *w;
	unsigned int i, n;

	switch (below(4)) {
	case 0:
		w = numbers[below(ARRAY_SIZE(numbers))];
		break;
	case 1:
		n = 1 + below(sizeof(name));
		for (i = 0; i < n; i++)
			name[i] = 'a' + below(26);
		return put(buf, len, name, n);
	default:
		w = words[below(ARRAY_SIZE(words))];
		break;
	}
	return put(buf, len, w, strlen(w));
}

/* Split @s into at most @max tokens (pointers into a copy in @store, of
 * 512 bytes).
 */
static unsigned int split(const char *s, char *store, char **tok,
			  unsigned int max)
{
	unsigned int n = 0;
	char *p;

	snprintf(store, 512, "%s", s);
	for (p = strtok(store, " "); p && n < max; p = strtok(NULL, " "))
		tok[n++] = p;
	return n;
}

/* A mutated valid command into @buf; returns its length. */
static size_t mutate(char *buf, const char *seed)
{
	char store[512], *tok[32], *t;
	unsigned int n, i, j, m;
	size_t len = 0;

	n = split(seed, store, tok, 32);
	for (m = 1 + below(3); m; m--) {
		i = below(n);
		j = below(n);
		switch (below(6)) {
		case 0:	/* delete */
			if (n > 1) {
				memmove(tok + i, tok + i + 1,
					(n - i - 1) * sizeof(*tok));
				n--;
			}
			break;
		case 1:	/* duplicate */
			if (n < 31) {
				memmove(tok + i + 1, tok + i,
					(n - i) * sizeof(*tok));
				n++;
			}
			break;
		case 2:	/* swap */
			t = tok[i];
			tok[i] = tok[j];
			tok[j] = t;
			break;
		default:	/* replaced below */
			break;
		}
	}
	j = below(n + 1);	/* this token gets replaced, if < n */
	for (i = 0; i < n; i++) {
		if (i)
			len = put(buf, len, " ", 1);
		if (i == j && below(2))
			len = token(buf, len);
		else
			len = put(buf, len, tok[i], strlen(tok[i]));
	}
	switch (below(5)) {
	case 0:	/* trailing junk */
		len = put(buf, len, " ", 1);
		len = token(buf, len);
		break;
	case 1:
		len = put(buf, len, "\n", 1);
		break;
	case 2:	/* a NUL somewhere, and more after it */
		if (len) {
			buf[below(len)] = '\0';
			len = put(buf, len, "junk", 4);
		}
		break;
	default:
		break;
	}
	return len;
}

/* Random bytes, mostly short; now and then a line of up to 64 KiB. */
static size_t random_bytes(char *buf)
{
	size_t i, len = below(32) ? below(300) : below(MAX_LINE + 1);
	uint64_t w = rnd();

	for (i = 0; i < len && i < 300; i++)
		buf[i] = below(3) ? ' ' + below(95) : rnd();
	/* The rest of a long line: one random word over and over. */
	for (; i < len; i += 8)
		memcpy(buf + i, &w, len - i < 8 ? len - i : 8);
	return len;
}

/* A _control write of one of the kinds; returns its length. */
static size_t control_input(char *buf, int may_succeed)
{
	size_t len = 0;
	unsigned int k;

	switch (below(10)) {
	case 0:
	case 1:
		return random_bytes(buf);
	case 2:	/* several commands in one write */
		for (k = 2 + below(3); k; k--) {
			len += mutate(buf + len, late_seeds[below(ARRAY_SIZE(late_seeds))]);
			len = put(buf, len, below(2) ? "\n" : ";", 1);
		}
		return len;
	case 3:
	case 4:
	case 5:
		return mutate(buf, late_seeds[below(ARRAY_SIZE(late_seeds))]);
	default:
		if (may_succeed && !below(10))
			return mutate(buf, seeds[below(ARRAY_SIZE(seeds))]);
		/* Valid seeds with a name that cannot be a symbol. */
		len = mutate(buf, seeds[below(ARRAY_SIZE(seeds))]);
		for (k = 0; k < len; k++)
			if (buf[k] == 'k')
				buf[k] = '?';
		return len;
	}
}

/* An entry write: commands, near misses, NULs, junk. */
static size_t entry_input(char *buf)
{
	static const char * const cmds[] = { "start", "stop", "reset", "START",
					     "Stop", "ReSeT" };
	const char *c = cmds[below(6)];
	size_t len = strlen(c);

	memcpy(buf, c, len);
	switch (below(8)) {
	case 0:
		buf[len++] = '\n';
		break;
	case 1:	/* NUL and junk after it */
		buf[len++] = '\0';
		len = put(buf, len, "junk", below(5));
		break;
	case 2:
		buf[below(len)] = "\0\n x"[below(4)];
		break;
	case 3:
		len = below(len);
		break;
	case 4:
		buf[len++] = "\n \t\0x"[below(5)];
		buf[len++] = "\n \t\0x"[below(5)];
		break;
	case 5:
		return random_bytes(buf);
	default:
		break;
	}
	return len;
}

/* Would an entry take these bytes? */
static int entry_valid(const char *buf, size_t len)
{
	char s[16];

	if (len >= 16)
		return 0;
	memcpy(s, buf, len);
	if (len && s[len - 1] == '\n')
		len--;
	s[len] = '\0';
	if (strlen(s) != len)
		return 0;
	return !strcasecmp(s, "start") || !strcasecmp(s, "stop") ||
	       !strcasecmp(s, "reset");
}

/*
 * One write of @len bytes of @buf into @fd, in one of several ways.
 * Returns the write's result (-errno on failure); *@fault tells if the
 * user buffer was made unreadable, *@offset if it was a pwrite().
 */
static ssize_t do_write(int fd, const char *buf, size_t len, int *fault,
			int *offset)
{
	ssize_t r;
	char *p;

	*fault = 0;
	*offset = 0;
	switch (below(16)) {
	case 0:		/* an unmapped address */
		*fault = 1;
		r = write(fd, (const void *)(uintptr_t)(4096 + below(4096)), len);
		break;
	case 1:		/* the bytes run into an unmapped page */
		if (len && len <= 4096) {
			size_t avail = below(len);

			*fault = 1;
			p = bad_page + 4096 - avail;
			memcpy(p, buf, avail);
			r = write(fd, p, len);
			break;
		}
		r = write(fd, buf, len);
		break;
	case 2:		/* at an offset */
		*offset = 1;
		r = pwrite(fd, buf, len, 1 + below(100000));
		break;
	default:
		r = write(fd, buf, len);
		break;
	}
	return r < 0 ? -errno : r;
}

static int known_control_errno(ssize_t r)
{
	switch (-r) {
	case EINVAL: case ENOENT: case EEXIST: case EPERM: case EILSEQ:
	case EOPNOTSUPP: case EFAULT: case ENOSPC:
		return 1;
	}
	return 0;
}

/* Is there a line "name @name ..." in @list? */
static int listed(const char *list, const char *name)
{
	size_t n = strlen(name);
	const char *p;

	for (p = list; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (!strncmp(p, "name ", 5) && !strncmp(p + 5, name, n) &&
		    p[5 + n] == ' ')
			return 1;
	return 0;
}

/* @text without the line of entry @name (ENTRY changes state). */
static char *without(const char *text, const char *name)
{
	char *out = strdup(text), *p;
	size_t n = strlen(name);

	for (p = out; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		if (!strncmp(p, "name ", 5) && !strncmp(p + 5, name, n) &&
		    p[5 + n] == ' ') {
			char *nl = strchr(p, '\n');

			memmove(p, nl ? nl + 1 : p + strlen(p),
				strlen(nl ? nl + 1 : p + strlen(p)) + 1);
			break;
		}
	}
	return out;
}

/* Remove the entries listed in _control now but not in @before. */
static unsigned int cleanup(const char *dir, const char *before, int ctl)
{
	char path[512], *now, *line, *save, name[128], cmd[200];
	unsigned int n = 0;

	snprintf(path, sizeof(path), "%s/_control", dir);
	now = slurp(path);
	if (!now)
		return 0;
	for (line = strtok_r(now, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (sscanf(line, "name %127s", name) != 1 || listed(before, name))
			continue;
		snprintf(cmd, sizeof(cmd), "remove %s", name);
		if (write(ctl, cmd, strlen(cmd)) < 0)
			fail("cannot remove %s: %s", name, strerror(errno));
		n++;
	}
	free(now);
	return n;
}

static int fuzz(int argc, char **argv)
{
	const char *dir = argv[2];
	unsigned long writes = strtoul(argv[4], NULL, 0), i, nkeep;
	unsigned long created = 0, ok_ctl = 0, ok_ent = 0, faults = 0;
	unsigned long espipe = 0;
	unsigned long long bytes = 0;
	char path[512], *before[MAX_KEEP], *ctl_before, *after, *buf;
	int ctl, ent, keep[MAX_KEEP], fault, offset;
	unsigned long k;
	ssize_t r;
	size_t len;

	rng = strtoull(argv[3], NULL, 0) | 1;
	nkeep = argc - 6;
	if (nkeep > MAX_KEEP)
		nkeep = MAX_KEEP;
	printf("# seed %s, %lu writes\n", argv[3], writes);

	buf = malloc(MAX_LINE + 64);
	bad_page = mmap(NULL, 8192, PROT_READ | PROT_WRITE,
			MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (!buf || bad_page == MAP_FAILED || munmap(bad_page + 4096, 4096)) {
		perror("kstats-fuzz: memory");
		return 2;
	}
	snprintf(path, sizeof(path), "%s/_control", dir);
	ctl_before = slurp(path);
	ctl = open(path, O_WRONLY);
	snprintf(path, sizeof(path), "%s/%s", dir, argv[5]);
	ent = open(path, O_WRONLY);
	if (!ctl_before || ctl < 0 || ent < 0) {
		perror("kstats-fuzz: open");
		return 2;
	}
	for (k = 0; k < nkeep; k++) {
		snprintf(path, sizeof(path), "%s/%s", dir, argv[6 + k]);
		before[k] = slurp(path);
		keep[k] = open(path, O_WRONLY);
		if (!before[k] || keep[k] < 0) {
			perror(path);
			return 2;
		}
	}

	for (i = 0; i < writes; i++) {
		if (i & 1) {
			int fd = ent, expect;

			if (nkeep && below(2))
				fd = keep[below(nkeep)];
			len = entry_input(buf);
			/* KEEP entries must not change: only invalid input. */
			if (fd != ent && entry_valid(buf, len))
				buf[len++] = '!';
			expect = entry_valid(buf, len);
			r = do_write(fd, buf, len, &fault, &offset);
			bytes += len;
			if (r == (ssize_t)len && len && expect && !fault) {
				ok_ent++;
			} else if (r == -EFAULT && fault && len && len < 16) {
				faults++;
			} else if (r == -EINVAL && !expect) {
				/* refused, as it should be; so is an empty write */
			} else {
				fail("entry write '%s' (%zu bytes%s): got %zd, want %s",
				     show(buf, len), len, fault ? ", bad pointer" : "",
				     r, expect ? "success" : "EINVAL");
			}
			continue;
		}
		len = control_input(buf, created < MAX_CREATED);
		r = do_write(ctl, buf, len, &fault, &offset);
		bytes += len;
		if (r == -ESPIPE && offset) {
			/* seq_file: _control takes no pwrite() */
			espipe++;
		} else if (r >= 0) {
			if (r != (ssize_t)len || fault || memchr(buf, '\0', len))
				fail("_control write '%s' (%zu bytes): took %zd",
				     show(buf, len), len, r);
			ok_ctl++;
			created += cleanup(dir, ctl_before, ctl);
		} else if (r == -EFAULT) {
			faults++;
			if (!fault)
				fail("_control '%s': EFAULT", show(buf, len));
		} else if (!known_control_errno(r)) {
			fail("_control write '%s': unexpected error %zd",
			     show(buf, len), r);
		} else if (r != -EINVAL && (memchr(buf, '\0', len) || len > 256)) {
			fail("_control write '%s' (%zu bytes): error %zd, want EINVAL",
			     show(buf, len), len, r);
		}
	}
	printf("# %lu writes (%llu bytes): %lu _control commands taken, ",
	       writes, bytes, ok_ctl);
	printf("%lu entries created and removed, %lu entry commands taken, ",
	       created, ok_ent);
	printf("%lu EFAULT, %lu ESPIPE (pwrite into _control)\n",
	       faults, espipe);

	created += cleanup(dir, ctl_before, ctl);
	for (k = 0; k < nkeep; k++) {
		snprintf(path, sizeof(path), "%s/%s", dir, argv[6 + k]);
		after = slurp(path);
		if (!after || strcmp(after, before[k]))
			fail("%s changed", argv[6 + k]);
		free(after);
	}
	snprintf(path, sizeof(path), "%s/_control", dir);
	after = slurp(path);
	if (!after || strcmp(without(after, argv[5]), without(ctl_before, argv[5])))
		fail("_control listing changed:\n%s", after ? after : "");
	printf("%sok - fuzz: %lu writes, every result as expected, ",
	       failures ? "not " : "", writes);
	printf("kept entries and _control unchanged\n");
	return 0;
}

/* Unescape \0, \n, \\ and \xHH of @s into @out; returns the length. */
static size_t unescape(const char *s, char *out)
{
	size_t n = 0;

	while (*s) {
		if (*s != '\\' || !s[1]) {
			out[n++] = *s++;
			continue;
		}
		s++;
		if (*s == '0') {
			out[n++] = '\0';
			s++;
		} else if (*s == 'n') {
			out[n++] = '\n';
			s++;
		} else if (*s == 'x' && isxdigit(s[1]) && isxdigit(s[2])) {
			char hex[3] = { s[1], s[2], 0 };

			out[n++] = strtoul(hex, NULL, 16);
			s += 3;
		} else {
			out[n++] = *s++;
		}
	}
	return n;
}

int main(int argc, char **argv)
{
	if (argc >= 6 && !strcmp(argv[1], "fuzz"))
		return fuzz(argc, argv);
	if (argc == 4 && !strcmp(argv[1], "put")) {
		char *buf = malloc(strlen(argv[3]) + 1);
		size_t len = unescape(argv[3], buf);
		int fd = open(argv[2], O_WRONLY);

		if (fd < 0 || write(fd, buf, len) < 0)
			printf("%s\n", strerror(errno));
		else
			printf("OK\n");
		return 0;
	}
	fprintf(stderr, "usage: kstats-fuzz fuzz DIR SEED WRITES ENTRY [KEEP...]\n"
		"       kstats-fuzz put FILE STRING\n");
	return 2;
}
