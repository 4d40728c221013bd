# The test harness itself: tests/lib/assert.sh (the one assertion library),
# tests/lib/run-suite.sh and the ONLY selector, tested before any stage
# relies on them.

## test: check-harness  every assertion of tests/lib/assert.sh passes a true case and fails a false one
PHONY += check-harness
check-harness: | deps-base
	@$(TOP)/tests/harness/run.sh
