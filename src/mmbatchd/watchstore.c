/* See watchstore.h. */
#include "watchstore.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "log.h"
#include "sdproto.h"

/* How long systemd may take to answer the barrier (sd_notify_barrier(3)'s
 * usual bound). */
#define BARRIER_TIMEOUT_MS 5000

int watchstore_put(struct mb_error *err)
{
	const char *sock = getenv("NOTIFY_SOCKET");
	int fd = -1, r;

	if (!sock || !*sock) {
		mb_error_set(err, "mmbatchd", 0, 0,
			     "--open-exit-watcher: $NOTIFY_SOCKET is not set (run it as mmbatchd.service's "
			     "ExecStartPre=+, with NotifyAccess=exec and FileDescriptorStoreMax=1)");
		return -EINVAL;
	}
	r = exitwatch_open_registered(&fd);
	if (r == -ENOENT) {
		log_notice("the kernel has no taskstats: no exit watcher stored, exit drains cannot be turned on");
		r = sdp_notify("FDSTOREREMOVE=1\nFDNAME=" WATCHSTORE_NAME);
		return r < 0 ? r : 1;
	}
	if (r < 0) {
		mb_error_set(err, "mmbatchd", 0, 0, "--open-exit-watcher: cannot open the taskstats socket: %s",
			     strerror(-r));
		return r;
	}
	/* One stored socket at a time: a restart's start must not leave the
	 * previous, still registered one there (FileDescriptorStoreMax=1 would
	 * also refuse the new one). FDPOLL=0: systemd would otherwise close
	 * its copy on EPOLLERR, which netlink raises for a mere overrun. */
	r = sdp_notify("FDSTOREREMOVE=1\nFDNAME=" WATCHSTORE_NAME);
	if (r >= 0)
		r = sdp_notify_with_fd("FDSTORE=1\nFDNAME=" WATCHSTORE_NAME "\nFDPOLL=0", fd);
	close(fd);
	if (r < 0) {
		mb_error_set(err, "mmbatchd", 0, 0, "--open-exit-watcher: cannot send to $NOTIFY_SOCKET %s: %s", sock,
			     strerror(-r));
		return r;
	}
	/* Messages of a process systemd has already reaped are dropped:
	 * exit only once it has processed ours. */
	r = sdp_notify_barrier(BARRIER_TIMEOUT_MS);
	if (r < 0) {
		mb_error_set(err, "mmbatchd", 0, 0, "--open-exit-watcher: no answer to BARRIER=1 on %s: %s", sock,
			     strerror(-r));
		return r;
	}
	log_info("exit watcher registered and stored as '%s'", WATCHSTORE_NAME);
	return 0;
}

int watchstore_take(struct exitwatch **ret, struct mb_error *err)
{
	int fd, r;

	*ret = NULL;
	r = sdp_listen_fd(WATCHSTORE_NAME, &fd);
	if (r < 0) {
		mb_error_set(err, "$LISTEN_FDS", 0, 0, "malformed, refusing the passed file descriptors");
		return r;
	}
	if (r == 0)
		return 0;
	r = exitwatch_adopt(fd, ret);
	if (r < 0) {
		const char *what = r == -ENOTSOCK	 ? "not a socket"
				   : r == -EAFNOSUPPORT	 ? "not an AF_NETLINK socket"
				   : r == -EPROTONOSUPPORT ? "a netlink socket, but not NETLINK_GENERIC"
				   : r == -ENOTCONN	 ? "a generic netlink socket never registered (unbound)"
							 : strerror(-r);

		mb_error_set(err, "$LISTEN_FDS", 0, 0,
			     "fd %d named '%s' is %s, not the taskstats socket of --open-exit-watcher: refusing it", fd,
			     WATCHSTORE_NAME, what);
		close(fd);
		return r;
	}
	log_debug("exitwatch: took the registered socket '%s' from fd %d", WATCHSTORE_NAME, fd);
	return 1;
}

void watchstore_drop(void)
{
	(void)sdp_notify("FDSTOREREMOVE=1\nFDNAME=" WATCHSTORE_NAME);
}
