/* See daemon.h. */
#include "daemon.h"

#include <errno.h>
#include <linux/capability.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "caps.h"
#include "plan.h"
#include "drain.h"
#include "exitwatch.h"
#include "journal.h"
#include "log.h"
#include "metricsdir.h"
#include "sdproto.h"
#include "status.h"
#include "watchstore.h"

struct daemon {
	const struct daemon_opts *o;
	struct profile *p;
	struct plan *plan;
	struct journal *journal;
	struct exitwatch *watch;
	bool watch_stored;	/* watch is systemd's fd store's socket */
	struct drainer *drainer;
	int epfd, sigfd, wdfd;
	uint64_t reloads;
	char *last_error;
	bool stop;
};

enum { EV_SIGNAL = 1, EV_EXITS, EV_DRAIN, EV_WATCHDOG };

static const char *metrics_path(const struct daemon *d)
{
	return d->o->metrics_file ? d->o->metrics_file : d->p->metrics_file;
}

static void publish(struct daemon *d, const char *state)
{
	struct status_info si = {
		.state = state,
		.profile = d->p->path,
		.root = d->o->root,
		.plan = d->plan,
		.journal = d->journal,
		.rollback = rollback_mode_name(d->p->rollback),
		.drain_on_exit = d->drainer != NULL,
		.drain_method = drain_method_name(d->drainer ? drainer_method(d->drainer)
							     : d->plan ? d->plan->drain_method : d->p->drain.method),
		.drain = d->drainer ? drainer_stats(d->drainer) : NULL,
		.overruns = d->watch ? exitwatch_overruns(d->watch) : 0,
		.reloads = d->reloads,
		.last_error = d->last_error,
	};
	int r;

	r = status_save(d->o->state_dir, &si);
	if (r < 0)
		log_warning("cannot write %s/%s: %s, ignoring", d->o->state_dir, STATUS_NAME, strerror(-r));
	if (metrics_path(d)) {
		r = metrics_save(metrics_path(d), d->o->state_dir, &si);
		if (r < 0)
			log_warning("cannot write metrics file %s: %s, ignoring", metrics_path(d), strerror(-r));
	}
}

static void set_last_error(struct daemon *d, const char *msg)
{
	free(d->last_error);
	d->last_error = msg ? xstrdup(msg) : NULL;
}

static int epoll_add(int epfd, int fd, uint32_t tag)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.u32 = tag };

	return epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &ev) < 0 ? -errno : 0;
}

/* Closes a watcher; one from systemd's fd store leaves it too, or the
 * store's copy would keep the subscription (and its queue) alive. */
static void watch_free(struct exitwatch *w, bool stored)
{
	exitwatch_free(w);
	if (w && stored)
		watchstore_drop();
}

/* Opens the exit watcher and drainer the policy asks for (none when
 * drain.on_exit is false). stored, the socket systemd passed (or NULL), is
 * taken over: used when drains are on, closed when they are off. */
static int drain_open(const struct daemon_opts *o, const struct profile *p, struct exitwatch *stored,
		      struct exitwatch **ret_w, struct drainer **ret_d, struct mb_error *err)
{
	struct exitwatch *w = stored;
	struct drainer *dr = NULL;
	int r;

	*ret_w = NULL;
	*ret_d = NULL;
	if (!p->drain.on_exit) {
		watch_free(stored, true);
		return 0;
	}
	if (!w) {
		r = exitwatch_open(&w);
		if (r < 0) {
			mb_error_set(err, p->path, 0, 0, "cannot watch process exits: %s%s", strerror(-r),
				     r == -EPERM ? " (subscribing needs CAP_NET_ADMIN; under systemd, "
						   "ExecStartPre=+mmbatchd --open-exit-watcher passes a subscribed socket)"
						 : "");
			return r;
		}
	}
	r = drainer_new(o->root, &p->drain, &dr);
	if (r < 0) {
		watch_free(w, w == stored);
		mb_error_set(err, p->path, 0, 0, "cannot set up draining: %s", strerror(-r));
		return r;
	}
	*ret_w = w;
	*ret_d = dr;
	return 0;
}

static int drain_register(struct daemon *d)
{
	int r;

	if (!d->drainer)
		return 0;
	r = epoll_add(d->epfd, exitwatch_fd(d->watch), EV_EXITS);
	if (r == 0)
		r = epoll_add(d->epfd, drainer_timer_fd(d->drainer), EV_DRAIN);
	return r;
}

static void watch_close(struct daemon *d)
{
	if (d->watch)
		(void)epoll_ctl(d->epfd, EPOLL_CTL_DEL, exitwatch_fd(d->watch), NULL);
	watch_free(d->watch, d->watch_stored);
	d->watch = NULL;
	d->watch_stored = false;
}

static void drainer_close(struct daemon *d)
{
	if (d->drainer)
		(void)epoll_ctl(d->epfd, EPOLL_CTL_DEL, drainer_timer_fd(d->drainer), NULL);
	drainer_free(d->drainer);
	d->drainer = NULL;
}

static void drain_close(struct daemon *d)
{
	watch_close(d);
	drainer_close(d);
}

static bool drain_policy_equal(const struct drain_policy *a, const struct drain_policy *b)
{
	return a->on_exit == b->on_exit && a->min_rss_mb == b->min_rss_mb && a->max_per_second == b->max_per_second &&
	       a->method == b->method;
}

static void notify_status(const struct daemon *d)
{
	size_t applied = 0;

	for (size_t i = 0; d->plan && i < d->plan->n; i++)
		applied += !d->plan->items[i].absent;
	sdp_notifyf("STATUS=%s: %zu keys applied, drain on exit %s%s%s", d->p->path, applied,
		   d->drainer ? drain_method_name(d->plan->drain_method) : "off", d->last_error ? "; last error: " : "",
		   d->last_error ? d->last_error : "");
}

/* Keeps only the journal entries the current plan covers. */
static void journal_prune(struct journal *j, const struct plan *pl)
{
	size_t kept = 0;

	for (size_t i = 0; i < j->n; i++) {
		bool keep = false;

		for (size_t k = 0; k < pl->n && !keep; k++)
			keep = !pl->items[k].absent && strcmp(pl->items[k].k->path, j->entries[i].path) == 0;
		if (keep) {
			j->entries[kept++] = j->entries[i];
		} else {
			free(j->entries[i].path);
			free(j->entries[i].value);
		}
	}
	j->n = kept;
}

/* metricsdir.h: the error names where the path was set, the profile key
 * (FILE:LINE:COL) or --metrics-file (m NULL). */
static int check_metrics_file(const char *path, const struct mark *m, const char *state_dir, struct mb_error *err)
{
	return metricsdir_check(path, m ? m->file : NULL, m ? m->line : 0, m ? m->col : 0, state_dir, err);
}

/* SIGHUP: a new profile replaces the old one only when it loads, validates
 * and applies completely; otherwise the old settings stay as they are. */
static void reload(struct daemon *d)
{
	struct mb_error err = { "" };
	struct profile *np = NULL;
	struct plan *npl = NULL;
	struct drainer *nd = NULL;
	bool new_drain;
	int r;

	log_info("reloading %s", d->o->profile_path);
	sdp_notify("RELOADING=1");
	r = profile_load(d->o->profile_path, &np, &err);
	if (r == 0 && !d->o->metrics_file)
		r = check_metrics_file(np->metrics_file, &np->metrics_file_mark, d->o->state_dir, &err);
	if (r == 0)
		r = plan_new(np, d->o->root, &npl, &err);
	/* The watcher is opened at start only: CAP_NET_ADMIN, which opening
	 * and registering it needs, is gone after that (daemon_run()). A reload
	 * keeps it and replaces only the drainer; one that turns drains on
	 * without a watcher (none at start, or a socket error closed it) asks
	 * for a restart. */
	if (r == 0 && np->drain.on_exit && !d->watch) {
		mb_error_set(&err, np->path, 0, 0,
			     "drain.on_exit: the exit watcher is opened at start only (CAP_NET_ADMIN is dropped after "
			     "it): restart mmbatchd to turn exit drains on");
		r = -EPERM;
	}
	new_drain = r == 0 && !drain_policy_equal(&np->drain, &d->p->drain);
	if (r == 0 && new_drain && np->drain.on_exit) {
		r = drainer_new(d->o->root, &np->drain, &nd);
		if (r < 0)
			mb_error_set(&err, np->path, 0, 0, "cannot set up draining: %s", strerror(-r));
	}
	if (r == 0)
		r = plan_apply(npl, d->o->state_dir, &d->journal, &err);
	if (r < 0) {
		log_error("reload failed, keeping the previous settings: %s", err.msg);
		set_last_error(d, err.msg);
		drainer_free(nd);
		plan_free(npl);
		profile_free(np);
		goto out;
	}

	/* Knobs the old profile set and the new one does not go back. */
	r = journal_restore(d->journal, d->o->root, npl, &err);
	if (r < 0)
		log_error("restoring knobs the new profile dropped: %s", err.msg);
	journal_prune(d->journal, npl);
	r = journal_save(d->o->state_dir, d->journal);
	if (r < 0)
		log_error("cannot rewrite the journal: %s", strerror(-r));

	if (new_drain) {
		drainer_close(d);
		if (!np->drain.on_exit)
			watch_close(d);
		d->drainer = nd;
		r = nd ? epoll_add(d->epfd, drainer_timer_fd(nd), EV_DRAIN) : 0;
		if (r < 0)
			log_error("cannot watch the drain timer: %s", strerror(-r));
	}
	plan_free(d->plan);
	profile_free(d->p);
	d->p = np;
	d->plan = npl;
	d->reloads++;
	set_last_error(d, NULL);
	log_info("reloaded %s", d->p->path);
out:
	publish(d, "running");
	notify_status(d);
	sdp_notify("READY=1");
}

static void on_exit_event(const struct exit_event *ev, void *userdata)
{
	drainer_on_exit(userdata, ev);
}

static void handle_signal(struct daemon *d)
{
	struct signalfd_siginfo si;

	while (read(d->sigfd, &si, sizeof(si)) == sizeof(si)) {
		if (si.ssi_signo == SIGHUP)
			reload(d);
		else {
			log_info("received %s, stopping", strsignal((int)si.ssi_signo));
			d->stop = true;
		}
	}
}

static int handle_event(struct daemon *d, uint32_t tag)
{
	uint64_t ticks;
	int r;

	switch (tag) {
	case EV_SIGNAL:
		handle_signal(d);
		return 0;
	case EV_EXITS:
		if (!d->watch)	/* closed earlier in this epoll batch */
			return 0;
		r = exitwatch_dispatch(d->watch, on_exit_event, d->drainer);
		if (r < 0) {
			char msg[160];

			/* A broken netlink socket costs the drains, not the
			 * tuning: keep the applied settings and stop watching
			 * (only a start opens a new watcher, see reload()). */
			snprintf(msg, sizeof(msg), "reading exit events failed: %s; exit drains stopped until mmbatchd restarts",
				 strerror(-r));
			log_error("%s", msg);
			set_last_error(d, msg);
			drain_close(d);
			publish(d, "running");
		}
		return 0;
	case EV_DRAIN:
		if (!d->drainer)
			return 0;
		r = drainer_on_timer(d->drainer);
		if (r < 0) {
			char msg[128];

			snprintf(msg, sizeof(msg), "drain failed: %s", strerror(-r));
			set_last_error(d, msg);
		}
		publish(d, "running");
		return 0;
	case EV_WATCHDOG:
		if (read(d->wdfd, &ticks, sizeof(ticks)) == sizeof(ticks))
			sdp_notify("WATCHDOG=1");
		return 0;
	}
	return 0;
}

static int setup_watchdog(struct daemon *d)
{
	uint64_t usec = 0;
	struct itimerspec its;

	d->wdfd = -1;
	if (sdp_watchdog_usec(&usec) <= 0)
		return 0;
	/* Ping at half the interval, as systemd recommends. */
	usec /= 2;
	its.it_value.tv_sec = (time_t)(usec / 1000000);
	its.it_value.tv_nsec = (long)(usec % 1000000) * 1000;
	if (its.it_value.tv_sec == 0 && its.it_value.tv_nsec == 0)
		its.it_value.tv_nsec = 1000;
	its.it_interval = its.it_value;
	d->wdfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	if (d->wdfd < 0 || timerfd_settime(d->wdfd, 0, &its, NULL) < 0)
		return -errno;
	return epoll_add(d->epfd, d->wdfd, EV_WATCHDOG);
}

/* A journal left by a crash of the daemon in this boot holds the true
 * originals: put them back before taking a new baseline. One from another
 * boot describes values that are gone (journal.h): discard it. */
static int recover_journal(const struct daemon_opts *o, struct mb_error *err)
{
	char boot_id[BOOT_ID_MAX];
	struct journal *j = NULL;
	int r;

	r = boot_id_read(o->root, boot_id, sizeof(boot_id));
	if (r < 0) {
		mb_error_set(err, "mmbatchd", 0, 0, "cannot read the boot id (%s%s): %s", o->root, BOOT_ID_PATH,
			     strerror(-r));
		return r;
	}
	r = journal_load(o->state_dir, boot_id, &j, err);
	if (r == -ENOENT)
		return 0;
	if (r == -ESTALE) {
		log_notice("%s; its values did not survive the reboot, discarding it", err->msg);
		err->msg[0] = '\0';
		r = journal_remove(o->state_dir);
		if (r < 0)
			mb_error_set(err, o->state_dir, 0, 0, "cannot remove the journal: %s", strerror(-r));
		return r;
	}
	if (r < 0)
		return r;
	log_notice("found a journal from an earlier run in this boot (profile %s), restoring %zu value(s) first",
		   j->profile, j->n);
	r = journal_restore(j, o->root, NULL, err);
	journal_free(j);
	if (r < 0)
		return r;
	r = journal_remove(o->state_dir);
	if (r < 0)
		mb_error_set(err, o->state_dir, 0, 0, "cannot remove the journal: %s", strerror(-r));
	return r;
}

static int stop(struct daemon *d)
{
	struct mb_error err = { "" };
	int r;

	sdp_notify("STOPPING=1");
	if (d->journal && d->p->rollback == ROLLBACK_ON_STOP) {
		r = journal_restore(d->journal, d->o->root, NULL, &err);
		if (r < 0) {
			/* Keep the journal: the next start or --rollback retries. */
			log_error("rollback incomplete, keeping the journal: %s", err.msg);
			set_last_error(d, err.msg);
			return r;
		}
		log_info("rolled back %d value(s)", r);
	}
	r = journal_remove(d->o->state_dir);
	if (r < 0)
		log_error("cannot remove the journal: %s", strerror(-r));
	return r;
}

int daemon_run(const struct daemon_opts *o, struct profile *p, struct mb_error *err)
{
	struct daemon d = { .o = o, .p = p, .epfd = -1, .sigfd = -1, .wdfd = -1 };
	struct exitwatch *stored = NULL;
	sigset_t mask;
	int r;

	r = check_metrics_file(metrics_path(&d), o->metrics_file ? NULL : &p->metrics_file_mark, o->state_dir, err);
	if (r < 0)
		goto out;
	r = recover_journal(o, err);
	if (r < 0)
		goto out;
	/* Validate again: the restore changed the current values. */
	r = plan_new(p, o->root, &d.plan, err);
	if (r < 0)
		goto out;
	/* The subscribed socket of the unit's ExecStartPre=+, if systemd passed
	 * one: then this process never needs CAP_NET_ADMIN. */
	r = watchstore_take(&stored, err);
	if (r < 0)
		goto out;
	r = drain_open(o, p, stored, &d.watch, &d.drainer, err);
	if (r < 0)
		goto out;
	d.watch_stored = d.watch && d.watch == stored;
	/* The watcher is registered: CAP_NET_ADMIN (any netlink socket in the
	 * host's network namespace) is not needed any more, drop it for good.
	 * caps_drop() calls capset(2) only while we hold it: never under
	 * mmbatchd.service, whose bounding set lacks it (its SystemCallFilter=
	 * refuses capset). */
	r = caps_drop(CAP_NET_ADMIN);
	if (r < 0) {
		mb_error_set(err, "mmbatchd", 0, 0, "cannot drop CAP_NET_ADMIN: %s", strerror(-r));
		goto out;
	}

	sigemptyset(&mask);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGHUP);
	d.epfd = epoll_create1(EPOLL_CLOEXEC);
	d.sigfd = signalfd(-1, &mask, SFD_NONBLOCK | SFD_CLOEXEC);
	if (d.epfd < 0 || d.sigfd < 0) {
		r = -errno;
		mb_error_set(err, "mmbatchd", 0, 0, "cannot set up the event loop: %s", strerror(-r));
		goto out;
	}
	r = epoll_add(d.epfd, d.sigfd, EV_SIGNAL);
	if (r == 0)
		r = drain_register(&d);
	if (r == 0)
		r = setup_watchdog(&d);
	if (r < 0) {
		mb_error_set(err, "mmbatchd", 0, 0, "cannot set up the event loop: %s", strerror(-r));
		goto out;
	}

	r = plan_apply(d.plan, o->state_dir, &d.journal, err);
	if (r < 0)
		goto out;
	log_info("applied %s: %d value(s) changed, drain on exit %s", p->path, r,
		 d.drainer ? drain_method_name(d.plan->drain_method) : "off");
	publish(&d, "running");
	notify_status(&d);
	sdp_notify("READY=1");

	r = 0;
	while (!d.stop && r == 0) {
		struct epoll_event evs[8];
		int n = epoll_wait(d.epfd, evs, 8, -1);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			r = -errno;
			log_error("epoll_wait failed: %s", strerror(-r));
			break;
		}
		/* A hard error (the exit-event socket broke) stops the daemon with
		 * its rollback; systemd's Restart=on-failure starts it afresh. */
		for (int i = 0; i < n && !d.stop && r == 0; i++)
			r = handle_event(&d, evs[i].data.u32);
	}
	{
		int sr = stop(&d);

		publish(&d, sr < 0 ? "failed" : "stopped");
		if (sr < 0 && r == 0)
			r = sr;
	}
	err->msg[0] = '\0';
out:
	drain_close(&d);
	if (d.wdfd >= 0)
		close(d.wdfd);
	if (d.sigfd >= 0)
		close(d.sigfd);
	if (d.epfd >= 0)
		close(d.epfd);
	journal_free(d.journal);
	plan_free(d.plan);
	profile_free(d.p);
	free(d.last_error);
	return r;
}
