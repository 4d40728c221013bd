# mmbatchd beyond the core: the exit-drain test helper and the side-by-side
# benchmark against TuneD (`make bench-daemon`, not part of `make check`: it
# prints figures, it asserts nothing).

MBD_HELPER_DIR := $(TOP)/tests/mmbatchd/helpers

# The process the exit-drain scenario spawns (tests/mmbatchd/exit_watch_test.sh
# finds it next to the daemon binary). check-daemon builds it too. Never with
# sanitizers, even for SAN=1: LeakSanitizer's exit-time tracer is a second
# process sharing the mm, which the watcher rightly reports as another exit.
MBD_HELPER_CFLAGS := -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -O2 -g
$(BIN_DIR)/mmbatchd-memtouch: $(MBD_HELPER_DIR)/exit_memtouch.c | deps-base
	@mkdir -p $(@D) && $(CC) $(MBD_HELPER_CFLAGS) -o $@ $<
check-daemon: $(BIN_DIR)/mmbatchd-memtouch

## bench: bench-daemon  mmbatchd vs TuneD 2.20: RSS, exec-to-applied, idle wake-ups
PHONY += bench-daemon
bench-daemon: $(BIN_DIR)/mmbatchd | deps-daemon-bench
	@MMBATCHD=$(BIN_DIR)/mmbatchd $(TOP)/tools/bench-daemon/bench.sh
