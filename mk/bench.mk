# mmbench: the benchmarks (dynamic and static binaries), their unit tests and
# the check stages.
#
# Every src/mmbench/*.c is part of mmbench (main.c only in the binary);
# every tests/mmbench/unit/test_*.c is a cmocka test linked against the other
# objects; tests/mmbench/*_test.sh are scenarios run by tests/mmbench/run.sh.
# The static binary (for the VM harness's busybox initramfs) is built only
# without SAN=1: sanitizers do not link statically.

MMB_SRC_DIR  := $(TOP)/src/mmbench
MMB_TEST_DIR := $(TOP)/tests/mmbench
MMB_SRC      := $(wildcard $(MMB_SRC_DIR)/*.c)
MMB_OBJ      := $(patsubst $(MMB_SRC_DIR)/%.c,$(OBJ_DIR)/mmbench/%.o,$(MMB_SRC))
MMB_LIB_OBJ  := $(filter-out %/main.o,$(MMB_OBJ))
MMB_STATIC_OBJ := $(patsubst $(MMB_SRC_DIR)/%.c,$(OUT)/obj/static/mmbench/%.o,$(MMB_SRC))
MMB_LIBS     := -ljansson -lm -pthread
MMB_UNIT_SRC := $(wildcard $(MMB_TEST_DIR)/unit/test_*.c)
MMB_UNIT_BIN := $(patsubst $(MMB_TEST_DIR)/unit/%.c,$(BIN_DIR)/mmbench-unit/%,$(MMB_UNIT_SRC))
MMB_STATIC   := $(OUT)/bin/static/mmbench
MMB_BINS     := $(BIN_DIR)/mmbench $(if $(filter 1,$(SAN)),,$(MMB_STATIC))

## build: mmbench  build out/bin/mmbench and out/bin/static/mmbench (SAN=1: out/san/bin/mmbench)
PHONY += mmbench
mmbench: $(MMB_BINS)
TOOLS_TARGETS += mmbench

$(BIN_DIR)/mmbench: $(MMB_OBJ) | deps-bench
	@mkdir -p $(@D) && $(CC) $(MB_LDFLAGS) -o $@ $^ $(MMB_LIBS)

$(OBJ_DIR)/mmbench/%.o: $(MMB_SRC_DIR)/%.c | deps-bench
	@mkdir -p $(@D) && $(CC) $(MB_CFLAGS) -pthread -MMD -MP -c -o $@ $<

$(MMB_STATIC): $(MMB_STATIC_OBJ) | deps-bench
	@mkdir -p $(@D) && $(CC) -static -o $@ $^ $(MMB_LIBS)

$(OUT)/obj/static/mmbench/%.o: $(MMB_SRC_DIR)/%.c | deps-bench
	@mkdir -p $(@D) && $(CC) $(MB_CFLAGS) -pthread -MMD -MP -c -o $@ $<

$(OBJ_DIR)/mmbench-unit/%.o: $(MMB_TEST_DIR)/unit/%.c | deps-bench
	@mkdir -p $(@D) && $(CC) $(MB_CFLAGS) -I$(MMB_SRC_DIR) -MMD -MP -c -o $@ $<

$(BIN_DIR)/mmbench-unit/%: $(OBJ_DIR)/mmbench-unit/%.o $(MMB_LIB_OBJ)
	@mkdir -p $(@D) && $(CC) $(MB_LDFLAGS) -o $@ $^ $(MMB_LIBS) -lcmocka

-include $(MMB_OBJ:.o=.d) $(MMB_STATIC_OBJ:.o=.d) $(patsubst $(BIN_DIR)/mmbench-unit/%,$(OBJ_DIR)/mmbench-unit/%.d,$(MMB_UNIT_BIN))

## test: check-bench  mmbench unit tests, --quick runs + schema, compare, smoke script, valgrind
PHONY += check-bench
check-bench: $(MMB_BINS) $(MMB_UNIT_BIN) $(BIN_DIR)/mmbatchd
	@MMBENCH=$(BIN_DIR)/mmbench MMB_UNIT_DIR=$(BIN_DIR)/mmbench-unit MMBATCHD=$(BIN_DIR)/mmbatchd $(TOP)/tests/mmbench/run.sh

## test: check-bench-san  the same suite built with ASan+UBSan
PHONY += check-bench-san
check-bench-san:
	@$(MAKE) --no-print-directory SAN=1 check-bench
.PRECIOUS: $(OBJ_DIR)/mmbench-unit/%.o
