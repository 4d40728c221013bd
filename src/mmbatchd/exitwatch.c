/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Process-exit events over taskstats (generic netlink). See exitwatch.h for
 * why taskstats rather than the proc connector.
 *
 * Protocol, in order:
 *  1. resolve the "TASKSTATS" generic netlink family id (CTRL_CMD_GETFAMILY);
 *  2. TASKSTATS_CMD_GET with TASKSTATS_CMD_ATTR_REGISTER_CPUMASK set to every
 *     possible CPU: the kernel then sends a TASKSTATS_CMD_NEW for each exiting
 *     task on those CPUs to this socket;
 *  3. each message holds TASKSTATS_TYPE_AGGR_PID {PID, STATS}, plus
 *     TASKSTATS_TYPE_AGGR_TGID {TGID, STATS} when the last thread of a
 *     multi-threaded process exits.
 *
 * One event per process: a per-thread record is sent for every exiting
 * thread; we keep only the one flagged AGROUP (the last thread of the thread
 * group: the process is gone after it). Its hiwater_rss is that of the
 * process's mm, which that thread still holds, because taskstats_exit() runs
 * before exit_mm(). The AGGR_TGID record carries no memory figures, so we do
 * not use it. The event is reported under the thread-group id.
 */
#include "exitwatch.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <linux/acct.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <linux/taskstats.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "log.h"

/* Big enough for a burst of a few thousand exits before ENOBUFS (each record
 * is ~500 bytes plus headers). SO_RCVBUFFORCE goes past rmem_max; it needs
 * CAP_NET_ADMIN, which subscribing needs anyway. */
#define EXITWATCH_RCVBUF (4 << 20)

/* Reads per exitwatch_dispatch() call (each one or a few exit records). */
#define EXITWATCH_MAX_READS 1024

/* Our requests' sequence number (the kernel's exit records count their own). */
#define GENL_REQUEST_SEQ 1

struct exitwatch {
	int fd;
	uint16_t family;
	uint64_t overruns;
	uint64_t forged;
	bool adopted;	/* exitwatch_adopt(): registered by another process */
	char cpumask[64];
};

/* Reads the kernel's possible-CPU list ("0-1"). It is the real kernel's
 * socket, so the path is never under --root. */
static int read_possible_cpus(char *buf, size_t size)
{
	FILE *f = fopen("/sys/devices/system/cpu/possible", "re");
	int r = 0;

	if (!f)
		return -errno;
	if (!fgets(buf, (int)size, f))
		r = -EIO;
	fclose(f);
	if (r < 0)
		return r;
	buf[strcspn(buf, "\n")] = '\0';
	return buf[0] ? 0 : -EIO;
}

/* recv() that keeps only what the kernel sent. Netlink lets any local
 * process unicast to our port id; a message whose sender is not port 0 is a
 * forgery (a fake exit with a huge peak RSS would make us drain at will) and
 * is dropped. Returns the length, or a negative errno (-EAGAIN included). */
static ssize_t recv_from_kernel(struct exitwatch *w, int fd, void *buf, size_t size, int flags)
{
	for (;;) {
		struct sockaddr_nl from;
		struct iovec iov = { .iov_base = buf, .iov_len = size };
		struct msghdr msg = { .msg_name = &from, .msg_namelen = sizeof(from), .msg_iov = &iov, .msg_iovlen = 1 };
		ssize_t n = recvmsg(fd, &msg, flags);

		if (n < 0)
			return -errno;
		if (msg.msg_namelen == sizeof(from) && from.nl_family == AF_NETLINK && from.nl_pid == 0)
			return n;
		if (w)
			w->forged++;
		log_debug("exitwatch: dropped a netlink message from port %u (not the kernel)",
			  msg.msg_namelen == sizeof(from) ? from.nl_pid : 0);
	}
}

static void *nla_put(struct nlmsghdr *nlh, size_t cap, uint16_t type, const void *data, size_t len)
{
	struct nlattr *nla = (struct nlattr *)((char *)nlh + NLMSG_ALIGN(nlh->nlmsg_len));
	size_t total = NLA_HDRLEN + len;

	if (NLMSG_ALIGN(nlh->nlmsg_len) + NLA_ALIGN(total) > cap)
		return NULL;
	nla->nla_type = type;
	nla->nla_len = (uint16_t)total;
	memcpy((char *)nla + NLA_HDRLEN, data, len);
	nlh->nlmsg_len = (uint32_t)(NLMSG_ALIGN(nlh->nlmsg_len) + NLA_ALIGN(total));
	return nla;
}

/* Builds and sends one generic netlink request with a single attribute. */
static int genl_send(int fd, uint16_t family, uint8_t cmd, uint16_t attr, const void *data, size_t len)
{
	struct {
		struct nlmsghdr nlh;
		struct genlmsghdr genl;
		char attrs[256];
	} req;
	struct sockaddr_nl kernel = { .nl_family = AF_NETLINK };

	memset(&req, 0, sizeof(req));
	req.nlh.nlmsg_len = NLMSG_LENGTH(GENL_HDRLEN);
	req.nlh.nlmsg_type = family;
	req.nlh.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
	req.nlh.nlmsg_seq = GENL_REQUEST_SEQ;
	req.genl.cmd = cmd;
	req.genl.version = 1;
	if (!nla_put(&req.nlh, sizeof(req), attr, data, len))
		return -E2BIG;
	if (sendto(fd, &req, req.nlh.nlmsg_len, 0, (struct sockaddr *)&kernel, sizeof(kernel)) < 0)
		return -errno;
	return 0;
}

/* Sends one request and reads its reply into buf (or the ack); returns the
 * reply length, 0 for a bare ack, or the negative errno of an NLMSG_ERROR. */
static int genl_request(int fd, uint16_t family, uint8_t cmd, uint16_t attr,
			const void *data, size_t len, char *buf, size_t bufsize)
{
	ssize_t n;
	int r = genl_send(fd, family, cmd, attr, data, len);

	if (r < 0)
		return r;
	/* The reply (if any) comes before the ack; the first message answering
	 * our sequence number decides. Exit records that slip in (after the
	 * registration, or queued on an adopted socket) are skipped: they are
	 * addressed from port 0 with the kernel's own sequence numbers, which
	 * may be ours too, while answers carry our port. A missed exit is
	 * harmless, and so is an overrun while we wait. */
	for (;;) {
		n = recv_from_kernel(NULL, fd, buf, bufsize, 0);
		if (n < 0) {
			if (n == -EINTR || n == -ENOBUFS)
				continue;
			return (int)n;
		}
		struct nlmsghdr *nlh = (struct nlmsghdr *)buf;
		if (!NLMSG_OK(nlh, (size_t)n))
			return -EBADMSG;
		if (nlh->nlmsg_seq != GENL_REQUEST_SEQ || nlh->nlmsg_pid == 0)
			continue;
		if (nlh->nlmsg_type == NLMSG_ERROR) {
			struct nlmsgerr *e = NLMSG_DATA(nlh);
			if (e->error)
				return e->error;
			return 0; /* a bare ack */
		}
		return (int)n;
	}
}

static void set_setup_timeout(int fd)
{
	struct timeval setup_timeout = { .tv_sec = 5 };

	(void)setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &setup_timeout, sizeof(setup_timeout));
}

static int resolve_family(int fd, uint16_t *ret)
{
	char buf[4096];
	int n = genl_request(fd, GENL_ID_CTRL, CTRL_CMD_GETFAMILY, CTRL_ATTR_FAMILY_NAME,
			     TASKSTATS_GENL_NAME, sizeof(TASKSTATS_GENL_NAME), buf, sizeof(buf));
	if (n < 0)
		return n; /* -ENOENT: a kernel without CONFIG_TASKSTATS */
	if (n == 0)
		return -EBADMSG;

	struct nlmsghdr *nlh = (struct nlmsghdr *)buf;
	struct nlattr *nla = (struct nlattr *)((char *)NLMSG_DATA(nlh) + GENL_HDRLEN);
	int rem = (int)nlh->nlmsg_len - NLMSG_LENGTH(GENL_HDRLEN);

	while (rem >= (int)NLA_HDRLEN && nla->nla_len >= NLA_HDRLEN && nla->nla_len <= rem) {
		if ((nla->nla_type & NLA_TYPE_MASK) == CTRL_ATTR_FAMILY_ID &&
		    nla->nla_len >= NLA_HDRLEN + sizeof(uint16_t)) {
			memcpy(ret, (char *)nla + NLA_HDRLEN, sizeof(*ret));
			return 0;
		}
		rem -= NLA_ALIGN(nla->nla_len);
		nla = (struct nlattr *)((char *)nla + NLA_ALIGN(nla->nla_len));
	}
	return -EBADMSG;
}

/* A netlink socket with the burst buffer and a bound on the blocking setup
 * requests (the kernel answers at once, but a broken kernel must not hang
 * the daemon's start). Returns the fd or a negative errno. */
static int watch_socket(void)
{
	int fd, rcvbuf = EXITWATCH_RCVBUF;

	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
	if (fd < 0)
		return -errno;
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf, sizeof(rcvbuf)) < 0)
		(void)setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));
	set_setup_timeout(fd);
	return fd;
}

/* The privileged half: resolves the family and subscribes fd to the exit
 * records of every possible CPU (cpumask, the mask registered, is kept
 * for deregistering). */
static int watch_register(int fd, uint16_t *family, char *cpumask, size_t size)
{
	char buf[4096];
	int r;

	r = resolve_family(fd, family);
	if (r < 0) {
		log_debug("exitwatch: taskstats family: %s", strerror(-r));
		return r;
	}
	r = read_possible_cpus(cpumask, size);
	if (r < 0)
		return r;
	/* The kernel answers the registration with an ack (or -EPERM without
	 * CAP_NET_ADMIN, -EINVAL for a bad mask). */
	r = genl_request(fd, *family, TASKSTATS_CMD_GET, TASKSTATS_CMD_ATTR_REGISTER_CPUMASK, cpumask,
			 strlen(cpumask) + 1, buf, sizeof(buf));
	if (r < 0)
		log_debug("exitwatch: register cpumask %s: %s", cpumask, strerror(-r));
	return r < 0 ? r : 0;
}

/* Blocking setup calls before this; from here on the event loop polls us. */
static int watch_ready(int fd)
{
	if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) < 0 || fcntl(fd, F_SETFD, FD_CLOEXEC) < 0)
		return -errno;
	return 0;
}

int exitwatch_open(struct exitwatch **ret)
{
	struct exitwatch *w;
	int r;

	w = calloc(1, sizeof(*w));
	if (!w)
		return -ENOMEM;
	w->fd = watch_socket();
	if (w->fd < 0) {
		r = w->fd;
		goto fail;
	}
	r = watch_register(w->fd, &w->family, w->cpumask, sizeof(w->cpumask));
	if (r == 0)
		r = watch_ready(w->fd);
	if (r < 0)
		goto fail;
	*ret = w;
	return 0;
fail:
	if (w->fd >= 0)
		close(w->fd);
	free(w);
	return r;
}

int exitwatch_open_registered(int *ret_fd)
{
	uint16_t family;
	char cpumask[64];
	int fd = watch_socket(), r;

	if (fd < 0)
		return fd;
	r = watch_register(fd, &family, cpumask, sizeof(cpumask));
	if (r < 0) {
		close(fd);
		return r;
	}
	*ret_fd = fd;
	return 0;
}

/* What fd is, as exitwatch_adopt() wants it: 0, or why not. */
static int check_socket(int fd)
{
	int v;
	socklen_t len = sizeof(v);
	struct sockaddr_nl self;
	socklen_t slen = sizeof(self);

	if (getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &v, &len) < 0)
		return errno == ENOTSOCK ? -ENOTSOCK : -errno;
	if (v != AF_NETLINK)
		return -EAFNOSUPPORT;
	len = sizeof(v);
	if (getsockopt(fd, SOL_SOCKET, SO_PROTOCOL, &v, &len) < 0)
		return -errno;
	if (v != NETLINK_GENERIC)
		return -EPROTONOSUPPORT;
	/* Registering sends a request, which binds the socket to a port: an
	 * unbound one was never registered and would stay silent. */
	if (getsockname(fd, (struct sockaddr *)&self, &slen) < 0)
		return -errno;
	if (slen < sizeof(self) || self.nl_pid == 0)
		return -ENOTCONN;
	return 0;
}

int exitwatch_adopt(int fd, struct exitwatch **ret)
{
	struct exitwatch *w;
	char buf[4096];
	int r = check_socket(fd);

	if (r < 0)
		return r;
	w = calloc(1, sizeof(*w));
	if (!w)
		return -ENOMEM;
	w->fd = fd;
	w->adopted = true;
	/* Records queued since the registration are exits from before we ran
	 * (as good as unseen under exitwatch_open()); dropped, so that a full
	 * queue cannot crowd out the answer to the family request below. */
	for (int i = 0; i < EXITWATCH_MAX_READS * 64; i++) {
		ssize_t n = recv(fd, buf, sizeof(buf), MSG_DONTWAIT);

		if (n < 0 && errno != ENOBUFS && errno != EINTR)
			break;
	}
	set_setup_timeout(fd);
	/* Resolving needs no privilege; the registration is the socket's. */
	r = resolve_family(fd, &w->family);
	if (r == 0)
		r = watch_ready(fd);
	if (r < 0) {
		free(w);
		return r;
	}
	*ret = w;
	return 0;
}

int exitwatch_fd(const struct exitwatch *w)
{
	return w->fd;
}

uint64_t exitwatch_overruns(const struct exitwatch *w)
{
	return w->overruns;
}

uint64_t exitwatch_forged(const struct exitwatch *w)
{
	return w->forged;
}

uint16_t exitwatch_family(const struct exitwatch *w)
{
	return w->family;
}

/* Finds the AGGR_PID record of one TASKSTATS_CMD_NEW message and turns it
 * into an event when it is the last thread of its process. Returns 1 when ev
 * was filled, 0 when the message is not such a record. */
static int parse_exit(const struct nlmsghdr *nlh, struct exit_event *ev)
{
	const struct genlmsghdr *genl = NLMSG_DATA(nlh);
	const struct nlattr *nla;
	int rem;

	if (nlh->nlmsg_len < NLMSG_LENGTH(GENL_HDRLEN) || genl->cmd != TASKSTATS_CMD_NEW)
		return 0;
	nla = (const struct nlattr *)((const char *)genl + GENL_HDRLEN);
	rem = (int)nlh->nlmsg_len - NLMSG_LENGTH(GENL_HDRLEN);
	for (; rem >= (int)NLA_HDRLEN && nla->nla_len >= NLA_HDRLEN && nla->nla_len <= rem;
	     rem -= NLA_ALIGN(nla->nla_len),
	     nla = (const struct nlattr *)((const char *)nla + NLA_ALIGN(nla->nla_len))) {
		if ((nla->nla_type & NLA_TYPE_MASK) != TASKSTATS_TYPE_AGGR_PID)
			continue;
		const struct nlattr *in = (const struct nlattr *)((const char *)nla + NLA_HDRLEN);
		int inrem = nla->nla_len - NLA_HDRLEN;
		uint32_t pid = 0;
		struct taskstats ts;
		int have_stats = 0;

		for (; inrem >= (int)NLA_HDRLEN && in->nla_len >= NLA_HDRLEN && in->nla_len <= inrem;
		     inrem -= NLA_ALIGN(in->nla_len),
		     in = (const struct nlattr *)((const char *)in + NLA_ALIGN(in->nla_len))) {
			size_t len = in->nla_len - NLA_HDRLEN;
			const char *data = (const char *)in + NLA_HDRLEN;

			if (in->nla_type == TASKSTATS_TYPE_PID && len >= sizeof(pid)) {
				memcpy(&pid, data, sizeof(pid));
			} else if (in->nla_type == TASKSTATS_TYPE_STATS) {
				/* The struct only grows at its end: copy the prefix
				 * this build knows, zero the rest (older kernels). */
				memset(&ts, 0, sizeof(ts));
				memcpy(&ts, data, len < sizeof(ts) ? len : sizeof(ts));
				have_stats = 1;
			}
		}
		if (!have_stats || !(ts.ac_flag & AGROUP))
			return 0; /* a thread of a process that lives on */
		memset(ev, 0, sizeof(*ev));
		ev->pid = (pid_t)(ts.ac_tgid ? ts.ac_tgid : pid);
		ev->hiwater_rss_kb = ts.hiwater_rss;
		memcpy(ev->comm, ts.ac_comm, sizeof(ev->comm) - 1);
		return 1;
	}
	return 0;
}

int exitwatch_dispatch(struct exitwatch *w, exitwatch_cb cb, void *userdata)
{
	/* Aligned for nlmsghdr; a few records per read. */
	union {
		struct nlmsghdr align;
		char buf[16384];
	} u;
	int delivered = 0;

	/* Bounded, so an exit storm cannot starve signals and timers: the fd
	 * stays readable and a level-triggered loop calls us again. */
	for (int reads = 0; reads < EXITWATCH_MAX_READS; reads++) {
		ssize_t n = recv_from_kernel(w, w->fd, u.buf, sizeof(u.buf), MSG_DONTWAIT);

		if (n < 0) {
			if (n == -EINTR)
				continue;
			if (n == -EAGAIN || n == -EWOULDBLOCK)
				return delivered;
			if (n == -ENOBUFS) {
				/* Records were dropped. The socket stays valid and the
				 * queue holds whole messages, so we are in sync again by
				 * simply reading on. A lost exit may have been a large
				 * one: report one synthetic event so the policy can
				 * drain (coalesced and rate-limited as usual). */
				struct exit_event lost = { .pid = 0, .hiwater_rss_kb = UINT64_MAX,
							   .comm = "(overrun)" };
				w->overruns++;
				log_debug("exitwatch: socket overrun #%llu, exit events lost",
					  (unsigned long long)w->overruns);
				cb(&lost, userdata);
				delivered++;
				continue;
			}
			return (int)n;
		}
		for (struct nlmsghdr *nlh = (struct nlmsghdr *)u.buf; NLMSG_OK(nlh, (size_t)n);
		     nlh = NLMSG_NEXT(nlh, n)) {
			struct exit_event ev;

			if (nlh->nlmsg_type != w->family)
				continue; /* acks, errors, other families */
			if (parse_exit(nlh, &ev)) {
				cb(&ev, userdata);
				delivered++;
			}
		}
	}
	return delivered;
}

void exitwatch_free(struct exitwatch *w)
{
	if (!w)
		return;
	/* Deregistering is a courtesy: closing the socket also drops the
	 * listener (the kernel prunes it on the next send). Errors ignored.
	 * Not for an adopted socket: it needs CAP_NET_ADMIN, which the
	 * adopter lacks by design. */
	if (!w->adopted)
		(void)genl_send(w->fd, w->family, TASKSTATS_CMD_GET, TASKSTATS_CMD_ATTR_DEREGISTER_CPUMASK,
				w->cpumask, strlen(w->cpumask) + 1);
	close(w->fd);
	free(w);
}
