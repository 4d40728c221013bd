/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Unit tests for the taskstats exit watcher, against the running kernel
 * (needs root: subscribing needs CAP_NET_ADMIN). Children touch a known
 * amount of memory and exit; the watcher must report each process once,
 * under its pid, with a peak RSS at least that large, and must survive a
 * socket overrun (ENOBUFS), counting it and reporting the lost events.
 * A socket registered by exitwatch_open_registered() (the unit's
 * ExecStartPre=+) works once adopted, past exits queued before it; adopting
 * refuses what is not a registered generic netlink socket.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>
#include <linux/acct.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <linux/taskstats.h>

#include "exitwatch.h"
#include "log.h"

#define MAX_SEEN 4096

struct seen {
	size_t n;
	struct exit_event ev[MAX_SEEN];
};

static void collect(const struct exit_event *ev, void *userdata)
{
	struct seen *s = userdata;

	if (s->n < MAX_SEEN)
		s->ev[s->n++] = *ev;
}

static size_t count_pid(const struct seen *s, pid_t pid, const struct exit_event **ret)
{
	size_t n = 0;

	for (size_t i = 0; i < s->n; i++)
		if (s->ev[i].pid == pid) {
			n++;
			if (ret)
				*ret = &s->ev[i];
		}
	return n;
}

static void touch_mb(size_t mb)
{
	char *p = mmap(NULL, mb << 20, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		_exit(3);
	memset(p, 0x5a, mb << 20);
}

static void *thread_touch(void *arg)
{
	touch_mb((size_t)(uintptr_t)arg);
	return NULL;
}

/* A child named comm that touches mb MiB (spread over nthreads threads) and
 * exits. Its threads inherit the name. */
static pid_t spawn(size_t mb, int nthreads, const char *comm)
{
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (pid == 0) {
		pthread_t t[8];
		prctl(PR_SET_NAME, comm);
		for (int i = 0; i < nthreads; i++)
			if (pthread_create(&t[i], NULL, thread_touch, (void *)(uintptr_t)(mb / nthreads)))
				_exit(4);
		for (int i = 0; i < nthreads; i++)
			pthread_join(t[i], NULL);
		_exit(0);
	}
	return pid;
}

static void reap(pid_t pid)
{
	int status;

	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

/* Dispatches until every pid has been seen or 10 s passed (a bound, not a
 * timing assertion: events normally arrive within milliseconds). */
static void wait_for(struct exitwatch *w, struct seen *s, const pid_t *pids, size_t npids)
{
	time_t end = time(NULL) + 10;

	for (;;) {
		size_t found = 0;
		for (size_t i = 0; i < npids; i++)
			found += count_pid(s, pids[i], NULL) > 0;
		if (found == npids || time(NULL) > end)
			return;
		struct pollfd p = { .fd = exitwatch_fd(w), .events = POLLIN };
		if (poll(&p, 1, 200) > 0)
			assert_true(exitwatch_dispatch(w, collect, s) >= 0);
	}
}

static int open_watch(void **state)
{
	struct exitwatch *w = NULL;
	int r = exitwatch_open(&w);

	if (r < 0) {
		fprintf(stderr, "exitwatch_open: %s (the test needs root)\n", strerror(-r));
		return -1;
	}
	*state = w;
	return 0;
}

static int close_watch(void **state)
{
	exitwatch_free(*state);
	return 0;
}

static void test_single_threaded_exits(void **state)
{
	struct exitwatch *w = *state;
	static struct seen s;
	const struct exit_event *ev = NULL;
	pid_t pids[2];

	memset(&s, 0, sizeof(s));
	pids[0] = spawn(64, 1, "ew-big");
	pids[1] = spawn(2, 1, "ew-small");
	reap(pids[0]);
	reap(pids[1]);
	wait_for(w, &s, pids, 2);

	assert_int_equal(count_pid(&s, pids[0], &ev), 1);
	/* Peak RSS covers the 64 MiB touched (KiB units). */
	assert_true(ev->hiwater_rss_kb >= 64 * 1024);
	assert_true(ev->hiwater_rss_kb < 256 * 1024);
	assert_int_equal(count_pid(&s, pids[1], &ev), 1);
	assert_true(ev->hiwater_rss_kb < 64 * 1024);
	assert_string_equal(ev->comm, "ew-small");
	assert_int_equal(exitwatch_overruns(w), 0);
}

/* Four threads each touching 16 MiB: one event, for the process (its pid),
 * with the mm's peak, not one per thread. */
static void test_threads_one_event(void **state)
{
	struct exitwatch *w = *state;
	static struct seen s;
	const struct exit_event *ev = NULL;
	pid_t pid;

	memset(&s, 0, sizeof(s));
	pid = spawn(64, 4, "ew-threads");
	reap(pid);
	wait_for(w, &s, &pid, 1);
	assert_int_equal(count_pid(&s, pid, &ev), 1);
	assert_true(ev->hiwater_rss_kb >= 64 * 1024);
	/* No event for one of its threads (they carry the same name). */
	size_t named = 0;
	for (size_t i = 0; i < s.n; i++)
		named += strcmp(s.ev[i].comm, "ew-threads") == 0;
	assert_int_equal(named, 1);
}

/* A receive buffer shrunk to the minimum and 200 exits unread: the kernel
 * drops records (ENOBUFS). dispatch must count it, report a lost-events
 * marker, and go on delivering later exits. */
static void test_overrun_survives(void **state)
{
	struct exitwatch *w = *state;
	static struct seen s;
	int tiny = 1;
	pid_t pids[200], after;

	memset(&s, 0, sizeof(s));
	assert_int_equal(setsockopt(exitwatch_fd(w), SOL_SOCKET, SO_RCVBUF, &tiny, sizeof(tiny)), 0);
	for (size_t i = 0; i < 200; i++) {
		pids[i] = fork();
		assert_true(pids[i] >= 0);
		if (pids[i] == 0)
			_exit(0);
	}
	for (size_t i = 0; i < 200; i++)
		reap(pids[i]);

	assert_true(exitwatch_dispatch(w, collect, &s) > 0);
	assert_true(exitwatch_overruns(w) >= 1);
	const struct exit_event *lost = NULL;
	assert_true(count_pid(&s, 0, &lost) >= 1);
	assert_true(lost->hiwater_rss_kb == UINT64_MAX);

	/* Still in sync: with room in the buffer again (this host is busy), the
	 * next exit arrives. */
	int roomy = 4 << 20;
	assert_int_equal(setsockopt(exitwatch_fd(w), SOL_SOCKET, SO_RCVBUFFORCE, &roomy, sizeof(roomy)), 0);
	after = spawn(2, 1, "ew-after");
	reap(after);
	wait_for(w, &s, &after, 1);
	assert_int_equal(count_pid(&s, after, NULL), 1);
}

/* Netlink lets any local process unicast to our port: a forged exit record
 * (the shape taskstats sends: AGGR_PID {PID, STATS with AGROUP}, a peak RSS
 * that would make any policy drain) sent from a user socket must never
 * become an event; a real exit after it still does. */
static void test_forged_record_dropped(void **state)
{
	struct exitwatch *w = *state;
	static struct seen s;
	struct forged {
		struct nlmsghdr nlh;
		struct genlmsghdr genl;
		struct nlattr aggr;
		struct nlattr pid_attr;
		uint32_t pid;
		struct nlattr stats_attr;
		struct taskstats ts;
	} __attribute__((packed)) msg;
	struct sockaddr_nl to = { .nl_family = AF_NETLINK }, self;
	socklen_t len = sizeof(self);
	const pid_t forged_pid = 424242;
	int fd;
	pid_t after;

	memset(&s, 0, sizeof(s));
	assert_int_equal(getsockname(exitwatch_fd(w), (struct sockaddr *)&self, &len), 0);
	to.nl_pid = self.nl_pid;
	memset(&msg, 0, sizeof(msg));
	msg.nlh.nlmsg_len = sizeof(msg);
	msg.nlh.nlmsg_type = exitwatch_family(w);
	msg.genl.cmd = TASKSTATS_CMD_NEW;
	msg.genl.version = 1;
	msg.aggr.nla_type = TASKSTATS_TYPE_AGGR_PID;
	msg.aggr.nla_len = (uint16_t)(sizeof(msg) - offsetof(struct forged, aggr));
	msg.pid_attr.nla_type = TASKSTATS_TYPE_PID;
	msg.pid_attr.nla_len = NLA_HDRLEN + sizeof(uint32_t);
	msg.pid = (uint32_t)forged_pid;
	msg.stats_attr.nla_type = TASKSTATS_TYPE_STATS;
	msg.stats_attr.nla_len = (uint16_t)(NLA_HDRLEN + sizeof(struct taskstats));
	msg.ts.ac_flag = AGROUP;
	msg.ts.ac_tgid = (uint32_t)forged_pid;
	msg.ts.hiwater_rss = 64ULL << 30;
	memcpy(msg.ts.ac_comm, "forged", 7);

	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
	assert_true(fd >= 0);
	assert_int_equal(sendto(fd, &msg, sizeof(msg), 0, (struct sockaddr *)&to, sizeof(to)), (ssize_t)sizeof(msg));
	close(fd);

	after = spawn(2, 1, "ew-real");
	reap(after);
	wait_for(w, &s, &after, 1);
	assert_int_equal(count_pid(&s, after, NULL), 1);
	assert_int_equal(count_pid(&s, forged_pid, NULL), 0);
	assert_true(exitwatch_forged(w) >= 1);
}

static void test_free_null(void **state)
{
	(void)state;
	exitwatch_free(NULL);
}

/* What --open-exit-watcher stores, taken over as the daemon does: exits
 * queued in between are dropped, later ones seen once. */
static void test_adopted_socket(void **state)
{
	static struct seen s;
	const struct exit_event *ev = NULL;
	struct exitwatch *w = NULL;
	pid_t pid;
	int fd = -1;

	(void)state;
	memset(&s, 0, sizeof(s));
	assert_int_equal(exitwatch_open_registered(&fd), 0);
	/* Queued before the adoption (their sequence numbers may equal our
	 * requests': the family request must not mistake one for its answer). */
	for (int i = 0; i < 32; i++)
		reap(spawn(1, 1, "ew-early"));
	assert_int_equal(exitwatch_adopt(fd, &w), 0);
	assert_int_equal(exitwatch_fd(w), fd);
	assert_true(fcntl(fd, F_GETFL) & O_NONBLOCK);
	assert_true(fcntl(fd, F_GETFD) & FD_CLOEXEC);
	pid = spawn(64, 1, "ew-adopted");
	reap(pid);
	wait_for(w, &s, &pid, 1);
	assert_int_equal(count_pid(&s, pid, &ev), 1);
	assert_true(ev->hiwater_rss_kb >= 64 * 1024);
	exitwatch_free(w);
}

static void test_adopt_refuses(void **state)
{
	struct exitwatch *w = NULL;
	static const struct {
		int domain, type, protocol, bind_it, want;
	} cases[] = {
		{ AF_UNIX, SOCK_DGRAM, 0, 0, -EAFNOSUPPORT },
		{ AF_NETLINK, SOCK_RAW, NETLINK_ROUTE, 1, -EPROTONOSUPPORT },
		{ AF_NETLINK, SOCK_RAW, NETLINK_GENERIC, 0, -ENOTCONN },
	};
	int fd;

	(void)state;
	fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	assert_int_equal(exitwatch_adopt(fd, &w), -ENOTSOCK);
	assert_true(fcntl(fd, F_GETFD) >= 0); /* still the caller's */
	close(fd);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct sockaddr_nl nl = { .nl_family = AF_NETLINK };

		fd = socket(cases[i].domain, cases[i].type | SOCK_CLOEXEC, cases[i].protocol);
		assert_true(fd >= 0);
		if (cases[i].bind_it)
			assert_int_equal(bind(fd, (struct sockaddr *)&nl, sizeof(nl)), 0);
		assert_int_equal(exitwatch_adopt(fd, &w), cases[i].want);
		assert_null(w);
		assert_true(fcntl(fd, F_GETFD) >= 0);
		close(fd);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_single_threaded_exits, open_watch, close_watch),
		cmocka_unit_test_setup_teardown(test_threads_one_event, open_watch, close_watch),
		cmocka_unit_test_setup_teardown(test_overrun_survives, open_watch, close_watch),
		cmocka_unit_test_setup_teardown(test_forged_record_dropped, open_watch, close_watch),
		cmocka_unit_test(test_adopted_socket),
		cmocka_unit_test(test_adopt_refuses),
		cmocka_unit_test(test_free_null),
	};

	mb_log_set_level(LOG_WARNING);
	/* Children are reaped explicitly. */
	signal(SIGCHLD, SIG_DFL);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
