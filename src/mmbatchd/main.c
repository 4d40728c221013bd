/* mmbatchd: applies an mm tuning profile (sysctl/sysfs) with exact rollback
 * and drains per-CPU caches after large processes exit.
 *
 * main() parses the command line and runs one mode; exit status 0 on
 * success, 1 on a runtime failure (or drift for --verify), 2 on bad input
 * (usage, profile or journal errors, printed as FILE:LINE:COL: message). */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "plan.h"
#include "daemon.h"
#include "journal.h"
#include "keys.h"
#include "log.h"
#include "metricsdir.h"
#include "profile.h"
#include "statedir.h"
#include "status.h"
#include "watchstore.h"

#define STATE_DIR_DEFAULT "/var/lib/mmbatch"
/* The package version: specs/mmbatchd/VERSION, passed in by the build
 * (mk/common.mk, -DMB_PKG_VERSION). */
#ifndef MB_PKG_VERSION
#error "MB_PKG_VERSION is not defined: build with make (mk/common.mk defines it from specs/mmbatchd/VERSION)"
#endif

enum mode { MODE_NONE, MODE_HELP, MODE_VERSION, MODE_DAEMON, MODE_CHECK, MODE_PLAN, MODE_ONCE, MODE_VERIFY, MODE_ROLLBACK, MODE_STATUS,
	    MODE_SHOW_SMOKE, MODE_LIST_KEYS, MODE_OPEN_WATCHER };

enum { EXIT_FAIL = 1, EXIT_BAD_INPUT = 2 };

static void usage(FILE *f)
{
	fputs("usage: mmbatchd --profile FILE [--root DIR] [--state-dir DIR] [--foreground] [--metrics-file PATH]\n"
	      "       mmbatchd --check FILE | --plan FILE | --once FILE | --verify FILE | --show-smoke FILE\n"
	      "       mmbatchd --rollback | --status | --list-keys | --open-exit-watcher\n"
	      "       mmbatchd --help | --version\n"
	      "options:\n"
	      "  --check FILE         validate FILE (and its metrics file) against the running\n"
	      "                       kernel, write nothing\n"
	      "  --foreground         stay in the foreground (as under systemd)\n"
	      "  --help               print this help and exit\n"
	      "  --list-keys          print the sysctl keys a profile may set, with why\n"
	      "  --log-level LEVEL    debug, info (default), notice, warning, error\n"
	      "  --metrics-file PATH  also write Prometheus textfile metrics to PATH\n"
	      "  --once FILE          apply FILE and exit, leaving the journal for --rollback\n"
	      "  --open-exit-watcher  subscribe a taskstats socket and hand it to systemd's\n"
	      "                       fd store for the daemon (mmbatchd.service's\n"
	      "                       ExecStartPre=+; needs CAP_NET_ADMIN)\n"
	      "  --plan FILE          print current -> target for every key, write nothing\n"
	      "  --profile FILE       run as a daemon with FILE\n"
	      "  --profile-dir DIR    where bare include names are looked up last\n"
	      "                       (default " PROFILE_DIR_DEFAULT ")\n"
	      "  --rollback           restore every value the journal holds, remove it\n"
	      "  --root DIR           prefix every /proc and /sys path with DIR (tests)\n"
	      "  --show-smoke FILE    print FILE's smoke section as JSON\n"
	      "  --state-dir DIR      journal, status.json, lock (default " STATE_DIR_DEFAULT ")\n"
	      "  --status             print the daemon's state as JSON\n"
	      "  --verbose            the same as --log-level debug\n"
	      "  --verify FILE        exit 0 when live values match FILE, 1 listing drifted keys\n"
	      "  --version            print the package version and exit\n"
	      "see mmbatchd(8), mmbatchd.yaml(5)\n",
	      f);
}

struct cli {
	enum mode mode;
	const char *file;
	const char *root;
	const char *state_dir;
	const char *metrics_file;
	bool foreground;
};

static int set_mode(struct cli *c, enum mode m, const char *file)
{
	if (c->mode != MODE_NONE) {
		fprintf(stderr, "mmbatchd: only one of --profile, --check, --plan, --once, --verify, --rollback, --status, --show-smoke, --list-keys, --open-exit-watcher\n");
		return -EINVAL;
	}
	c->mode = m;
	c->file = file;
	return 0;
}

static int set_log_level(const char *name)
{
	static const struct {
		const char *name;
		int level;
	} levels[] = { { "debug", LOG_DEBUG }, { "info", LOG_INFO }, { "notice", LOG_NOTICE },
		       { "warning", LOG_WARNING }, { "error", LOG_ERR } };

	for (size_t i = 0; i < sizeof(levels) / sizeof(levels[0]); i++) {
		if (strcmp(name, levels[i].name) == 0) {
			mb_log_set_level(levels[i].level);
			return 0;
		}
	}
	fprintf(stderr, "mmbatchd: unknown --log-level '%s' (debug, info, notice, warning, error)\n", name);
	return -EINVAL;
}

static int parse_cli(int argc, char **argv, struct cli *c)
{
	enum { O_ROOT = 256, O_STATE_DIR, O_FOREGROUND, O_CHECK, O_PLAN, O_ONCE, O_VERIFY, O_ROLLBACK, O_STATUS,
	       O_SHOW_SMOKE, O_METRICS, O_PROFILE_DIR, O_VERBOSE, O_LOG_LEVEL, O_HELP, O_LIST_KEYS, O_VERSION,
	       O_OPEN_WATCHER };
	static const struct option opts[] = {
		{ "profile", required_argument, NULL, 'p' },
		{ "root", required_argument, NULL, O_ROOT },
		{ "state-dir", required_argument, NULL, O_STATE_DIR },
		{ "foreground", no_argument, NULL, O_FOREGROUND },
		{ "check", required_argument, NULL, O_CHECK },
		{ "plan", required_argument, NULL, O_PLAN },
		{ "once", required_argument, NULL, O_ONCE },
		{ "verify", required_argument, NULL, O_VERIFY },
		{ "rollback", no_argument, NULL, O_ROLLBACK },
		{ "status", no_argument, NULL, O_STATUS },
		{ "show-smoke", required_argument, NULL, O_SHOW_SMOKE },
		{ "metrics-file", required_argument, NULL, O_METRICS },
		{ "profile-dir", required_argument, NULL, O_PROFILE_DIR },
		{ "verbose", no_argument, NULL, O_VERBOSE },
		{ "log-level", required_argument, NULL, O_LOG_LEVEL },
		{ "help", no_argument, NULL, O_HELP },
		{ "list-keys", no_argument, NULL, O_LIST_KEYS },
		{ "version", no_argument, NULL, O_VERSION },
		{ "open-exit-watcher", no_argument, NULL, O_OPEN_WATCHER },
		{ 0 },
	};
	int opt, r = 0;

	*c = (struct cli){ .root = "", .state_dir = STATE_DIR_DEFAULT };
	while (r == 0 && (opt = getopt_long(argc, argv, "p:", opts, NULL)) != -1) {
		switch (opt) {
		case 'p': r = set_mode(c, MODE_DAEMON, optarg); break;
		case O_ROOT: c->root = optarg; break;
		case O_STATE_DIR: c->state_dir = optarg; break;
		case O_FOREGROUND: c->foreground = true; break;
		case O_CHECK: r = set_mode(c, MODE_CHECK, optarg); break;
		case O_PLAN: r = set_mode(c, MODE_PLAN, optarg); break;
		case O_ONCE: r = set_mode(c, MODE_ONCE, optarg); break;
		case O_VERIFY: r = set_mode(c, MODE_VERIFY, optarg); break;
		case O_ROLLBACK: r = set_mode(c, MODE_ROLLBACK, NULL); break;
		case O_STATUS: r = set_mode(c, MODE_STATUS, NULL); break;
		case O_SHOW_SMOKE: r = set_mode(c, MODE_SHOW_SMOKE, optarg); break;
		case O_LIST_KEYS: r = set_mode(c, MODE_LIST_KEYS, NULL); break;
		case O_OPEN_WATCHER: r = set_mode(c, MODE_OPEN_WATCHER, NULL); break;
		case O_METRICS: c->metrics_file = optarg; break;
		case O_PROFILE_DIR: profile_set_search_dir(optarg); break;
		case O_VERBOSE: mb_log_set_level(LOG_DEBUG); break;
		case O_LOG_LEVEL: r = set_log_level(optarg); break;
		case O_HELP: c->mode = MODE_HELP; return 0;
		case O_VERSION: c->mode = MODE_VERSION; return 0;
		default: r = -EINVAL; break;
		}
	}
	if (r == 0 && optind < argc) {
		fprintf(stderr, "mmbatchd: unexpected argument '%s'\n", argv[optind]);
		r = -EINVAL;
	}
	if (r == 0 && c->mode == MODE_NONE) {
		fprintf(stderr, "mmbatchd: no mode given\n");
		r = -EINVAL;
	}
	if (r == 0 && c->root[0] && c->root[0] != '/') {
		fprintf(stderr, "mmbatchd: --root must be an absolute path\n");
		r = -EINVAL;
	}
	/* "--root /" means the host. */
	if (r == 0 && strcmp(c->root, "/") == 0)
		c->root = "";
	if (r < 0)
		usage(stderr);
	return r;
}

static int load_and_plan(const struct cli *c, struct profile **ret_p, struct plan **ret_pl)
{
	struct mb_error err = { "" };
	int r;

	r = profile_load(c->file, ret_p, &err);
	if (r == 0 && ret_pl) {
		r = plan_new(*ret_p, c->root, ret_pl, &err);
		if (r < 0) {
			profile_free(*ret_p);
			*ret_p = NULL;
		}
	}
	if (r < 0)
		fprintf(stderr, "%s\n", err.msg);
	return r;
}

/* Loads the journal of this boot. Returns 0 with *ret, -ENOENT when there
 * is none (a journal of another boot is discarded with a log line and
 * counts as none), or EXIT_BAD_INPUT/EXIT_FAIL after printing why. */
static int load_boot_journal(const struct cli *c, struct journal **ret)
{
	char boot_id[BOOT_ID_MAX];
	struct mb_error err = { "" };
	int r;

	r = boot_id_read(c->root, boot_id, sizeof(boot_id));
	if (r < 0) {
		fprintf(stderr, "mmbatchd: cannot read the boot id (%s%s): %s\n", c->root, BOOT_ID_PATH, strerror(-r));
		return EXIT_FAIL;
	}
	r = journal_load(c->state_dir, boot_id, ret, &err);
	if (r == -ESTALE) {
		log_notice("%s; its values did not survive the reboot, discarding it", err.msg);
		r = journal_remove(c->state_dir);
		if (r < 0) {
			fprintf(stderr, "mmbatchd: cannot remove the journal: %s\n", strerror(-r));
			return EXIT_FAIL;
		}
		return -ENOENT;
	}
	if (r < 0 && r != -ENOENT) {
		fprintf(stderr, "%s\n", err.msg);
		return EXIT_BAD_INPUT;
	}
	return r;
}

static int run_rollback(const struct cli *c)
{
	struct mb_error err = { "" };
	struct journal *j = NULL;
	int r;

	r = load_boot_journal(c, &j);
	if (r == -ENOENT) {
		log_info("no journal of this boot in %s, nothing to roll back", c->state_dir);
		return 0;
	}
	if (r != 0)
		return r;
	r = journal_restore(j, c->root, NULL, &err);
	journal_free(j);
	if (r < 0) {
		fprintf(stderr, "mmbatchd: rollback: %s\n", err.msg);
		return r == -EPERM ? EXIT_BAD_INPUT : EXIT_FAIL;
	}
	log_info("rolled back %d value(s)", r);
	r = journal_remove(c->state_dir);
	if (r < 0) {
		fprintf(stderr, "mmbatchd: cannot remove the journal: %s\n", strerror(-r));
		return EXIT_FAIL;
	}
	return 0;
}

static int run_once(const struct cli *c, const struct plan *pl)
{
	struct mb_error err = { "" };
	struct journal *j = NULL;
	int r;

	/* An earlier --once in this boot left a journal: its originals win. */
	r = load_boot_journal(c, &j);
	if (r != 0 && r != -ENOENT)
		return r;
	r = plan_apply(pl, c->state_dir, &j, &err);
	journal_free(j);
	if (r < 0) {
		fprintf(stderr, "%s\n", err.msg);
		return EXIT_FAIL;
	}
	log_info("applied %s: %d value(s) changed; journal in %s/%s", pl->p->path, r, c->state_dir, JOURNAL_NAME);
	return 0;
}

static int run_daemon(const struct cli *c, struct profile *p)
{
	struct daemon_opts o = { .profile_path = c->file, .root = c->root, .state_dir = c->state_dir,
				 .metrics_file = c->metrics_file, .foreground = c->foreground };
	struct mb_error err = { "" };
	int r;

	if (!c->foreground && !getenv("INVOCATION_ID")) {
		if (daemon(0, 0) < 0) {
			fprintf(stderr, "mmbatchd: cannot daemonize: %m\n");
			profile_free(p);
			return EXIT_FAIL;
		}
		mb_log_to_journal(1);
	}
	r = daemon_run(&o, p, &err);
	if (r < 0 && err.msg[0])
		log_error("%s", err.msg);
	return r < 0 ? (r == -EPERM && err.msg[0] ? EXIT_BAD_INPUT : EXIT_FAIL) : 0;
}

static void block_daemon_signals(void)
{
	sigset_t mask;

	sigemptyset(&mask);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGHUP);
	sigprocmask(SIG_BLOCK, &mask, NULL);
}

int main(int argc, char **argv)
{
	struct profile *p = NULL;
	struct plan *pl = NULL;
	struct cli c;
	int r, lock = -1, status = 0;

	if (parse_cli(argc, argv, &c) < 0)
		return EXIT_BAD_INPUT;

	switch (c.mode) {
	case MODE_HELP:
		usage(stdout);
		break;
	case MODE_VERSION:
		printf("mmbatchd %s\n", MB_PKG_VERSION);
		break;
	case MODE_LIST_KEYS:
		mm_keys_print(stdout);
		break;
	case MODE_OPEN_WATCHER: {
		/* Privileged and before the sandbox: reads no profile, nothing
		 * but the kernel's CPU list (watchstore.h). */
		struct mb_error err = { "" };

		if (watchstore_put(&err) < 0) {
			fprintf(stderr, "%s\n", err.msg);
			status = EXIT_FAIL;
		}
		break;
	}
	case MODE_SHOW_SMOKE: {
		char *json;

		if (load_and_plan(&c, &p, NULL) < 0)
			return EXIT_BAD_INPUT;
		json = profile_smoke_json(p);
		printf("%s\n", json);
		free(json);
		break;
	}
	case MODE_STATUS:
		r = status_print(c.state_dir, stdout);
		if (r < 0) {
			fprintf(stderr, "mmbatchd: cannot read %s/%s: %s\n", c.state_dir, STATUS_NAME, strerror(-r));
			status = EXIT_FAIL;
		}
		break;
	case MODE_CHECK:
	case MODE_PLAN:
	case MODE_VERIFY:
		if (load_and_plan(&c, &p, &pl) < 0)
			return EXIT_BAD_INPUT;
		if (c.mode == MODE_CHECK) {
			struct mb_error err = { "" };
			const struct mark *m = &p->metrics_file_mark;
			size_t absent = 0;

			/* The daemon's own check (metricsdir.h), so that --check
			 * never passes a path the daemon then refuses. */
			if (metricsdir_check(c.metrics_file ? c.metrics_file : p->metrics_file,
					     c.metrics_file ? NULL : m->file, m->line, m->col, c.state_dir, &err) < 0) {
				fprintf(stderr, "%s\n", err.msg);
				status = EXIT_BAD_INPUT;
				break;
			}

			for (size_t i = 0; i < pl->n; i++)
				absent += pl->items[i].absent;
			printf("%s: ok (%zu keys, %zu optional absent)\n", c.file, pl->n, absent);
		}
		else if (c.mode == MODE_PLAN)
			plan_print(pl, stdout);
		else {
			r = plan_verify(pl, stdout);
			if (r < 0)
				fprintf(stderr, "mmbatchd: cannot read back the live values: %s\n", strerror(-r));
			status = r == 0 ? 0 : EXIT_FAIL;
		}
		break;
	case MODE_ONCE:
	case MODE_DAEMON:
		if (load_and_plan(&c, &p, &pl) < 0)
			return EXIT_BAD_INPUT;
		/* The daemon takes its signals through a signalfd, never as
		 * handlers; blocked from here on, before the first write. The
		 * one-shot modes keep the default actions, so that timeout(1)
		 * or ^C can always stop them. */
		if (c.mode == MODE_DAEMON)
			block_daemon_signals();
		lock = statedir_open(c.state_dir);
		if (lock < 0) {
			status = EXIT_FAIL;
			break;
		}
		if (c.mode == MODE_ONCE) {
			status = run_once(&c, pl);
			break;
		}
		plan_free(pl);
		pl = NULL;
		status = run_daemon(&c, p);
		p = NULL;
		break;
	case MODE_ROLLBACK:
		lock = statedir_open(c.state_dir);
		if (lock < 0) {
			status = EXIT_FAIL;
			break;
		}
		status = run_rollback(&c);
		break;
	case MODE_NONE:
		break;
	}
	if (lock >= 0)
		close(lock);
	plan_free(pl);
	profile_free(p);
	return status;
}
