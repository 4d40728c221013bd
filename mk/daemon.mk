# mmbatchd: the tuning daemon, its unit tests, shell tests, fuzzer and leak check.
#
# Every src/mmbatchd/*.c is part of the daemon (main.c only in the binary);
# every tests/mmbatchd/unit/test_*.c is a cmocka test linked against the other
# daemon objects; every tests/mmbatchd/*_test.sh is a scenario. Each stage
# runs tests/mmbatchd/run.sh (suite, valgrind or fuzz; ONLY selects tests).
# SAN=1 builds all of it with ASan+UBSan.

MBD_SRC_DIR  := $(TOP)/src/mmbatchd
MBD_TEST_DIR := $(TOP)/tests/mmbatchd
MBD_SRC      := $(wildcard $(MBD_SRC_DIR)/*.c)
MBD_OBJ      := $(patsubst $(MBD_SRC_DIR)/%.c,$(OBJ_DIR)/mmbatchd/%.o,$(MBD_SRC))
MBD_LIB_OBJ  := $(filter-out %/main.o,$(MBD_OBJ))
MBD_LIBS     := -lyaml
MBD_UNIT_SRC := $(wildcard $(MBD_TEST_DIR)/unit/test_*.c)
MBD_UNIT_BIN := $(patsubst $(MBD_TEST_DIR)/unit/%.c,$(BIN_DIR)/mmbatchd-unit/%,$(MBD_UNIT_SRC))
MBD_UNIT_OBJ := $(patsubst $(MBD_TEST_DIR)/unit/%.c,$(OBJ_DIR)/mmbatchd-unit/%.o,$(MBD_UNIT_SRC))
MBD_FUZZ_DIR := $(OUT)/fuzz
MBD_FUZZ_OBJ := $(patsubst $(MBD_SRC_DIR)/%.c,$(MBD_FUZZ_DIR)/obj/%.o,$(filter-out %/main.c,$(MBD_SRC)))
MBD_FUZZ_FLAGS := -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -O1 -g -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all
# Seconds of fuzzing: short in `make check`, longer with `make fuzz`.
FUZZ_SECONDS ?= 600

## build: daemon  build out/bin/mmbatchd (SAN=1: out/san/bin/mmbatchd)
PHONY += daemon
daemon: $(BIN_DIR)/mmbatchd
TOOLS_TARGETS += daemon

$(BIN_DIR)/mmbatchd: $(MBD_OBJ) | deps-daemon
	@mkdir -p $(@D) && $(CC) $(MB_LDFLAGS) -o $@ $^ $(MBD_LIBS)

$(OBJ_DIR)/mmbatchd/%.o: $(MBD_SRC_DIR)/%.c | deps-daemon
	@mkdir -p $(@D) && $(CC) $(MB_CFLAGS) -MMD -MP -c -o $@ $<

$(OBJ_DIR)/mmbatchd-unit/%.o: $(MBD_TEST_DIR)/unit/%.c | deps-daemon
	@mkdir -p $(@D) && $(CC) $(MB_CFLAGS) -I$(MBD_SRC_DIR) -MMD -MP -c -o $@ $<

$(BIN_DIR)/mmbatchd-unit/%: $(OBJ_DIR)/mmbatchd-unit/%.o $(MBD_LIB_OBJ)
	@mkdir -p $(@D) && $(CC) $(MB_LDFLAGS) $(MBD_UNIT_LDFLAGS) -o $@ $^ $(MBD_LIBS) -lcmocka

# test_plan makes knob writes fail on purpose through a linker wrap.
$(BIN_DIR)/mmbatchd-unit/test_plan: MBD_UNIT_LDFLAGS := -Wl,--wrap=knob_write
.SECONDARY: $(MBD_UNIT_OBJ)

$(MBD_FUZZ_DIR)/obj/%.o: $(MBD_SRC_DIR)/%.c | deps-daemon
	@mkdir -p $(@D) && clang $(MBD_FUZZ_FLAGS) -MMD -MP -c -o $@ $<

$(MBD_FUZZ_DIR)/fuzz_profile: $(MBD_TEST_DIR)/fuzz/fuzz_profile.c $(MBD_FUZZ_OBJ)
	@mkdir -p $(@D) && clang $(subst fuzzer-no-link,fuzzer,$(MBD_FUZZ_FLAGS)) -I$(MBD_SRC_DIR) -o $@ $^ $(MBD_LIBS)

-include $(MBD_OBJ:.o=.d) $(MBD_FUZZ_OBJ:.o=.d) $(MBD_UNIT_OBJ:.o=.d)

# sd_notify's receiving end for tests/mmbatchd/notify_test.sh.
$(BIN_DIR)/mmbatchd-notify-listen: $(MBD_TEST_DIR)/notify/notify_listen.c | deps-daemon
	@mkdir -p $(@D) && $(CC) $(MB_CFLAGS) $(MB_LDFLAGS) -o $@ $<

# systemd's fd store and barrier for one start, for tests/mmbatchd/caps_test.sh.
$(BIN_DIR)/mmbatchd-fdstore-listen: $(MBD_TEST_DIR)/notify/fdstore_listen.c | deps-daemon
	@mkdir -p $(@D) && $(CC) $(MB_CFLAGS) $(MB_LDFLAGS) -o $@ $<

## test: check-daemon  mmbatchd unit tests, malformed profiles, scenario tests
PHONY += check-daemon
check-daemon: $(BIN_DIR)/mmbatchd $(MBD_UNIT_BIN) $(BIN_DIR)/mmbatchd-notify-listen $(BIN_DIR)/mmbatchd-fdstore-listen
	@MMBATCHD=$(BIN_DIR)/mmbatchd MBD_UNIT_DIR=$(BIN_DIR)/mmbatchd-unit $(TOP)/tests/mmbatchd/run.sh

## test: check-daemon-san  the same suite built with ASan+UBSan
PHONY += check-daemon-san
check-daemon-san:
	@$(MAKE) --no-print-directory SAN=1 check-daemon

## test: check-daemon-valgrind  valgrind leak check of a load/apply/rollback cycle
PHONY += check-daemon-valgrind
check-daemon-valgrind: $(BIN_DIR)/mmbatchd $(BIN_DIR)/mmbatchd-fdstore-listen
	@MMBATCHD=$(BIN_DIR)/mmbatchd $(TOP)/tests/mmbatchd/run.sh valgrind

## test: check-daemon-fuzz  the profile-loader fuzzer for 60 s
## test: fuzz  the profile-loader fuzzer for FUZZ_SECONDS (default 600)
PHONY += check-daemon-fuzz fuzz
check-daemon-fuzz: FUZZ_SECONDS := 60
check-daemon-fuzz fuzz: $(MBD_FUZZ_DIR)/fuzz_profile
	@FUZZ_BIN=$< FUZZ_SECONDS=$(FUZZ_SECONDS) $(TOP)/tests/mmbatchd/run.sh fuzz
